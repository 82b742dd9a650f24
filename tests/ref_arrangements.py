"""``caishen.shapes.analysis.arrangements`` as it was before the per-slot splits (tests only):
one recursion over the whole hand for the standard form, every permutation of the wild tiles
for their places. Same results, same order; the property tests hold the fast code to it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement, permutations

from caishen.hand import Hand
from caishen.shapes.analysis import (
    _D1,
    _H0,
    _HD1,
    _N0,
    _PAIR_CANDS,
    _POW,
    _SLOT,
    _TRIPLET_CANDS,
    Arrangement,
    Form,
    Forms,
    Group,
    GroupKind,
    _AGroup,
    _Cand,
    _Info,
    _info,
    _meld_group,
    _pairs_cover,
    flower_wilds,
    is_win,
)
from caishen.tiles import NUM_NON_FLOWER


def _group_key(g: Group) -> tuple[tuple[int, ...], int, tuple[tuple[int, int], ...]]:
    return (g.tiles, int(g.kind), g.wilds)


def old_pairs_abstract(counts: list[int], jokers: int, triplet: bool, info: _Info) -> set[tuple[_AGroup, ...]]:
    """``_pairs_abstract`` as it was before its memos (2026-12-02): every split into 7 pairs (+ 1 triplet for 八对半); four equal tiles may be two pairs (L14)."""
    out: set[tuple[_AGroup, ...]] = set()
    present = [k for k, n in enumerate(counts) if n]
    acc: list[_AGroup] = []
    kinds = info.non_flower_kinds

    def splits(n: int, pairs: int, trip: int) -> Iterator[list[tuple[int, int]]]:
        # ways to spread n real tiles over `pairs` pairs and `trip` triplets of one kind:
        # list of (size, reals) per group, canonical (non-increasing reals within a size)
        sizes = [3] * trip + [2] * pairs

        def go(idx: int, left: int, cap3: int, cap2: int) -> Iterator[list[tuple[int, int]]]:
            if idx == len(sizes):
                if left == 0:
                    yield []
                return
            sz = sizes[idx]
            cap = cap3 if sz == 3 else cap2
            for r in range(min(sz, left, cap), -1, -1):
                for rest in go(idx + 1, left - r, r if sz == 3 else cap3, r if sz == 2 else cap2):
                    yield [(sz, r), *rest]

        yield from go(0, n, 3, 2)

    def rec(idx: int, j: int, pairs_left: int, trip_left: int) -> None:
        if idx == len(present):
            if j != 2 * pairs_left + 3 * trip_left:
                return
            trips: list[list[_AGroup]] = [[]]
            if trip_left:
                trips = [[(GroupKind.TRIPLET, (k, k, k), (k, k, k))] for k in kinds]
            for tr in trips:
                for combo in combinations_with_replacement(kinds, pairs_left):
                    extra: list[_AGroup] = [(GroupKind.PAIR, (k, k), (k, k)) for k in combo]
                    out.add(tuple(sorted(acc + tr + extra)))
            return
        k = present[idx]
        n = counts[k]
        for t in range(0, trip_left + 1):
            for p in range(0, pairs_left + 1):
                cap = 3 * t + 2 * p
                if cap < n or cap - n > j or (t == 0 and p == 0):
                    continue
                for split in splits(n, p, t):
                    groups: list[_AGroup] = []
                    for sz, r in split:
                        gk = GroupKind.TRIPLET if sz == 3 else GroupKind.PAIR
                        groups.append((gk, (k,) * sz, (k,) * (sz - r)))
                    acc.extend(groups)
                    rec(idx + 1, j - (cap - n), pairs_left - p, trip_left - t)
                    del acc[len(acc) - len(groups) :]

    rec(0, jokers, 7, 1 if triplet else 0)
    return out


def old_assign(abstract: Sequence[_AGroup], wild_tiles: Sequence[int]) -> Iterator[tuple[Group, ...]]:
    slots = [(gi, s) for gi, (_, _, ws) in enumerate(abstract) for s in ws]
    seen: set[tuple[int, ...]] = set()
    for perm in permutations(wild_tiles):
        if perm in seen:
            continue
        seen.add(perm)
        used: list[list[tuple[int, int]]] = [[] for _ in abstract]
        for (gi, s), wt in zip(slots, perm, strict=True):
            used[gi].append((wt, s))
        yield tuple(
            sorted(
                (Group(kind, tiles, tuple(sorted(used[gi]))) for gi, (kind, tiles, _) in enumerate(abstract)),
                key=_group_key,
            )
        )


def _min_need(keys: Sequence[int], pair: bool) -> int:
    b = _N0[keys[0]] + _N0[keys[1]] + _N0[keys[2]] + _H0[keys[3]]
    if not pair:
        return b
    return b + min(_D1[keys[0]], _D1[keys[1]], _D1[keys[2]], _HD1[keys[3]], 3) - 1


def old_standard_abstract(counts: list[int], jokers: int, sets: int, info: _Info) -> set[tuple[_AGroup, ...]]:
    out: set[tuple[_AGroup, ...]] = set()
    counts = list(counts)
    keys = [0, 0, 0, 0]
    for k, n in enumerate(counts):
        keys[_SLOT[k]] += n * _POW[k]
    jsets, jpairs = info.joker_sets, info.joker_pairs
    sequences = info.sequences
    acc: list[_AGroup] = []

    def rec(start: int, j: int, sets_left: int, pair_left: int) -> None:
        i = start
        while i < NUM_NON_FLOWER and counts[i] == 0:
            i += 1
        if i == NUM_NON_FLOWER:
            if j != 3 * sets_left + 2 * pair_left:
                return
            for combo in combinations_with_replacement(range(len(jsets)), sets_left):
                extra = [jsets[x] for x in combo]
                for pr in jpairs if pair_left else [None]:
                    groups = acc + extra + ([pr] if pr is not None else [])
                    out.add(tuple(sorted(groups)))
            return
        c = counts[i]
        slot = _SLOT[i]
        cands: list[_Cand] = []
        if sets_left:
            cands.extend(_TRIPLET_CANDS[i][min(c, 3)])
        if pair_left:
            cands.extend(_PAIR_CANDS[i][min(c, 2)])
        if sets_left:
            for cand, a, b in sequences[i]:
                if counts[a] and counts[b]:
                    cands.append(cand)
        for group, got_real, dkey, wild_n, is_pair in cands:
            jn = j - wild_n
            if jn < 0:
                continue
            for t in got_real:
                counts[t] -= 1
            keys[slot] -= dkey
            pl = pair_left - is_pair
            if _min_need(keys, pl > 0) <= jn:
                acc.append(group)
                rec(i, jn, sets_left - 1 + is_pair, pl)
                acc.pop()
            for t in got_real:
                counts[t] += 1
            keys[slot] += dkey

    if _min_need(keys, True) <= jokers:
        rec(0, jokers, sets, 1)
    return out


def old_arrangements(hand: Hand, ruleset: Forms, wilds: frozenset[int] = frozenset()) -> tuple[Arrangement, ...]:
    counts = [0] * NUM_NON_FLOWER
    wild_tiles: list[int] = []
    for t in hand.concealed:
        if t in wilds:
            wild_tiles.append(t)
        else:
            counts[t] += 1
    if max(counts) > 4:
        raise ValueError(f"the hand holds {max(counts)} tiles of one kind; there are 4")
    if not is_win(hand, ruleset, wilds):
        return ()
    info = _info(ruleset)
    zheng = len(wild_tiles)
    wild_tiles.extend(f for f in hand.flowers if f in wilds)
    if flower_wilds(wilds):
        zheng = len(wild_tiles) - zheng
    wild_tiles.sort()
    result: list[Arrangement] = []
    if info.bulldozer and zheng >= info.bulldozer:
        result.append(Arrangement(Form.BULLDOZER, ()))
    melds = tuple(_meld_group(m) for m in hand.melds)
    sets = info.sets - len(hand.melds)
    size = sum(counts) + len(wild_tiles)
    if sets < 0 or size != 3 * sets + 2:
        return tuple(result)
    seen: set[tuple[Group, ...]] = set()
    std: list[tuple[Group, ...]] = []
    for ab in old_standard_abstract(counts, len(wild_tiles), sets, info):
        for groups in old_assign(ab, wild_tiles):
            if groups not in seen:
                seen.add(groups)
                std.append(groups)
    std.sort(key=lambda gs: [_group_key(g) for g in gs])
    result.extend(Arrangement(Form.STANDARD, melds + gs) for gs in std)
    if not hand.melds and (info.eight_half or info.seven) and _pairs_cover(
            [n for n in counts if n], info.eight_half) >= size - len(wild_tiles):
        seen.clear()
        prs: list[tuple[Group, ...]] = []
        for ab in old_pairs_abstract(counts, len(wild_tiles), info.eight_half, info):
            for groups in old_assign(ab, wild_tiles):
                if groups not in seen:
                    seen.add(groups)
                    prs.append(groups)
        prs.sort(key=lambda gs: [_group_key(g) for g in gs])
        result.extend(Arrangement(Form.PAIRS, gs) for gs in prs)
    return tuple(result)
