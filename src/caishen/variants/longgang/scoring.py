"""Hand scoring 算胡: 胡数 (fu), 台数 (tai), limit hands 腊子, with an itemised breakdown.

Every fu, tai and note of a breakdown comes from one entry of :data:`SCORING_ITEMS`, the rule
table 计分项 (in the manner of a yaku list): its rule ID, Chinese and English names, value
(fixed, set by a switch, or worked out from the hand) and the predicate that says when it
applies. :func:`score_win` scores the winner's hand by walking the table over each reading of
the hand, :func:`score_hand` a loser's own hand (L23) with the entries that count for a loser,
:func:`settle_scores` turns the four results into chip transfers (L24, via
:mod:`caishen.variants.longgang.settlement`). The rule IDs (L19.1, L21.4 ...) are those of
``docs/rules/longgang.md``.

The parts, one concern each (issue 31): the rule table and what it reads in
:mod:`~caishen.variants.longgang.items`, the limit hands in :mod:`~caishen.variants.longgang.limits`,
the winner's readings and their counting in :mod:`~caishen.variants.longgang.readings`; this
module checks the input, itemises the chosen reading, scores a loser's hand and settles. Every
public name of the parts is importable from here as before.
"""

from __future__ import annotations

import unicodedata
from bisect import insort
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from caishen.hand import Hand, Meld, MeldKind
from caishen.notation import format_hand, format_meld, format_tiles
from caishen.shapes.analysis import Arrangement, Form, Group, GroupKind, arrangements, pairs_wild_with
from caishen.tiles import (
    COPIES,
    NUM_KINDS,
    NUM_NON_FLOWER,
    SEAT_LETTERS,
    SEATS,
    is_flower,
    seat_flower,
    tile_name,
    wind_of,
)
from caishen.variants.longgang.items import (
    _LOSER_FLOWER,
    _LOSER_GROUP,
    _LOSER_HAND,
    _TWO_TRUE_WILDS,
    _WINNER_GROUP,
    _WINNER_HAND,
    SCORING_ITEMS,
    FirstTurn,
    Item,
    ScoringItem,
    Unit,
    WinBy,
    WinContext,
    _by_unit,
    _walk,
    _walk_groups,
    _wild_info,
    _Wilds,
)

# Public names of the parts, importable from here as before the split (issue 31).
from caishen.variants.longgang.items import ByHand as ByHand
from caishen.variants.longgang.items import BySwitch as BySwitch
from caishen.variants.longgang.items import Facts as Facts
from caishen.variants.longgang.items import Scope as Scope
from caishen.variants.longgang.items import Wait as Wait
from caishen.variants.longgang.items import Who as Who
from caishen.variants.longgang.limits import (
    _TRIPLET,
    LOSERS_COUNT_ZERO,
    Limit,
)
from caishen.variants.longgang.orphans import thirteen_orphans
from caishen.variants.longgang.readings import (
    _arrangement_readings,
    _best,
    _Counting,
    _counting,
    _fu_tai,
    _kept,
    _Reading,
    _scoring_honours,
    _shape_reading,
    _total,
    _win_setup,
)
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.settlement import (
    Ledger,
    NotAWinError,
    ScoringError,
    Settlement,
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
        lines.append(self.total_line())
        return "\n".join(line.rstrip() for line in lines)

    def total_line(self) -> str:
        """How the total is reached, in one line that fits 80 columns: the formula, then the
        cap when it bit, else the rounding (L23); a limit hand's fixed total."""
        if self.limit is not None:
            return f"total {self.total} = limit {self.limit.chinese} ({self.limit.rule}); bonus counts 3 tai"
        formula = f"({self.fu} + {self.base})" if self.base else f"{self.fu}"
        how = f"capped at {self.total}" if self.total < self.raw else "rounded up to a multiple of 10"
        return f"total {self.total} = {formula} x 2^{self.tai} = {self.raw}, {how} (L23)"

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
    if ctx.by is WinBy.ROB_KONG and not ruleset.rob_kong_with_wild_pair:  # L10 switch: never a wild + the robbed tile as the pair
        arrs = tuple(a for a in arrs if not pairs_wild_with(a, ctx.tile))
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


# ----------------------------------------------------------------------------- losers


def _loser_choices(candidates: list[int], counts: list[int], honours: tuple[int, int, int],
                   finish: Callable[[list[tuple[int, int]], int | None], None],
                   i: int, chosen: list[tuple[int, int]], pair: int | None, wilds_left: int) -> None:
    """Every choice of a loser's concealed sets from kind ``candidates[i]`` on, each given to
    ``finish``: the real pair (L23.8) and 0-2 triplets of 1-3 real tiles each (L23.5: 1 real +
    2 wilds is allowed even when more real tiles of the kind are held; the rest are loose
    tiles). (A module function, not a closure: a recursive closure is a reference cycle that
    keeps the scoring's frame until the collector runs, issue 26.)"""
    if i == len(candidates):
        finish(chosen, pair)
        return
    k = candidates[i]
    c = counts[k]
    for p in ((None, k) if pair is None and c >= 2 and k in honours else (None,)):
        avail = c - (2 if p is not None else 0)
        new_pair = pair if p is None else p
        _loser_choices(candidates, counts, honours, finish, i + 1, chosen, new_pair, wilds_left)
        for r1 in range(1, min(avail, _TRIPLET) + 1):
            if _TRIPLET - r1 <= wilds_left:
                _loser_choices(candidates, counts, honours, finish, i + 1, [*chosen, (k, r1)], new_pair,
                               wilds_left - (_TRIPLET - r1))
            for r2 in range(1, min(avail - r1, r1) + 1):
                if 2 * _TRIPLET - r1 - r2 <= wilds_left:
                    _loser_choices(candidates, counts, honours, finish, i + 1, [*chosen, (k, r1), (k, r2)],
                                   new_pair, wilds_left - (2 * _TRIPLET - r1 - r2))


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
    # A loser's chosen set or pair counts the same whatever else is chosen (L23.4-L23.8: the
    # group items look at the group, the seat's honours and the wild kinds), so each is
    # counted once per ruleset.
    chosen_groups = counting.loser_sets
    if len(chosen_groups) > _kept[0]:
        chosen_groups.clear()
    search = _LoserSearch(ruleset, wi, honours, meld_groups, counting, chosen_groups, own, own_held, others,
                          flower_indicator, len(wild_tiles), base_fu, base_tai)
    _loser_choices(candidates, counts, honours, search.finish, 0, [], None, len(wild_tiles))
    best = search.best
    assert best is not None
    best_f = search.loser_facts(*best)
    fu_items, tai_items, notes = _by_unit(
        base + _walk_groups(best_f, _LOSER_GROUP, range(chosen_from, len(best_f.groups)))
        + _walk(best_f, _LOSER_HAND))
    fu = sum(i.value for i in fu_items)
    tai = sum(i.value for i in tai_items)
    raw, total = _total(fu, tai, 0, ruleset)
    return ScoreResult(False, seat, best_f.groups, None, tuple(fu_items + tai_items + notes),
                       fu, tai, 0, raw, total, None, bonus_tai(tai, False))


class _LoserSearch:
    """The search of :func:`score_hand` over a loser's choices of concealed sets: the best one
    so far, and what each is worth. (A class, not closures: closures that call each other are
    a reference cycle per scored hand, held until the collector runs: 120 scored hands were
    1,800 objects freed by one collection of 10-30 ms in the game centre, issue 31.)"""

    def __init__(self, ruleset: Ruleset, wi: _Wilds, honours: tuple[int, int, int], meld_groups: tuple[Group, ...],
                 counting: _Counting,
                 chosen_groups: dict[tuple[tuple[int, int, int], frozenset[int], int, tuple[tuple[int, int], ...] | None],
                                     tuple[Group, int, int]],
                 own: int, own_held: bool, others: list[int], flower_indicator: bool, wilds: int,
                 base_fu: int, base_tai: int) -> None:
        self.ruleset = ruleset
        self.wi = wi
        self.honours = honours
        self.meld_groups = meld_groups
        self.counting = counting
        self.chosen_groups = chosen_groups
        self.own = own
        self.own_held = own_held
        self.others = others
        self.flower_indicator = flower_indicator
        self.wilds = wilds
        self.base_fu = base_fu
        self.base_tai = base_tai
        self.best: tuple[tuple[Group, ...], tuple[int, bool, int]] | None = None
        self.best_key = (0, 0, 0)
        # A loser's hand items look only at the wilds used and left void and the own flower
        # (L21.2, L21.4, L21.7, L23.5), so each such use is counted once.
        self.hand_counts: dict[tuple[int, bool, int], tuple[int, int]] = {}

    def hand_count(self, used: tuple[int, bool, int]) -> tuple[int, int]:
        hit = self.hand_counts.get(used)
        if hit is None:
            hit = _fu_tai(self.loser_facts(self.meld_groups, used), (), (), self.counting.loser_hand)
            self.hand_counts[used] = hit
        return hit

    def loser_facts(self, groups: tuple[Group, ...], used: tuple[int, bool, int]) -> Facts:
        true_wilds, own_flower, void_wilds = used
        return Facts(False, self.ruleset, self.wi, self.honours, groups, true_wilds=true_wilds,
                     own_flower=own_flower, void_wilds=void_wilds)

    def chosen_group(self, k: int, ws: tuple[tuple[int, int], ...] | None) -> tuple[Group, int, int]:
        """A concealed triplet of ``k`` with wilds ``ws`` (``None``: the pair of ``k``), with its fu and tai."""
        key = (self.honours, self.wi.kinds, k, ws)
        hit = self.chosen_groups.get(key)
        if hit is None:
            g = Group(GroupKind.PAIR, (k, k)) if ws is None else Group(GroupKind.TRIPLET, (k, k, k), ws)
            hit = (g, *_fu_tai(Facts(False, self.ruleset, self.wi, self.honours, (g,)),
                               self.counting.loser_group, (0,), ()))
            self.chosen_groups[key] = hit
        return hit

    def finish(self, chosen: list[tuple[int, int]], pair: int | None) -> None:
        need = sum(_TRIPLET - n for _, n in chosen)
        # spend the wilds so as to earn the most tai: own flower first if that helps
        options = []
        for use_own in (0, 1):
            if use_own and (not self.own_held or need < 1):
                continue
            z = need - use_own
            if z < 0 or z > len(self.others):
                continue
            true_used = z + (use_own if self.flower_indicator else 0)
            options.append((int(bool(use_own)) + int(true_used >= _TWO_TRUE_WILDS), use_own, z))
        if not options:
            return
        _, use_own, z = max(options)
        pool = ([self.own] if use_own else []) + self.others[:z]
        groups = list(self.meld_groups)
        fu, tai = self.base_fu, self.base_tai
        for k, n in chosen:
            g, g_fu, g_tai = self.chosen_group(k, tuple(sorted((pool.pop(0), k) for _ in range(_TRIPLET - n))))
            groups.append(g)
            fu += g_fu
            tai += g_tai
        if pair is not None:
            g, g_fu, g_tai = self.chosen_group(pair, None)
            groups.append(g)
            fu += g_fu
            tai += g_tai
        used = (z + (use_own if self.flower_indicator else 0), bool(use_own), self.wilds - need)
        h_fu, h_tai = self.hand_count(used)
        fu += h_fu
        tai += h_tai
        key = (_total(fu, tai, 0, self.ruleset)[1], tai, fu)
        if self.best is None or key > self.best_key:
            self.best, self.best_key = (tuple(groups), used), key


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
