"""Switches of Luoyang Gangci 洛阳杠次 (规则): a frozen :class:`GangciRules` and its presets.

Only this variant's switches are here (``docs/rules/luoyang-gangci.md``, "All switches").
Each field carries the metadata of the core's rulesets (``rule``, ``doc``) plus what values
it accepts: ``range`` (inclusive bounds of an int) or ``choices`` (the allowed values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from caishen import ruleset as rs
from caishen.ruleset import RulesetError
from caishen.tiles import NUM_KINDS, is_flower

_switch = rs.switch
#: Largest base a table may set (a hand moves at most 3 × (2 × 杠次底 + 杠底) chips).
MAX_BASE: Final = 10_000_000
#: This is the one error type of bad Gangci switches (the core's ruleset error).
RulesError = RulesetError


@dataclass(frozen=True, slots=True)
class GangciRules:
    """All switches of one Luoyang Gangci table (洛阳杠次规则). Frozen; change with :meth:`replace`."""

    name: str = _switch("luoyang-gangci", "-", "Name of the ruleset")

    # G2.1: the three bases 起底 (杠底, 炸弹底, 杠次底)
    gang_base: int = _switch(100, "G2.1", "杠底: kong base, paid for kongs and inside every 次",
                             bounds=(1, MAX_BASE))
    bomb_base: int = _switch(200, "G2.1", "炸弹底: bomb base, paid by each player for a 炸弹 or 天胡",
                             bounds=(1, MAX_BASE))
    ci_base: int = _switch(600, "G2.1", "杠次底: ci base, paid for every 次 (even: a 直次 bystander pays half)",
                           bounds=(2, MAX_BASE))

    # G3.1: the source says 顺时针 (clockwise) but draws counter-clockwise (U1)
    seat_count: str = _switch("turn_order", "G3.1", "Direction the dice sum counts seats from the dealer (dealer = 1)",
                              choices=("turn_order", "clockwise"))

    # G8: match
    dealer_keeps_deal_on_win: bool = _switch(True, "G8.1", "The dealer keeps the deal when he wins (else it passes on)")
    hands_per_match: int = _switch(16, "G8.2", "Hands in a match", choices=(8, 16, 24))

    def __post_init__(self) -> None:
        rs.check(self)
        if self.ci_base % 2:  # G2.7: each bystander of a 直次 pays 杠次底 × 0.5
            raise RulesError(f"ci_base must be even (a 直次 bystander pays half of it), not {self.ci_base}")

    # Fixed by the game (G1), not switches: what the engine and the analyser are told.
    hand_size: ClassVar[int] = 13
    has_flowers: ClassVar[bool] = False
    tile_kinds: ClassVar[tuple[int, ...]] = tuple(k for k in range(NUM_KINDS) if not is_flower(k))

    def replace(self, **changes: object) -> GangciRules:
        """A copy with some switches changed, checked like the constructor."""
        return rs.apply(self, changes, "replace")

    def switches(self) -> tuple[rs.Switch, ...]:
        """Every switch with its value, rule ID, description and allowed values, in order."""
        return rs.switches(self)


DEFAULT: Final = GangciRules()
#: The source's 起底方案2 (G2.1): 杠底 1000, 炸弹底 2000, 杠次底 6000.
SCHEME_2: Final = GangciRules(name="luoyang-gangci-scheme-2", gang_base=1000, bomb_base=2000, ci_base=6000)

PRESETS: Final[dict[str, GangciRules]] = {r.name: r for r in (DEFAULT, SCHEME_2)}


def get_rules(name: str) -> GangciRules:
    """A preset by name (``luoyang-gangci``, ``luoyang-gangci-scheme-2``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown Gangci preset {name!r} (presets: {', '.join(sorted(PRESETS))})") from None
