"""Fast hand-shape evaluation for the bots: shanten (向听) with wilds, and the count of
tiles that improve a hand (进张).

The bots call this thousands of times a hand, so it works on integer count vectors and
caches each suit's decompositions (one suit's 9 counts -> the reachable
``(pair, sets, partial sets)`` triples). It is an estimate for play, not a rules oracle:
:mod:`caishen.shapes.analysis` stays the reference for wins and waits, and the engine decides
what is legal.

Standard form (L13): ``M`` sets + 1 pair, ``M = ruleset.sets_needed - declared melds``.
For a choice of ``m`` complete sets, ``t`` partial sets (two tiles of a set, at most
``M - m``) and ``h`` pair, the tiles still missing are
``3*(M-m-t) + t + 2*(1-h)`` less one for every loose tile that can seed an empty slot.
Every wild (财神, 坐花) fills one missing tile (L8), so
``shanten = missing - wilds - 1``, at least -1 (complete). 八对半 (L14): 7 pairs + 1
triplet, no melds. 推土机 (L8): enough 正财神 is complete at once.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Final

from caishen.tiles import NUM_NON_FLOWER, NUM_SUITED

Point = tuple[int, int, int]  # (pair used 0/1, complete sets, partial sets)

SUIT_SLICES: Final = ((0, 9), (9, 18), (18, 27), (27, 34))


def _pareto(points: set[Point] | frozenset[Point]) -> tuple[Point, ...]:
    """Drop points another point beats on every count (more sets/partials/pair is never
    worse for the missing-tile count)."""
    out = [
        p for p in points
        if not any(q != p and q[0] >= p[0] and q[1] >= p[1] and q[2] >= p[2] for q in points)
    ]
    return tuple(sorted(out))


@cache
def _suit_points(counts: tuple[int, ...], honor: bool) -> tuple[Point, ...]:
    """Pareto-best ``(h, m, t)`` over every way to split one suit's tiles."""
    return _pareto(_enumerate(counts, honor))


@cache
def _enumerate(counts: tuple[int, ...], honor: bool) -> frozenset[Point]:
    i = 0
    n = len(counts)
    while i < n and counts[i] == 0:
        i += 1
    if i == n:
        return frozenset({(0, 0, 0)})
    c = list(counts)
    out: set[Point] = set()

    def sub(delta: tuple[tuple[int, int], ...], dh: int, dm: int, dt: int) -> None:
        d = c[:]
        for j, k in delta:
            d[j] -= k
        for h, m, t in _enumerate(tuple(d), honor):
            if h + dh <= 1:
                out.add((h + dh, m + dm, t + dt))

    sub(((i, 1),), 0, 0, 0)  # leave the tile loose
    if c[i] >= 3:
        sub(((i, 3),), 0, 1, 0)
    if c[i] >= 2:
        sub(((i, 2),), 0, 0, 1)
        sub(((i, 2),), 1, 0, 0)
    if not honor:
        if i + 2 < n and c[i + 1] and c[i + 2]:
            sub(((i, 1), (i + 1, 1), (i + 2, 1)), 0, 1, 0)
        if i + 1 < n and c[i + 1]:
            sub(((i, 1), (i + 1, 1)), 0, 0, 1)
        if i + 2 < n and c[i + 2]:
            sub(((i, 1), (i + 2, 1)), 0, 0, 1)
    return frozenset(_pareto(out))


def _combine(a: tuple[Point, ...], b: tuple[Point, ...], cap: int) -> tuple[Point, ...]:
    pts: set[Point] = set()
    for h1, m1, t1 in a:
        for h2, m2, t2 in b:
            if h1 + h2 <= 1:
                pts.add((h1 + h2, min(m1 + m2, cap), min(t1 + t2, cap)))
    return _pareto(pts) if len(pts) > 1 else tuple(pts)


@lru_cache(maxsize=1 << 18)
def _need(p0: tuple[Point, ...], p1: tuple[Point, ...], p2: tuple[Point, ...], p3: tuple[Point, ...],
          sets: int, loose_total: int) -> int:
    """Fewest tiles missing to complete ``sets`` sets + a pair from four suits' points."""
    acc = _combine(_combine(p0, p1, sets), _combine(p2, p3, sets), sets)
    best = 99
    for h, m, t in acc:
        mc = min(m, sets)
        tc = min(t, sets - mc)
        empty = sets - mc - tc
        loose = loose_total - 3 * mc - 2 * tc - 2 * h
        need = 3 * empty + tc + 2 * (1 - h) - min(loose, empty + 1 - h)
        if need < best:
            best = need
    return best


def suit_points(counts: list[int] | tuple[int, ...]) -> list[tuple[Point, ...]]:
    """The four suits' points (m, p, s, honours) of a 34-count vector."""
    return [
        _suit_points(tuple(counts[a:b]), a >= NUM_SUITED) for a, b in SUIT_SLICES
    ]


def standard_shanten(counts: list[int] | tuple[int, ...], melds: int, wilds: int, sets_needed: int) -> int:
    """Shanten of the standard form: ``counts`` = 34 non-wild concealed counts."""
    p = suit_points(counts)
    need = _need(p[0], p[1], p[2], p[3], sets_needed - melds, sum(counts))
    return max(-1, need - wilds - 1)


@lru_cache(maxsize=4096)
def _pairs_used(hist: tuple[int, int, int, int, int]) -> int:
    """Most tiles of 7 pairs + 1 triplet already held, from the histogram of counts
    (``hist[c]`` = kinds held ``c`` times). Four equal tiles may be two pairs (L14)."""
    pairs = hist[2] + hist[3] + 2 * hist[4]
    singles = hist[1] + hist[3]
    best = 0
    for c in (1, 2, 3, 4):
        if not hist[c]:
            continue
        # a kind held c times is the triplet; pairs and singles from the rest
        take = min(c, 3)
        rest = c - take
        p = pairs - c // 2 + rest // 2
        s = singles - c % 2 + rest % 2
        used = take + 2 * min(p, 7) + min(s, max(0, 7 - p))
        if used > best:
            best = used
    return best


def count_hist(counts: list[int] | tuple[int, ...]) -> list[int]:
    h = [0, 0, 0, 0, 0]
    for c in counts:
        h[c] += 1
    return h


def pairs_shanten(counts: list[int] | tuple[int, ...], wilds: int) -> int:
    """Shanten of 八对半 (7 pairs + 1 triplet, 17 tiles, no melds; L14)."""
    h = count_hist(counts)
    return max(-1, 17 - _pairs_used((h[0], h[1], h[2], h[3], h[4])) - wilds - 1)


def shanten_counts(
    counts: list[int] | tuple[int, ...],
    melds: int,
    wilds: int,
    sets_needed: int,
    pairs_form: bool,
    true_wilds: int = 0,
    bulldozer: int = 0,
) -> int:
    """Shanten over every form the ruleset allows. ``true_wilds`` = 正财神 held; with
    ``bulldozer`` > 0 holding that many is complete (推土机, L8)."""
    if bulldozer and true_wilds >= bulldozer:
        return -1
    s = standard_shanten(counts, melds, wilds, sets_needed)
    if pairs_form and melds == 0 and s > -1:
        s = min(s, pairs_shanten(counts, wilds))
    return s


class ShapeCursor:
    """Shanten of a hand and of the hand with one tile added, fast: only the suit that
    changes is looked up again (the bots ask this ~30 times a decision)."""

    __slots__ = ("counts", "melds", "wilds", "sets", "pairs_form", "points", "n", "hist", "base")

    def __init__(self, counts: list[int], melds: int, wilds: int, sets_needed: int, pairs_form: bool) -> None:
        self.counts = counts
        self.melds = melds
        self.wilds = wilds
        self.sets = sets_needed - melds
        self.pairs_form = pairs_form and melds == 0
        self.points = suit_points(counts)
        self.n = sum(counts)
        self.hist = count_hist(counts) if self.pairs_form else [0] * 5
        self.base = self.with_tile(-1)

    def with_tile(self, k: int) -> int:
        """Shanten with one more tile of kind ``k`` (-1: as it is)."""
        p = self.points
        n = self.n
        if k >= 0:
            c = self.counts
            s = k // 9 if k < NUM_SUITED else 3
            a = SUIT_SLICES[s][0]
            c[k] += 1
            q = _suit_points(tuple(c[a:a + 9 if s < 3 else a + 7]), s == 3)
            c[k] -= 1
            p = [q if i == s else p[i] for i in range(4)]
            n += 1
        sh = max(-1, _need(p[0], p[1], p[2], p[3], self.sets, n) - self.wilds - 1)
        if self.pairs_form and sh > -1:
            h = self.hist
            if k >= 0:
                ck = self.counts[k]
                h = h[:]
                h[ck] -= 1
                h[ck + 1] += 1
            sh = min(sh, max(-1, 17 - _pairs_used((h[0], h[1], h[2], h[3], h[4])) - self.wilds - 1))
        return sh


def blank_counts() -> list[int]:
    return [0] * NUM_NON_FLOWER
