"""Switches of Luoyang Gangci 洛阳杠次 (规则): a frozen :class:`GangciRules` and its presets.

Only this variant's switches are here (``docs/rules/luoyang-gangci.md``, "Reference: house-rule switches").
Each field carries the metadata of the core's rulesets (``rule``, ``doc``) plus what values
it accepts: ``range`` (inclusive bounds of an int) or ``choices`` (the allowed values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from caishen import ruleset as rs
from caishen.engine.wall import SEATS, WallLayout, layout_from
from caishen.hand import Hand
from caishen.ruleset import RulesetError
from caishen.variants.luoyang_gangci.adapter import SHAPES
from caishen.variants.luoyang_gangci.payments import best_win
from caishen.variants.luoyang_gangci.wins import GangciWin, own_turn_wins, zhi_ci

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
    hand_size: ClassVar[int] = SHAPES.hand_size
    sets_needed: ClassVar[int] = 4
    has_flowers: ClassVar[bool] = False
    tile_kinds: ClassVar[tuple[int, ...]] = SHAPES.tile_kinds
    wall_size: ClassVar[int] = 136
    allow_chow: ClassVar[bool] = False              # G1.3
    wild_indicator: ClassVar[bool] = True           # the 次牌 is turned up (G4.1); it makes no wilds
    dead_wall_stacks: ClassVar[int] = 0             # U5: every tile but the 次牌 is drawn
    sea_floor_tiles: ClassVar[int] = 0
    sea_floor_kong_no_discard: ClassVar[bool] = False
    indicator_splits_tail: ClassVar[bool] = False    # no dead wall: nothing to split
    opening_kong_round: ClassVar[bool] = False       # kongs only in one's own turn
    wild_single_wait_any_tile: ClassVar[bool] = False
    rob_kong_with_wild_pair: ClassVar[bool] = False
    human_win: ClassVar[bool] = False
    draw_on_four_winds: ClassVar[bool] = False
    draw_on_four_kongs: ClassVar[bool] = False
    draw_on_three_wins: ClassVar[bool] = False
    declares_draws: ClassVar[bool] = False           # no declared draw 叫和局
    eight_and_half_pairs: ClassVar[bool] = False
    seven_pairs: ClassVar[bool] = False
    bulldozer: ClassVar[bool] = False
    bulldozer_wilds: ClassVar[int] = 0
    bulldozer_own_flower: ClassVar[bool] = False
    pass_bans: ClassVar[bool] = False               # G6.3: no 过水, passing forbids nothing
    decides_wins: ClassVar[bool] = True             # G5: the win types below, 直次 the only discard win

    # ---- engine hooks (caishen.engine.rules.GameRules)

    def wild_kinds(self, indicator: int | None, wind: int) -> frozenset[int]:
        """No wilds: the 次牌 is a face-up tile, not a wild indicator (G4.2)."""
        return frozenset()

    def opener(self, dice_sum: int, dealer: int) -> int:
        """G3.1: the seat the dice sum counts to, the dealer counting 1 (U1: in turn order by
        default, ``clockwise`` takes the source's literal wording)."""
        step = 1 if self.seat_count == "turn_order" else -1
        return (dealer + step * (dice_sum - 1)) % SEATS

    def wall_layout(self, dice: tuple[int, int, int, int], dealer: int, wall_size: int) -> WallLayout:
        """G3.1-G3.2, G4.1, G4.3: the first two dice pick the seat; the smaller counts stacks from
        the right end of its wall; the deal starts at the next stack; the 次牌 is the top of the
        last counted stack; replacements come from the tail behind it (U4)."""
        return layout_from(self.opener(dice[0] + dice[1], dealer), min(dice[0], dice[1]), wall_size)

    def own_turn_win(self, hand: Hand, indicator: int | None, first_turn: bool) -> str | None:
        """G5.1-G5.3, G5.5, G5.6 and G5.10: the best win type ``hand`` makes on its owner's turn."""
        if indicator is None:  # pragma: no cover - a Gangci wall always turns the 次牌
            return None
        types = own_turn_wins(hand, indicator, first_turn)
        return best_win(types, self).value if types else None

    def discard_win(self, hand: Hand, tile: int, indicator: int | None) -> str | None:
        """G5.4, G5.8: 直次 is the only win on a discard."""
        if indicator is None or not zhi_ci(hand, tile, indicator):
            return None
        return GangciWin.ZHI_CI.value

    def first_draw_win(self, hand: Hand, wilds: frozenset[int]) -> bool:
        """Not asked (``decides_wins`` is True): G5 names every win."""
        return False

    special_shapes: ClassVar[bool] = False

    def special_win(self, hand: Hand, wilds: frozenset[int]) -> bool:
        """Not asked (``special_shapes`` is False, ``decides_wins`` True): G5 names every win."""
        return False

    def draw_declaration(self, hand: Hand, wilds: frozenset[int]) -> str | None:
        """Not asked (``declares_draws`` is False): Gangci has no declared draw."""
        return None

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
