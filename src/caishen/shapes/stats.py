"""Single-suit statistics 清一色统计: every multiset of 13 or 16 tiles of one suit, its
waits and forms, reproducing the tables at the end of the main rule source
(13張型清一色張張可胡一覽表, 含槓2型). What is counted is written in ``docs/analysis.md``.

Counts come from the same per-suit tables as :mod:`caishen.shapes.analysis` (one lookup per
candidate wait), so ``single_suit_stats(16)`` runs in a few seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any, Final

from caishen.errors import ArgumentError
from caishen.shapes.tables import suit_tables

__all__ = ["SUPPORTED_TILES", "every_tile_wins_with_kongs", "pairs_form_distinct", "single_suit_stats"]

SUPPORTED_TILES: Final = (13, 16)
_N1: Final = suit_tables()[1]
_PO: Final = suit_tables()[3]
_P5: Final = tuple(5**v for v in range(9))


def _vectors(total: int, banned: frozenset[int] = frozenset()) -> Iterator[tuple[int, list[int]]]:
    """(base-5 key, counts) of every 9-value count vector with the given total, each count
    0-4, values in ``banned`` 0."""
    counts = [0] * 9

    def go(v: int, left: int, key: int) -> Iterator[tuple[int, list[int]]]:
        if v == 8:
            if left <= 4 and (left == 0 or 8 not in banned):
                counts[8] = left
                yield key + left * _P5[8], counts
                counts[8] = 0
            return
        top = 0 if v in banned else min(4, left)
        # the values after v can hold at most 4 each
        low = max(0, left - 4 * (8 - v))
        for n in range(low, top + 1):
            counts[v] = n
            yield from go(v + 1, left - n, key + n * _P5[v])
        counts[v] = 0

    yield from go(0, total, 0)


def _pairs_win(counts: list[int], triplet: bool) -> bool:
    """Seven pairs (``triplet`` False) or 八对半 (7 pairs + 1 triplet) with no wilds; four
    equal tiles count as two pairs (L14)."""
    odd = [c for c in counts if c & 1]
    if not triplet:
        return not odd
    return len(odd) == 1 and odd[0] == 3


def _hand_string(counts: list[int]) -> str:
    return "".join(str(v + 1) * c for v, c in enumerate(counts))


def single_suit_stats(tiles: int) -> dict[str, Any]:
    """Exact counts over every multiset of ``tiles`` (13 or 16) tiles of one suit.

    The pairs form is seven pairs for 13 tiles and 八对半 for 16. Keys and meanings:
    see ``docs/analysis.md``.
    """
    if tiles not in SUPPORTED_TILES:
        raise ArgumentError(f"--tiles must be 13 or 16, not {tiles}")
    # PO = 2 * (odd counts) + (some count is 3): seven pairs wants no odd count (0);
    # 八对半 exactly one odd count, the 3 of the triplet (2 * 1 + 1)
    pairs_ok = 3 if tiles == 16 else 0
    n1 = _N1
    po = _PO
    hands = 0
    tenpai_by: dict[int, int] = dict.fromkeys(range(1, 10), 0)
    std_by: dict[int, int] = dict.fromkeys(range(1, 10), 0)
    pairs_tenpai = 0
    every: list[str] = []
    every_by: dict[int, int] = {}
    for key, counts in _vectors(tiles):
        hands += 1
        n_all = 0
        n_std = 0
        has_pairs = False
        holdable = 0
        for v in range(9):
            c = counts[v]
            if c >= 4:  # L3: a value held 4 times is never a wait
                continue
            holdable += 1
            k = key + _P5[v]
            std = n1[k] == 0
            prs = po[k] == pairs_ok
            if std:
                n_std += 1
            if prs:
                has_pairs = True
            if std or prs:
                n_all += 1
        if n_all:
            tenpai_by[n_all] += 1
            if n_all == holdable:
                every.append(_hand_string(counts))
                every_by[n_all] = every_by.get(n_all, 0) + 1
        if n_std:
            std_by[n_std] += 1
        if has_pairs:
            pairs_tenpai += 1
    wins = std_wins = pairs_wins = 0
    for key, _counts in _vectors(tiles + 1):
        std = n1[key] == 0
        prs = po[key] == pairs_ok
        wins += std or prs
        std_wins += std
        pairs_wins += prs
    tenpai = sum(tenpai_by.values())
    return {
        "tiles": tiles,
        "hands": hands,
        "tenpai": tenpai,
        "not_tenpai": hands - tenpai,
        "tenpai_by_wait_count": {str(k): v for k, v in tenpai_by.items()},
        "standard_tenpai": sum(std_by.values()),
        "standard_tenpai_by_wait_count": {str(k): v for k, v in std_by.items()},
        "pairs_form_tenpai": pairs_tenpai,
        "winning_hands": wins,
        "standard_winning_hands": std_wins,
        "pairs_form_winning_hands": pairs_wins,
        "every_tile_wins": sorted(every),
        "every_tile_wins_by_wait_count": {str(k): every_by[k] for k in sorted(every_by)},
        "every_tile_wins_with_kongs": {
            str(n): {str(k): len(v) for k, v in sorted(every_tile_wins_with_kongs(tiles, n).items())}
            for n in (1, 2)
        },
    }


def every_tile_wins_with_kongs(tiles: int, kongs: int) -> dict[int, list[str]]:
    """Hands of ``tiles`` tiles with ``kongs`` concealed kongs of one suit set aside (each
    a set, each of a different value) and ``tiles - 3*kongs`` concealed tiles, that wait
    (standard form) on every value they hold fewer than 4 of; by wait count. A hand
    reads like the source: ``[1111]3334567888``, ``2223456777[9999]``."""
    out: dict[int, list[str]] = {}
    n1 = _N1
    for kv in combinations(range(9), kongs):
        banned = frozenset(kv)
        for key, counts in _vectors(tiles - 3 * kongs, banned):
            n = 0
            ok = True
            for v in range(9):
                if v in banned or counts[v] >= 4:
                    continue
                if n1[key + _P5[v]] == 0:
                    n += 1
                else:
                    ok = False
                    break
            if ok and n:
                text = "".join(
                    f"[{str(v + 1) * 4}]" if v in banned else str(v + 1) * counts[v] for v in range(9)
                )
                out.setdefault(n, []).append(text)
    for hands in out.values():
        hands.sort()
    return out


def pairs_form_distinct(tiles: int) -> tuple[int, int]:
    """(tenpai hands, winning hands) of the pairs form whose pairs are all of different
    values (no four equal tiles read as two pairs)."""
    eight_half = tiles == 16
    tenpai = 0
    for _, counts in _vectors(tiles):
        for v in range(9):
            if counts[v] >= 4:
                continue
            counts[v] += 1
            ok = _pairs_win(counts, eight_half) and max(counts) <= 3
            counts[v] -= 1
            if ok:
                tenpai += 1
                break
    wins = sum(
        1 for _, counts in _vectors(tiles + 1) if _pairs_win(counts, eight_half) and max(counts) <= 3
    )
    return tenpai, wins
