"""The rule table 计分项 of Longgang scoring: every fu, tai and note entry
(:data:`SCORING_ITEMS`) with its rule ID, names, value and the predicate that says when it
applies, and what the entries read: the win's context (:class:`WinContext`, :class:`WinBy`,
:class:`FirstTurn`), one reading of a hand (:class:`Facts`) and the wilds held. Split from
:mod:`caishen.variants.longgang.scoring` (issue 31), which re-exports the public names.
The rule IDs (L19.1, L21.4 ...) are those of ``docs/rules/longgang.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import chain
from typing import Final

from caishen.hand import Hand, Meld, MeldKind
from caishen.shapes.analysis import Form, Group, GroupKind
from caishen.tiles import (
    MAN,
    NUM_KINDS,
    WINDS,
    chinese_name,
    english_name,
    is_flower,
    is_honor,
    is_suited,
    is_terminal,
    is_terminal_or_honor,
    seat_flower,
    suit_of,
    tile_name,
    wind_of,
)
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.wilds import wild_kinds


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
    flower_indicator: bool = False  # the 正财神 are the wild flowers (L5)


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
    return _Wilds(kinds, true_count, own_held, conc_wild + len(flower_wilds) > 0, guests, void,
                  indicator is not None and is_flower(indicator))


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



def _by_unit(items: Sequence[Item]) -> tuple[list[Item], list[Item], list[Item]]:
    """fu items, tai items and notes, each in table order."""
    return ([it for it in items if it.unit is Unit.FU], [it for it in items if it.unit is Unit.TAI],
            [it for it in items if it.unit is Unit.NOTE])
