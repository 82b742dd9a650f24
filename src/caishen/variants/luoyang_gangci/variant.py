"""Luoyang Gangci as a :class:`~caishen.variants.base.Variant` for the registry."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from caishen import ruleset as rs
from caishen.variants.base import Ledger, RuleItem, VariantRules
from caishen.variants.luoyang_gangci.payments import KongKind, Payment, kong_payments, win_payments
from caishen.variants.luoyang_gangci.rules import DEFAULT, PRESETS, GangciRules
from caishen.variants.luoyang_gangci.settlement import GangciLedger
from caishen.variants.luoyang_gangci.wins import GangciWin


class LuoyangGangci:
    """洛阳杠次: 136 tiles with White, no flowers, no chow, a face-up 次牌, wins by kong."""

    name: Final = "luoyang-gangci"
    title: Final = "Luoyang Gangci 洛阳杠次"

    @property
    def presets(self) -> Mapping[str, VariantRules]:
        return PRESETS

    def load_rules(self, source: str | Path) -> GangciRules:
        return rs.load(source, PRESETS, DEFAULT.name)

    def rule_items(self, rules: VariantRules) -> tuple[RuleItem, ...]:
        """Every payment (G2): kongs during the hand, then each win type, as one payer pays."""
        assert isinstance(rules, GangciRules)
        pays: list[Payment] = []
        for kind in KongKind:
            pays.extend(kong_payments(kind, 0, rules, None if kind is KongKind.CONCEALED else 1))
        for how in GangciWin:
            pays.extend(win_payments(how, 0, rules, 1 if how in (GangciWin.ZHI_CI, GangciWin.XU_CI) else None))
        seen: dict[str, RuleItem] = {}
        for p in pays:
            seen.setdefault(p.item.value, RuleItem(
                p.item.value, p.rule, p.item.chinese, p.item.english, "chips", f"{p.amount} ({p.formula})",
                "each payer"))
        return tuple(seen.values())

    def ledger(self, rules: VariantRules, players: int) -> Ledger:
        """Chips of a four-player match (G2, G8)."""
        assert isinstance(rules, GangciRules)
        return GangciLedger(rules, players)


VARIANT: Final = LuoyangGangci()
