"""Longgang as a :class:`~caishen.variants.base.Variant` for the registry."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from caishen.variants.base import Ledger, RuleItem, VariantRules
from caishen.variants.longgang.ledger import LonggangLedger
from caishen.variants.longgang.rules import PRESETS, Ruleset, load_ruleset
from caishen.variants.longgang.scoring import SCORING_ITEMS, Limit


class Longgang:
    """龙港麻将 (Wenzhou): 16-tile hands, flowers, a turned wild 财神, 胡数/台数 and chips."""

    name: Final = "longgang"
    title: Final = "Longgang mahjong 龙港麻将"

    @property
    def presets(self) -> Mapping[str, VariantRules]:
        return PRESETS

    def load_rules(self, source: str | Path) -> Ruleset:
        return load_ruleset(source)

    def rule_items(self, rules: VariantRules) -> tuple[RuleItem, ...]:
        """The scoring items 计分项 (L19-L23) and then the limit hands 腊子 (L22)."""
        assert isinstance(rules, Ruleset)
        items = [
            RuleItem(e.key, e.rule, e.chinese, e.english, e.unit.value, e.value_text(rules), e.who.value)
            for e in SCORING_ITEMS
        ]
        items += [
            RuleItem(lim.value, lim.rule, lim.chinese, lim.english, "limit", str(rules.max_total), "winner")
            for lim in Limit
        ]
        return tuple(items)

    def ledger(self, rules: VariantRules, players: int) -> Ledger:
        """Chips of a match of 4-6 players (L2, L24, L25)."""
        assert isinstance(rules, Ruleset)
        return LonggangLedger(rules, players)


VARIANT: Final = Longgang()
