"""Hand scoring 算胡: 胡数 (fu), 台数 (tai), limit hands 腊子, with an itemised breakdown.

Every fu, tai and note of a breakdown comes from one entry of :data:`SCORING_ITEMS`, the rule
table 计分项 (in the manner of a yaku list): its rule ID, Chinese and English names, value
(fixed, set by a switch, or worked out from the hand) and the predicate that says when it
applies. :func:`score_win` scores the winner's hand by walking the table over each reading of
the hand, :func:`score_hand` a loser's own hand (L23) with the entries that count for a loser,
:func:`settle_scores` turns the four results into chip transfers (L24, via
:mod:`caishen.variants.longgang.settlement`). The rule IDs (L19.1, L21.4 ...) are those of
``docs/rules/longgang.md``.
"""

from __future__ import annotations

import unicodedata
from bisect import insort
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import chain
from typing import Final, NamedTuple

from caishen.hand import Hand, Meld, MeldKind
from caishen.notation import format_hand, format_meld, format_tiles
from caishen.shapes.analysis import Arrangement, Form, Group, GroupKind, arrangements
from caishen.tiles import (
    COPIES,
    GREEN,
    MAN,
    NUM_KINDS,
    NUM_NON_FLOWER,
    RED,
    SEAT_LETTERS,
    SEATS,
    WHITE,
    WINDS,
    chinese_name,
    english_name,
    is_flower,
    is_honor,
    is_suited,
    is_terminal,
    is_terminal_or_honor,
    number_of,
    seat_flower,
    seat_wind,
    suit_of,
    tile_name,
    wind_of,
)
from caishen.variants.longgang.orphans import thirteen_orphans
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.settlement import (
    Ledger,
    NotAWinError,
    ScoringError,
    Settlement,
    bonus_fu,
    bonus_tai,
    settle,
)
from caishen.variants.longgang.unconnected import Unconnected, first_draw_shape
from caishen.variants.longgang.wilds import wild_kinds

__all__ = [
    "LOSERS_COUNT_ZERO",
    "SCORING_ITEMS",
    "FirstTurn",
    "Item",
    "Limit",
    "NotAWinError",
    "ScoreResult",
    "ScoringError",
    "ScoringItem",
    "Unit",
    "WinBy",
    "WinContext",
    "loser_totals",
    "record_scores",
    "score_arrangement",
    "score_hand",
    "score_win",
    "win_value",
    "settle_scores",
]


class WinBy(StrEnum):
    """How the winning tile came (L20.4, L10, L17)."""

    SELF_DRAW = "self-draw"              # 自摸
    DISCARD = "discard"                  # 放炮 / 食胡
    KONG_REPLACEMENT = "kong-replacement"  # 杠上开花 (also a flower replacement)
    ROB_KONG = "rob-kong"                # 抢杠: scores as a discard
    SEA_FLOOR = "sea-floor"              # 海底捞月: scores as self-draw

    @property
    def self_drawn(self) -> bool:
        return self in (WinBy.SELF_DRAW, WinBy.KONG_REPLACEMENT, WinBy.SEA_FLOOR)


class FirstTurn(StrEnum):
    """First-turn wins only the engine can know (L15.1)."""

    NONE = "none"
    HEAVENLY = "heavenly"  # 天胡: the dealer on the deal
    EARTHLY = "earthly"    # 地胡: a non-dealer on the dealer's first discard
    HUMAN = "human"        # 人胡: within the first go-round (switch human_win)


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


@dataclass(frozen=True, slots=True)
class WinContext:
    """Everything about a win besides the tiles (胡牌情况).

    ``tile``: the winning tile; ``by``: how it came; ``seat``/``dealer``: 0-3 = E S W N;
    ``indicator``: the wild indicator's kind (财神 are the other copies; a flower means 花财神),
    ``None`` for no wild; ``first_turn``: 天胡/地胡/人胡 as the engine saw it (L15.1)."""

    tile: int
    by: WinBy = WinBy.DISCARD
    seat: int = 0
    dealer: int = 0
    indicator: int | None = None
    first_turn: FirstTurn = FirstTurn.NONE

    @property
    def wind(self) -> int:
        """The winner's wind position, 0 East for the dealer (L1, L2): his wind and own flower."""
        return wind_of(self.seat, self.dealer)


class Unit(StrEnum):
    """What a line of a breakdown counts: 胡 fu, 台 tai, a limit 腊子, or a note worth 0."""

    FU = "fu"
    TAI = "tai"
    LIMIT = "limit"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Item:
    """One line of a breakdown: ``unit`` is ``fu``, ``tai``, ``limit`` or ``note`` (value 0)."""

    rule: str
    chinese: str
    english: str
    value: int
    unit: Unit

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "chinese": self.chinese, "english": self.english,
                "value": self.value, "unit": self.unit}


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """A scored hand. ``fu`` is 牌面胡数 (sum of the fu items), ``tai`` the sum of the tai items,
    ``base`` 20 for the winner and 0 for a loser; ``raw`` = (fu + base) × 2^tai; ``total`` is
    ``raw`` rounded up to 10 and capped (L23), or the cap for a limit; ``bonus_tai`` the tai that
    set the bonus (L24.3: at most 3; a limit counts 3)."""

    winner: bool
    seat: int
    groups: tuple[Group, ...]
    arrangement: Arrangement | None
    items: tuple[Item, ...]
    fu: int
    tai: int
    base: int
    raw: int
    total: int
    limit: Limit | None
    bonus_tai: int
    win_tile: int | None = None

    def table(self) -> str:
        """The itemised breakdown as a plain-text table."""
        who = "winner" if self.winner else "loser"
        lines = [f"{who} {SEAT_LETTERS[self.seat]}" + (
            f", winning tile {tile_name(self.win_tile)}" if self.win_tile is not None else "")]
        if self.groups:
            lines.append("groups: " + "  ".join(format_group(g) for g in self.groups))
        elif self.arrangement is not None and self.arrangement.form is Form.BULLDOZER:
            lines.append("groups: none (推土机 wins whatever the rest)")
        elif self.winner and self.arrangement is None:
            lines.append("groups: none (十六不搭 / 十六不靠 / 国士无双: no sets, L22.16, L22.22)")
        lines.append(f"{'rule':<8}{'item':<56}{'fu':>5}{'tai':>5}")
        for it in self.items:
            fu = str(it.value) if it.unit == "fu" else ""
            tai = str(it.value) if it.unit == "tai" else ""
            label = f"{it.chinese} {it.english}"
            if it.unit == "limit":
                fu = str(it.value)
                label += " (limit)"
            lines.append(f"{it.rule:<8}{_pad(label, 56)}{fu:>5}{tai:>5}")
        lines.append(f"{'':<8}{_pad('牌面胡数 face fu / 台数 tai', 56)}{self.fu:>5}{self.tai:>5}")
        if self.limit is not None:
            lines.append(
                f"total {self.total} = limit {self.limit.chinese} ({self.limit.rule}); bonus counts 3 tai"
            )
        else:
            formula = f"({self.fu} + {self.base})" if self.base else f"{self.fu}"
            # One line that fits 80 columns: the cap when it bit, else the rounding (L23).
            how = f"capped at {self.total}" if self.total < self.raw else "rounded up to a multiple of 10"
            lines.append(f"total {self.total} = {formula} x 2^{self.tai} = {self.raw}, {how} (L23)")
        return "\n".join(line.rstrip() for line in lines)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: fu, tai, total, limit, items, arrangement."""
        return {
            "winner": self.winner,
            "seat": SEAT_LETTERS[self.seat],
            "fu": self.fu,
            "tai": self.tai,
            "base": self.base,
            "raw": self.raw,
            "total": self.total,
            "limit": None if self.limit is None else {
                "name": self.limit.value, "chinese": self.limit.chinese, "rule": self.limit.rule},
            "bonus_tai": self.bonus_tai,
            "items": [it.to_dict() for it in self.items],
            "arrangement": {
                "form": None if self.arrangement is None else self.arrangement.form.value,
                "groups": [format_group(g) for g in self.groups],
            },
        }


def _pad(text: str, width: int) -> str:
    """Left-justify by display width (CJK characters take two columns)."""
    w = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - w)


def format_group(g: Group) -> str:
    """A group as notation, wilds marked: ``456m(5p=5m)``; declared melds in their brackets."""
    if g.meld is not None:
        return format_meld(g.meld)
    text = format_tiles(g.tiles)
    if g.wilds:
        text += "(" + ",".join(f"{tile_name(w)}={tile_name(x)}" for w, x in g.wilds) + ")"
    return text


# ----------------------------------------------------------------------------- helpers

_SET_FU: Final = {"exposed pong": 2, "concealed pong": 4, "exposed kong": 8, "concealed kong": 16}
_SET_ZH: Final = {"exposed pong": "明刻", "concealed pong": "暗刻", "exposed kong": "明杠", "concealed kong": "暗杠"}
# A pair of two of these scores 2 fu (L20.1); a pair of two wilds none (L20.2).
_PAIR_FU: Final = 2
_WILDS_PAIR: Final = 2
_GUEST_FLOWERS: Final = 3  # 客花: the three flowers that are not a seat's own (L21.7)
_TWO_TRUE_WILDS: Final = 2  # 正财神 that score L21.2


def _tn(k: int) -> str:
    """Tile name for a breakdown line: ``5m``, or ``7z Red`` for an honour."""
    return f"{tile_name(k)} {english_name(k)}" if is_honor(k) else tile_name(k)


def _meld_set_kind(m: Meld) -> str:
    if m.kind is MeldKind.PONG:
        return "exposed pong"
    if m.kind is MeldKind.CONCEALED_KONG:
        return "concealed kong"
    return "exposed kong"  # 大明杠 and 小明杠 (L19.2)


def _roundup(value: int, step: int) -> int:
    return -(-value // step) * step


def _total(fu: int, tai: int, base: int, ruleset: Ruleset) -> tuple[int, int]:
    raw = (fu + base) * (1 << tai)
    return raw, min(ruleset.max_total, _roundup(raw, ruleset.fu_per_chip))


def _scoring_honours(wind: int) -> tuple[int, int, int]:
    """Kinds whose pair scores 2 fu and whose triplet scores 1 tai: the seat wind (by wind
    position: East for the dealer, L1, L2), Red, Green."""
    return (seat_wind(wind), RED, GREEN)


def _natural(g: Group) -> list[int]:
    """The real (non-wild) tiles of a group, by the kind they are."""
    rest = list(g.tiles)
    for _, x in g.wilds:
        rest.remove(x)
    return rest


def _wild_note(g: Group) -> str:
    return f" (wild {','.join(tile_name(w) + '=' + tile_name(x) for w, x in g.wilds)})" if g.wilds else ""


@dataclass(frozen=True, slots=True)
class _Wilds:
    kinds: frozenset[int]
    true_count: int       # 正财神 held (L21.2; with a flower indicator the own flower counts, L5)
    own_flower: bool      # 坐花 held and wild (L21.4)
    any_wild: bool
    guest_flowers: tuple[int, ...]  # 客花 laid open and replaced (L20.3)
    unreplaced: tuple[int, ...] = ()  # 客花 without a replacement when another won: count nothing (L20.3)


def _wild_info(hand: Hand, wind: int, indicator: int | None, ruleset: Ruleset,
               unreplaced: tuple[int, ...] = ()) -> _Wilds:
    kinds = wild_kinds(indicator, wind, ruleset)
    conc = hand.concealed
    conc_wild = 0
    for k in kinds:  # a wild kind or two: counted in C
        conc_wild += conc.count(k)
    flower_wilds = [f for f in hand.flowers if f in kinds]
    true_count = conc_wild
    if indicator is not None and is_flower(indicator):
        true_count += len(flower_wilds)  # 花财神: every wild flower, own flower included (L5, L21.8)
    own_held = ruleset.has_flowers and ruleset.own_flower_wild and seat_flower(wind) in hand.flowers
    guests = tuple(f for f in hand.flowers if f not in kinds and f not in unreplaced)
    void = tuple(f for f in hand.flowers if f not in kinds and f in unreplaced)
    return _Wilds(kinds, true_count, own_held, conc_wild + len(flower_wilds) > 0, guests, void)


def _check_tiles(hand: Hand, extra: int | None, indicator: int | None, seat: int, dealer: int,
                 ruleset: Ruleset) -> None:
    if seat not in SEATS or dealer not in SEATS:
        raise ScoringError("seat and dealer must be 0-3 (E S W N)", code="bad-seat")
    in_play = _counting(ruleset).in_play
    if indicator is not None:
        if indicator not in in_play or not ruleset.wild_indicator:
            raise ScoringError(f"the wild {tile_name(indicator)} is not in play in ruleset {ruleset.name}",
                               code="not-in-play", rule="L4")
    tiles = hand.all_tiles() + ([] if extra is None else [extra])
    held = [0] * NUM_KINDS
    for t in tiles:
        if t not in in_play:
            raise ScoringError(f"tile {tile_name(t)} is not in play in ruleset {ruleset.name}",
                               code="not-in-play", rule="L1")
        held[t] += 1
    if indicator is not None:
        held[indicator] += 1  # the indicator stays in the dead wall (L4)
    if max(held[:NUM_NON_FLOWER]) > COPIES or max(held[NUM_NON_FLOWER:]) > 1:  # report the first kind
        for k in range(NUM_KINDS):
            limit = 1 if is_flower(k) else COPIES
            n = held[k]
            if k == indicator:
                limit -= 1  # the indicator itself stays in the dead wall (L4)
                n -= 1
            if n > limit:
                raise ScoringError(
                    f"{n} tiles of {tile_name(k)} but only {limit} can be held"
                    + (" (the indicator is face up in the wall, L4)" if k == indicator else ""),
                    code="too-many-copies", rule="L4" if k == indicator else "L1",
                )
    # a wild flower (坐花, 花财神) stays in the hand and takes a place in it (L7)
    wild_flowers = wild_kinds(indicator, wind_of(seat, dealer), ruleset)
    size = hand.size + sum(1 for f in hand.flowers if f in wild_flowers)
    if size != ruleset.hand_size:
        raise ScoringError(
            f"the hand has {size} tiles (concealed and wild flowers + 3 per meld); "
            f"it must have {ruleset.hand_size}" + (" before the winning tile" if extra is not None else ""),
            code="hand-size", rule="L13",
        )


# ----------------------------------------------------------------------------- the rule table


def _kind_bits(test: Callable[[int], bool]) -> int:
    return sum(1 << k for k in range(NUM_KINDS) if test(k))


# Kinds as bit masks (Facts.kind_bits): "every tile is an honour" is "no bit outside _HONOUR_BITS".
_SUIT_BITS: Final = tuple(((1 << 9) - 1) << (9 * s) for s in range(3))  # the nine kinds of each suit
# Facts.suits by which suits are held (bit s for suit s)
_SUIT_SETS: Final = tuple(frozenset(s for s in range(3) if held >> s & 1) for held in range(8))
# A group's tiles as a mask, by its tiles: one entry per group shape (a few hundred at most).
_TILES_BITS: Final[dict[tuple[int, ...], int]] = {}
_SUITED_BITS: Final = _kind_bits(is_suited)
_HONOUR_BITS: Final = _kind_bits(is_honor)
_WIND_BITS: Final = _kind_bits(lambda k: k in WINDS)
_TERMINAL_BITS: Final = _kind_bits(is_terminal)
_TERMINAL_OR_HONOUR_BITS: Final = _kind_bits(is_terminal_or_honor)
_MAN_BITS: Final = _kind_bits(lambda k: suit_of(k) == MAN)


class Wait(StrEnum):
    """How the winning tile sits in its group (L20.5, L20.6)."""

    CLOSED = "closed"  # 卡张
    EDGE = "edge"      # 边张
    SINGLE = "single"  # 单吊


class Scope(StrEnum):
    """What a scoring item is tested on: each group of the reading, each guest flower, or the
    hand once."""

    GROUP = "group"
    FLOWER = "flower"
    HAND = "hand"


class Who(StrEnum):
    """Whose hand an item counts in: the winner's, a loser's own (L23.7), or both."""

    WINNER = "winner"
    LOSER = "loser"
    BOTH = "both"


@dataclass(slots=True)
class Facts:
    """One reading of a hand as the scoring items see it. For the winner: the arrangement
    and where the winning tile sits in it; for a loser: the sets chosen (L23.8), the true
    wilds and own flower used in them and the wilds left void (L23.5). Not changed after it
    is made (the items only read it); not frozen because one is made for every reading, and
    a frozen dataclass pays a ``setattr`` per field in pure Python."""

    winner: bool
    ruleset: Ruleset
    wilds: _Wilds
    honours: tuple[int, int, int]
    groups: tuple[Group, ...]
    form: Form | None = None
    place: int | None = None     # the group that holds the winning tile
    by: WinBy | None = None
    wait: Wait | None = None
    true_wilds: int = 0          # 正财神 held (winner) or used in sets (loser)
    own_flower: bool = False     # 坐花 held (winner) or used in a set (loser)
    void_wilds: int = 0          # loser: wilds in no set (L23.5)
    win_as: int | None = None    # the kind the winning tile stands for
    # worked out on first use: a loser's items never need them (hot path of score_hand)
    _sets: tuple[Group, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _suits: frozenset[int] | None = field(default=None, init=False, repr=False, compare=False)
    _tiles: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _bits: int | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def sets(self) -> tuple[Group, ...]:
        """The groups that are not the pair."""
        sets = self._sets
        if sets is None:
            sets = tuple(g for g in self.groups if g.kind is not GroupKind.PAIR)
            self._sets = sets
        return sets

    @property
    def tiles(self) -> tuple[int, ...]:
        """Every tile of the groups, wilds as the kind they stand for."""
        tiles = self._tiles
        if tiles is None:
            tiles = tuple(chain.from_iterable([g.tiles for g in self.groups]))
            self._tiles = tiles
        return tiles

    @property
    def kind_bits(self) -> int:
        """Bit ``k`` set when a tile of the groups is (or a wild stands for) kind ``k``: a test
        on every tile is one mask (see _KIND_BITS)."""
        bits = self._bits
        if bits is None:
            bits = 0
            for g in self.groups:
                got = _TILES_BITS.get(g.tiles)
                if got is None:
                    got = _TILES_BITS[g.tiles] = sum(1 << t for t in set(g.tiles))
                bits |= got
            self._bits = bits
        return bits

    @property
    def suits(self) -> frozenset[int]:
        """The suits of the suited tiles."""
        suits = self._suits
        if suits is None:
            bits = self.kind_bits
            suits = _SUIT_SETS[(bits & _SUIT_BITS[0] != 0) + 2 * (bits & _SUIT_BITS[1] != 0)
                               + 4 * (bits & _SUIT_BITS[2] != 0)]
            self._suits = suits
        return suits

    @property
    def self_drawn(self) -> bool:
        return self.by is not None and self.by.self_drawn

    @property
    def placed(self) -> Group | None:
        return None if self.place is None else self.groups[self.place]

    @property
    def self_draw_void(self) -> bool:
        """A single wait on Red/Green/seat wind counts only the pair (L20.7)."""
        p = self.placed
        return (self.wait is Wait.SINGLE and p is not None and p.tiles[0] in self.honours
                and not self.ruleset.single_honor_pair_self_draw_fu)


Check = Callable[[Facts, int], bool]
"""A predicate on a reading and a subject: a group index, a guest flower, or 0 for the hand."""
Amount = Callable[[Facts, int], int]
Label = Callable[[Facts, int], tuple[str, str]]


@dataclass(frozen=True, slots=True)
class BySwitch:
    """A value the ruleset sets; ``text`` names the switch(es) for the listing."""

    text: str
    of: Callable[[Ruleset], int]


@dataclass(frozen=True, slots=True)
class ByHand:
    """A value worked out from the hand; ``text`` says how, for the listing."""

    text: str
    of: Amount


@dataclass(frozen=True, slots=True)
class ScoringItem:
    """One entry of the rule table 计分项: ``applies`` says when it counts, ``value`` how much
    (an int, a :class:`BySwitch` or a :class:`ByHand`), ``label`` the breakdown line's
    Chinese and English text when it names the tile or group (else the entry's names).
    ``zero_is_note``: worth 0 under this ruleset, the line is kept as a note. For counting
    fast: ``switch``, the ruleset switch the entry needs (``applies`` tests it too), so that a
    ruleset without it skips the entry; ``per_win``, the entry looks only at how the tile came,
    the wilds and flowers held and the ruleset, so every reading of a win counts it alike
    (tests/test_scoring_properties.py checks both)."""

    key: str
    rule: str
    chinese: str
    english: str
    unit: Unit
    value: int | BySwitch | ByHand
    applies: Check
    scope: Scope = Scope.HAND
    who: Who = Who.WINNER
    label: Label | None = None
    zero_is_note: bool = False
    switch: Callable[[Ruleset], bool] | None = None
    per_win: bool = False

    def amount(self, f: Facts, subject: int) -> int:
        v = self.value
        if isinstance(v, int):
            return v
        if isinstance(v, BySwitch):
            return v.of(f.ruleset)
        return v.of(f, subject)

    def value_text(self, ruleset: Ruleset) -> str:
        """The value as ``caishen rules`` lists it for ``ruleset``."""
        v = self.value
        if isinstance(v, int):
            return str(v)
        if isinstance(v, BySwitch):
            return f"{v.of(ruleset)} ({v.text})"
        return v.text

    def item(self, f: Facts, subject: int) -> Item:
        chinese, english = (self.chinese, self.english) if self.label is None else self.label(f, subject)
        value = self.amount(f, subject)
        unit = Unit.NOTE if self.zero_is_note and value == 0 else self.unit
        return Item(self.rule, chinese, english, value, unit)

    def subjects(self, f: Facts) -> Iterable[int]:
        if self.scope is Scope.GROUP:
            return range(len(f.groups))
        if self.scope is Scope.FLOWER:
            return f.wilds.guest_flowers
        return (0,)


# --- group items (L19, L20.1, L20.2, L21.1)


def _meld_kind(f: Facts, i: int) -> MeldKind | None:
    m = f.groups[i].meld
    return None if m is None else m.kind


def _is_concealed_triplet(f: Facts, i: int) -> bool:
    g = f.groups[i]
    return g.meld is None and g.kind is GroupKind.TRIPLET


def _set_kind(f: Facts, i: int) -> str:
    m = f.groups[i].meld
    if m is not None:
        return _meld_set_kind(m)
    return "exposed pong" if i == f.place and not f.self_drawn else "concealed pong"


def _set_fu(f: Facts, i: int) -> int:
    return _SET_FU[_set_kind(f, i)] * (2 if is_terminal_or_honor(f.groups[i].tiles[0]) else 1)


def _set_line(extra: str) -> Label:
    def label(f: Facts, i: int) -> tuple[str, str]:
        g, what = f.groups[i], _set_kind(f, i)
        k = g.tiles[0]
        return f"{_SET_ZH[what]} {chinese_name(k)}", f"{what} {_tn(k)}{extra}{_wild_note(g)}"
    return label


_SET_VALUE: Final = ByHand("明刻 2, 暗刻 4, 明杠 8, 暗杠 16; x2 for 1, 9 and honours", _set_fu)


def _honour_pair(f: Facts, i: int) -> bool:
    g = f.groups[i]
    return g.kind is GroupKind.PAIR and g.tiles[0] in f.honours


def _groups(*items: ScoringItem) -> tuple[ScoringItem, ...]:
    return items


_GROUP_ITEMS: Final = _groups(
    ScoringItem(
        "set", "L19.1", "刻杠", "pong or kong", Unit.FU, _SET_VALUE,
        lambda f, i: _meld_kind(f, i) in (MeldKind.PONG, MeldKind.EXPOSED_KONG, MeldKind.CONCEALED_KONG)
        or (_is_concealed_triplet(f, i) and i != f.place and not f.groups[i].wilds),
        Scope.GROUP, Who.BOTH, _set_line(""),
    ),
    ScoringItem(
        "added-kong", "L19.2", "小明杠", "added kong counts as an exposed kong", Unit.FU, _SET_VALUE,
        lambda f, i: _meld_kind(f, i) is MeldKind.ADDED_KONG,
        Scope.GROUP, Who.BOTH, _set_line(""),
    ),
    ScoringItem(
        "wild-in-set", "L19.4", "财神入刻", "a wild in a concealed pong counts as the tile", Unit.FU, _SET_VALUE,
        lambda f, i: _is_concealed_triplet(f, i) and i != f.place and bool(f.groups[i].wilds),
        Scope.GROUP, Who.WINNER, _set_line(""),
    ),
    ScoringItem(
        "wild-in-set-loser", "L23.5", "财神入刻", "a loser's wild counts only in a pong with a real tile",
        Unit.FU, _SET_VALUE,
        lambda f, i: _is_concealed_triplet(f, i) and bool(f.groups[i].wilds),
        Scope.GROUP, Who.LOSER, _set_line(""),
    ),
    ScoringItem(
        "pong-on-discard", "L19.5", "碰胡", "concealed pong completed on a discard counts as exposed",
        Unit.FU, _SET_VALUE,
        lambda f, i: _is_concealed_triplet(f, i) and i == f.place and not f.self_drawn,
        Scope.GROUP, Who.WINNER, _set_line(" completed on a discard"),
    ),
    ScoringItem(
        "pong-self-drawn", "L20.8", "自摸成刻", "concealed pong completed by self-draw stays concealed",
        Unit.FU, _SET_VALUE,
        lambda f, i: _is_concealed_triplet(f, i) and i == f.place and f.self_drawn,
        Scope.GROUP, Who.WINNER, _set_line(" completed by self-draw"),
    ),
    ScoringItem(
        "pair", "L20.1", "将", "pair of Red, Green or the seat wind", Unit.FU, _PAIR_FU,
        lambda f, i: _honour_pair(f, i) and len(f.groups[i].wilds) != _WILDS_PAIR,
        Scope.GROUP, Who.BOTH,
        lambda f, i: (f"将 {chinese_name(f.groups[i].tiles[0])}",
                      f"pair of {_tn(f.groups[i].tiles[0])}{_wild_note(f.groups[i])}"),
    ),
    ScoringItem(
        "wilds-pair", "L20.2", "财神作将", "pair of two wilds: no pair fu", Unit.NOTE, 0,
        lambda f, i: _honour_pair(f, i) and len(f.groups[i].wilds) == _WILDS_PAIR,
        Scope.GROUP, Who.WINNER,
        lambda f, i: (f"财神作将 {chinese_name(f.groups[i].tiles[0])}",
                      f"pair of two wilds as {tile_name(f.groups[i].tiles[0])}: no pair fu"),
    ),
    ScoringItem(
        "honour-triplet", "L21.1", "字刻", "pong or kong of Red, Green or the seat wind", Unit.TAI, 1,
        lambda f, i: (f.groups[i].kind in (GroupKind.TRIPLET, GroupKind.KONG) and f.groups[i].tiles[0] in f.honours
                      and f.groups[i].tiles[0] not in f.wilds.kinds),
        Scope.GROUP, Who.BOTH,
        lambda f, i: (f"字刻 {chinese_name(f.groups[i].tiles[0])}", f"triplet of {_tn(f.groups[i].tiles[0])}"),
    ),
)


# --- hand items (L16, L20.3-L20.7, L21.2-L21.10, L23.5)

_SELF_DRAW_NAMES: Final = {
    WinBy.SELF_DRAW: ("自摸", "self-draw"),
    WinBy.KONG_REPLACEMENT: ("杠上开花", "win on a replacement draw"),
    WinBy.SEA_FLOOR: ("海底捞月", "self-draw from the sea floor"),
}


def _self_draw_name(f: Facts) -> tuple[str, str]:
    return _SELF_DRAW_NAMES[f.by] if f.by in _SELF_DRAW_NAMES else _SELF_DRAW_NAMES[WinBy.SELF_DRAW]


def _win_as(f: Facts) -> str:
    return "" if f.win_as is None else tile_name(f.win_as)


def _single_wait_label(f: Facts, _: int) -> tuple[str, str]:
    p = f.placed
    pk = "" if p is None else tile_name(p.tiles[0])
    only_pair = ": only the pair counts (L20.7)" if f.self_draw_void and f.self_drawn else ""
    return "单吊", f"single wait on {pk}{only_pair}"


def _own_flower_label(f: Facts, _: int) -> tuple[str, str]:
    return "坐花", "own flower in the hand" if f.winner else "own flower used in a set"


def _four_flowers(f: Facts, _: int) -> bool:
    return f.own_flower and len(f.wilds.guest_flowers) == _GUEST_FLOWERS


def _plain_hand(f: Facts, _: int) -> bool:
    return (
        f.form is Form.STANDARD and all(g.kind is GroupKind.SEQUENCE for g in f.sets)
        and not any(g.kind is GroupKind.PAIR and g.tiles[0] in f.honours for g in f.groups)
        and not f.wilds.guest_flowers and not f.self_drawn and f.wait is not Wait.CLOSED
        and len(f.suits) > 1 and f.wilds.true_count == 1 and not f.wilds.own_flower
    )


_EDGE_SINGLE_FU: Final = BySwitch(
    "closed_wait_fu if edge_single_wait_fu, else 0",
    lambda r: r.closed_wait_fu if r.edge_single_wait_fu else 0,
)

_DRAGON_SETS: Final = 3


def _one_dragon(f: Facts, _: int) -> bool:
    """一條龍: 123, 456 and 789 of one suit among the sequences (L21.11)."""
    lows = {g.tiles[0] for g in f.sets if g.kind is GroupKind.SEQUENCE}
    return len(lows) >= _DRAGON_SETS and any(s in lows and s + 3 in lows and s + 6 in lows for s in (0, 9, 18))


def _all_triplets(f: Facts) -> bool:
    """A standard hand whose sets are all pongs or kongs, one pass over the groups: 对对胡
    (L21.5), and the terminal limits' condition on the standard form (L22)."""
    if f.form is not Form.STANDARD:
        return False
    sets = False
    for g in f.groups:
        if g.kind is GroupKind.SEQUENCE:
            return False
        if g.kind is not GroupKind.PAIR:
            sets = True
    return sets


def _no_claimed_set(f: Facts) -> bool:
    """門清: no chow, pong or exposed kong (a concealed kong keeps the hand concealed, L21.12)."""
    return all(g.meld is None or g.meld.kind is MeldKind.CONCEALED_KONG for g in f.groups)


def _all_claimed(f: Facts) -> bool:
    """全求人: every set claimed from a discard, the pair completed by a single wait (L21.13)."""
    return (f.form is Form.STANDARD and f.wait is Wait.SINGLE and all(
        g.meld is not None and g.meld.kind is not MeldKind.CONCEALED_KONG for g in f.sets))


_HAND_ITEMS: Final = _groups(
    ScoringItem(
        "closed-wait", "L20.5", "卡张", "closed wait", Unit.FU,
        BySwitch("closed_wait_fu", lambda r: r.closed_wait_fu),
        lambda f, _: f.wait is Wait.CLOSED,
        label=lambda f, _: ("卡张", f"closed wait on {_win_as(f)}"), zero_is_note=True,
    ),
    ScoringItem(
        "edge-wait", "L20.6", "边张", "edge wait", Unit.FU, _EDGE_SINGLE_FU,
        lambda f, _: f.wait is Wait.EDGE,
        label=lambda f, _: ("边张", f"edge wait on {_win_as(f)}"), zero_is_note=True,
    ),
    ScoringItem(
        "wild-single-wait", "L16.1", "财神单吊", "single wait on a wild", Unit.NOTE, 0,
        lambda f, _: f.wait is Wait.SINGLE and f.placed is not None and bool(f.placed.wilds),
    ),
    ScoringItem(
        "single-wait", "L20.6", "单吊", "single wait", Unit.FU, _EDGE_SINGLE_FU,
        lambda f, _: f.wait is Wait.SINGLE, label=_single_wait_label, zero_is_note=True,
    ),
    ScoringItem(
        "single-wait-tai", "L21.10", "单吊", "single wait (switch single_wait_tai)", Unit.TAI, 1,
        lambda f, _: f.wait is Wait.SINGLE and f.ruleset.single_wait_tai,
        switch=lambda r: r.single_wait_tai,
    ),
    ScoringItem(
        "self-draw", "L20.4", "自摸", "self-draw (also 杠上开花, 海底捞月)", Unit.FU,
        BySwitch("self_draw_fu", lambda r: r.self_draw_fu),
        lambda f, _: f.self_drawn and not f.self_draw_void,
        label=lambda f, _: _self_draw_name(f),
    ),
    ScoringItem(
        "self-draw-void", "L20.7", "自摸不计", "no self-draw fu on a single wait on Red/Green/seat wind",
        Unit.NOTE, 0,
        lambda f, _: f.self_drawn and f.self_draw_void,
        label=lambda f, _: (_self_draw_name(f)[0],
                            _self_draw_name(f)[1] + ": not counted on a single wait on Red/Green/seat wind"),
    ),
    ScoringItem(
        "guest-flower", "L20.3", "客花", "each guest flower laid open", Unit.FU,
        BySwitch("flower_fu", lambda r: r.flower_fu),
        lambda f, _: True, Scope.FLOWER, Who.BOTH,
        lambda f, k: (f"客花 {chinese_name(k)}", f"guest flower {tile_name(k)}"), per_win=True,
    ),
    ScoringItem(
        "unreplaced-flower", "L20.3", "花未补", "a guest flower not replaced when another won counts nothing",
        Unit.NOTE, 0, lambda f, _: bool(f.wilds.unreplaced), who=Who.LOSER,
        label=lambda f, _: ("花未补", "guest flower " + " ".join(tile_name(k) for k in f.wilds.unreplaced)
                           + " not replaced when another won: no fu (若別家已胡牌，自己花牌未補槓，則不計胡數)"),
    ),
    ScoringItem(
        "kong-replacement-tai", "L21.10", "杠上开花", "win on a replacement draw (switch)", Unit.TAI, 1,
        lambda f, _: f.by is WinBy.KONG_REPLACEMENT and f.ruleset.kong_replacement_tai,
        switch=lambda r: r.kong_replacement_tai, per_win=True,
    ),
    ScoringItem(
        "two-true-wilds", "L21.2", "两财神", "two or more true wilds 正财神", Unit.TAI, 1,
        lambda f, _: f.true_wilds >= _TWO_TRUE_WILDS, who=Who.BOTH,
        label=lambda f, _: ("两财神", f"{f.true_wilds} true wilds " + ("正财神" if f.winner else "used in sets")),
        per_win=True,
    ),
    ScoringItem(
        "no-wild", "L21.3", "无财神", "no wild at all", Unit.TAI, 1,
        lambda f, _: not f.wilds.any_wild, per_win=True,
    ),
    ScoringItem(
        "four-flowers", "L21.7", "四花", "own flower and all three guest flowers", Unit.TAI,
        ByHand("2; in a loser's hand loser_four_flowers_tai",
               lambda f, _: 2 if f.winner else f.ruleset.loser_four_flowers_tai),
        _four_flowers, who=Who.BOTH, per_win=True,
    ),
    ScoringItem(
        "own-flower", "L21.4", "坐花", "own flower in the hand", Unit.TAI, 1,
        lambda f, s: f.own_flower and not _four_flowers(f, s), who=Who.BOTH, label=_own_flower_label,
        per_win=True,
    ),
    ScoringItem(
        "all-triplets", "L21.5", "对对胡", "all triplets", Unit.TAI, 1,
        lambda f, _: _all_triplets(f),
    ),
    ScoringItem(
        "half-flush", "L21.6", "混一色", "one suit and honours", Unit.TAI, 1,
        lambda f, _: len(f.suits) == 1 and bool(f.kind_bits & _HONOUR_BITS),
    ),
    ScoringItem(
        "one-dragon", "L21.11", "一条龙", "123 456 789 of one suit (switch one_dragon_tai)", Unit.TAI, 1,
        lambda f, s: f.ruleset.one_dragon_tai and f.form is Form.STANDARD and _one_dragon(f, s),
        switch=lambda r: r.one_dragon_tai,
    ),
    ScoringItem(
        "concealed-hand", "L21.12", "门清", "no chow, pong or exposed kong (switch concealed_hand_tai)", Unit.TAI, 1,
        lambda f, _: f.ruleset.concealed_hand_tai and f.form is not Form.BULLDOZER and _no_claimed_set(f),
        label=lambda f, _: ("不求人", "concealed hand, self-drawn") if f.self_drawn else (
            "门清", "concealed hand, won on a discard"), switch=lambda r: r.concealed_hand_tai,
    ),
    ScoringItem(
        "all-claimed", "L21.13", "全求人", "every set claimed, single wait (switch all_claimed_tai)", Unit.TAI, 1,
        lambda f, _: f.ruleset.all_claimed_tai and _all_claimed(f),
        label=lambda f, _: ("半求人", "every set claimed, single wait self-drawn") if f.self_drawn else (
            "全求人", "every set claimed, single wait on a discard"), switch=lambda r: r.all_claimed_tai,
    ),
    ScoringItem(
        "wild-as-itself", "L16.2", "财神归位", "a wild stands for its own kind", Unit.NOTE, 0,
        lambda f, _: any(w == x and w in f.wilds.kinds and not is_flower(w) for g in f.groups for w, x in g.wilds),
    ),
    ScoringItem(
        "plain-hand", "L21.9", "平胡", "plain hand: base 20 only", Unit.NOTE, 0, _plain_hand,
    ),
    ScoringItem(
        "void-wilds", "L23.5", "财神卖兵", "wilds not in a set are void", Unit.NOTE, 0,
        lambda f, _: f.void_wilds > 0, who=Who.LOSER,
        label=lambda f, _: ("财神卖兵", f"{f.void_wilds} wild(s) not in a set: void"),
    ),
)

SCORING_ITEMS: Final[tuple[ScoringItem, ...]] = _GROUP_ITEMS + _HAND_ITEMS
"""The rule table: every fu, tai and note item, group items first, in the order the breakdown
lists them. Limit hands are :class:`Limit` (L22)."""


def _counts_for(who: Who, items: Iterable[ScoringItem]) -> tuple[ScoringItem, ...]:
    return tuple(e for e in items if e.who in (who, Who.BOTH))


_WINNER_GROUP: Final = _counts_for(Who.WINNER, _GROUP_ITEMS)
_WINNER_HAND: Final = _counts_for(Who.WINNER, _HAND_ITEMS)
_LOSER_GROUP: Final = _counts_for(Who.LOSER, _GROUP_ITEMS)
_LOSER_FLOWER: Final = tuple(e for e in _counts_for(Who.LOSER, _HAND_ITEMS) if e.scope is Scope.FLOWER)
_LOSER_HAND: Final = tuple(e for e in _counts_for(Who.LOSER, _HAND_ITEMS) if e.scope is not Scope.FLOWER)


def _walk_groups(f: Facts, entries: Sequence[ScoringItem], indexes: Iterable[int]) -> list[Item]:
    """The group items of ``indexes``, group by group (so a breakdown follows the groups)."""
    return [e.item(f, i) for i in indexes for e in entries if e.applies(f, i)]


def _walk(f: Facts, entries: Sequence[ScoringItem]) -> list[Item]:
    return [e.item(f, s) for e in entries for s in e.subjects(f) if e.applies(f, s)]


_Counter = tuple[Check, int | None, Amount, bool, Callable[[Facts], Iterable[int]] | None]
"""A rule-table entry as one ruleset counts it: predicate, value when fixed (int or switch,
else None), amount, counts fu (else tai), its subjects (None: tested once, for the hand)."""


def _counters(ruleset: Ruleset, entries: Iterable[ScoringItem]) -> tuple[_Counter, ...]:
    """The entries that can add fu or tai under ``ruleset``: notes, entries this ruleset
    sets to 0 and entries whose switch it leaves off never change a count."""
    out: list[_Counter] = []
    for e in entries:
        if e.unit is not Unit.FU and e.unit is not Unit.TAI:
            continue
        if e.switch is not None and not e.switch(ruleset):
            continue
        v = e.value
        fixed = v if isinstance(v, int) else v.of(ruleset) if isinstance(v, BySwitch) else None
        if fixed == 0:
            continue
        out.append((e.applies, fixed, e.amount, e.unit is Unit.FU,
                    None if e.scope is Scope.HAND else e.subjects))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Counting:
    """The rule table's counting entries for one ruleset, made once (see :func:`_counting`)."""

    winner_group: tuple[_Counter, ...]
    winner_hand: tuple[_Counter, ...]  # those that differ from reading to reading
    winner_win: tuple[_Counter, ...]   # those alike in every reading of a win (per_win)
    loser_group: tuple[_Counter, ...]
    loser_hand: tuple[_Counter, ...]
    in_play: frozenset[int]
    # a loser's chosen set or pair and its (fu, tai), by (seat's honours, wild kinds, kind,
    # wilds in it or None for the pair): see score_hand
    loser_sets: dict[tuple[tuple[int, int, int], frozenset[int], int, tuple[tuple[int, int], ...] | None],
                     tuple[Group, int, int]] = field(default_factory=dict)
    # a winner's group and its (fu, tai), by (self-drawn, seat's honours, wild kinds) and then
    # by the group's identity, doubled, plus 1 if it holds the winning tile (the analyser
    # shares its groups from call to call, and hashing a group costs more than its count
    # saves; the entry holds the group, so no other object takes its id): see _win_setup
    winner_groups: dict[tuple[bool, tuple[int, int, int], frozenset[int]],
                        dict[int, tuple[Group, int, int]]] = field(default_factory=dict)


# By identity (the fast path) and by value: the game centre makes a new but equal ruleset for
# every room, and equal rulesets share one _Counting, so its caches serve every such room.
_COUNTING: Final[dict[int, tuple[Ruleset, _Counting]]] = {}
_COUNTING_BY_VALUE: Final[dict[Ruleset, _Counting]] = {}
_COUNTING_KEPT: Final = 64  # different rulesets (house rules) remembered
_IDENTITIES_KEPT: Final = 4096  # ruleset objects remembered by identity
_LOSER_SETS_KEPT: Final = 4096  # a loser's chosen sets remembered per ruleset, cleared when full
# A winner's groups remembered over all contexts (self-drawn, honours, wild kinds) and all
# rulesets of the process, all cleared when full: about 0.28 kB an entry, so at most about
# 6 MB (the strong bot scores its
# waits with win_value, and the same groups recur from wait to wait and turn to turn; 300
# hands of bench_bots.py's table leave about 2,000 entries).
_WINNER_GROUPS_KEPT: Final = 20_000
_winner_groups_size: Final = [0]  # entries over all contexts and rulesets


def _counting(ruleset: Ruleset) -> _Counting:
    """The counting entries for ``ruleset``, remembered by identity (hashing a ruleset costs
    more than the walk it saves)."""
    hit = _COUNTING.get(id(ruleset))
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    c = _COUNTING_BY_VALUE.get(ruleset)
    if c is None:
        c = _Counting(
            _counters(ruleset, _WINNER_GROUP), _counters(ruleset, [e for e in _WINNER_HAND if not e.per_win]),
            _counters(ruleset, [e for e in _WINNER_HAND if e.per_win]),
            _counters(ruleset, _LOSER_GROUP), _counters(ruleset, _LOSER_HAND),
            frozenset(ruleset.tile_kinds),
        )
        if len(_COUNTING_BY_VALUE) >= _COUNTING_KEPT:
            _COUNTING_BY_VALUE.clear()
            _COUNTING.clear()
            _winner_groups_size[0] = 0
        _COUNTING_BY_VALUE[ruleset] = c
    if len(_COUNTING) >= _IDENTITIES_KEPT:
        _COUNTING.clear()
    _COUNTING[id(ruleset)] = (ruleset, c)
    return c


def _fu_tai(f: Facts, group_counters: Sequence[_Counter], indexes: Iterable[int],
            hand_counters: Sequence[_Counter]) -> tuple[int, int]:
    """The fu and tai the walks of :func:`_walk_groups` and :func:`_walk` would list, without
    making their lines: readings are compared on these, and only the best one is itemised."""
    fu = tai = 0
    for i in indexes:
        for applies, fixed, amount, is_fu, _ in group_counters:
            if applies(f, i):
                v = amount(f, i) if fixed is None else fixed
                if is_fu:
                    fu += v
                else:
                    tai += v
    for applies, fixed, amount, is_fu, subjects in hand_counters:
        if subjects is None:
            if not applies(f, 0):
                continue
            v = amount(f, 0) if fixed is None else fixed
        else:
            v = 0
            for s in subjects(f):
                if applies(f, s):
                    v += amount(f, s) if fixed is None else fixed
        if is_fu:
            fu += v
        else:
            tai += v
    return fu, tai


def _by_unit(items: Sequence[Item]) -> tuple[list[Item], list[Item], list[Item]]:
    """fu items, tai items and notes, each in table order."""
    return ([it for it in items if it.unit is Unit.FU], [it for it in items if it.unit is Unit.TAI],
            [it for it in items if it.unit is Unit.NOTE])



# ----------------------------------------------------------------------------- winner


def _placements(arr: Arrangement, tile: int, wilds: frozenset[int]) -> list[int]:
    """Indexes of concealed groups that can hold the winning tile (L13.2)."""
    out = []
    wild = tile in wilds
    for i, g in enumerate(arr.groups):
        if g.meld is not None:
            continue
        if wild:
            if any(w == tile for w, _ in g.wilds):
                out.append(i)
        elif tile in g.tiles and (not g.wilds or tile in _natural(g)):
            out.append(i)
    return out


def _stands_for(g: Group, tile: int, wilds: frozenset[int]) -> int:
    if tile in wilds:
        return next(x for w, x in g.wilds if w == tile)
    return tile


def _wait(g: Group, win_as: int) -> Wait | None:
    """The wait the winning tile (standing for ``win_as``) completes in group ``g`` (L20.5, L20.6)."""
    if g.kind is GroupKind.PAIR:
        return Wait.SINGLE
    if g.kind is not GroupKind.SEQUENCE:
        return None
    low = g.tiles[0]
    if win_as == low + 1:
        return Wait.CLOSED
    if (win_as == low + 2 and number_of(low) == 1) or (win_as == low and number_of(low) == 7):
        return Wait.EDGE  # 3 with 12, 7 with 89
    return None


_TRIPLET: Final = 3
_MIXED_WILDS: Final = 2  # wilds held that let a wild stand in a wind set (L22.6)
_COUNTED_LIMIT_TAI: Final = 3  # a total of 300 with this many tai is a limit (L22.1)


def _limits(f: Facts, first_turn: FirstTurn, wind: int) -> list[Limit]:
    """The limits the reading makes, in the order their name is chosen (L22.12)."""
    ruleset, wi, groups = f.ruleset, f.wilds, f.groups
    found: list[Limit] = []
    if f.form is Form.BULLDOZER or (ruleset.bulldozer and wi.true_count >= ruleset.bulldozer_wilds):
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


class _Reading(NamedTuple):
    """One placement of the winning tile in one arrangement, counted but not yet itemised
    (a named tuple: made for every placement, and a tuple is made faster than a frozen
    dataclass in pure Python)."""

    facts: Facts
    arr: Arrangement | None  # None: 十六不搭 / 十六不靠 / 国士无双, no groups (L22.16, L22.22)
    fu: int
    tai: int
    raw: int
    total: int
    limit: Limit | None
    key: tuple[int, int, int]  # most chips for the winner: total + bonus, then tai, then fu (L13.1)


# What every reading of one win shares: the counting entries, the group counts of the win's
# context, the seat's honours, its wind, and the fu and tai of the per_win entries (counted
# on the first reading: empty until then).
_WinSetup = tuple[_Counting, dict[int, tuple[Group, int, int]], tuple[int, int, int], int, list[int]]


def _win_setup(ctx: WinContext, wi: _Wilds, ruleset: Ruleset) -> _WinSetup:
    c = _counting(ruleset)
    wind = ctx.wind
    honours = _scoring_honours(wind)
    # A group counts the same in every placement but the one that puts the winning tile in it
    # (L19.5, L20.8: the group items look only at their group, whether it holds the winning
    # tile, the seat's honours, the wild kinds and whether the tile was self-drawn), so each
    # group is counted once as holding the tile and once not, in any arrangement and any win
    # of the same context (the itemised walk, done afresh, adds up to the same: tests/test_scoring_properties.py).
    context = (ctx.by.self_drawn, honours, wi.kinds)
    group_counts = c.winner_groups.get(context)
    if group_counts is None:
        group_counts = c.winner_groups[context] = {}
    return (c, group_counts, honours, wind, [])


def _read_placement(
    arr: Arrangement, place: int | None, ctx: WinContext, wi: _Wilds, ruleset: Ruleset, setup: _WinSetup,
) -> _Reading:
    c, group_counts, honours, wind, per_win = setup
    placed = arr.groups[place] if place is not None else None
    win_as = _stands_for(placed, ctx.tile, wi.kinds) if placed is not None else ctx.tile
    f = Facts(
        True, ruleset, wi, honours, arr.groups, arr.form, place, ctx.by,
        None if placed is None else _wait(placed, win_as), wi.true_count, wi.own_flower, 0, win_as,
    )
    if not per_win:  # the per_win entries count alike in every reading of the win: once
        per_win.extend(_fu_tai(f, (), (), c.winner_win))
    fu, tai = _fu_tai(f, (), (), c.winner_hand)
    fu += per_win[0]
    tai += per_win[1]
    for i, g in enumerate(arr.groups):
        slot = 2 * id(g) + (i == place)
        hit = group_counts.get(slot)
        if hit is None:
            size = _winner_groups_size
            if size[0] >= _WINNER_GROUPS_KEPT:
                for counting in _COUNTING_BY_VALUE.values():
                    for kept in counting.winner_groups.values():
                        kept.clear()
                size[0] = 0
            size[0] += 1
            gfu, gtai = _fu_tai(f, c.winner_group, (i,), ())
            hit = group_counts[slot] = (g, gfu, gtai)
        fu += hit[1]
        tai += hit[2]
    raw, total = _total(fu, tai, ruleset.base_fu, ruleset)
    limits = _limits(f, ctx.first_turn, wind)
    if not limits and tai >= _COUNTED_LIMIT_TAI and total >= ruleset.max_total:
        limits.append(Limit.COUNTED)  # L22.1: 300 with 3 or more tai
    limit = limits[0] if limits else None
    if limit is not None:
        total = ruleset.max_total
    is_limit = limit is not None
    key = (total + bonus_fu(bonus_tai(tai, is_limit), is_limit, ruleset), tai, fu)
    return _Reading(f, arr, fu, tai, raw, total, limit, key)


def _arrangement_readings(
    arr: Arrangement, ctx: WinContext, wi: _Wilds, ruleset: Ruleset, setup: _WinSetup | None = None,
) -> list[_Reading]:
    """Every place of the winning tile in ``arr`` (L13.2), or none for a reading without groups."""
    if setup is None:
        setup = _win_setup(ctx, wi, ruleset)
    places: list[int | None] = list(_placements(arr, ctx.tile, wi.kinds)) if arr.groups else []
    return [_read_placement(arr, p, ctx, wi, ruleset, setup) for p in places or [None]]


def _best(readings: Iterable[_Reading]) -> _Reading:
    """The reading worth most to the winner; the first of equals (L13 就高不就低)."""
    return max(readings, key=lambda r: r.key)


def _itemise(r: _Reading, ctx: WinContext, ruleset: Ruleset) -> ScoreResult:
    """The winner's result for the chosen reading, each line from the rule table."""
    f, arr = r.facts, r.arr
    fu_items, tai_items, notes = _by_unit(
        _walk_groups(f, _WINNER_GROUP, range(len(f.groups))) + _walk(f, _WINNER_HAND))
    items = fu_items + tai_items + notes
    limit = r.limit
    if limit is not None:
        items.append(Item(limit.rule, limit.chinese, limit.english, ruleset.max_total, Unit.LIMIT))
    return ScoreResult(
        True, ctx.seat, f.groups, arr, tuple(items), r.fu, r.tai, ruleset.base_fu, r.raw, r.total, limit,
        bonus_tai(r.tai, limit is not None), ctx.tile,
    )


def _check_context(ctx: WinContext, wi: _Wilds, ruleset: Ruleset) -> None:
    if not isinstance(ctx.by, WinBy):
        raise ScoringError(f"unknown way of winning {ctx.by!r}", code="win-by")
    if is_flower(ctx.tile) and ctx.tile not in wi.kinds:
        raise ScoringError(f"{tile_name(ctx.tile)} is a guest flower 客花: it is replaced, never a winning tile",
                           code="guest-flower-win", rule="L7")
    if ctx.tile in wi.kinds and not ctx.by.self_drawn:
        raise ScoringError(f"{tile_name(ctx.tile)} is a wild: it is never discarded, so it cannot be won on a "
                           f"{ctx.by.value} (L8)", code="wild-not-discarded", rule="L8")
    ft = ctx.first_turn
    if ft is FirstTurn.HEAVENLY and (ctx.seat != ctx.dealer or ctx.by not in (WinBy.SELF_DRAW, WinBy.KONG_REPLACEMENT)):
        raise ScoringError("天胡 heavenly win is the dealer winning on the deal (self-draw), L15.1",
                           code="first-turn", rule="L15.1")
    if ft is FirstTurn.EARTHLY and (ctx.seat == ctx.dealer or ctx.by is not WinBy.DISCARD):
        raise ScoringError("地胡 earthly win is a non-dealer winning on the dealer's first discard, L15.1",
                           code="first-turn", rule="L15.1")
    if ft is FirstTurn.HUMAN and not ruleset.human_win:
        raise ScoringError("人胡 is not played in this ruleset (switch human_win, L15)",
                           code="switch-off", rule="L15")


def score_arrangement(hand: Hand, arr: Arrangement, ctx: WinContext, ruleset: Ruleset = LONGGANG) -> ScoreResult:
    """Score one arrangement of the winning hand (``hand`` holds the winning tile), trying every
    place of the winning tile in it and keeping the best (L13.2)."""
    wi = _wild_info(hand, ctx.wind, ctx.indicator, ruleset)
    return _itemise(_best(_arrangement_readings(arr, ctx, wi, ruleset)), ctx, ruleset)


def score_win(hand: Hand, ctx: WinContext, ruleset: Ruleset = LONGGANG) -> ScoreResult:
    """Score the winner's hand: ``hand`` is the hand *before* the winning tile ``ctx.tile``
    (16 tiles counting melds as 3, flowers apart). The arrangement that scores most is used
    (L13). Raises :class:`ScoringError` for wrong input, :class:`NotAWinError` if it does not win."""
    return _itemise(_best_win(hand, ctx, ruleset), ctx, ruleset)


def win_value(hand: Hand, ctx: WinContext, ruleset: Ruleset = LONGGANG) -> int:
    """What :func:`score_win` of the same win brings the winner from each loser before
    settlement: its ``total`` plus the fu of its bonus tai (:func:`bonus_fu`), without
    itemising it (the strong bot values its waits with this). Same checks and errors."""
    return _best_win(hand, ctx, ruleset).key[0]


def _with_checked_tile(hand: Hand, tile: int) -> Hand:
    """``hand.with_tile(tile)`` for a tile _check_tiles let through (in play, a flower not
    held yet): the same hand, without checking it again."""
    if is_flower(tile):
        return Hand.trusted(hand.concealed, hand.melds, tuple(sorted((*hand.flowers, tile))))
    conc = list(hand.concealed)
    insort(conc, tile)
    return Hand.trusted(tuple(conc), hand.melds, hand.flowers)


def _best_win(hand: Hand, ctx: WinContext, ruleset: Ruleset) -> _Reading:
    _check_tiles(hand, ctx.tile, ctx.indicator, ctx.seat, ctx.dealer, ruleset)
    full = _with_checked_tile(hand, ctx.tile)
    wi = _wild_info(full, ctx.wind, ctx.indicator, ruleset)
    _check_context(ctx, wi, ruleset)
    arrs = arrangements(full, ruleset, wi.kinds)  # includes 推土机 of flower wilds (L5, L8)
    # 十六不搭 / 十六不靠 (L22.16): the engine offers it only on the first draw; scored as shown
    shape = first_draw_shape(full, wi.kinds, ruleset.hand_size, ruleset.sixteen_unconnected_limit,
                             ruleset.sixteen_knitted_limit)
    # 国士无双 (L22.22): offered at any time, concealed
    orphans = ruleset.thirteen_orphans_limit and thirteen_orphans(full, wi.kinds, ruleset.hand_size)
    if not arrs and shape is None and not orphans:
        raise NotAWinError(f"{format_hand(hand)} with {tile_name(ctx.tile)} is not a winning hand", rule="L13")
    setup = _win_setup(ctx, wi, ruleset)
    readings = [r for arr in arrs for r in _arrangement_readings(arr, ctx, wi, ruleset, setup)]
    if shape is not None:
        readings.append(_shape_reading(
            Limit.SIXTEEN_KNITTED if shape is Unconnected.KNITTED else Limit.SIXTEEN_UNCONNECTED, ctx, wi, ruleset))
    if orphans:
        readings.append(_shape_reading(Limit.THIRTEEN_ORPHANS, ctx, wi, ruleset))
    return _best(readings)


def _shape_reading(shape: Limit, ctx: WinContext, wi: _Wilds, ruleset: Ruleset) -> _Reading:
    """十六不搭 / 十六不靠 (L22.16) and 国士无双 (L22.22), the limit ``shape``: no groups, so only
    the hand's items count (self-draw, flowers, wilds), and the hand is a limit (named after
    推土机 and 天胡 when those hold too)."""
    f = Facts(True, ruleset, wi, _scoring_honours(ctx.wind), (), None, None, ctx.by, None,
              wi.true_count, wi.own_flower, 0, ctx.tile)
    c = _counting(ruleset)
    fu, tai = _fu_tai(f, (), (), c.winner_hand + c.winner_win)
    raw, _ = _total(fu, tai, ruleset.base_fu, ruleset)
    limits = _limits(f, ctx.first_turn, ctx.wind)
    limit = limits[0] if limits else shape
    total = ruleset.max_total
    key = (total + bonus_fu(bonus_tai(tai, True), True, ruleset), tai, fu)
    return _Reading(f, None, fu, tai, raw, total, limit, key)


# ----------------------------------------------------------------------------- losers


def score_hand(hand: Hand, seat: int, dealer: int = 0, indicator: int | None = None,
               ruleset: Ruleset = LONGGANG, unreplaced: tuple[int, ...] = ()) -> ScoreResult:
    """Score a loser's own hand (L23.4-L23.8): declared melds, concealed triplets a wild may
    help (with at least one real tile, 財神賣兵 L23.5), at most one real pair of Red/Green/seat
    wind, guest flowers (``unreplaced`` ones count nothing, L20.3); tai L21.1, L21.2, L21.4, L21.7 only. The best choice is taken."""
    _check_tiles(hand, None, indicator, seat, dealer, ruleset)
    wind = wind_of(seat, dealer)  # the dealer is East, his flower 春 (L1, L2)
    wi = _wild_info(hand, wind, indicator, ruleset, unreplaced)
    honours = _scoring_honours(wind)
    own = seat_flower(wind)
    flower_indicator = indicator is not None and is_flower(indicator)
    wild_tiles = [t for t in hand.concealed if t in wi.kinds] + [f for f in hand.flowers if f in wi.kinds]
    own_held = wi.own_flower
    others = [t for t in wild_tiles if not (own_held and t == own)]
    counts = [0] * NUM_NON_FLOWER
    for t in hand.concealed:
        if t not in wi.kinds:
            counts[t] += 1
    meld_groups = tuple(_meld_group(m) for m in hand.melds)
    melds = range(len(meld_groups))
    # the melds and guest flowers count whatever the choice of the concealed sets
    melds_facts = Facts(False, ruleset, wi, honours, meld_groups)
    base = _walk_groups(melds_facts, _LOSER_GROUP, melds) + _walk(melds_facts, _LOSER_FLOWER)
    base_fu = sum(it.value for it in base if it.unit is Unit.FU)
    base_tai = sum(it.value for it in base if it.unit is Unit.TAI)
    chosen_from = len(meld_groups)
    counting = _counting(ruleset)

    # choices: per kind, 0-2 triplets (each with >= 1 real tile) or the one pair; each is
    # counted, and only the best is itemised
    candidates = [k for k in range(NUM_NON_FLOWER) if counts[k]]
    best: tuple[tuple[Group, ...], tuple[int, bool, int]] | None = None
    best_key = (0, 0, 0)
    # A loser's hand items look only at the wilds used and left void and the own flower
    # (L21.2, L21.4, L21.7, L23.5), so each such use is counted once.
    hand_counts: dict[tuple[int, bool, int], tuple[int, int]] = {}

    def hand_count(used: tuple[int, bool, int]) -> tuple[int, int]:
        hit = hand_counts.get(used)
        if hit is None:
            hit = _fu_tai(loser_facts(meld_groups, used), (), (), counting.loser_hand)
            hand_counts[used] = hit
        return hit

    def loser_facts(groups: tuple[Group, ...], used: tuple[int, bool, int]) -> Facts:
        true_wilds, own_flower, void_wilds = used
        return Facts(False, ruleset, wi, honours, groups, true_wilds=true_wilds, own_flower=own_flower,
                     void_wilds=void_wilds)
    # A loser's chosen set or pair counts the same whatever else is chosen (L23.4-L23.8: the
    # group items look at the group, the seat's honours and the wild kinds), so each is
    # counted once per ruleset.
    chosen_groups = counting.loser_sets
    if len(chosen_groups) > _LOSER_SETS_KEPT:
        chosen_groups.clear()

    def chosen_group(k: int, ws: tuple[tuple[int, int], ...] | None) -> tuple[Group, int, int]:
        """A concealed triplet of ``k`` with wilds ``ws`` (``None``: the pair of ``k``), with its fu and tai."""
        key = (honours, wi.kinds, k, ws)
        hit = chosen_groups.get(key)
        if hit is None:
            g = Group(GroupKind.PAIR, (k, k)) if ws is None else Group(GroupKind.TRIPLET, (k, k, k), ws)
            hit = (g, *_fu_tai(Facts(False, ruleset, wi, honours, (g,)), counting.loser_group, (0,), ()))
            chosen_groups[key] = hit
        return hit

    def finish(chosen: list[tuple[int, int]], pair: int | None) -> None:
        nonlocal best, best_key
        need = sum(_TRIPLET - n for _, n in chosen)
        # spend the wilds so as to earn the most tai: own flower first if that helps
        options = []
        for use_own in (0, 1):
            if use_own and (not own_held or need < 1):
                continue
            z = need - use_own
            if z < 0 or z > len(others):
                continue
            true_used = z + (use_own if flower_indicator else 0)
            options.append((int(bool(use_own)) + int(true_used >= _TWO_TRUE_WILDS), use_own, z))
        if not options:
            return
        _, use_own, z = max(options)
        pool = ([own] if use_own else []) + others[:z]
        groups = list(meld_groups)
        fu, tai = base_fu, base_tai
        for k, n in chosen:
            g, g_fu, g_tai = chosen_group(k, tuple(sorted((pool.pop(0), k) for _ in range(_TRIPLET - n))))
            groups.append(g)
            fu += g_fu
            tai += g_tai
        if pair is not None:
            g, g_fu, g_tai = chosen_group(pair, None)
            groups.append(g)
            fu += g_fu
            tai += g_tai
        used = (z + (use_own if flower_indicator else 0), bool(use_own), len(wild_tiles) - need)
        h_fu, h_tai = hand_count(used)
        fu += h_fu
        tai += h_tai
        key = (_total(fu, tai, 0, ruleset)[1], tai, fu)
        if best is None or key > best_key:
            best, best_key = (tuple(groups), used), key

    def rec(i: int, chosen: list[tuple[int, int]], pair: int | None, wilds_left: int) -> None:
        if i == len(candidates):
            finish(chosen, pair)
            return
        k = candidates[i]
        c = counts[k]
        # the real pair (L23.8) and 0-2 triplets of 1-3 real tiles each (L23.5: 1 real + 2 wilds
        # is allowed even when more real tiles of the kind are held; the rest are loose tiles)
        for p in ((None, k) if pair is None and c >= 2 and k in honours else (None,)):
            avail = c - (2 if p is not None else 0)
            new_pair = pair if p is None else p
            rec(i + 1, chosen, new_pair, wilds_left)
            for r1 in range(1, min(avail, _TRIPLET) + 1):
                if _TRIPLET - r1 <= wilds_left:
                    rec(i + 1, [*chosen, (k, r1)], new_pair, wilds_left - (_TRIPLET - r1))
                for r2 in range(1, min(avail - r1, r1) + 1):
                    if 2 * _TRIPLET - r1 - r2 <= wilds_left:
                        rec(i + 1, [*chosen, (k, r1), (k, r2)], new_pair, wilds_left - (2 * _TRIPLET - r1 - r2))

    rec(0, [], None, len(wild_tiles))
    assert best is not None
    best_f = loser_facts(*best)
    fu_items, tai_items, notes = _by_unit(
        base + _walk_groups(best_f, _LOSER_GROUP, range(chosen_from, len(best_f.groups)))
        + _walk(best_f, _LOSER_HAND))
    fu = sum(i.value for i in fu_items)
    tai = sum(i.value for i in tai_items)
    raw, total = _total(fu, tai, 0, ruleset)
    return ScoreResult(False, seat, best_f.groups, None, tuple(fu_items + tai_items + notes),
                       fu, tai, 0, raw, total, None, bonus_tai(tai, False))


def _meld_group(m: Meld) -> Group:
    kind = GroupKind.SEQUENCE if m.kind is MeldKind.CHOW else (
        GroupKind.TRIPLET if m.kind is MeldKind.PONG else GroupKind.KONG)
    return Group(kind, tuple(sorted(m.tiles)), (), m)


# ----------------------------------------------------------------------------- chips


def loser_totals(winner: ScoreResult, losers: Mapping[int, ScoreResult | None]) -> dict[int, int]:
    """What each loser's own count is worth in settlement: his total, 0 for a hand that could
    not be counted (``None``), and 0 for everyone after 推土机/天胡/地胡/人胡 (L23.9)."""
    zero = winner.limit in LOSERS_COUNT_ZERO
    return {s: 0 if zero or r is None else r.total for s, r in losers.items()}


def settle_scores(
    winner: ScoreResult,
    losers: Mapping[int, ScoreResult | None],
    dealer: int,
    ruleset: Ruleset = LONGGANG,
    *,
    after_broke: bool = False,
    chips: Iterable[int] | None = None,
    pays_all: int | None = None,
) -> Settlement:
    """Chip transfers for one hand from the scored hands (L24), the losers counted by
    :func:`loser_totals` (L23.9); ``pays_all``: the discarder paying for all three (L24.8)."""
    return settle(
        winner.seat, winner.total, winner.bonus_tai, loser_totals(winner, losers), dealer, ruleset,
        limit=winner.limit is not None, after_broke=after_broke,
        chips=None if chips is None else list(chips), pays_all=pays_all,
    )


def record_scores(
    ledger: Ledger,
    seat_players: Iterable[int],
    winner: ScoreResult,
    losers: Mapping[int, ScoreResult | None],
    dealer: int,
    pays_all: int | None = None,
) -> Settlement:
    """Record a scored hand in a match :class:`~caishen.variants.longgang.settlement.Ledger` (L24-L25),
    the losers counted by :func:`loser_totals` (L23.9); ``pays_all`` as in :func:`settle_scores`."""
    return ledger.record(
        tuple(seat_players), winner.seat, winner.total, winner.bonus_tai, loser_totals(winner, losers), dealer,
        limit=winner.limit is not None, pays_all=pays_all,
    )
