"""Limit hands 腊子 of Longgang scoring (L22): :class:`Limit`, the names and rules of
each, and the tests that find the limits a reading of a hand makes, in the order their name is
chosen (L22.12). Split from :mod:`caishen.variants.longgang.scoring` (issue 31), which
re-exports the public names.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from caishen.hand import MeldKind
from caishen.shapes.analysis import Form, Group, GroupKind
from caishen.tiles import (
    GREEN,
    RED,
    WHITE,
    WINDS,
    is_honor,
    is_suited,
    number_of,
    seat_flower,
    suit_of,
)
from caishen.variants.longgang.items import (
    _HONOUR_BITS,
    _MAN_BITS,
    _SUITED_BITS,
    _TERMINAL_BITS,
    _TERMINAL_OR_HONOUR_BITS,
    _WIND_BITS,
    Facts,
    FirstTurn,
    _all_triplets,
    _kind_bits,
    _Wilds,
)
from caishen.variants.longgang.rules import Ruleset


class Limit(StrEnum):
    """Limit hands 腊子 (L22), in the order their name is chosen (L22.12)."""

    BULLDOZER = "bulldozer"
    HEAVENLY = "heavenly"
    EARTHLY = "earthly"
    HUMAN = "human"
    WILD_MEETING = "wild-meeting"
    ALL_HONOURS = "all-honours"
    ALL_BLACK = "all-black"
    BIG_FOUR_WINDS = "big-four-winds"
    SMALL_FOUR_WINDS = "small-four-winds"
    ALL_TERMINALS = "all-terminals"
    TERMINALS_AND_HONOURS = "terminals-and-honours"
    MILLION_STONES = "million-stones"
    RED_PEACOCK = "red-peacock"
    FULL_FLUSH = "full-flush"
    EIGHT_PAIRS = "eight-and-half-pairs"
    FOUR_GUARDIANS = "four-guardians"
    FIVE_KONGS = "five-kongs"
    FOUR_KONGS = "four-kongs"
    FIVE_CONCEALED_TRIPLETS = "five-concealed-triplets"
    FIVE_SHIFTED_TRIPLETS = "five-shifted-triplets"
    FOUR_SAME_SEQUENCES = "four-same-sequences"
    ALL_GREEN = "all-green"
    RED_DOTS = "red-dots"
    RED_SPOT = "red-spot"
    SIXTEEN_KNITTED = "sixteen-knitted"
    SIXTEEN_UNCONNECTED = "sixteen-unconnected"
    THIRTEEN_ORPHANS = "thirteen-orphans"
    COUNTED = "counted"

    @property
    def chinese(self) -> str:
        return _LIMIT_INFO[self][0]

    @property
    def english(self) -> str:
        return _LIMIT_INFO[self][1]

    @property
    def rule(self) -> str:
        return _LIMIT_INFO[self][2]


_LIMIT_INFO: Final[dict[Limit, tuple[str, str, str]]] = {
    Limit.BULLDOZER: ("推土机", "three true wilds (bulldozer)", "L22.2"),
    Limit.HEAVENLY: ("天胡", "heavenly win", "L22.3"),
    Limit.EARTHLY: ("地胡", "earthly win", "L22.4"),
    Limit.HUMAN: ("人胡", "human win", "L15"),
    Limit.WILD_MEETING: ("财神会", "two true wilds and own flower as one triplet", "L22.10"),
    Limit.ALL_HONOURS: ("字一色", "all honours", "L22.7"),
    Limit.ALL_BLACK: ("黑一色", "only winds and 8 dots (switch)", "L22.20"),
    Limit.BIG_FOUR_WINDS: ("大四喜", "big four winds", "L22.6"),
    Limit.SMALL_FOUR_WINDS: ("小四喜", "small four winds", "L22.6"),
    Limit.ALL_TERMINALS: ("清老头", "all terminals", "L22.8"),
    Limit.TERMINALS_AND_HONOURS: ("混老头", "all triplets of terminals and honours", "L22.9"),
    Limit.MILLION_STONES: ("百万石", "characters only, adding up to 100 or more (switch)", "L22.21"),
    Limit.RED_PEACOCK: ("红孔雀", "only 1 5 7 9 bamboo and Red (switch)", "L22.17"),
    Limit.FULL_FLUSH: ("清一色", "one suit only", "L22.5"),
    Limit.EIGHT_PAIRS: ("八对半", "eight and a half pairs (switch)", "L22.11"),
    Limit.FOUR_GUARDIANS: ("四金刚", "four honour triplets, or three and another honour pair (switch)", "L22.13"),
    Limit.FIVE_KONGS: ("五杠子", "five kongs (switch rare_limits)", "L22.14"),
    Limit.FOUR_KONGS: ("四杠子", "four kongs (switch rare_limits)", "L22.14"),
    Limit.FIVE_CONCEALED_TRIPLETS: ("五暗刻", "five concealed triplets (switch rare_limits)", "L22.14"),
    Limit.FIVE_SHIFTED_TRIPLETS: ("五连刻", "five triplets of one suit in a row (switch rare_limits)", "L22.14"),
    Limit.FOUR_SAME_SEQUENCES: ("四连太宝", "four identical sequences (switch rare_limits)", "L22.14"),
    Limit.ALL_GREEN: ("绿一色", "only 2 3 4 6 8 bamboo and Green (switch)", "L22.15"),
    Limit.RED_DOTS: ("点点红", "only 1 3 5 6 7 9 dots and a pair of Red (switch)", "L22.18"),
    Limit.RED_SPOT: ("红一点", "only 2 3 4 6 8 bamboo and a pair of Red (switch)", "L22.19"),
    Limit.SIXTEEN_KNITTED: ("十六不靠", "147 258 369 in the three suits, honours, a pair (switch)", "L22.16"),
    Limit.SIXTEEN_UNCONNECTED: ("十六不搭", "sixteen unconnected tiles and a pair (switch)", "L22.16"),
    Limit.THIRTEEN_ORPHANS: ("国士无双", "wind pairs, dragons, 1 and 9 of each suit (switch)", "L22.22"),
    Limit.COUNTED: ("腊子", "counted limit: 300 with 3 or more tai", "L22.1"),
}

# After these limits the losers count 0 (L23.9).
LOSERS_COUNT_ZERO: Final = frozenset({Limit.BULLDOZER, Limit.HEAVENLY, Limit.EARTHLY, Limit.HUMAN})


def _bulldozer_count(wi: _Wilds, ruleset: Ruleset) -> int:
    """The wilds that count toward 推土机 (L8): the 正财神, and the own flower 坐花 where
    ``bulldozer_wilds = 4`` asks for it (金乡灵溪: three 正财神 plus 坐花); with a flower
    indicator the own flower is already among the 正财神 (L5)."""
    extra = wi.own_flower and ruleset.bulldozer_own_flower and not wi.flower_indicator
    return wi.true_count + (1 if extra else 0)


_TRIPLET: Final = 3
_MIXED_WILDS: Final = 2  # wilds held that let a wild stand in a wind set (L22.6)
_COUNTED_LIMIT_TAI: Final = 3  # a total of 300 with this many tai is a limit (L22.1)


def _limits(f: Facts, first_turn: FirstTurn, wind: int) -> list[Limit]:
    """The limits the reading makes, in the order their name is chosen (L22.12)."""
    ruleset, wi, groups = f.ruleset, f.wilds, f.groups
    found: list[Limit] = []
    if f.form is Form.BULLDOZER or (ruleset.bulldozer and _bulldozer_count(wi, ruleset) >= ruleset.bulldozer_wilds):
        found.append(Limit.BULLDOZER)
    if first_turn is not FirstTurn.NONE:
        if first_turn is FirstTurn.HEAVENLY and ruleset.heavenly_win:
            found.append(Limit.HEAVENLY)
        if first_turn is FirstTurn.EARTHLY and ruleset.earthly_win:
            found.append(Limit.EARTHLY)
        if first_turn is FirstTurn.HUMAN and ruleset.human_win:
            found.append(Limit.HUMAN)
    if not groups:
        return found
    # 财神会: own flower + two 正财神 make one triplet (L22.10)
    if wi.own_flower:
        own = seat_flower(wind)
        for g in groups:
            if g.kind is GroupKind.TRIPLET and len(g.wilds) == _TRIPLET and own in [w for w, _ in g.wilds]:
                found.append(Limit.WILD_MEETING)
                break
    bits = f.kind_bits  # the tests on every tile below are masks
    pairs_form = f.form is Form.PAIRS
    if not bits & ~_HONOUR_BITS:
        found.append(Limit.ALL_HONOURS)
    if ruleset.all_black_limit and not bits & ~_BLACK_BITS:
        found.append(Limit.ALL_BLACK)
    wind_sets: list[Group] = []
    if f.form is Form.STANDARD and bits & _WIND_BITS:
        wind_sets = [g for g in groups if g.kind in (GroupKind.TRIPLET, GroupKind.KONG) and g.tiles[0] in WINDS]
    if len(wind_sets) >= len(WINDS) - 1:  # fewer pongs or kongs of winds make no four-winds limit (L22.6)
        wind_pair = [g for g in groups if g.kind is GroupKind.PAIR and g.tiles[0] in WINDS]
        kind = None
        if len(wind_sets) >= len(WINDS):
            kind = Limit.BIG_FOUR_WINDS
        elif wind_pair:
            kind = Limit.SMALL_FOUR_WINDS
        if kind is not None:
            # a wild in the winds needs 2+ wilds held, none standing for another tile (L22.6)
            winds_groups = wind_sets + (wind_pair if kind is Limit.SMALL_FOUR_WINDS else [])
            uses_wild = any(g.wilds for g in winds_groups)
            held = sum(len(g.wilds) for g in groups)
            others_wild = any(g.wilds for g in groups if not any(g is h for h in winds_groups))
            if not uses_wild or not ruleset.four_winds_wild_rule or (held >= _MIXED_WILDS and not others_wild):
                found.append(kind)
    if not bits & ~_TERMINAL_OR_HONOUR_BITS:
        terminal_ok = _all_triplets(f) or (pairs_form and ruleset.eight_pairs_terminal_limits)
        if terminal_ok and not bits & ~_TERMINAL_BITS:
            found.append(Limit.ALL_TERMINALS)
        if terminal_ok:
            found.append(Limit.TERMINALS_AND_HONOURS)
    if ruleset.million_stones_limit and not bits & ~_MAN_BITS and sum(number_of(t) for t in f.tiles) >= _MILLION:
        found.append(Limit.MILLION_STONES)
    if ruleset.red_peacock_limit and not bits & ~_PEACOCK_BITS:
        found.append(Limit.RED_PEACOCK)
    if len(f.suits) == 1 and not bits & ~_SUITED_BITS:
        found.append(Limit.FULL_FLUSH)
    if pairs_form and ruleset.eight_and_half_pairs_limit:
        found.append(Limit.EIGHT_PAIRS)
    if f.form is Form.STANDARD and (ruleset.four_guardians_limit or ruleset.rare_limits or ruleset.all_green_limit):
        found.extend(_optional_limits(f))
    if ruleset.red_dots_limit and _red_pair_and(f, _RED_DOTS_KINDS):
        found.append(Limit.RED_DOTS)
    if ruleset.red_spot_limit and _red_pair_and(f, _GREEN_KINDS - {GREEN}):
        found.append(Limit.RED_SPOT)
    return found


def _red_pair_and(f: Facts, kinds: frozenset[int]) -> bool:
    """點點紅 / 紅一點 (L22.18, L22.19): a pair of Red and every other tile of ``kinds``."""
    reds = sum(1 for t in f.tiles if t == RED)
    return (reds == _PAIR_TILES and all(t == RED or t in kinds for t in f.tiles)
            and any(g.kind is GroupKind.PAIR and g.tiles[0] == RED for g in f.groups))


_GREEN_KINDS: Final = frozenset({19, 20, 21, 23, 25, GREEN})  # 2 3 4 6 8 bamboo 条, Green 發
_PEACOCK_KINDS: Final = frozenset({18, 22, 24, 26, RED})        # 紅孔雀: 1 5 7 9 bamboo, Red
_RED_DOTS_KINDS: Final = frozenset({9, 11, 13, 14, 15, 17})     # 點點紅: 1 3 5 6 7 9 dots
_BLACK_KINDS: Final = frozenset({*WINDS, WHITE, 16})            # 黑一色: winds, White, 8 dots
_BLACK_BITS: Final = _kind_bits(lambda k: k in _BLACK_KINDS)
_PEACOCK_BITS: Final = _kind_bits(lambda k: k in _PEACOCK_KINDS)
_MILLION: Final = 100  # 百萬石: the characters' numbers add up to 100 or more
_PAIR_TILES: Final = 2
_RARE_RUN: Final = 5      # 五连刻: five triplets in a row
_FOUR: Final = 4


def _optional_limits(f: Facts) -> list[Limit]:
    """The limits of the switches 四金刚 (L22.13), the eighth 腊子 list (L22.14) and 绿一色
    (L22.15), in that order."""
    ruleset, sets = f.ruleset, f.sets
    found: list[Limit] = []
    triplets = [g for g in sets if g.kind in (GroupKind.TRIPLET, GroupKind.KONG)]
    if ruleset.four_guardians_limit:
        honour_sets = [g for g in triplets if is_honor(g.tiles[0])]
        honour_pair = any(g.kind is GroupKind.PAIR and is_honor(g.tiles[0]) for g in f.groups)
        if len(honour_sets) >= _FOUR or (len(honour_sets) == _FOUR - 1 and honour_pair):
            found.append(Limit.FOUR_GUARDIANS)
    if ruleset.rare_limits:
        kongs = sum(1 for g in sets if g.kind is GroupKind.KONG)
        if kongs >= _RARE_RUN:
            found.append(Limit.FIVE_KONGS)
        elif kongs == _FOUR:
            found.append(Limit.FOUR_KONGS)
        concealed = sum(
            1 for i, g in enumerate(f.groups)
            if (g.meld is None and g.kind is GroupKind.TRIPLET and not (i == f.place and not f.self_drawn))
            or (g.meld is not None and g.meld.kind is MeldKind.CONCEALED_KONG)
        )
        if concealed >= _RARE_RUN:
            found.append(Limit.FIVE_CONCEALED_TRIPLETS)
        kinds = {g.tiles[0] for g in triplets if is_suited(g.tiles[0])}
        if any(all(k + j in kinds and suit_of(k + j) == suit_of(k) for j in range(_RARE_RUN)) for k in kinds):
            found.append(Limit.FIVE_SHIFTED_TRIPLETS)
        lows = [g.tiles[0] for g in sets if g.kind is GroupKind.SEQUENCE]
        if any(lows.count(k) >= _FOUR for k in set(lows)):
            found.append(Limit.FOUR_SAME_SEQUENCES)
    if ruleset.all_green_limit and all(t in _GREEN_KINDS for t in f.tiles):
        found.append(Limit.ALL_GREEN)
    return found
