"""The winner's readings of a hand: every place of the winning tile in every
arrangement (L13.2), each counted in fu and tai from the rule table
(:mod:`caishen.variants.longgang.items`) without itemising it, the limits it makes
(:mod:`caishen.variants.longgang.limits`), and the best of them (L13 就高不就低); the
counting entries of each ruleset and their caches. Split from
:mod:`caishen.variants.longgang.scoring` (issue 31), which itemises the chosen reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from caishen.shapes.analysis import Arrangement, Group, GroupKind
from caishen.tiles import (
    GREEN,
    RED,
    number_of,
    seat_wind,
)
from caishen.variants.longgang.items import (
    _LOSER_GROUP,
    _LOSER_HAND,
    _WINNER_GROUP,
    _WINNER_HAND,
    Amount,
    BySwitch,
    Check,
    Facts,
    Scope,
    ScoringItem,
    Unit,
    Wait,
    WinContext,
    _natural,
    _Wilds,
)
from caishen.variants.longgang.limits import (
    _COUNTED_LIMIT_TAI,
    Limit,
    _limits,
)
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.settlement import (
    bonus_fu,
    bonus_tai,
)


def _roundup(value: int, step: int) -> int:
    return -(-value // step) * step


def _total(fu: int, tai: int, base: int, ruleset: Ruleset) -> tuple[int, int]:
    raw = (fu + base) * (1 << tai)
    return raw, min(ruleset.max_total, _roundup(raw, ruleset.fu_per_chip))


def _scoring_honours(wind: int) -> tuple[int, int, int]:
    """Kinds whose pair scores 2 fu and whose triplet scores 1 tai: the seat wind (by wind
    position: East for the dealer, L1, L2), Red, Green."""
    return (seat_wind(wind), RED, GREEN)


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
# The limits in force (:func:`set_cache_share`): a loser's chosen sets, a winner's groups.
_kept: Final = [_LOSER_SETS_KEPT, _WINNER_GROUPS_KEPT]


def set_cache_share(share: float) -> None:
    """Keep the scoring's caches of groups to ``share`` (over 0, at most 1) of their limits,
    from now on (the scores are the same); caches past their new limit are cleared.
    ``caishen.bots.shape.set_cache_share`` calls this (docs/server.md, "Measured load")."""
    if not 0.0 < share <= 1.0:
        raise ValueError(f"a cache share is over 0 and at most 1, not {share}")
    _kept[0] = max(64, int(_LOSER_SETS_KEPT * share))
    _kept[1] = max(64, int(_WINNER_GROUPS_KEPT * share))
    for counting in _COUNTING_BY_VALUE.values():
        if len(counting.loser_sets) > _kept[0]:
            counting.loser_sets.clear()
        if _winner_groups_size[0] >= _kept[1]:
            for kept in counting.winner_groups.values():
                kept.clear()
    if _winner_groups_size[0] >= _kept[1]:
        _winner_groups_size[0] = 0


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
            if size[0] >= _kept[1]:
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
