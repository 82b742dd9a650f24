"""Benchmark of ``caishen stats`` (caishen.shapes.stats.single_suit_stats) against a naive
recursive enumerator run in the same process.

The naive reference enumerates the same hands (itertools multisets), and for every
hand and every candidate value decides the win by plain recursive decomposition (no
tables, no memo). It runs on the full 13- and 16-tile enumerations (waits only: its tenpai
counts are checked against ours), so the ratio flatters the naive side.

Run: ``python benchmarks/bench_stats.py``.
"""

from __future__ import annotations

import sys
import time
from itertools import combinations_with_replacement

from caishen.shapes.stats import single_suit_stats


def naive_sets(c: list[int], sets: int, pair: int) -> bool:
    i = next((v for v in range(9) if c[v]), -1)
    if i < 0:
        return sets == 0 and pair == 0
    if sets and c[i] >= 3:
        c[i] -= 3
        ok = naive_sets(c, sets - 1, pair)
        c[i] += 3
        if ok:
            return True
    if sets and i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = naive_sets(c, sets - 1, pair)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        if ok:
            return True
    if pair and c[i] >= 2:
        c[i] -= 2
        ok = naive_sets(c, sets, 0)
        c[i] += 2
        if ok:
            return True
    return False


def naive_pairs(c: list[int], triplet: bool) -> bool:
    odd = [x for x in c if x % 2]
    return (len(odd) == 1 and odd[0] == 3) if triplet else not odd


def naive_hands(tiles: int) -> list[list[int]]:
    out = []
    for combo in combinations_with_replacement(range(9), tiles):
        c = [0] * 9
        for v in combo:
            c[v] += 1
        if max(c) <= 4:
            out.append(c)
    return out


def naive_stats(hands: list[list[int]], tiles: int) -> tuple[int, int, dict[int, int]]:
    """(tenpai either form, standard tenpai, tenpai by wait count) for the given hands."""
    sets = (tiles + 1) // 3
    triplet = tiles == 16
    tenpai = std_tenpai = 0
    by: dict[int, int] = {}
    for c in hands:
        n = n_std = 0
        for v in range(9):
            if c[v] >= 4:
                continue
            c[v] += 1
            std = naive_sets(c, sets, 1)
            prs = naive_pairs(c, triplet)
            c[v] -= 1
            n += std or prs
            n_std += std
        if n:
            tenpai += 1
            by[n] = by.get(n, 0) + 1
        std_tenpai += n_std > 0
    return tenpai, std_tenpai, by


def main() -> int:
    print(f"python {sys.version.split()[0]}")
    t = time.perf_counter()
    ours13 = single_suit_stats(13)
    el13 = time.perf_counter() - t
    t = time.perf_counter()
    ours16 = single_suit_stats(16)
    el16 = time.perf_counter() - t
    print(f"caishen stats --tiles 13: {el13:.2f} s ({ours13['hands']:,} hands, and the 14-tile wins, kong hands)")
    print(f"caishen stats --tiles 16: {el16:.2f} s ({ours16['hands']:,} hands, and the 17-tile wins, kong hands)")

    hands13 = naive_hands(13)
    t = time.perf_counter()
    tenpai, std, by = naive_stats(hands13, 13)
    n13 = time.perf_counter() - t
    assert tenpai == ours13["tenpai"] and std == ours13["standard_tenpai"]
    assert {str(k): v for k, v in sorted(by.items())} == {
        k: v for k, v in ours13["tenpai_by_wait_count"].items() if v
    }
    print(f"naive recursive, 13 tiles, waits only (full {len(hands13):,} hands): {n13:.2f} s; counts agree")
    print(f"  ratio naive/ours on 13 tiles: {n13 / el13:.1f}x (ours also counts wins and kong hands)")

    hands16 = naive_hands(16)
    t = time.perf_counter()
    tenpai, std, by = naive_stats(hands16, 16)
    n16 = time.perf_counter() - t
    assert tenpai == ours16["tenpai"] and std == ours16["standard_tenpai"]
    print(f"naive recursive, 16 tiles, waits only (full {len(hands16):,} hands): {n16:.2f} s; counts agree")
    print(f"  ratio naive/ours on 16 tiles: {n16 / el16:.1f}x (ours also counts wins and kong hands)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
