"""Benchmark of caishen.shapes.analysis on 100,000 realistic seeded hands, against the
``mahjong`` PyPI library's ``Agari.is_agari`` timed in the same run.

Hands (17 tiles, no melds, Longgang tile set, seed fixed): per shuffled 136-tile wall,
the indicator is the first tile (its kind and, for a flower, the other flowers are
wild, L4/L5) and four hands are made, one per seat (own flower 坐花 wild, L7):
half are dealt straight from the wall (almost never ready), half are built from
sets and a pair of the wall's remaining tiles, then 0-2 tiles are swapped for the
next wall tiles and 0-4 tiles for wild tiles still in the wall (a mix of wins, ready
and not-ready hands).

The anchor ratio is taken on the hands without any wild, identical for both: ours
gets the ``Hand``, Agari its 34-count array (both built before timing). Agari knows
only the standard shape here (its seven pairs / thirteen orphans cannot fit 17
tiles); ours also tries 八对半 when the standard shape fails.

Run: ``python benchmarks/bench_analysis.py [--hands N]``.

``--json`` prints instead one JSON object of speed ratios ours / ``mahjong`` (higher is
faster for us), each timed interleaved, best of ``--repeats``, on ``--fair-hands`` seeded
hands of a 13-tile, 34-kind, no-flower, no-wild ruleset with seven pairs (the shapes
``mahjong`` knows; its thirteen orphans is the one it has and we lack):
``is_win_random14`` and ``is_win_random17`` (random hands dealt from a shuffled wall),
``is_win_nearwin`` (a random win minus one tile, plus the winning tile or a random
tile, 50/50), ``is_win_nearwin_with_construction`` (the same, counting our ``Hand`` built
from a list of kinds against its 34-count array built from the same list),
``is_win_random14_with_construction`` (the random 14-tile hands, construction counted the same
way) and ``shanten`` (random 13-tile hands, against ``Shanten.calculate_shanten``); beside them
``hand_construction_us`` (µs to build a ``Hand`` from a list of 14 random kinds), ``build``
(compiled or pure) and ``loop_ms`` (a plain Python loop of 10^6 additions, the machine's pace). The 17-tile hands use the
16-tile form of the same ruleset (seven pairs off: it needs 13 tiles).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable

from mahjong.agari import Agari
from mahjong.shanten import Shanten

from caishen.hand import Hand
from caishen.shapes.analysis import is_win, shanten, waits
from caishen.tiles import NUM_NON_FLOWER, is_flower
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.wilds import wild_kinds
from host import build, loop_ms

SEED = 20261129
RULES = LONGGANG
NON_FLOWER_KINDS = tuple(k for k in RULES.tile_kinds if k < NUM_NON_FLOWER)
SETS = [(k, k, k) for k in NON_FLOWER_KINDS] + [
    (k, k + 1, k + 2) for k in NON_FLOWER_KINDS if k < 27 and k % 9 <= 6
]


def wall_tiles() -> list[int]:
    return [k for k in RULES.tile_kinds for _ in range(1 if is_flower(k) else 4)]


def make_hands(n: int, seed: int = SEED) -> list[tuple[Hand, frozenset[int]]]:
    rng = random.Random(seed)
    base = wall_tiles()
    out: list[tuple[Hand, frozenset[int]]] = []
    while len(out) < n:
        wall = base[:]
        rng.shuffle(wall)
        indicator = wall.pop()
        for seat in range(4):
            if len(out) >= n:
                break
            wilds = wild_kinds(indicator, seat, RULES)
            left = {k: 0 for k in RULES.tile_kinds}
            for k in wall:
                left[k] += 1
            tiles: list[int] = []
            flowers: list[int] = []
            if seat % 2 == 0:  # dealt straight
                pos = 0
                while len(tiles) + sum(1 for f in flowers if f in wilds) < 17:
                    k = wall[pos]
                    pos += 1
                    if is_flower(k):
                        if k not in flowers:
                            flowers.append(k)
                    else:
                        tiles.append(k)
            else:  # built from sets and a pair still in the wall, then perturbed
                groups = 0
                tries = 0
                while groups < 5 and tries < 200:
                    tries += 1
                    s = rng.choice(SETS)
                    need = {k: s.count(k) for k in s}
                    if all(left[k] >= c and k not in wilds for k, c in need.items()):
                        for k in s:
                            left[k] -= 1
                        tiles.extend(s)
                        groups += 1
                while len(tiles) < 15:  # rare: fill with anything left
                    k = rng.choice([k for k in NON_FLOWER_KINDS if left[k] > 0])
                    left[k] -= 1
                    tiles.append(k)
                pair = rng.choice([k for k in NON_FLOWER_KINDS if left[k] >= 2])
                left[pair] -= 2
                tiles += [pair, pair]
                for _ in range(rng.randint(0, 2)):
                    k = rng.choice([k for k in NON_FLOWER_KINDS if left[k] > 0])
                    left[k] -= 1
                    tiles[rng.randrange(len(tiles))] = k
                for _ in range(rng.randint(0, 4)):
                    pool = [k for k in wilds if left.get(k, 0) > 0]
                    if not pool:
                        break
                    k = rng.choice(pool)
                    left[k] -= 1
                    i = rng.randrange(len(tiles))
                    if is_flower(k):
                        tiles.pop(i)
                        flowers.append(k)
                    else:
                        tiles[i] = k
            for k in (*tiles, *flowers):  # the next seat deals from what is left
                wall.remove(k)
            out.append((Hand(tuple(tiles), (), tuple(flowers)), wilds))
    return out


def n_wilds(hand: Hand, wilds: frozenset[int]) -> int:
    return sum(1 for t in hand.concealed if t in wilds) + sum(1 for f in hand.flowers if f in wilds)


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}/s ({seconds * 1e6 / n:.2f} µs each)"


FAIR13 = LONGGANG.replace(hand_size=13, eight_and_half_pairs=False, seven_pairs=True, has_white=True,
                          has_flowers=False)
FAIR16 = FAIR13.replace(seven_pairs=False, hand_size=16)
FAIR_SETS = [(k, k, k) for k in range(34)] + [(k, k + 1, k + 2) for k in range(27) if k % 9 <= 6]


def random_hands(n: int, size: int, rng: random.Random) -> list[list[int]]:
    wall = [k for k in range(34) for _ in range(4)]
    return [rng.sample(wall, size) for _ in range(n)]


def near_win_hands(n: int, rng: random.Random) -> list[list[int]]:
    """14 tiles: a random standard win less one tile, plus that tile or a random one (50/50)."""
    out: list[list[int]] = []
    while len(out) < n:
        tiles: list[int] = []
        for s in rng.choices(FAIR_SETS, k=4):
            tiles.extend(s)
        p = rng.randrange(34)
        tiles += [p, p]
        if any(tiles.count(k) > 4 for k in set(tiles)):
            continue
        taken = tiles.pop(rng.randrange(14))
        add = taken if rng.random() < 0.5 else rng.randrange(34)
        if tiles.count(add) >= 4:
            continue
        out.append([*tiles, add])
    return out


def _array(tiles: list[int]) -> list[int]:
    a = [0] * 34
    for t in tiles:
        a[t] += 1
    return a


def _best(repeats: int, ours: Callable[[], None], theirs: Callable[[], None]) -> float:
    """Speed ratio ours / theirs: best time of each over interleaved repeats."""
    best_ours = best_theirs = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        ours()
        best_ours = min(best_ours, time.perf_counter() - t)
        t = time.perf_counter()
        theirs()
        best_theirs = min(best_theirs, time.perf_counter() - t)
    return best_theirs / best_ours


def fair_ratios(n: int, repeats: int, seed: int = SEED) -> dict[str, float]:
    """The ``--json`` figures (see the module docstring); results are checked equal first."""
    rng = random.Random(seed)
    r14, r17, near, r13 = (random_hands(n, 14, rng), random_hands(n, 17, rng), near_win_hands(n, rng),
                           random_hands(n, 13, rng))
    agari = Agari()
    sh = Shanten()
    out: dict[str, float] = {}
    for key, lists, rules in (("is_win_random14", r14, FAIR13), ("is_win_random17", r17, FAIR16),
                              ("is_win_nearwin", near, FAIR13)):
        hands = [Hand(tuple(t), (), ()) for t in lists]
        arrays = [_array(t) for t in lists]
        if rules is not FAIR16:  # 17 tiles: Agari's seven-pairs test ignores the count
            mismatch = [t for h, a, t in zip(hands, arrays, lists, strict=True)
                        if is_win(h, rules) != agari.is_agari(a) and max(a) < 4 and sum(1 for c in a if c) > 7]
            assert not mismatch, mismatch[:3]

        def ours(hands: list[Hand] = hands, rules: Ruleset = rules) -> None:
            for h in hands:
                is_win(h, rules)

        def theirs(arrays: list[list[int]] = arrays) -> None:
            for a in arrays:
                agari.is_agari(a)

        out[key] = _best(repeats, ours, theirs)

    def ours_built() -> None:
        for t in near:
            is_win(Hand(tuple(t), (), ()), FAIR13)

    def theirs_built() -> None:
        for t in near:
            agari.is_agari(_array(t))

    out["is_win_nearwin_with_construction"] = _best(repeats, ours_built, theirs_built)

    def ours_built14() -> None:
        for t in r14:
            is_win(Hand(tuple(t), (), ()), FAIR13)

    def theirs_built14() -> None:
        for t in r14:
            agari.is_agari(_array(t))

    out["is_win_random14_with_construction"] = _best(repeats, ours_built14, theirs_built14)
    h13 = [Hand(tuple(t), (), ()) for t in r13]
    a13 = [_array(t) for t in r13]

    def ours_sh() -> None:
        for h in h13:
            shanten(h, FAIR13)

    def theirs_sh() -> None:
        for a in a13:
            sh.calculate_shanten(a)

    out["shanten"] = _best(repeats, ours_sh, theirs_sh)
    got = {k: round(v, 3) for k, v in out.items()}
    # what building a Hand from a list of 14 random kinds costs, in µs (best of the repeats)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for tl in r14:
            Hand(tuple(tl), (), ())
        best = min(best, time.perf_counter() - t)
    got["hand_construction_us"] = round(best / len(r14) * 1e6, 3)
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--json", action="store_true", help="print only the JSON object of ratios (see the docstring)")
    ap.add_argument("--fair-hands", type=int, default=5_000, help="hands per --json workload (default 5000)")
    ap.add_argument("--repeats", type=int, default=5, help="interleaved repetitions per --json workload (best kept)")
    args = ap.parse_args(argv)
    if args.json:
        out: dict[str, object] = dict(fair_ratios(args.fair_hands, args.repeats))
        out["build"] = build()
        out["loop_ms"] = loop_ms()
        print(json.dumps(out))
        return 0
    t0 = time.perf_counter()
    cases = make_hands(args.hands)
    print(f"python {sys.version.split()[0]}; {len(cases):,} hands (seed {SEED}) made in {time.perf_counter() - t0:.1f} s")
    plain = [(h, w) for h, w in cases if n_wilds(h, w) == 0]
    wild = [(h, w) for h, w in cases if n_wilds(h, w) > 0]
    arrays = []
    for h, _ in plain:
        a = [0] * 34
        for tile in h.concealed:
            a[tile] += 1
        arrays.append(a)
    dist = [0] * 6
    for h, w in cases:
        dist[min(n_wilds(h, w), 5)] += 1
    print("wild tiles per hand: " + ", ".join(f"{i}: {c:,}" for i, c in enumerate(dist) if c))

    # -- our is_win on the hands without wilds (the comparison set); runs interleaved,
    # best of 7 each, so that load from other processes hits both alike
    best_ours = best_agari = float("inf")
    ours: list[bool] = []
    theirs: list[bool] = []
    for _ in range(7):
        t = time.perf_counter()
        ours = [is_win(h, RULES, w) for h, w in plain]
        best_ours = min(best_ours, time.perf_counter() - t)
        t = time.perf_counter()
        theirs = [Agari.is_agari(a) for a in arrays]
        best_agari = min(best_agari, time.perf_counter() - t)
    only_ours = sum(1 for a, b in zip(ours, theirs, strict=True) if a and not b)
    only_theirs = sum(1 for a, b in zip(ours, theirs, strict=True) if b and not a)
    print(f"\nhands without wilds: {len(plain):,} ({sum(ours):,} wins by ours, {sum(theirs):,} by Agari; "
          f"{only_ours} only by ours, {only_theirs} only by Agari, whose seven-pairs test does not "
          "check the tile count: 7 pairs + 3 singles pass it)")
    print(f"  caishen is_win       {rate(len(plain), best_ours)}")
    print(f"  mahjong Agari        {rate(len(plain), best_agari)}")
    print(f"  ratio ours/Agari (speed): {best_agari / best_ours:.2f}x")

    # -- our is_win on the hands with wilds
    best = float("inf")
    wins = 0
    for _ in range(7):
        t = time.perf_counter()
        wins = sum(is_win(h, RULES, w) for h, w in wild)
        best = min(best, time.perf_counter() - t)
    print(f"\nhands with 1+ wilds: {len(wild):,} ({wins:,} wins)")
    print(f"  caishen is_win       {rate(len(wild), best)}   (Agari cannot take wilds)")

    # -- all hands
    t = time.perf_counter()
    wins = sum(is_win(h, RULES, w) for h, w in cases)
    el = time.perf_counter() - t
    print(f"\nall {len(cases):,} hands: is_win {rate(len(cases), el)}, {wins:,} wins")

    # -- waits on the 16-tile hands left after taking out the last concealed tile
    shorts = [(Hand(h.concealed[:-1], (), h.flowers), w) for h, w in cases if h.concealed]
    t = time.perf_counter()
    ready = sum(1 for h, w in shorts if waits(h, RULES, w))
    el = time.perf_counter() - t
    print(f"waits on {len(shorts):,} 16-tile hands: {rate(len(shorts), el)}, {ready:,} ready")

    # -- shanten (per-suit cover tables fill on first sight of a suit key, then stay)
    sub = shorts[:20_000]
    for label in ("cold", "warm"):
        t = time.perf_counter()
        hist: dict[int, int] = {}
        for h, w in sub:
            s = shanten(h, RULES, w)
            hist[s] = hist.get(s, 0) + 1
        el = time.perf_counter() - t
        print(f"shanten ({label}) on {len(sub):,} 16-tile hands: {rate(len(sub), el)}; "
              + ", ".join(f"{k}: {v}" for k, v in sorted(hist.items())))
    # -- a bot's use: shanten after each distinct discard of a 17-tile hand
    calls = 0
    t = time.perf_counter()
    for h, w in cases[:5_000]:
        for k in set(h.concealed):
            if k not in w:
                shanten(h.without_tile(k), RULES, w)
                calls += 1
    el = time.perf_counter() - t
    print(f"shanten after each discard of 5,000 17-tile hands: {calls:,} calls, {rate(calls, el)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
