"""Longgang rules as data: a frozen :class:`Ruleset`, named presets, TOML overrides.

Every switch carries the rule ID it comes from (see ``docs/rules/longgang.md``), a one-line
description and the values it accepts; ``caishen rules longgang`` prints them all. "有的地方"
(some places play it this way) options are named switches, off unless a ruling says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final

from caishen import ruleset as rs
from caishen.engine.wall import WallLayout, layout
from caishen.errors import ArgumentError, TileError
from caishen.hand import Hand
from caishen.ruleset import RulesetError
from caishen.tiles import FLOWERS, NUM_KINDS, WHITE, is_flower, is_terminal_or_honor, seat_flower
from caishen.variants.longgang.orphans import thirteen_orphans
from caishen.variants.longgang.unconnected import first_draw_shape

_switch = rs.switch
#: 九么九和 (L17): kinds of terminals and honours that let a hand be declared drawn.
NINE_TERMINAL_KINDS: Final = 9
#: The name of that declared draw (``Outcome.draw_type``).
NINE_TERMINALS: Final = "nine_terminals"
#: Largest 胡数 figure a switch may hold (a cap, a bonus): far above any real table's.
MAX_FU: Final = 10_000
#: Largest chip figure a switch may hold.
MAX_CHIPS: Final = 100_000


def _fu_list(values: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """All rule switches of one regional variant (规则). Frozen; build variants with
    :meth:`replace` or :func:`load_ruleset`."""

    name: str = _switch("longgang", "-", "Name of the ruleset")

    # Tiles, seats, hand size
    hand_size: int = _switch(16, "L13", "Tiles in a hand before the draw: 16 (Longgang) or 13", choices=(13, 16))
    has_flowers: bool = _switch(True, "L1", "The four flowers 春夏秋冬 are in the tile set")
    has_white: bool = _switch(False, "L1", "White dragon 白板 is in the tile set")
    allow_chow: bool = _switch(True, "L9", "Chow 吃 from the player on the left is allowed")
    opening_kong_round: bool = _switch(True, "L9", "At the start, after all flowers are replaced, South, West and North in turn may declare concealed kongs (the dealer in his first turn); a four kept may be konged later")

    # Wilds
    wild_indicator: bool = _switch(True, "L4", "A tile is turned up after the deal; the other copies of its kind are wild 财神")
    flower_indicator_wilds: bool = _switch(True, "L5", "If the indicator is a flower, every other flower is wild 花财神")
    own_flower_wild: bool = _switch(True, "L7", "A player's own-seat flower 坐花 is wild for him and stays in the hand")
    bulldozer: bool = _switch(True, "L8", "Holding enough 正财神 wins at once 推土机 (limit)")
    bulldozer_wilds: int = _switch(3, "L8", "正财神 needed for 推土机 (金乡灵溪: 4, the own flower 坐花 counting as the fourth)", choices=(3, 4))
    wild_single_wait_any_tile: bool = _switch(True, "L16", "A hand left with a single wild may win on any tile (财神单吊; some places forbid)")
    rob_kong_with_wild_pair: bool = _switch(True, "L10", "A wild may pair with the robbed tile when robbing a kong (some places forbid it)")

    # Winning shapes
    eight_and_half_pairs: bool = _switch(True, "L14", "八对半: 7 pairs + 1 triplet, concealed, no concealed kong")
    eight_and_half_pairs_limit: bool = _switch(False, "L22", "八对半 is a limit hand 腊子 (some places)")
    seven_pairs: bool = _switch(False, "L14", "Seven pairs 七对 (13-tile rulesets only)")
    heavenly_win: bool = _switch(True, "L15", "天胡: dealer wins on the deal (limit)")
    earthly_win: bool = _switch(True, "L15", "地胡: a non-dealer wins on the dealer's first discard (limit)")
    human_win: bool = _switch(False, "L15", "人胡: a win within the first go-round (limit; not played in Longgang)")

    # Wall
    dead_wall_stacks: int = _switch(10, "L6", "Stacks of the dead wall 王牌 (20 tiles, 21 when the tail stack is split)", bounds=(7, 12))
    sea_floor_tiles: int = _switch(4, "L6", "Tiles of the sea floor 海底牌 shared out one each at the end (分张)", bounds=(1, 4))
    sea_floor_kong_no_discard: bool = _switch(False, "L17", "Case (I) variant: a replacement before 分张 is taken without a discard")
    indicator_splits_tail: bool = _switch(True, "L6", "The turned indicator leaves a single in the tail stack: 21 tiles kept back at the start, 20 after one replacement (off: 20 at the start, 21 after one)")

    # Fu (胡数)
    base_fu: int = _switch(20, "L23", "Base 底胡 added to the winner's 牌面胡数", bounds=(0, MAX_FU))
    max_total: int = _switch(300, "L22", "Cap on any player's total 胡数 (满贯)", bounds=(10, MAX_FU))
    flower_fu: int = _switch(4, "L20", "胡数 for each 客花 laid open", bounds=(0, 100))
    self_draw_fu: int = _switch(2, "L20", "胡数 for a self-drawn win", bounds=(0, 100))
    closed_wait_fu: int = _switch(2, "L20", "胡数 for winning on a closed wait 卡张/坎张", bounds=(0, 100))
    edge_single_wait_fu: bool = _switch(False, "L20", "Edge 边张 and single 单吊 waits score the closed-wait 胡数 too (some places)")
    single_honor_pair_self_draw_fu: bool = _switch(False, "L20", "A self-drawn single wait on Red, Green or seat wind adds the self-draw 2 (newer custom)")

    # Tai (台数)
    kong_replacement_tai: bool = _switch(False, "L21", "杠上开花 scores 1 tai (some places)")
    single_wait_tai: bool = _switch(False, "L21", "单吊 scores 1 tai (some places)")
    loser_four_flowers_tai: int = _switch(2, "L21", "Tai of 四花 for a player who did not win (some places: 1)", choices=(1, 2))
    one_dragon_tai: bool = _switch(False, "L21", "一条龙: 123 456 789 of one suit scores 1 tai (选用, some places)")
    concealed_hand_tai: bool = _switch(False, "L21", "门清 / 不求人: no chow, pong or exposed kong scores 1 tai (appendix, 选用)")
    all_claimed_tai: bool = _switch(False, "L21", "全求人 / 半求人: every set claimed, won on a single wait, scores 1 tai (appendix, 选用)")

    # Limits (腊子)
    four_winds_wild_rule: bool = _switch(True, "L22", "四喜 with a wild needs two or more wilds, none standing for another tile (off: no restriction, 现在习惯上不作此限制)")
    four_guardians_limit: bool = _switch(False, "L22", "四金刚: four honour triplets, or three and a pair of another honour, is a limit (some places)")
    rare_limits: bool = _switch(False, "L22", "The eighth 腊子 list: 五杠子, 四杠子, 五暗刻, 五连刻, 四连太宝 are limits (极难不常用之役)")
    all_green_limit: bool = _switch(False, "L22", "绿一色: only 2 3 4 6 8 bamboo and Green is a limit (appendix, 选用)")
    sixteen_unconnected_limit: bool = _switch(False, "L22", "十六不搭: sixteen tiles with no two of a suit within two and a pair, made by the first draw, is a limit (appendix, 选用)")
    sixteen_knitted_limit: bool = _switch(False, "L22", "十六不靠: 十六不搭 with 147, 258 and 369 one in each suit is a limit (appendix, 选用)")
    red_peacock_limit: bool = _switch(False, "L22", "红孔雀: only 1 5 7 9 bamboo and Red is a limit (appendix, 选用)")
    red_dots_limit: bool = _switch(False, "L22", "点点红: only 1 3 5 6 7 9 dots and a pair of Red is a limit (appendix, 选用)")
    red_spot_limit: bool = _switch(False, "L22", "红一点: only 2 3 4 6 8 bamboo and a pair of Red is a limit (appendix, 选用)")
    all_black_limit: bool = _switch(False, "L22", "黑一色: only winds and 8 dots (and White) is a limit (appendix, 选用)")
    million_stones_limit: bool = _switch(False, "L22", "百万石: characters only, the numbers adding up to 100 or more, is a limit of its own name (a 清一色, so a limit anyway; appendix, 选用)")
    thirteen_orphans_limit: bool = _switch(False, "L22", "国士无双 / 十三么: a pair of each wind, Red, Green, a wild in White's place and 1 and 9 of each suit, concealed, is a limit (appendix, 选用)")

    # Chips
    fu_per_chip: int = _switch(10, "L24", "胡数 per chip", bounds=(1, 1000))
    bonus_fu: tuple[int, int, int, int] = _switch((30, 60, 90, 120), "L24", "跟胡数 by the winner's tai 0/1/2/3+", bounds=(0, MAX_FU))
    bonus_fu_after_broke: tuple[int, int, int, int] = _switch((50, 100, 150, 200), "L24", "跟胡数 after someone has gone broke", bounds=(0, MAX_FU))
    limit_chips: tuple[int, int] = _switch((72, 42), "L24", "Chips per loser for a limit hand: dealer, others", bounds=(1, MAX_CHIPS))
    limit_chips_after_broke: tuple[int, int] = _switch((80, 50), "L24", "Limit chips after someone has gone broke", bounds=(1, MAX_CHIPS))
    start_chips: int = _switch(100, "L25", "Chips each player brings to a match", bounds=(1, MAX_CHIPS))
    table_fee: int = _switch(5, "L25", "Table fee 头钱 each player pays at the start", bounds=(0, MAX_CHIPS))
    rebuy_on_broke: bool = _switch(True, "L25", "The first player to go broke is topped up (4 players: 50, 5-6: 100) and play goes on")
    hands_per_match: int = _switch(0, "P1", "Hands in a match: 0 plays until 断筹 as the sources do (L25.5); "
                                   "8, 16 or 24 is a game-centre room (platform text)", bounds=(0, 10_000))

    # Table
    draw_on_four_winds: bool = _switch(False, "L17", "四风连打: four equal wind discards in the first go-round end the hand as a draw (some places)")
    draw_on_four_kongs: bool = _switch(False, "L17", "四杠: a fourth kong by different players ends the hand as a draw, a 杠上开花 on it too (some places)")
    draw_on_three_wins: bool = _switch(False, "L17", "一炮三响 / 三炮同响: three players winning on one discard end the hand as a draw (some places)")
    draw_on_nine_terminals: bool = _switch(False, "L17", "九么九和: in his own turn of the first go-round a player holding nine or more kinds of terminals and honours may declare the hand drawn (some places)")

    # Payments
    discarder_pays_all: bool = _switch(True, "L24", "包三家: the discard that feeds a plain 四喜/字一色, or a late unseen 中/发, pays for all three losers")
    late_discard_tiles: int = _switch(8, "L24", "包三家 for 中/发 applies with this many live tiles left or fewer (分张前几张; 0: never)", bounds=(0, 100))

    # Scoring extras
    eight_pairs_terminal_limits: bool = _switch(False, "L22", "八对半 of terminals/honours counts as 清老头/混老头 (some places)")

    #: Tile kinds in play, computed once per ruleset (read for every parsed tile); not a
    #: switch: no "rule" metadata, so :func:`caishen.ruleset.switches` skips it.
    tile_kinds: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rs.check(self)
        object.__setattr__(self, "tile_kinds", tuple(
            k for k in range(NUM_KINDS)
            if (self.has_white or k != WHITE) and (self.has_flowers or not is_flower(k))
        ))
        walls = 2 * 4  # L4: four walls of 2-tile stacks
        if self.wall_size % walls:
            raise RulesetError(
                f"has_flowers = {str(self.has_flowers).lower()} with has_white = {str(self.has_white).lower()} "
                f"leaves {self.wall_size} tiles, which do not build four walls of 2-tile stacks (L4): "
                "play without flowers only with has_white = true (136 tiles), or with flowers without White")
        if self.bulldozer and self.bulldozer_wilds > 3 and not (self.has_flowers and self.own_flower_wild):
            raise RulesetError(
                f"bulldozer_wilds = {self.bulldozer_wilds} counts the own flower 坐花 as the fourth wild (L8: a hand "
                "never holds four 正财神), so it needs has_flowers = true and own_flower_wild = true "
                "(or bulldozer_wilds = 3, or bulldozer = false)")
        if self.seven_pairs and self.hand_size != 13:
            raise RulesetError("seven_pairs needs hand_size 13")
        if self.eight_and_half_pairs and self.hand_size != 16:
            raise RulesetError("eight_and_half_pairs needs hand_size 16")
        if self.table_fee >= self.start_chips:
            raise RulesetError(f"table_fee = {self.table_fee} must be below start_chips = {self.start_chips}")
        if self.base_fu > self.max_total:
            raise RulesetError(f"base_fu = {self.base_fu} is above max_total = {self.max_total}")
        for name in ("base_fu", "max_total"):
            if getattr(self, name) % self.fu_per_chip:
                raise RulesetError(f"{name} = {getattr(self, name)} is not a multiple of fu_per_chip = {self.fu_per_chip}")
        for name in ("bonus_fu", "bonus_fu_after_broke"):  # L24: paid in whole chips
            bad = [v for v in getattr(self, name) if v % self.fu_per_chip]
            if bad:
                raise RulesetError(f"{name} = {_fu_list(getattr(self, name))} holds {bad[0]}, not a multiple of "
                                   f"fu_per_chip = {self.fu_per_chip} (L24: bonuses are paid in whole chips)")

    @property
    def sets_needed(self) -> int:
        """Sets in a complete hand besides the pair: 5 for 16-tile, 4 for 13-tile (L13)."""
        return (self.hand_size - 1) // 3

    @property
    def bulldozer_own_flower(self) -> bool:
        """L8 金乡灵溪 ("辣子要4個財神", "坐花可當財神用"): a hand never holds four 正财神 (the
        turned indicator is the fourth copy), so with ``bulldozer_wilds = 4`` the fourth is the
        seat's own flower 坐花: three 正财神 plus 坐花. With 3 only 正财神 count (L8)."""
        return self.bulldozer_wilds > 3

    @property
    def wall_size(self) -> int:
        return len(self.tile_kinds) * 4 - (12 if self.has_flowers else 0)

    def wild_kinds(self, indicator: int | None, wind: int | None) -> frozenset[int]:
        """Kinds that are wild (财神) for the player at wind position ``wind`` (0 East = the
        dealer, :func:`caishen.tiles.wind_of`; ``None``: no own flower).

        The indicator's kind (L4: the indicator itself is never drawn, the other copies
        are wild); if the indicator is a flower and ``flower_indicator_wilds``, every other
        flower (花财神, L5); plus the player's own flower 坐花 if ``own_flower_wild`` (L7):
        春 for the dealer, whatever his seat number (L1, L2). A kind that is no tile, or a wind
        position outside 0-3, is refused (:class:`~caishen.errors.TileError`,
        :class:`~caishen.errors.ArgumentError`).
        """
        if indicator is not None and not 0 <= indicator < NUM_KINDS:
            raise TileError(f"no tile kind {indicator} can be the turned tile")
        if wind is not None and not 0 <= wind < 4:
            raise ArgumentError(f"a wind position is 0-3 (0 East, the dealer), not {wind}", rule="L1")
        out: set[int] = set()
        if indicator is not None:
            if is_flower(indicator):
                if self.flower_indicator_wilds:
                    out.update(f for f in FLOWERS if f != indicator)
            else:
                out.add(indicator)
        if wind is not None and self.own_flower_wild and self.has_flowers:
            out.add(seat_flower(wind))
        return frozenset(out)

    # Engine hooks (caishen.engine.rules.GameRules): Longgang's wins are the engine's analyser
    # with wilds (L8-L16); passing a win or a pong restricts later claims (L11).
    pass_bans: ClassVar[bool] = True
    decides_wins: ClassVar[bool] = False

    def wall_layout(self, dice: tuple[int, int, int, int], dealer: int, wall_size: int) -> WallLayout:
        """L4: the dealer's roll picks the opener, both rolls count the stacks."""
        return layout(dice, dealer, wall_size, self.wild_indicator)

    def own_turn_win(self, hand: Hand, indicator: int | None, first_turn: bool) -> str | None:
        """Not asked (``decides_wins`` is False): the engine's analyser decides."""
        return None

    def discard_win(self, hand: Hand, tile: int, indicator: int | None) -> str | None:
        """Not asked (``decides_wins`` is False): the engine's analyser decides."""
        return None

    def first_draw_win(self, hand: Hand, wilds: frozenset[int]) -> bool:
        """L22.16: 十六不搭 / 十六不靠 (switches), a win only on the first draw before any claim."""
        return first_draw_shape(hand, wilds, self.hand_size, self.sixteen_unconnected_limit,
                                self.sixteen_knitted_limit) is not None

    @property
    def special_shapes(self) -> bool:
        """国士无双 (L22.22) is the one shape outside the analyser that wins at any time."""
        return self.thirteen_orphans_limit

    def special_win(self, hand: Hand, wilds: frozenset[int]) -> bool:
        """L22.22: 国士无双 (switch), self-drawn, on a discard or robbing a kong, concealed."""
        return self.thirteen_orphans_limit and thirteen_orphans(hand, wilds, self.hand_size)

    @property
    def declares_draws(self) -> bool:
        """叫和局 is offered only with 九么九和 on (L17)."""
        return self.draw_on_nine_terminals

    def draw_declaration(self, hand: Hand, wilds: frozenset[int]) -> str | None:
        """L17 九么九和 ("首巡內手牌有九種以上的么牌就可叫和局，成搭成對或成刻都可以"): nine or more
        different kinds of terminals and honours among the hand's natural tiles (melds count,
        pairs and triplets count once; a wild is no 么牌 outside a winning hand, L8)."""
        if not self.draw_on_nine_terminals:
            return None
        kinds = {k for k in hand.all_tiles() if is_terminal_or_honor(k) and k not in wilds}
        return NINE_TERMINALS if len(kinds) >= NINE_TERMINAL_KINDS else None

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some switches changed (checked like a TOML override)."""
        return rs.apply(self, changes, "replace")

    def switches(self) -> tuple[rs.Switch, ...]:
        """Every switch with its value, rule ID, description and valid values."""
        return rs.switches(self)


LONGGANG: Final = Ruleset()
#: The simplified copy's rules (docs/rules/longgang.md, "The simplified copy against the main
#: text"): the main text's, but for 四喜 with a wild, "现在习惯上不作此限制" (S20, D13).
SIMPLIFIED_COPY: Final = LONGGANG.replace(name="longgang-simplified-copy", four_winds_wild_rule=False)
#: Common house rules: where the sources say what is played now (现在习惯上): 四喜 with a wild
#: unrestricted (the simplified copy, S20, and the summary, which states no restriction), and a
#: self-drawn single wait on Red, Green or the seat wind adding the self-draw 2 (the main text
#: and the simplified copy, "現習慣上來法單吊自摸也計2胡的", twice; the summary "自摸当将算4胡").
COMMON: Final = LONGGANG.replace(name="longgang-common", four_winds_wild_rule=False,
                                 single_honor_pair_self_draw_fu=True)

PRESETS: Final[dict[str, Ruleset]] = {r.name: r for r in (LONGGANG, SIMPLIFIED_COPY, COMMON)}


def get_ruleset(name: str) -> Ruleset:
    """A preset by name (``longgang``, ``longgang-simplified-copy``, ``longgang-common``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesetError(
            f"unknown ruleset {name!r} (presets: {', '.join(sorted(PRESETS))})"
        ) from None


def load_ruleset(source: str | Path) -> Ruleset:
    """A preset name, or a TOML file: optional ``base = "<preset>"`` then switch overrides."""
    return rs.load(source, PRESETS, LONGGANG.name)
