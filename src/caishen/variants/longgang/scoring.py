"""Hand scoring 算胡: 胡数 (fu), 台数 (tai), limit hands 腊子, with an itemised breakdown.

:func:`score_win` scores the winner's hand, :func:`score_hand` a loser's own hand (L23),
:func:`settle_scores` turns the four results into chip transfers (L24, via
:mod:`caishen.variants.longgang.settlement`). Every line of a result names the rule that produced it; the
rule IDs (L19.1, L21.4 ...) are those of ``docs/rules/longgang.md``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from caishen.hand import Hand, Meld, MeldKind
from caishen.notation import format_hand, format_meld, format_tiles
from caishen.shapes.analysis import Arrangement, Form, Group, GroupKind, arrangements
from caishen.tiles import (
    GREEN,
    RED,
    SEAT_LETTERS,
    WINDS,
    chinese_name,
    english_name,
    is_flower,
    is_honor,
    is_suited,
    is_terminal,
    is_terminal_or_honor,
    seat_flower,
    seat_wind,
    tile_name,
)
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.settlement import Ledger, Settlement, bonus_fu, settle
from caishen.variants.longgang.wilds import wild_kinds

__all__ = [
    "FirstTurn",
    "Item",
    "Limit",
    "NotAWinError",
    "ScoreResult",
    "ScoringError",
    "WinBy",
    "WinContext",
    "score_arrangement",
    "score_hand",
    "record_scores",
    "score_win",
    "settle_scores",
]


class ScoringError(ValueError):
    """Input that cannot be scored: wrong tile count, a wild not in play, bad context."""


class NotAWinError(ScoringError):
    """The hand with the winning tile is not a complete hand."""


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
    BIG_FOUR_WINDS = "big-four-winds"
    SMALL_FOUR_WINDS = "small-four-winds"
    ALL_TERMINALS = "all-terminals"
    TERMINALS_AND_HONOURS = "terminals-and-honours"
    FULL_FLUSH = "full-flush"
    EIGHT_PAIRS = "eight-and-half-pairs"
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
    Limit.BIG_FOUR_WINDS: ("大四喜", "big four winds", "L22.6"),
    Limit.SMALL_FOUR_WINDS: ("小四喜", "small four winds", "L22.6"),
    Limit.ALL_TERMINALS: ("清老头", "all terminals", "L22.8"),
    Limit.TERMINALS_AND_HONOURS: ("混老头", "all triplets of terminals and honours", "L22.9"),
    Limit.FULL_FLUSH: ("清一色", "one suit only", "L22.5"),
    Limit.EIGHT_PAIRS: ("八对半", "eight and a half pairs (switch)", "L22.11"),
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


@dataclass(frozen=True, slots=True)
class Item:
    """One line of a breakdown: ``unit`` is ``fu``, ``tai``, ``limit`` or ``note`` (value 0)."""

    rule: str
    chinese: str
    english: str
    value: int
    unit: str

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
            lines.append(f"total {self.total} = {formula} x 2^{self.tai} = {self.raw}"
                         f" -> rounded up to 10, at most 300 (L23)")
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


def _tn(k: int) -> str:
    """Tile name for a breakdown line: ``5m``, or ``7z Red`` for an honour."""
    return f"{tile_name(k)} {english_name(k)}" if is_honor(k) else tile_name(k)


def _set_item(what: str, k: int, note: str = "", rule: str = "L19.1") -> Item:
    value = _SET_FU[what] * (2 if is_terminal_or_honor(k) else 1)
    return Item(rule, f"{_SET_ZH[what]} {chinese_name(k)}", f"{what} {_tn(k)}{note}", value, "fu")


def _meld_set_kind(m: Meld) -> str:
    if m.kind is MeldKind.PONG:
        return "exposed pong"
    if m.kind is MeldKind.CONCEALED_KONG:
        return "concealed kong"
    return "exposed kong"  # 大明杠 and 小明杠 (L19.2)


def _roundup(value: int, step: int = 10) -> int:
    return -(-value // step) * step


def _total(fu: int, tai: int, base: int, ruleset: Ruleset) -> tuple[int, int]:
    raw = (fu + base) * (1 << tai)
    return raw, min(ruleset.max_total, _roundup(raw, ruleset.fu_per_chip))


def _scoring_honours(seat: int) -> tuple[int, int, int]:
    """Kinds whose pair scores 2 fu and whose triplet scores 1 tai: seat wind, Red, Green."""
    return (seat_wind(seat), RED, GREEN)


def _natural(g: Group) -> list[int]:
    """The real (non-wild) tiles of a group, by the kind they are."""
    rest = list(g.tiles)
    for _, x in g.wilds:
        rest.remove(x)
    return rest


@dataclass(frozen=True, slots=True)
class _Wilds:
    kinds: frozenset[int]
    true_count: int       # 正财神 held (L21.2; with a flower indicator the own flower counts, L5)
    own_flower: bool      # 坐花 held and wild (L21.4)
    any_wild: bool
    guest_flowers: tuple[int, ...]  # 客花 laid open (L20.3)
    indicator_kind: int | None      # non-flower wild kind


def _wild_info(hand: Hand, seat: int, indicator: int | None, ruleset: Ruleset) -> _Wilds:
    kinds = wild_kinds(indicator, seat, ruleset)
    own = seat_flower(seat) if ruleset.has_flowers else -1
    conc_wild = sum(1 for t in hand.concealed if t in kinds)
    flower_wilds = [f for f in hand.flowers if f in kinds]
    true_count = conc_wild
    if indicator is not None and is_flower(indicator):
        true_count += len(flower_wilds)  # 花财神: every wild flower, own flower included (L5, L21.8)
    own_held = ruleset.own_flower_wild and own in hand.flowers
    guests = tuple(f for f in hand.flowers if f not in kinds)
    return _Wilds(
        kinds, true_count, own_held, conc_wild + len(flower_wilds) > 0, guests,
        None if indicator is None or is_flower(indicator) else indicator,
    )


def _check_tiles(hand: Hand, extra: int | None, indicator: int | None, seat: int, dealer: int,
                 ruleset: Ruleset) -> None:
    if not 0 <= seat <= 3 or not 0 <= dealer <= 3:
        raise ScoringError("seat and dealer must be 0-3 (E S W N)")
    in_play = set(ruleset.tile_kinds)
    if indicator is not None:
        if indicator not in in_play or not ruleset.wild_indicator:
            raise ScoringError(f"the wild {tile_name(indicator)} is not in play in ruleset {ruleset.name}")
    tiles = hand.all_tiles() + ([] if extra is None else [extra])
    counts: dict[int, int] = {}
    for t in tiles:
        if t not in in_play:
            raise ScoringError(f"tile {tile_name(t)} is not in play in ruleset {ruleset.name}")
        counts[t] = counts.get(t, 0) + 1
    for k, n in sorted(counts.items()):
        limit = 1 if is_flower(k) else 4
        if k == indicator:
            limit -= 1  # the indicator itself stays in the dead wall (L4)
        if n > limit:
            raise ScoringError(
                f"{n} tiles of {tile_name(k)} but only {limit} can be held"
                + (" (the indicator is face up in the wall, L4)" if k == indicator else "")
            )
    # a wild flower (坐花, 花财神) stays in the hand and takes a place in it (L7)
    wild_flowers = wild_kinds(indicator, seat, ruleset)
    size = hand.size + sum(1 for f in hand.flowers if f in wild_flowers)
    if size != ruleset.hand_size:
        raise ScoringError(
            f"the hand has {size} tiles (concealed and wild flowers + 3 per meld); "
            f"it must have {ruleset.hand_size}" + (" before the winning tile" if extra is not None else "")
        )


# ----------------------------------------------------------------------------- winner


def _placements(arr: Arrangement, tile: int, wilds: frozenset[int]) -> list[int]:
    """Indexes of concealed groups that can hold the winning tile (L13.2)."""
    out = []
    for i, g in enumerate(arr.groups):
        if g.meld is not None:
            continue
        if tile in wilds:
            if any(w == tile for w, _ in g.wilds):
                out.append(i)
        elif tile in _natural(g):
            out.append(i)
    return out


def _stands_for(g: Group, tile: int, wilds: frozenset[int]) -> int:
    if tile in wilds:
        return next(x for w, x in g.wilds if w == tile)
    return tile


def _limits(arr: Arrangement, ctx: WinContext, wi: _Wilds, ruleset: Ruleset) -> list[Limit]:
    found: list[Limit] = []
    if arr.form is Form.BULLDOZER or (ruleset.bulldozer and wi.true_count >= ruleset.bulldozer_wilds):
        found.append(Limit.BULLDOZER)
    if ctx.first_turn is FirstTurn.HEAVENLY and ruleset.heavenly_win:
        found.append(Limit.HEAVENLY)
    if ctx.first_turn is FirstTurn.EARTHLY and ruleset.earthly_win:
        found.append(Limit.EARTHLY)
    if ctx.first_turn is FirstTurn.HUMAN and ruleset.human_win:
        found.append(Limit.HUMAN)
    groups = arr.groups
    if not groups:
        return found
    own = seat_flower(ctx.seat)
    # 财神会: own flower + two 正财神 make one triplet (L22.10)
    for g in groups:
        if g.kind is GroupKind.TRIPLET and len(g.wilds) == 3 and wi.own_flower:
            used = [w for w, _ in g.wilds]
            if own in used and len(used) == 3:
                found.append(Limit.WILD_MEETING)
                break
    tiles = [t for g in groups for t in g.tiles]
    sets = [g for g in groups if g.kind is not GroupKind.PAIR]
    all_triplets = all(g.kind in (GroupKind.TRIPLET, GroupKind.KONG) for g in sets)
    pairs_form = arr.form is Form.PAIRS
    if all(is_honor(t) for t in tiles):
        found.append(Limit.ALL_HONOURS)
    if arr.form is Form.STANDARD:
        wind_sets = [g for g in sets if g.kind in (GroupKind.TRIPLET, GroupKind.KONG) and g.tiles[0] in WINDS]
        wind_pair = [g for g in groups if g.kind is GroupKind.PAIR and g.tiles[0] in WINDS]
        kind = None
        if len(wind_sets) >= 4:
            kind = Limit.BIG_FOUR_WINDS
        elif len(wind_sets) == 3 and wind_pair:
            kind = Limit.SMALL_FOUR_WINDS
        if kind is not None:
            # a wild in the winds needs 2+ wilds held, none standing for another tile (L22.6)
            winds_groups = wind_sets + (wind_pair if kind is Limit.SMALL_FOUR_WINDS else [])
            uses_wild = any(g.wilds for g in winds_groups)
            held = sum(len(g.wilds) for g in groups)
            others_wild = any(g.wilds for g in groups if not any(g is h for h in winds_groups))
            if not uses_wild or (held >= 2 and not others_wild):
                found.append(kind)
    terminal_ok = (arr.form is Form.STANDARD and all_triplets) or (
        pairs_form and ruleset.eight_pairs_terminal_limits)
    if terminal_ok and all(is_terminal(t) for t in tiles):
        found.append(Limit.ALL_TERMINALS)
    if terminal_ok and all(is_terminal_or_honor(t) for t in tiles):
        found.append(Limit.TERMINALS_AND_HONOURS)
    suits = {t // 9 for t in tiles if is_suited(t)}
    if len(suits) == 1 and all(is_suited(t) for t in tiles):
        found.append(Limit.FULL_FLUSH)
    if pairs_form and ruleset.eight_and_half_pairs_limit:
        found.append(Limit.EIGHT_PAIRS)
    return found


def _score_placement(
    hand: Hand, arr: Arrangement, place: int | None, ctx: WinContext, wi: _Wilds, ruleset: Ruleset
) -> ScoreResult:
    seat = ctx.seat
    honours = _scoring_honours(seat)
    fu_items: list[Item] = []
    tai_items: list[Item] = []
    notes: list[Item] = []
    self_drawn = ctx.by.self_drawn
    suppress_self_draw = False
    wait_item: Item | None = None
    groups = arr.groups
    placed = groups[place] if place is not None else None
    win_as = _stands_for(placed, ctx.tile, wi.kinds) if placed is not None else ctx.tile

    for i, g in enumerate(groups):
        k = g.tiles[0]
        wild_note = f" (wild {','.join(tile_name(w) + '=' + tile_name(x) for w, x in g.wilds)})" if g.wilds else ""
        if g.meld is not None:
            if g.kind is not GroupKind.SEQUENCE:
                what = _meld_set_kind(g.meld)
                fu_items.append(_set_item(what, k, rule="L19.2" if g.meld.kind is MeldKind.ADDED_KONG else "L19.1"))
        elif g.kind is GroupKind.TRIPLET:
            if i == place and not self_drawn:
                fu_items.append(_set_item("exposed pong", k, " completed on a discard" + wild_note, "L19.5"))
            elif i == place:
                fu_items.append(_set_item("concealed pong", k, " completed by self-draw" + wild_note, "L20.8"))
            else:
                fu_items.append(_set_item("concealed pong", k, wild_note, "L19.4" if g.wilds else "L19.1"))
        elif g.kind is GroupKind.PAIR and k in honours:
            if len(g.wilds) == 2:
                notes.append(Item("L20.2", f"财神作将 {chinese_name(k)}", f"pair of two wilds as {tile_name(k)}: no pair fu", 0, "note"))
            else:
                fu_items.append(Item("L20.1", f"将 {chinese_name(k)}", f"pair of {_tn(k)}{wild_note}", 2, "fu"))
        if g.kind in (GroupKind.TRIPLET, GroupKind.KONG) and k in honours and k not in wi.kinds:
            tai_items.append(Item("L21.1", f"字刻 {chinese_name(k)}", f"triplet of {_tn(k)}", 1, "tai"))

    if placed is not None:
        if placed.kind is GroupKind.SEQUENCE:
            low = placed.tiles[0]
            if win_as == low + 1:
                wait_item = Item("L20.5", "卡张", f"closed wait on {tile_name(win_as)}", ruleset.closed_wait_fu, "fu")
            elif (win_as == low + 2 and low % 9 == 0) or (win_as == low and low % 9 == 6):
                value = ruleset.closed_wait_fu if ruleset.edge_single_wait_fu else 0
                wait_item = Item("L20.6", "边张", f"edge wait on {tile_name(win_as)}", value, "fu")
        elif placed.kind is GroupKind.PAIR:
            pk = placed.tiles[0]
            if pk in honours and not ruleset.single_honor_pair_self_draw_fu:
                suppress_self_draw = True
            value = ruleset.closed_wait_fu if ruleset.edge_single_wait_fu else 0
            wait_item = Item("L20.6", "单吊", f"single wait on {tile_name(pk)}"
                             + (": only the pair counts (L20.7)" if suppress_self_draw and self_drawn else ""), value, "fu")
            if ruleset.single_wait_tai:
                tai_items.append(Item("L21.10", "单吊", "single wait (switch single_wait_tai)", 1, "tai"))
            if placed.wilds:
                notes.append(Item("L16.1", "财神单吊", "single wait on a wild", 0, "note"))
    if wait_item is not None:
        (fu_items if wait_item.value else notes).append(
            wait_item if wait_item.value else Item(wait_item.rule, wait_item.chinese, wait_item.english, 0, "note"))

    if self_drawn:
        name = {WinBy.SELF_DRAW: ("自摸", "self-draw"), WinBy.KONG_REPLACEMENT: ("杠上开花", "win on a replacement draw"),
                WinBy.SEA_FLOOR: ("海底捞月", "self-draw from the sea floor")}[ctx.by]
        if suppress_self_draw:
            notes.append(Item("L20.7", name[0], name[1] + ": not counted on a single wait on Red/Green/seat wind", 0, "note"))
        else:
            fu_items.append(Item("L20.4", name[0], name[1], ruleset.self_draw_fu, "fu"))
    for f in wi.guest_flowers:
        fu_items.append(Item("L20.3", f"客花 {chinese_name(f)}", f"guest flower {tile_name(f)}", ruleset.flower_fu, "fu"))
    if ctx.by is WinBy.KONG_REPLACEMENT and ruleset.kong_replacement_tai:
        tai_items.append(Item("L21.10", "杠上开花", "win on a replacement draw (switch)", 1, "tai"))

    # wild tai (L21.2-L21.4, L21.7)
    if wi.true_count >= 2:
        tai_items.append(Item("L21.2", "两财神", f"{wi.true_count} true wilds 正财神", 1, "tai"))
    if not wi.any_wild:
        tai_items.append(Item("L21.3", "无财神", "no wild at all", 1, "tai"))
    if wi.own_flower:
        if len(wi.guest_flowers) == 3:
            tai_items.append(Item("L21.7", "四花", "own flower and all three guest flowers", 2, "tai"))
        else:
            tai_items.append(Item("L21.4", "坐花", "own flower in the hand", 1, "tai"))
    sets = [g for g in groups if g.kind is not GroupKind.PAIR]
    tiles = [t for g in groups for t in g.tiles]
    if arr.form is Form.STANDARD and sets and all(g.kind in (GroupKind.TRIPLET, GroupKind.KONG) for g in sets):
        tai_items.append(Item("L21.5", "对对胡", "all triplets", 1, "tai"))
    suits = {t // 9 for t in tiles if is_suited(t)}
    half_flush = len(suits) == 1 and any(is_honor(t) for t in tiles)
    if half_flush:
        tai_items.append(Item("L21.6", "混一色", "one suit and honours", 1, "tai"))
    if any(w == x and w in wi.kinds and not is_flower(w) for g in groups for w, x in g.wilds):
        notes.append(Item("L16.2", "财神归位", "a wild stands for its own kind", 0, "note"))
    if (
        arr.form is Form.STANDARD and all(g.kind is GroupKind.SEQUENCE for g in sets)
        and not any(g.kind is GroupKind.PAIR and g.tiles[0] in honours for g in groups)
        and not wi.guest_flowers and not self_drawn
        and not (wait_item is not None and wait_item.rule == "L20.5")
        and len(suits) > 1 and wi.true_count == 1 and not wi.own_flower
    ):
        notes.append(Item("L21.9", "平胡", "plain hand: base 20 only", 0, "note"))

    fu = sum(it.value for it in fu_items)
    tai = sum(it.value for it in tai_items)
    raw, total = _total(fu, tai, ruleset.base_fu, ruleset)
    limits = _limits(arr, ctx, wi, ruleset)
    if not limits and tai >= 3 and total >= ruleset.max_total:
        limits.append(Limit.COUNTED)
    limit = limits[0] if limits else None
    items = fu_items + tai_items + notes
    if limit is not None:
        total = ruleset.max_total
        items.append(Item(limit.rule, limit.chinese, limit.english, ruleset.max_total, "limit"))
    return ScoreResult(
        True, seat, groups, arr, tuple(items), fu, tai, ruleset.base_fu, raw, total, limit,
        3 if limit is not None else min(tai, 3), ctx.tile,
    )


def _key(r: ScoreResult, ruleset: Ruleset) -> tuple[int, int, int]:
    # most chips for the winner: total + bonus, then tai, then fu (L13.1)
    return (r.total + bonus_fu(r.bonus_tai, r.limit is not None, ruleset), r.tai, r.fu)


def _check_context(ctx: WinContext, wi: _Wilds, ruleset: Ruleset) -> None:
    if not isinstance(ctx.by, WinBy):
        raise ScoringError(f"unknown way of winning {ctx.by!r}")
    if is_flower(ctx.tile) and ctx.tile not in wi.kinds:
        raise ScoringError(f"{tile_name(ctx.tile)} is a guest flower 客花: it is replaced, never a winning tile")
    if ctx.tile in wi.kinds and not ctx.by.self_drawn:
        raise ScoringError(f"{tile_name(ctx.tile)} is a wild: it is never discarded, so it cannot be won on a "
                           f"{ctx.by.value} (L8)")
    ft = ctx.first_turn
    if ft is FirstTurn.HEAVENLY and (ctx.seat != ctx.dealer or ctx.by not in (WinBy.SELF_DRAW, WinBy.KONG_REPLACEMENT)):
        raise ScoringError("天胡 heavenly win is the dealer winning on the deal (self-draw), L15.1")
    if ft is FirstTurn.EARTHLY and (ctx.seat == ctx.dealer or ctx.by is not WinBy.DISCARD):
        raise ScoringError("地胡 earthly win is a non-dealer winning on the dealer's first discard, L15.1")
    if ft is FirstTurn.HUMAN and not ruleset.human_win:
        raise ScoringError("人胡 is not played in this ruleset (switch human_win, L15)")


def score_arrangement(hand: Hand, arr: Arrangement, ctx: WinContext, ruleset: Ruleset = LONGGANG) -> ScoreResult:
    """Score one arrangement of the winning hand (``hand`` holds the winning tile), trying every
    place of the winning tile in it and keeping the best (L13.2)."""
    wi = _wild_info(hand, ctx.seat, ctx.indicator, ruleset)
    places: list[int | None] = list(_placements(arr, ctx.tile, wi.kinds)) if arr.groups else []
    if not places:
        places = [None]
    best: ScoreResult | None = None
    for p in places:
        r = _score_placement(hand, arr, p, ctx, wi, ruleset)
        if best is None or _key(r, ruleset) > _key(best, ruleset):
            best = r
    assert best is not None
    return best


def score_win(hand: Hand, ctx: WinContext, ruleset: Ruleset = LONGGANG) -> ScoreResult:
    """Score the winner's hand: ``hand`` is the hand *before* the winning tile ``ctx.tile``
    (16 tiles counting melds as 3, flowers apart). The arrangement that scores most is used
    (L13). Raises :class:`ScoringError` for wrong input, :class:`NotAWinError` if it does not win."""
    _check_tiles(hand, ctx.tile, ctx.indicator, ctx.seat, ctx.dealer, ruleset)
    full = hand.with_tile(ctx.tile)
    wi = _wild_info(full, ctx.seat, ctx.indicator, ruleset)
    _check_context(ctx, wi, ruleset)
    arrs = arrangements(full, ruleset, wi.kinds)  # includes 推土机 of flower wilds (L5, L8)
    if not arrs:
        raise NotAWinError(f"{_hand_text(hand)} with {tile_name(ctx.tile)} is not a winning hand")
    best: ScoreResult | None = None
    for arr in arrs:
        r = score_arrangement(full, arr, ctx, ruleset)
        if best is None or _key(r, ruleset) > _key(best, ruleset):
            best = r
    assert best is not None
    return best


def _hand_text(hand: Hand) -> str:
    return format_hand(hand)


# ----------------------------------------------------------------------------- losers


def score_hand(hand: Hand, seat: int, dealer: int = 0, indicator: int | None = None,
               ruleset: Ruleset = LONGGANG) -> ScoreResult:
    """Score a loser's own hand (L23.4-L23.8): declared melds, concealed triplets a wild may
    help (with at least one real tile, 財神賣兵 L23.5), at most one real pair of Red/Green/seat
    wind, guest flowers; tai L21.1, L21.2, L21.4, L21.7 only. The best choice is taken."""
    _check_tiles(hand, None, indicator, seat, dealer, ruleset)
    wi = _wild_info(hand, seat, indicator, ruleset)
    honours = _scoring_honours(seat)
    own = seat_flower(seat)
    flower_indicator = indicator is not None and is_flower(indicator)
    wild_tiles = [t for t in hand.concealed if t in wi.kinds] + [f for f in hand.flowers if f in wi.kinds]
    own_held = wi.own_flower
    others = [t for t in wild_tiles if not (own_held and t == own)]
    counts = [0] * 34
    for t in hand.concealed:
        if t not in wi.kinds:
            counts[t] += 1

    base_fu: list[Item] = []
    base_tai: list[Item] = []
    meld_groups: list[Group] = []
    for m in hand.melds:
        k = m.tile
        kind = GroupKind.SEQUENCE if m.kind is MeldKind.CHOW else (
            GroupKind.TRIPLET if m.kind is MeldKind.PONG else GroupKind.KONG)
        meld_groups.append(Group(kind, tuple(sorted(m.tiles)), (), m))
        if m.kind is not MeldKind.CHOW:
            base_fu.append(_set_item(_meld_set_kind(m), k, rule="L19.2" if m.kind is MeldKind.ADDED_KONG else "L19.1"))
            if k in honours and k not in wi.kinds:
                base_tai.append(Item("L21.1", f"字刻 {chinese_name(k)}", f"triplet of {_tn(k)}", 1, "tai"))
    for f in wi.guest_flowers:
        base_fu.append(Item("L20.3", f"客花 {chinese_name(f)}", f"guest flower {tile_name(f)}", ruleset.flower_fu, "fu"))

    # choices: per kind, 0-2 triplets (each with >= 1 real tile) or the one pair
    candidates = [k for k in range(34) if counts[k]]
    best: ScoreResult | None = None

    def finish(chosen: list[tuple[int, int]], pair: int | None) -> None:
        nonlocal best
        need = sum(3 - n for _, n in chosen)
        # spend the wilds so as to earn the most tai: own flower first if that helps
        options = []
        for use_own in (0, 1):
            if use_own and (not own_held or need < 1):
                continue
            z = need - use_own
            if z < 0 or z > len(others):
                continue
            true_used = z + (use_own if flower_indicator else 0)
            options.append((int(bool(use_own)) + int(true_used >= 2), use_own, z))
        if not options:
            return
        _, use_own, z = max(options)
        pool = ([own] if use_own else []) + others[:z]
        fu_items = list(base_fu)
        tai_items = list(base_tai)
        groups = list(meld_groups)
        for k, n in chosen:
            ws = tuple(sorted((pool.pop(0), k) for _ in range(3 - n)))
            groups.append(Group(GroupKind.TRIPLET, (k, k, k), ws))
            note = f" (wild {','.join(tile_name(w) + '=' + tile_name(x) for w, x in ws)})" if ws else ""
            fu_items.append(_set_item("concealed pong", k, note, "L23.5" if ws else "L19.1"))
            if k in honours:
                tai_items.append(Item("L21.1", f"字刻 {chinese_name(k)}", f"triplet of {_tn(k)}", 1, "tai"))
        if pair is not None:
            groups.append(Group(GroupKind.PAIR, (pair, pair)))
            fu_items.append(Item("L20.1", f"将 {chinese_name(pair)}", f"pair of {_tn(pair)}", 2, "fu"))
        true_used = z + (use_own if flower_indicator else 0)
        if true_used >= 2:
            tai_items.append(Item("L21.2", "两财神", f"{true_used} true wilds used in sets", 1, "tai"))
        if use_own:
            if len(wi.guest_flowers) == 3:
                tai_items.append(Item("L21.7", "四花", "own flower and all three guest flowers",
                                      ruleset.loser_four_flowers_tai, "tai"))
            else:
                tai_items.append(Item("L21.4", "坐花", "own flower used in a set", 1, "tai"))
        notes: list[Item] = []
        void = len(wild_tiles) - need
        if void:
            notes.append(Item("L23.5", "财神卖兵", f"{void} wild(s) not in a set: void", 0, "note"))
        fu = sum(i.value for i in fu_items)
        tai = sum(i.value for i in tai_items)
        raw, total = _total(fu, tai, 0, ruleset)
        r = ScoreResult(False, seat, tuple(groups), None, tuple(fu_items + tai_items + notes),
                        fu, tai, 0, raw, total, None, min(tai, 3))
        if best is None or (r.total, r.tai, r.fu) > (best.total, best.tai, best.fu):
            best = r

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
            for r1 in range(1, min(avail, 3) + 1):
                if 3 - r1 <= wilds_left:
                    rec(i + 1, [*chosen, (k, r1)], new_pair, wilds_left - (3 - r1))
                for r2 in range(1, min(avail - r1, r1) + 1):
                    if 6 - r1 - r2 <= wilds_left:
                        rec(i + 1, [*chosen, (k, r1), (k, r2)], new_pair, wilds_left - (6 - r1 - r2))

    rec(0, [], None, len(wild_tiles))
    assert best is not None
    return best


# ----------------------------------------------------------------------------- chips


def settle_scores(
    winner: ScoreResult,
    losers: Mapping[int, ScoreResult],
    dealer: int,
    ruleset: Ruleset = LONGGANG,
    *,
    after_broke: bool = False,
    chips: Iterable[int] | None = None,
) -> Settlement:
    """Chip transfers for one hand from the scored hands (L24); losers count 0 after
    推土机/天胡/地胡 (L23.9)."""
    zero = winner.limit in LOSERS_COUNT_ZERO
    totals = {s: (0 if zero else r.total) for s, r in losers.items()}
    return settle(
        winner.seat, winner.total, winner.bonus_tai, totals, dealer, ruleset,
        limit=winner.limit is not None, after_broke=after_broke,
        chips=None if chips is None else list(chips),
    )


def record_scores(
    ledger: Ledger,
    seat_players: Iterable[int],
    winner: ScoreResult,
    losers: Mapping[int, ScoreResult],
    dealer: int,
) -> Settlement:
    """Record a scored hand in a match :class:`~caishen.variants.longgang.settlement.Ledger` (L24-L25), with
    losers counting 0 after 推土机/天胡/地胡 (L23.9)."""
    zero = winner.limit in LOSERS_COUNT_ZERO
    totals = {s: (0 if zero else r.total) for s, r in losers.items()}
    return ledger.record(
        tuple(seat_players), winner.seat, winner.total, winner.bonus_tai, totals, dealer,
        limit=winner.limit is not None,
    )
