"""Slow, obviously-correct references for caishen.shapes.analysis (tests only).

No tables, no pruning: plain recursive decomposition over the whole hand. Every wild
tile may stand for every non-flower kind of the ruleset; it is substituted lazily, in
the group that needs it (trying every group shape a slot can take), which is the same
as substituting every wild by every kind up front, only faster. ``substituted_is_win``
does the literal up-front substitution and is used to check the lazy one on hands
with few wilds.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement

from caishen.hand import Hand, Meld, MeldKind
from caishen.shapes.analysis import Arrangement, Form, Group, GroupKind
from caishen.variants.longgang.rules import Ruleset

NON_FLOWER = 34


def split(hand: Hand, wilds: frozenset[int]) -> tuple[list[int], list[int], int]:
    """(real counts per kind, wild tiles sorted, 正财神 count)."""
    counts = [0] * NON_FLOWER
    wild_tiles = []
    for t in hand.concealed:
        if t in wilds:
            wild_tiles.append(t)
        else:
            counts[t] += 1
    zheng = len(wild_tiles)
    flowers = [f for f in hand.flowers if f in wilds]
    wild_tiles += flowers
    if wilds and all(k >= NON_FLOWER for k in wilds):  # flower indicator: flowers are 正财神 (L5)
        zheng = len(flowers)
    return counts, sorted(wild_tiles), zheng


def kinds_of(ruleset: Ruleset) -> tuple[int, ...]:
    return tuple(k for k in ruleset.tile_kinds if k < NON_FLOWER)


def set_shapes(ruleset: Ruleset) -> list[tuple[int, int, int]]:
    kinds = set(kinds_of(ruleset))
    out = [(k, k, k) for k in sorted(kinds)]
    for k in sorted(kinds):
        if k < 27 and k % 9 <= 6:
            out.append((k, k + 1, k + 2))
    return out


# ---------------------------------------------------------------- is_win


@cache
def _std(counts: tuple[int, ...], jokers: int, sets: int, pair: int, kinds: tuple[int, ...]) -> bool:
    i = next((k for k, n in enumerate(counts) if n), -1)
    if i < 0:
        return jokers == 3 * sets + 2 * pair
    c = list(counts)
    shapes: list[tuple[tuple[int, ...], bool]] = []
    if sets:
        shapes.append(((i, i, i), False))
        if i < 27:
            for s in (i - 2, i - 1, i):
                if s // 9 == i // 9 and 0 <= s and s % 9 <= 6:
                    shapes.append(((s, s + 1, s + 2), False))
    if pair:
        shapes.append(((i, i), True))
    for shape, is_pair in shapes:
        # place one real i; every other slot: a real tile of that kind or a wild
        others = list(shape)
        others.remove(i)
        c[i] -= 1
        for fill in range(1 << len(others)):
            used_j = 0
            took: list[int] = []
            ok = True
            for b, k in enumerate(others):
                if fill >> b & 1:
                    if c[k] <= 0:
                        ok = False
                        break
                    c[k] -= 1
                    took.append(k)
                else:
                    used_j += 1
            if ok and used_j <= jokers and _std(
                tuple(c), jokers - used_j, sets - (not is_pair), pair - is_pair, kinds
            ):
                for k in took:
                    c[k] += 1
                c[i] += 1
                return True
            for k in took:
                c[k] += 1
        c[i] += 1
    return False


def _pairs(counts: list[int], jokers: int, triplet: bool) -> bool:
    """7 pairs (+ 1 triplet) where any kind may give several groups."""

    @cache
    def go(idx: int, j: int, pairs: int, trip: int) -> bool:
        if idx == NON_FLOWER:
            return j == 2 * pairs + 3 * trip
        n = counts[idx]
        for t in range(trip + 1):
            for p in range(pairs + 1):
                cap = 3 * t + 2 * p
                if cap >= n and cap - n <= j and go(idx + 1, j - (cap - n), pairs - p, trip - t):
                    return True
        return False

    return go(0, jokers, 7, 1 if triplet else 0)


def ref_is_win(hand: Hand, ruleset: Ruleset, wilds: frozenset[int] = frozenset()) -> bool:
    counts, wild_tiles, zheng = split(hand, wilds)
    if ruleset.bulldozer and zheng >= ruleset.bulldozer_wilds:
        return True
    sets = ruleset.sets_needed - len(hand.melds)
    if sets < 0 or sum(counts) + len(wild_tiles) != 3 * sets + 2:
        return False
    if _std(tuple(counts), len(wild_tiles), sets, 1, kinds_of(ruleset)):
        return True
    if not hand.melds:
        if ruleset.eight_and_half_pairs and ruleset.hand_size == 16:
            return _pairs(counts, len(wild_tiles), True)
        if ruleset.seven_pairs and ruleset.hand_size == 13:
            return _pairs(counts, len(wild_tiles), False)
    return False


def substituted_is_win(hand: Hand, ruleset: Ruleset, wilds: frozenset[int] = frozenset()) -> bool:
    """Literal substitution: every multiset of kinds for the wilds, then no wilds left."""
    counts, wild_tiles, zheng = split(hand, wilds)
    if ruleset.bulldozer and zheng >= ruleset.bulldozer_wilds:
        return True
    kinds = kinds_of(ruleset)
    base = [k for k in range(NON_FLOWER) for _ in range(counts[k])]
    for sub in combinations_with_replacement(kinds, len(wild_tiles)):
        plain = Hand(tuple(base) + sub, hand.melds, ())
        if ref_is_win(plain, ruleset):
            return True
    return False


def ref_waits(hand: Hand, ruleset: Ruleset, wilds: frozenset[int] = frozenset()) -> tuple[int, ...]:
    held = [0] * NON_FLOWER
    for t in hand.concealed:
        held[t] += 1
    for m in hand.melds:
        for t in m.tiles:
            held[t] += 1
    out = []
    for k in ruleset.tile_kinds:
        if k >= NON_FLOWER:
            if k not in wilds or k in hand.flowers:
                continue
        elif held[k] >= 4:
            continue
        if ref_is_win(hand.with_tile(k), ruleset, wilds):
            out.append(k)
    return tuple(out)


# ---------------------------------------------------------------- arrangements

_GroupT = tuple[int, tuple[int, ...], tuple[tuple[int, int], ...]]


def _finish(groups: list[_GroupT]) -> tuple[Group, ...]:
    gs = [Group(GroupKind(kind), tiles, tuple(sorted(ws))) for kind, tiles, ws in groups]
    return tuple(sorted(gs, key=lambda g: (g.tiles, int(g.kind), g.wilds)))


def _decompose(
    counts: list[int],
    wild_tiles: list[int],
    need: dict[str, int],
    shapes_for_real: object,
    shapes_for_wild: list[tuple[int, tuple[int, ...]]],
    acc: list[_GroupT],
    out: set[tuple[Group, ...]],
) -> None:
    """Physical-tile recursion: take the lowest real tile (or, when none is left, the
    first wild) and put it in every group it can be in, filling each other slot with a
    real tile of that kind or any remaining wild."""
    i = next((k for k, n in enumerate(counts) if n), -1)
    if i < 0 and not wild_tiles:
        if all(v == 0 for v in need.values()):
            out.add(_finish(acc))
        return
    if i >= 0:
        shapes = shapes_for_real(i)  # type: ignore[operator]
    else:
        shapes = shapes_for_wild
    for kind, shape in shapes:
        label = "pair" if kind == GroupKind.PAIR else "set"
        if need[label] == 0:
            continue
        slots = list(shape)
        if i >= 0:
            slots.remove(i)
            counts[i] -= 1
            first_w: list[tuple[int, int]] = []
        else:
            # the first wild stands in one slot (each distinct slot kind)
            first = wild_tiles.pop(0)
            first_w = []
        options_first = [None] if i >= 0 else sorted(set(slots))
        for fslot in options_first:
            rest = list(slots)
            fw: list[tuple[int, int]] = []
            if fslot is not None:
                rest.remove(fslot)
                fw = [(first, fslot)]
            _fill(counts, wild_tiles, rest, 0, fw + first_w, kind, shape, need, label,
                  shapes_for_real, shapes_for_wild, acc, out)
        if i >= 0:
            counts[i] += 1
        else:
            wild_tiles.insert(0, first)


def _fill(counts, wild_tiles, rest, idx, ws, kind, shape, need, label, sfr, sfw, acc, out) -> None:  # type: ignore[no-untyped-def]
    if idx == len(rest):
        need[label] -= 1
        acc.append((int(kind), tuple(sorted(shape)), tuple(ws)))
        _decompose(counts, wild_tiles, need, sfr, sfw, acc, out)
        acc.pop()
        need[label] += 1
        return
    k = rest[idx]
    if counts[k] > 0:
        counts[k] -= 1
        _fill(counts, wild_tiles, rest, idx + 1, ws, kind, shape, need, label, sfr, sfw, acc, out)
        counts[k] += 1
    for wt in sorted(set(wild_tiles)):
        wild_tiles.remove(wt)
        _fill(counts, wild_tiles, rest, idx + 1, [*ws, (wt, k)], kind, shape, need, label, sfr, sfw, acc, out)
        wild_tiles.append(wt)
        wild_tiles.sort()


def ref_arrangements(hand: Hand, ruleset: Ruleset, wilds: frozenset[int] = frozenset()) -> tuple[Arrangement, ...]:
    """Every arrangement, as a set (order is the caller's business)."""
    counts, wild_tiles, zheng = split(hand, wilds)
    out: list[Arrangement] = []
    if ruleset.bulldozer and zheng >= ruleset.bulldozer_wilds:
        out.append(Arrangement(Form.BULLDOZER, ()))
    sets = ruleset.sets_needed - len(hand.melds)
    if sets < 0 or sum(counts) + len(wild_tiles) != 3 * sets + 2:
        return tuple(out)
    kinds = kinds_of(ruleset)
    all_sets = set_shapes(ruleset)

    def real_std(i: int) -> list[tuple[GroupKind, tuple[int, ...]]]:
        return [(GroupKind.TRIPLET if s[0] == s[1] else GroupKind.SEQUENCE, s) for s in all_sets if i in s] + [
            (GroupKind.PAIR, (i, i))
        ]

    wild_std = [(GroupKind.TRIPLET if s[0] == s[1] else GroupKind.SEQUENCE, s) for s in all_sets] + [
        (GroupKind.PAIR, (k, k)) for k in kinds
    ]
    melds = tuple(_meld_group(m) for m in hand.melds)
    found: set[tuple[Group, ...]] = set()
    _decompose(list(counts), list(wild_tiles), {"set": sets, "pair": 1}, real_std, wild_std, [], found)
    out += [Arrangement(Form.STANDARD, melds + g) for g in found]
    pairs_on = not hand.melds and (
        (ruleset.eight_and_half_pairs and ruleset.hand_size == 16) or (ruleset.seven_pairs and ruleset.hand_size == 13)
    )
    if pairs_on:
        trip = 1 if ruleset.hand_size == 16 else 0

        def real_pairs(i: int) -> list[tuple[GroupKind, tuple[int, ...]]]:
            return [(GroupKind.TRIPLET, (i, i, i)), (GroupKind.PAIR, (i, i))]

        wild_pairs = [(GroupKind.TRIPLET, (k, k, k)) for k in kinds] + [(GroupKind.PAIR, (k, k)) for k in kinds]
        found = set()
        _decompose(list(counts), list(wild_tiles), {"set": trip, "pair": 7}, real_pairs, wild_pairs, [], found)
        out += [Arrangement(Form.PAIRS, g) for g in found]
    return tuple(out)


def _meld_group(m: Meld) -> Group:
    kind = {MeldKind.CHOW: GroupKind.SEQUENCE, MeldKind.PONG: GroupKind.TRIPLET}.get(m.kind, GroupKind.KONG)
    return Group(kind, tuple(sorted(m.tiles)), (), m)
