"""Hand analyser (牌型分析): wins, waits, arrangements and shanten, wild-aware.

The hot path of scoring, the game engine and bots. Everything rests on per-suit
precomputed tables (see :mod:`caishen.shapes.tables`): for every count vector of one suit
(its base-5 key), the fewest wilds that complete it into sets, and into sets plus a
pair. A standard win is then a handful of table lookups across the three suits and
the honours, whatever the number of wilds (0-4) and the hand size (13 or 16 tiles).

Rule IDs (docs/rules, RULINGS): L3 (a held-4 kind is never a wait), L4/L5/L7 (which
kinds are wild), L8 (wilds stand for any kind, 推土机), L13 (standard shape, declared
melds fixed), L14 (八对半 / seven pairs), L19 (four equal concealed tiles are a triplet
plus one). See ``docs/analysis.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from itertools import combinations_with_replacement
from operator import attrgetter
from typing import Final, Protocol

from caishen.errors import ArgumentError, HandError
from caishen.hand import Hand, Meld, MeldKind
from caishen.shapes import tables as _tables
from caishen.tiles import (
    FLOWERS,
    NUM_NON_FLOWER,
    NUM_SUITED,
)

__all__ = [
    "Arrangement",
    "Form",
    "Group",
    "GroupKind",
    "arrangements",
    "is_win",
    "pairs_wild_with",
    "shanten",
    "waits",
    "Forms",
    "ShapeForms",
]

_EMPTY: Final[frozenset[int]] = frozenset()


class GroupKind(IntEnum):
    """Kind of one group of an arrangement: 顺子, 刻子, 杠, 将 (pair)."""

    SEQUENCE = 0
    TRIPLET = 1
    KONG = 2
    PAIR = 3


class Form(StrEnum):
    """Winning form: standard (n sets + pair), pairs (八对半 / 七对), bulldozer (推土机)."""

    STANDARD = "standard"
    PAIRS = "pairs"
    BULLDOZER = "bulldozer"


@dataclass(frozen=True, slots=True)
class Group:
    """One group of an arrangement.

    ``tiles``: the kinds the group stands for, sorted; ``wilds``: (wild tile kind used,
    kind it stands for) pairs, sorted; ``meld``: the declared meld this group is (L13).
    """

    kind: GroupKind
    tiles: tuple[int, ...]
    wilds: tuple[tuple[int, int], ...] = ()
    meld: Meld | None = None

    def __reduce__(self) -> tuple[type[Group], tuple[GroupKind, tuple[int, ...], tuple[tuple[int, int], ...], Meld | None]]:
        # Pickle and copy through the constructor: the compiled build (mypyc) cannot set the
        # fields of a frozen dataclass after construction.
        return (Group, (self.kind, self.tiles, self.wilds, self.meld))


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One way to read a winning hand: declared melds first (hand order), then the
    concealed groups sorted by (tiles, kind, wilds). Empty for 推土机."""

    form: Form
    groups: tuple[Group, ...]

    def __reduce__(self) -> tuple[type[Arrangement], tuple[Form, tuple[Group, ...]]]:
        return (Arrangement, (self.form, self.groups))  # see Group.__reduce__


def pairs_wild_with(arrangement: Arrangement, tile: int) -> bool:
    """Whether ``arrangement`` has a pair of ``tile`` made of one wild and one natural ``tile``
    (a wild standing for ``tile`` beside it): the pair a robbed tile may not make where a
    ruleset forbids robbing a kong with a wild pair (L10)."""
    for g in arrangement.groups:
        if g.kind is GroupKind.PAIR and g.tiles[0] == tile and len(g.wilds) == 1:
            return True
    return False


# --------------------------------------------------------------------------- forms


class Forms(Protocol):
    """What a variant tells the analyser: the winning forms it accepts. A variant's rules
    object usually has these attributes itself; :class:`ShapeForms` is a plain one."""

    @property
    def hand_size(self) -> int: ...          # 13 or 16 tiles before the draw (L13)
    @property
    def sets_needed(self) -> int: ...        # sets besides the pair: 4 or 5
    @property
    def eight_and_half_pairs(self) -> bool: ...  # 7 pairs + 1 triplet, 16-tile hands (L14)
    @property
    def seven_pairs(self) -> bool: ...       # 13-tile hands
    @property
    def bulldozer(self) -> bool: ...         # enough primary wilds win in any shape (L8 推土机)
    @property
    def bulldozer_wilds(self) -> int: ...    # how many primary wilds that takes
    @property
    def bulldozer_own_flower(self) -> bool: ...  # the seat's own wild flower counts as one of them
    @property
    def tile_kinds(self) -> tuple[int, ...]: ...  # kinds in play (wilds may stand for these)


@dataclass(frozen=True, slots=True)
class ShapeForms:
    """Winning forms as plain data, for variants without such switches of their own."""

    hand_size: int
    tile_kinds: tuple[int, ...]
    eight_and_half_pairs: bool = False
    seven_pairs: bool = False
    bulldozer: bool = False
    bulldozer_wilds: int = 0
    name: str = "shapes"
    bulldozer_own_flower: bool = False

    def __reduce__(self) -> tuple[type[ShapeForms], tuple[int, tuple[int, ...], bool, bool, bool, int, str, bool]]:
        return (ShapeForms, (self.hand_size, self.tile_kinds, self.eight_and_half_pairs, self.seven_pairs,
                             self.bulldozer, self.bulldozer_wilds, self.name,
                             self.bulldozer_own_flower))  # see Group.__reduce__

    @property
    def sets_needed(self) -> int:
        return (self.hand_size - 1) // 3

    @property
    def wall_size(self) -> int:
        """Tiles in the set: 4 of each kind, 1 of each flower."""
        return sum(1 if k >= NUM_NON_FLOWER else 4 for k in self.tile_kinds)


# --------------------------------------------------------------------------- tables

# Final names: the compiled build reads them as constants, not through the module's dict.
_SUIT_TABLES: Final = _tables.suit_tables()
_N0: Final = _SUIT_TABLES[0]
_N1: Final = _SUIT_TABLES[1]
_D1: Final = _SUIT_TABLES[2]
_PO: Final = _SUIT_TABLES[3]
_LB: Final = _SUIT_TABLES[4]
_HONOUR_TABLES: Final = _tables.honour_tables()
_H0: Final = _HONOUR_TABLES[0]
_H1: Final = _HONOUR_TABLES[1]
_HD1: Final = _HONOUR_TABLES[2]
_HPO: Final = _HONOUR_TABLES[3]
_HLB: Final = _HONOUR_TABLES[4]

# Per kind: which key it adds to (0-2 suits, 3 honours) and the base-5 power.
_SLOT: Final = tuple(k // 9 if k < NUM_SUITED else 3 for k in range(NUM_NON_FLOWER))
_POW: Final[tuple[int, ...]] = tuple(5 ** (k % 9) if k < NUM_SUITED else 5 ** (k - NUM_SUITED) for k in range(NUM_NON_FLOWER))

# Slot tables per wild set: wild kinds go to slot 4 with weight 1 (a plain count).
_slot_cache: Final[dict[frozenset[int], tuple[tuple[int, ...], tuple[int, ...]]]] = {_EMPTY: (_SLOT, _POW)}


def _slots_for(wilds: frozenset[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    got = _slot_cache.get(wilds)
    if got is None:
        slot = list(_SLOT)
        power = list(_POW)
        for k in wilds:
            if 0 <= k < NUM_NON_FLOWER:
                slot[k] = 4
                power[k] = 1
        got = (tuple(slot), tuple(power))
        if len(_slot_cache) < 4096:
            _slot_cache[wilds] = got
    return got


class _Info:
    """Forms switches the analyser needs, read once per ruleset object."""

    __slots__ = ("bull_own", "bulldozer", "eight_half", "joker_pairs", "joker_sets", "kinds", "non_flower_kinds", "ruleset",
                 "sequences", "sets", "seven", "splits")

    def __init__(self, r: Forms) -> None:
        self.ruleset = r
        self.sets = r.sets_needed
        self.eight_half = r.eight_and_half_pairs and r.hand_size == 16
        self.seven = r.seven_pairs and r.hand_size == 13
        self.bulldozer = r.bulldozer_wilds if r.bulldozer else 0
        # the seat's own flower 坐花 counts toward 推土机 beside the 正财神 (L8 金乡灵溪: 3 + 坐花);
        # without a flower indicator it is the only wild flower a seat has (L5, L7)
        self.bull_own = bool(self.bulldozer) and r.bulldozer_own_flower
        self.kinds = r.tile_kinds
        self.non_flower_kinds = tuple(k for k in self.kinds if k < NUM_NON_FLOWER)
        # made once per ruleset, read by every split (_split_rec) and completion (_wild_only)
        self.joker_sets, self.joker_pairs = _joker_shapes(self.non_flower_kinds)
        self.sequences = _sequence_slots(self.non_flower_kinds)
        # each slot's splits, by (slot key, slot, wilds): see _slot_splits
        self.splits: dict[int, tuple[_Split, ...]] = {}


_info_cache: Final[dict[int, _Info]] = {}

# For is_win's setup: (ruleset, concealed size by number of melds (-1 = impossible), pairs form
# 0 none / 1 七对 / 2 八对半, 推土机 threshold on the wild count, lower-bound tables).
_Fast = tuple[Forms | None, tuple[int, ...], int, int, bytes, bytes]


def _fast(r: Forms) -> _Fast:
    info = _info(r)
    sizes = tuple(3 * (info.sets - m) + 2 if m <= info.sets else -1 for m in range(16))
    mode = 2 if info.eight_half else 1 if info.seven else 0
    bull = info.bulldozer if info.bulldozer else 1 << 30  # 推土机 threshold on the wild count
    lb, hlb = (_LB, _HLB) if mode else (_N0, _H0)
    return (r, sizes, mode, bull, lb, hlb)


def _wild_flowers_held(wilds: frozenset[int]) -> dict[tuple[int, ...], int]:
    """Wild flowers held, per sorted flowers tuple; empty when no flower is wild."""
    held: dict[tuple[int, ...], int] = {}
    if any(k in wilds for k in FLOWERS):
        for mask in range(16):
            fl = tuple(f for i, f in enumerate(FLOWERS) if mask >> i & 1)
            held[fl] = sum(1 for f in fl if f in wilds)
    return held


# is_win's setup per wild set (for the ruleset used last with it): (ruleset, wilds,
# wild-kind adjustments of Hand.packed, wild flowers by flowers tuple, concealed size by melds, 推土机 threshold,
# pairs form, lower bound tables).
_Setup = tuple[
    Forms, frozenset[int], tuple[tuple[int, int, int], ...], dict[tuple[int, ...], int],
    tuple[int, ...], int, int, bytes, bytes, int, int,
]
_setups: Final[dict[frozenset[int], _Setup]] = {}


def _setup(ruleset: Forms, wilds: frozenset[int]) -> _Setup:
    f = _fast(ruleset)
    info = _info(ruleset)
    # With a flower indicator the wild flowers are the 正财神 (L5): 推土机 on flowers held.
    fbull = info.bulldozer if info.bulldozer and flower_wilds(wilds) else 99
    # Else, where the own flower counts too (L8 金乡灵溪): 推土机 on 正财神 + wild flowers held.
    obull = info.bulldozer if info.bull_own and fbull == 99 else 99
    # Per non-flower wild kind: (field shift, base-5 power, increment that moves one tile of
    # that kind from its suit key to the wild count at bit 84) to adjust ``Hand.packed``.
    adj = tuple(
        (21 * _SLOT[k], _POW[k], (1 << 84) - (_POW[k] << (21 * _SLOT[k])))
        for k in sorted(wilds) if k < NUM_NON_FLOWER
    )
    got: _Setup = (ruleset, wilds, adj, _wild_flowers_held(wilds), f[1], f[3], f[2], f[4], f[5], fbull, obull)
    if len(_setups) > 4096:
        _setups.clear()
    _setups[wilds] = got
    return got


def flower_wilds(wilds: frozenset[int]) -> bool:
    """Whether the 正财神 are flowers (flower indicator, L5): every wild kind is a flower."""
    return bool(wilds) and min(wilds) >= NUM_NON_FLOWER  # min, not all(): no generator per call


def _info(r: Forms) -> _Info:
    got = _info_cache.get(id(r))
    if got is None or got.ruleset is not r:
        got = _Info(r)
        if len(_info_cache) > 256:
            _info_cache.clear()
        _info_cache[id(r)] = got
    return got


def _std_ok(k0: int, k1: int, k2: int, k3: int, w: int) -> bool:
    """Sets + one pair from the four slot keys with ``w`` wilds (size already checked)."""
    n0 = _N0
    b = n0[k0] + n0[k1] + n0[k2] + _H0[k3]
    if b > w + 1:  # a pair lowers the need by at most one
        return False
    d1 = _D1
    d = min(d1[k0], d1[k1], d1[k2], _HD1[k3], 3) - 1  # 2 = a pair of wilds
    return b + d <= w


def is_win(hand: Hand, ruleset: Forms, wilds: frozenset[int] = _EMPTY) -> bool:
    """Whether ``hand`` (winning tile included) is a complete hand 胡牌.

    Wild tiles (财神) are the concealed tiles whose kind is in ``wilds`` plus the
    flowers in ``wilds``; other flowers (客花) are ignored. Forms: standard (L13),
    八对半 / seven pairs (L14, switches, no melds), 推土机 (L8: at least
    ``bulldozer_wilds`` 正财神, any size: concealed tiles of the indicator's kind, the own
    flower counted only where ``bulldozer_own_flower`` says so; with a flower indicator the
    wild flowers held, L5).
    A hand of the wrong size for the shapes is not a win.
    """
    # Hot path, everything inlined: one integer accumulates all four base-5 slot keys
    # in 21-bit fields (honours at bit 63) and the wild count from bit 84.
    su = _setups.get(wilds)
    if su is None or su[0] is not ruleset:
        su = _setup(ruleset, wilds)
    _, _, adj, wild_flowers, sizes, bull, mode, lb, hlb, fbull, obull = su
    nc = hand.num_concealed  # not hand.concealed: a hand built unsorted stays unsorted here
    acc = hand.packed
    for shift, power, inc in adj:  # wild tiles leave their suit key for the wild count
        c = ((acc >> shift) & 0x1FFFFF) // power % 5
        if c:
            acc += c * inc
    # Split once into the part above bit 63 (honours key, wild count from bit 21) and the suit
    # keys below it: what follows works on small ints (unboxed in the compiled build).
    hi = acc >> 63
    wc = hi >> 21
    if wc >= bull:  # 推土机 (L8): 正财神 count
        return True
    n = nc
    if wild_flowers:  # wild flowers count as tiles: how many, per sorted flowers tuple
        nf = wild_flowers.get(hand.flowers, 0)
        if nf >= fbull:  # 推土机 of flower wilds (L5, L8)
            return True
        if wc + nf >= obull:  # 推土机 of 正财神 and 坐花 (L8 金乡灵溪)
            return True
        n += nf
    melds = hand.melds
    if n != sizes[len(melds)]:
        return False
    lo = acc & 0x7FFFFFFFFFFFFFFF
    k0 = lo & 0x1FFFFF
    k1 = (lo >> 21) & 0x1FFFFF
    k2 = lo >> 42
    k3 = hi & 0x1FFFFF
    w = wc + n - nc
    # lower bound over the forms in play: quick reject
    if lb[k0] + lb[k1] + lb[k2] + hlb[k3] > w + 1:
        return False
    n0 = _N0
    b = n0[k0] + n0[k1] + n0[k2] + _H0[k3]
    if b <= w + 1:  # a pair lowers the need by at most one
        d1 = _D1
        if b + min(d1[k0], d1[k1], d1[k2], _HD1[k3], 3) - 1 <= w:
            return True
    if melds or not mode:
        return False
    po = _PO
    pa, pb, pc, pd = po[k0], po[k1], po[k2], _HPO[k3]
    odd = (pa >> 1) + (pb >> 1) + (pc >> 1) + (pd >> 1)
    if mode == 1:  # seven pairs
        return odd <= w
    if (pa | pb | pc | pd) & 1:  # 八对半: the triplet from a kind held 3 times
        return odd - 1 <= w
    return odd + 1 <= w  # else the triplet costs a wild more (3 wilds if no tile at all: size rules it out)


def _pairs_cost(k0: int, k1: int, k2: int, k3: int, triplet: bool) -> int:
    """Wilds needed for 七对 (``triplet`` False) or 八对半 (7 pairs + 1 triplet, L14);
    four equal tiles may be two pairs. Size already checked."""
    po = _PO
    a, b, c, d = po[k0], po[k1], po[k2], _HPO[k3]
    odd = (a >> 1) + (b >> 1) + (c >> 1) + (d >> 1)
    if not triplet:
        return odd
    # The triplet takes three of one kind: a 3 leaves a pair (odd - 1); any other kind
    # present costs one wild more; a triplet of wilds costs three.
    if (a | b | c | d) & 1:
        return odd - 1
    return odd + 1 if k0 or k1 or k2 or k3 else odd + 3


def _held(hand: Hand) -> list[int]:
    held = [0] * NUM_NON_FLOWER
    for t in hand.concealed:
        held[t] += 1
    for m in hand.melds:
        for t in m.tiles:
            held[t] += 1
    return held


def _slot_keys(
    conc: tuple[int, ...], wilds: frozenset[int]
) -> tuple[tuple[int, ...], tuple[int, ...], list[int]]:
    """(slot per kind, base-5 power per kind, the five keys: m, p, s, honours, wild count)."""
    slot, power = _slots_for(wilds)
    keys = [0, 0, 0, 0, 0]
    for t in conc:
        keys[slot[t]] += power[t]
    return slot, power, keys


def waits(hand: Hand, ruleset: Forms, wilds: frozenset[int] = _EMPTY) -> tuple[int, ...]:
    """Sorted kinds that complete ``hand`` (one tile short) 听牌.

    A kind held 4 times (concealed + melds) is never a wait (L3); a flower is a wait
    only if it is wild and not held. Candidates are ``ruleset.tile_kinds``.
    """
    info = _info(ruleset)
    conc = hand.concealed
    slot, power, keys = _slot_keys(conc, wilds)
    zheng = keys[4]
    w = zheng
    nflw = 0
    if wilds:
        for f in hand.flowers:
            if f in wilds:
                nflw += 1
    w += nflw
    flower_mode = flower_wilds(wilds)
    if flower_mode:  # the 正财神 are the wild flowers (L5)
        zheng = nflw
    elif info.bull_own:  # 坐花 counts toward 推土机 (L8 金乡灵溪): ``zheng`` is that count
        zheng += nflw
    melds = len(hand.melds)
    size = len(conc) + nflw
    sets = info.sets - melds
    held = _held(hand)
    bull = info.bulldozer
    std_size = sets >= 0 and size + 1 == 3 * sets + 2
    pairs = melds == 0 and std_size and (info.eight_half or info.seven)
    k0, k1, k2, k3 = keys[0], keys[1], keys[2], keys[3]
    wild_in = False  # does some wild kind complete the hand? decided once
    wild_done = False
    out: list[int] = []
    for k in info.kinds:
        if k >= NUM_NON_FLOWER:
            if k not in wilds or k in hand.flowers:
                continue
        elif held[k] >= 4:
            continue
        s = slot[k] if k < NUM_NON_FLOWER else 4
        if s == 4:
            is_zheng = (k >= NUM_NON_FLOWER) == flower_mode or info.bull_own
            if bull and is_zheng and zheng + 1 >= bull:
                out.append(k)
                continue
            if not wild_done:
                wild_done = True
                wild_in = bull > 0 and zheng >= bull
                if not wild_in and std_size:
                    wild_in = _std_ok(k0, k1, k2, k3, w + 1) or (
                        pairs and _pairs_cost(k0, k1, k2, k3, info.eight_half) <= w + 1
                    )
            if wild_in:
                out.append(k)
            continue
        if bull and zheng >= bull:
            out.append(k)
            continue
        if not std_size:
            continue
        p = power[k]
        a0, a1, a2, a3 = k0, k1, k2, k3
        if s == 0:
            a0 += p
        elif s == 1:
            a1 += p
        elif s == 2:
            a2 += p
        else:
            a3 += p
        ok = _std_ok(a0, a1, a2, a3, w) or (pairs and _pairs_cost(a0, a1, a2, a3, info.eight_half) <= w)
        if ok:
            out.append(k)
    return tuple(out)


# --------------------------------------------------------------------------- shanten

_M: Final = 6  # sets per slot 0..5 (a 17-tile hand needs at most 5 concealed sets)
_cover_cache: list[dict[int, tuple[int, ...]]] = [{0: (0,) * (2 * _M)}, {0: (0,) * (2 * _M)}]
_P5: Final = tuple(5**i for i in range(12))


def _cover(key: int, honours: bool) -> tuple[int, ...]:
    """Most tiles of one slot's count vector that fit into m sets (+ p pairs), partial
    groups allowed: entry ``2*m + p``. Filled on demand per key and kept (a table)."""
    cache = _cover_cache[honours]
    got = cache.get(key)
    if got is not None:
        return got
    i = 0
    while (key // _P5[i]) % 5 == 0:
        i += 1
    pi = _P5[i]
    a = (key // pi) % 5
    d1 = 0 if honours or i >= 8 else (key // _P5[i + 1]) % 5
    d2 = 0 if honours or i >= 7 else (key // _P5[i + 2]) % 5
    best = list(_cover(key - pi, honours))  # tile i left out
    # (key removed, tiles covered, pair?) for each partial group whose lowest tile is i
    opts: list[tuple[int, int, bool]] = [(pi, 1, False), (pi, 1, True)]
    if a >= 2:
        opts.append((2 * pi, 2, False))
        opts.append((2 * pi, 2, True))
    if a >= 3:
        opts.append((3 * pi, 3, False))
    if d1:
        opts.append((pi + _P5[i + 1], 2, False))
        if d2:
            opts.append((pi + _P5[i + 1] + _P5[i + 2], 3, False))
    if d2:
        opts.append((pi + _P5[i + 2], 2, False))
    for rem, n, pair in opts:
        sub = _cover(key - rem, honours)
        if pair:
            for m in range(_M):
                v = sub[2 * m] + n
                if v > best[2 * m + 1]:
                    best[2 * m + 1] = v
        else:
            for m in range(1, _M):
                for p in (0, 1):
                    v = sub[2 * (m - 1) + p] + n
                    if v > best[2 * m + p]:
                        best[2 * m + p] = v
    got = tuple(best)
    cache[key] = got
    return got


def _combine(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Max-plus product of two slots' cover tables (m sets split, at most one pair)."""
    out = [0] * (2 * _M)
    for m in range(_M):
        best0 = best1 = 0
        for m1 in range(m + 1):
            i, j = 2 * m1, 2 * (m - m1)
            a0 = a[i]
            b0 = b[j]
            v = a0 + b0
            if v > best0:
                best0 = v
            v = a0 + b[j + 1]
            if v > best1:
                best1 = v
            v = a[i + 1] + b0
            if v > best1:
                best1 = v
        out[2 * m] = best0
        out[2 * m + 1] = best1
    return tuple(out)


# Pairs of slots (m+p and s+honours) combined, kept: a bot trying each discard changes
# one slot at a time, so the other pair comes from here.
_pair_cache: dict[tuple[int, int, bool], tuple[int, ...]] = {}


def _pair_cover(ka: int, kb: int, honours: bool) -> tuple[int, ...]:
    key = (ka, kb, honours)
    got = _pair_cache.get(key)
    if got is None:
        for cache in _cover_cache:  # bounded memory for long runs (bots, training)
            if len(cache) > 300_000:
                cache.clear()
                cache[0] = (0,) * (2 * _M)
        got = _combine(_cover(ka, False), _cover(kb, honours))
        if len(_pair_cache) > _kept[4]:
            _pair_cache.clear()
        _pair_cache[key] = got
    return got


def shanten(hand: Hand, ruleset: Forms, wilds: frozenset[int] = _EMPTY) -> int:
    """Tiles away from ready 向听数: -1 complete, 0 ready, 1 one exchange from ready, ...

    Wild-aware (each wild fills any gap). Counts the standard form, 八对半 / seven
    pairs (switches, no melds) and 推土机 (only when complete or one 正财神 away).
    Ignores whether the missing tiles are still unseen. Raises :class:`~caishen.errors.HandError`
    if the hand has more tiles than a complete hand, or a fifth copy of a kind.
    """
    info = _info(ruleset)
    conc = hand.concealed
    slot, power, keys = _slot_keys(conc, wilds)
    zheng = keys[4]
    w = zheng + sum(1 for f in hand.flowers if f in wilds)
    if flower_wilds(wilds):  # the 正财神 are the wild flowers (L5)
        zheng = w - zheng
    elif info.bull_own:  # 坐花 counts toward 推土机 (L8 金乡灵溪)
        zheng = w
    for i in range(len(conc) - 4):  # base-5 keys hold at most 4 of a kind
        if conc[i] == conc[i + 4] and slot[conc[i]] != 4:
            raise HandError(f"the hand holds more than 4 tiles of kind {conc[i]}")
    sets = info.sets - len(hand.melds)
    target = 3 * sets + 2
    size = len(conc) + w - zheng
    if sets < 0 or size > target:
        raise HandError(
            f"hand has {size + 3 * len(hand.melds)} tiles; a complete hand has {3 * info.sets + 2}"
        )
    x = _pair_cover(keys[0], keys[1], False)
    y = _pair_cover(keys[2], keys[3], True)
    covered = 0
    for m in range(sets + 1):
        i, j = 2 * m, 2 * (sets - m)
        v = max(x[i] + y[j + 1], x[i + 1] + y[j])
        if v > covered:
            covered = v
    best = target - w - covered - 1
    if not hand.melds and (info.eight_half or info.seven):
        counts: dict[int, int] = {}
        for t in conc:
            if slot[t] != 4:
                counts[t] = counts.get(t, 0) + 1
        best = min(best, target - w - _pairs_cover(list(counts.values()), info.eight_half) - 1)
    # 推土机 counts only when complete or one 正财神 away (so that shanten <= 0 agrees with
    # is_win and waits); further out it would make every hand look 2 from ready.
    if info.bulldozer and zheng >= info.bulldozer - 1:
        best = min(best, info.bulldozer - zheng - 1)
    return max(best, -1)


def _pairs_cover(counts: list[int], triplet: bool) -> int:
    """Most tiles that fit into 7 pair slots (+ one triplet slot for 八对半)."""
    full = sum(x >> 1 for x in counts)
    half = sum(x & 1 for x in counts)
    f = min(full, 7)
    best = 2 * f + min(half, 7 - f)  # triplet slot left empty
    if triplet:
        for x in counts:
            used = min(x, 3)
            r = x - used
            fu = full - (x >> 1) + (r >> 1)
            ha = half - (x & 1) + (r & 1)
            f = min(fu, 7)
            v = used + 2 * f + min(ha, 7 - f)
            if v > best:
                best = v
    return best


# --------------------------------------------------------------------------- arrangements

# An abstract group: (GroupKind, stand-for kinds sorted, stand-for kinds of its wild slots).
_AGroup = tuple[GroupKind, tuple[int, ...], tuple[int, ...]]


# Declared melds' groups, shared from call to call like the concealed ones (see _group),
# cleared when full: at most about 1 MB.
_MELD_GROUPS_KEPT: Final = 4096
_meld_groups: Final[dict[Meld, Group]] = {}


def _meld_group(m: Meld) -> Group:
    got = _meld_groups.get(m)
    if got is not None:
        return got
    if m.kind is MeldKind.CHOW:
        kind = GroupKind.SEQUENCE
    elif m.kind is MeldKind.PONG:
        kind = GroupKind.TRIPLET
    else:
        kind = GroupKind.KONG
    got = Group(kind, tuple(sorted(m.tiles)), (), m)
    if len(_meld_groups) >= _kept[0]:
        _meld_groups.clear()
    _meld_groups[m] = got
    return got


# The order of concealed groups in an arrangement: (tiles, kind, wilds), read in C.
_GROUP_KEY: Final = attrgetter("tiles", "kind", "wilds")


def _arrangement_key(gs: tuple[Group, ...]) -> list[tuple[tuple[int, ...], GroupKind, tuple[tuple[int, int], ...]]]:
    return list(map(_GROUP_KEY, gs))


# Concrete groups by (abstract group, wilds): arrangements share them (frozen), which saves
# making them afresh. About 0.3 kB an entry, cleared when full: at most about 6 MB.
_GROUPS_KEPT: Final = 20_000
_groups_made: Final[dict[tuple[_AGroup, tuple[tuple[int, int], ...]], Group]] = {}


def _group(ag: _AGroup, wilds: tuple[tuple[int, int], ...]) -> Group:
    """The group ``ag`` with ``wilds`` (wild tile, kind it stands for) pairs, sorted."""
    key = (ag, wilds)
    got = _groups_made.get(key)
    if got is None:
        if len(_groups_made) >= _kept[1]:
            _groups_made.clear()
        got = _groups_made[key] = Group(ag[0], ag[1], wilds)
    return got


# Distinct orders of a sorted run of wild tiles, by the run (a handful of wild sets in a game).
_orders_made: Final[dict[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}


def _orders(tiles: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every distinct order of the sorted ``tiles``, each once (next permutation in turn)."""
    got = _orders_made.get(tiles)
    if got is not None:
        return got
    out = [tiles]
    cur = list(tiles)
    n = len(cur)
    while True:
        i = n - 2
        while i >= 0 and cur[i] >= cur[i + 1]:
            i -= 1
        if i < 0:
            break
        j = n - 1
        while cur[j] <= cur[i]:
            j -= 1
        cur[i], cur[j] = cur[j], cur[i]
        cur[i + 1 :] = cur[i + 1 :][::-1]
        out.append(tuple(cur))
    got = tuple(out)
    if len(_orders_made) >= 1024:
        _orders_made.clear()
    _orders_made[tiles] = got
    return got


def _assign(abstract: Sequence[_AGroup], wild_tiles: tuple[int, ...]) -> list[tuple[Group, ...]]:
    """Every distinct way to put the actual wild tiles (sorted) into the wild slots, each
    arrangement's groups sorted by ``_GROUP_KEY``."""
    plain: list[Group] = []
    wild_groups: list[_AGroup] = []
    for ag in abstract:
        if ag[2]:
            wild_groups.append(ag)
        else:
            plain.append(_group(ag, ()))
    if not wild_groups:
        return [tuple(sorted(plain, key=_GROUP_KEY))]
    return [tuple(sorted(plain + list(placed), key=_GROUP_KEY))
            for placed in _wilds_placed(tuple(wild_groups), wild_tiles)]


# _wilds_placed by (groups with wild slots, wild tiles): the same few recur from call to call
# (a pair or a set short of one or two tiles). Cleared when full: at most about 2 MB.
_PLACED_KEPT: Final = 4096
_placed: Final[dict[tuple[tuple[_AGroup, ...], tuple[int, ...]], tuple[tuple[Group, ...], ...]]] = {}


def _wilds_placed(wild_groups: tuple[_AGroup, ...], wild_tiles: tuple[int, ...]) -> tuple[tuple[Group, ...], ...]:
    """Every distinct way to put the wild tiles (sorted) into the wild slots of ``wild_groups``:
    the groups they make, each way once."""
    key = (wild_groups, wild_tiles)
    got = _placed.get(key)
    if got is not None:
        return got
    out: list[tuple[Group, ...]] = []
    seen: set[tuple[tuple[_AGroup, tuple[tuple[int, int], ...]], ...]] = set()
    for order in _orders(wild_tiles):
        made: list[tuple[_AGroup, tuple[tuple[int, int], ...]]] = []
        pos = 0
        for ag in wild_groups:
            slots = ag[2]
            n = len(slots)
            made.append((ag, tuple(sorted(zip(order[pos : pos + n], slots, strict=True)))))
            pos += n
        if len(made) > 1:
            made.sort()
        seen_key = tuple(made)
        if seen_key in seen:  # the same wilds in the same groups: equal groups swapped, or slots of one group
            continue
        seen.add(seen_key)
        out.append(tuple([_group(ag, ws) for ag, ws in made]))
    got = tuple(out)
    if len(_placed) >= _kept[2]:
        _placed.clear()
    _placed[key] = got
    return got


def _joker_shapes(kinds: tuple[int, ...]) -> tuple[list[_AGroup], list[_AGroup]]:
    """Groups made of wilds only: every set and every pair of the ruleset's kinds (L8)."""
    sets: list[_AGroup] = [(GroupKind.TRIPLET, (k, k, k), (k, k, k)) for k in kinds]
    for k in kinds:
        if k < NUM_SUITED and k % 9 <= 6 and k + 2 in kinds:
            sets.append((GroupKind.SEQUENCE, (k, k + 1, k + 2), (k, k + 1, k + 2)))
    pairs: list[_AGroup] = [(GroupKind.PAIR, (k, k), (k, k)) for k in kinds]
    return sets, pairs


# A candidate group for _split_rec's lowest held kind: (the abstract group, the real
# tiles it takes, their base-5 sum in their suit's key, its number of wild slots, 1 if it is
# the pair else 0).
_Cand = tuple[_AGroup, tuple[int, ...], int, int, int]

# One way to split one slot's real tiles into groups that each hold at least one of them:
# (its abstract groups sorted, wild slots, sets, 1 if it holds the pair, its groups sorted by
# _GROUP_KEY per kind of wild filling every wild slot, -1 for a split without wild slots).
_Split = tuple[tuple[_AGroup, ...], int, int, int, dict[int, tuple[Group, ...]]]
# Slot splits kept per ruleset, all cleared when full: a split list is a few hundred bytes
# (a few kB with 3-4 wilds), so at most about 20 MB.
_SPLITS_KEPT: Final = 20_000
_PAIRS_KEPT: Final = 200_000  # _pair_cache
# The limits in force (:func:`set_cache_share`): meld groups, groups, wilds placed, slot splits, pairs of slots.
_kept: Final = [_MELD_GROUPS_KEPT, _GROUPS_KEPT, _PLACED_KEPT, _SPLITS_KEPT, _PAIRS_KEPT]


def set_cache_share(share: float) -> None:
    """Keep each of the analysis' larger caches to ``share`` (over 0, at most 1) of its
    limit, from now on (the answers are the same); caches past their new limit are cleared.
    ``caishen.bots.shape.set_cache_share`` calls this: the game centre keeps every cache the
    bots fill to one share (docs/server.md, "Measured load")."""
    if not 0.0 < share <= 1.0:
        raise ArgumentError(f"a cache share is over 0 and at most 1, not {share}")
    for i, full in enumerate((_MELD_GROUPS_KEPT, _GROUPS_KEPT, _PLACED_KEPT, _SPLITS_KEPT, _PAIRS_KEPT)):
        _kept[i] = max(64, int(full * share))
    if len(_meld_groups) >= _kept[0]:
        _meld_groups.clear()
    if len(_groups_made) >= _kept[1]:
        _groups_made.clear()
    if len(_placed) >= _kept[2]:
        _placed.clear()
    if len(_pair_cache) >= _kept[4]:
        _pair_cache.clear()
    for info in _info_cache.values():
        if len(info.splits) >= _kept[3]:
            info.splits.clear()


def _cand(kind: GroupKind, tiles: tuple[int, ...], real: tuple[int, ...], wild: tuple[int, ...]) -> _Cand:
    return ((kind, tiles, wild), real, sum(_POW[t] for t in real), len(wild), int(kind is GroupKind.PAIR))


# Per kind i and count held (capped at 3 and 2): the triplets and pairs with 1.. real tiles of i.
_TRIPLET_CANDS: Final = tuple(
    tuple(tuple(_cand(GroupKind.TRIPLET, (i, i, i), (i,) * r, (i,) * (3 - r)) for r in range(1, c + 1))
          for c in range(4))
    for i in range(NUM_NON_FLOWER)
)
_PAIR_CANDS: Final = tuple(
    tuple(tuple(_cand(GroupKind.PAIR, (i, i), (i,) * r, (i,) * (2 - r)) for r in range(1, c + 1))
          for c in range(3))
    for i in range(NUM_NON_FLOWER)
)


def _sequence_slots(kinds: tuple[int, ...]) -> tuple[tuple[tuple[_Cand, int, int], ...], ...]:
    """Per kind ``i``: the sequences of the ruleset's kinds through ``i`` where the positions
    below ``i`` are wilds, ``i`` is real and each position above is real or wild, with the
    kinds above ``i`` taken real, which must be held (``i`` itself where there are fewer)."""
    have = set(kinds)
    out: list[tuple[tuple[_Cand, int, int], ...]] = []
    for i in range(NUM_NON_FLOWER):
        slots: list[tuple[_Cand, int, int]] = []
        if i < NUM_SUITED:
            base = i - i % 9
            for s in (i - 2, i - 1, i):
                if s < base or s > base + 6:
                    continue
                seq = (s, s + 1, s + 2)
                if any(p not in have for p in seq):
                    continue
                above = [p for p in seq if p > i]
                for mask in range(1 << len(above)):
                    real = [i]
                    wild = [p for p in seq if p < i]
                    for bit, p in enumerate(above):
                        if mask >> bit & 1:
                            real.append(p)
                        else:
                            wild.append(p)
                    need = [*real[1:], i, i]
                    slots.append((_cand(GroupKind.SEQUENCE, seq, tuple(real), tuple(wild)), need[0], need[1]))
        out.append(tuple(slots))
    return tuple(out)


def _split_rec(
    info: _Info, counts: list[int], start: int, end: int, key: int, j: int, pair_left: int,
    n0: bytes, n1: bytes, acc: list[_AGroup], out: set[tuple[_AGroup, ...]],
) -> None:
    """Every split of the real tiles of kinds ``start``..``end`` - 1 (base-5 ``key`` in their
    slot) into groups holding at least one of them, with at most ``j`` wild slots and at
    most ``pair_left`` pair: the group of the lowest held kind ``i`` takes ``i`` as its
    lowest real tile (a wild may stand below it)."""
    i = start
    while i < end and counts[i] == 0:
        i += 1
    if i == end:
        out.add(tuple(sorted(acc)))
        return
    c = counts[i]
    cands: list[_Cand] = list(_TRIPLET_CANDS[i][min(c, 3)])
    if pair_left:
        cands.extend(_PAIR_CANDS[i][min(c, 2)])
    for cand, a, b in info.sequences[i]:
        if counts[a] and counts[b]:
            cands.append(cand)
    for group, got_real, dkey, wild_n, is_pair in cands:
        jn = j - wild_n
        if jn < 0:
            continue
        rest = key - dkey
        pl = pair_left - is_pair
        # the slot's tables bound the wilds the rest needs (sets only, or with the pair)
        if n0[rest] > jn and not (pl and n1[rest] <= jn):
            continue
        for t in got_real:
            counts[t] -= 1
        acc.append(group)
        _split_rec(info, counts, i, end, rest, jn, pl, n0, n1, acc, out)
        acc.pop()
        for t in got_real:
            counts[t] += 1


def _slot_splits(info: _Info, slot: int, key: int, jokers: int) -> tuple[_Split, ...]:
    """Every split of one slot's real tiles (base-5 ``key``) into groups that each hold one
    of them, using at most ``jokers`` wild slots, fewest wild slots first; remembered per
    ruleset (see :data:`_SPLITS_KEPT`): a bot scores every wait of one hand, and the waits
    change one slot."""
    mkey = (key * 4 + slot) * 32 + jokers  # jokers <= 17: the hand's size
    got = info.splits.get(mkey)
    if got is not None:
        return got
    counts = [0] * NUM_NON_FLOWER
    start = 9 * slot if slot < 3 else NUM_SUITED
    k, i = key, start
    while k:
        counts[i] = k % 5
        k //= 5
        i += 1
    found: set[tuple[_AGroup, ...]] = set()
    if slot < 3:
        _split_rec(info, counts, start, start + 9, key, jokers, 1, _N0, _N1, [], found)
    else:
        _split_rec(info, counts, start, NUM_NON_FLOWER, key, jokers, 1, _H0, _H1, [], found)
    splits: list[_Split] = []
    for gs in found:
        wild_n = pair = 0
        for g in gs:
            wild_n += len(g[2])
            if g[0] is GroupKind.PAIR:
                pair = 1
        splits.append((gs, wild_n, len(gs) - pair, pair, {}))
    splits.sort(key=_split_order)
    got = tuple(splits)
    if len(info.splits) >= _kept[3]:
        info.splits.clear()
    info.splits[mkey] = got
    return got


def _split_order(s: _Split) -> tuple[int, tuple[_AGroup, ...]]:
    return (s[1], s[0])


# A slot split chosen for each of the four slots, and the wild-only groups that complete them.
_Combo = tuple[_Split, _Split, _Split, _Split, tuple[_AGroup, ...]]


def _std_combos(keys: Sequence[int], jokers: int, sets: int, info: _Info) -> list[_Combo]:
    """Every split of the real tiles (slot keys ``keys``) plus ``jokers`` wilds into
    ``sets`` sets and a pair (size already checked): every group holds the real tiles of
    one slot, or only wilds (L8). Each arrangement comes once."""
    k0, k1, k2, k3 = keys[0], keys[1], keys[2], keys[3]
    if _N0[k0] + _N0[k1] + _N0[k2] + _H0[k3] > jokers + 1:  # a pair lowers the need by at most one
        return []
    s0 = _slot_splits(info, 0, k0, jokers)
    s1 = _slot_splits(info, 1, k1, jokers)
    s2 = _slot_splits(info, 2, k2, jokers)
    s3 = _slot_splits(info, 3, k3, jokers)
    if not s0 or not s1 or not s2 or not s3:
        return []
    # fewest wild slots each later slot takes (splits come fewest first)
    min3 = s3[0][1]
    min23 = s2[0][1] + min3
    min123 = s1[0][1] + min23
    out: list[_Combo] = []
    for a in s0:
        wa = a[1]
        if wa + min123 > jokers:
            break
        for b in s1:
            wb = wa + b[1]
            if wb + min23 > jokers:
                break
            pb = a[3] + b[3]
            if pb > 1:
                continue
            for c in s2:
                wc = wb + c[1]
                if wc + min3 > jokers:
                    break
                pc = pb + c[3]
                if pc > 1:
                    continue
                for d in s3:
                    wd = wc + d[1]
                    if wd > jokers:
                        break
                    pd = pc + d[3]
                    if pd > 1:
                        continue
                    # the wilds left make the sets and the pair still missing (size checked)
                    sets_left = sets - a[2] - b[2] - c[2] - d[2]
                    if jokers - wd != 3 * sets_left + 2 * (1 - pd):
                        continue
                    for extra in _wild_only(info, sets_left, pd == 0):
                        out.append((a, b, c, d, extra))
    return out


def _wild_only(info: _Info, sets_left: int, pair: bool) -> list[tuple[_AGroup, ...]]:
    """Every multiset of ``sets_left`` sets (and a pair) made of wilds only (L8)."""
    if not sets_left and not pair:
        return [()]
    jsets, jpairs = info.joker_sets, info.joker_pairs
    out: list[tuple[_AGroup, ...]] = []
    for combo in combinations_with_replacement(range(len(jsets)), sets_left):
        extra = tuple(jsets[x] for x in combo)
        if pair:
            for pr in jpairs:
                out.append((*extra, pr))
        else:
            out.append(extra)
    return out


def _split_groups(s: _Split, w: int) -> tuple[Group, ...]:
    """A slot split's groups with every wild slot filled by a wild of kind ``w``, sorted by
    ``_GROUP_KEY``; kept in the split."""
    by_wild = s[4]
    wk = w if s[1] else -1
    got = by_wild.get(wk)
    if got is None:
        got = tuple(sorted((_filled(ag, w) for ag in s[0]), key=_GROUP_KEY))
        by_wild[wk] = got
    return got


def _filled(ag: _AGroup, w: int) -> Group:
    return _group(ag, tuple([(w, x) for x in ag[2]]))


def _standard_one_wild_kind(keys: Sequence[int], jokers: int, sets: int, info: _Info, w: int) -> list[tuple[Group, ...]]:
    """The standard arrangements when every wild tile is of kind ``w`` (or there is none):
    one way to put the wilds in, and the slots' groups follow each other in sorted order."""
    out: list[tuple[Group, ...]] = []
    for a, b, c, d, extra in _std_combos(keys, jokers, sets, info):
        groups = _split_groups(a, w) + _split_groups(b, w) + _split_groups(c, w) + _split_groups(d, w)
        if extra:
            groups = tuple(sorted(groups + tuple([_filled(ag, w) for ag in extra]), key=_GROUP_KEY))
        out.append(groups)
    return out


# Ways to spread n real tiles of one kind over its pairs and triplets, per (n, pairs,
# triplets): (size, reals) per group, canonical (non-increasing reals within a size).
_SPREADS: dict[tuple[int, int, int], tuple[tuple[tuple[int, int], ...], ...]] = {}
# The same ways as groups of kind k, per (k, n, pairs, triplets) (at most 34 * 5 * 8 * 2).
_KIND_SPREADS: dict[tuple[int, int, int, int], tuple[tuple[_AGroup, ...], ...]] = {}


def _spreads(n: int, pairs: int, trip: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    key = (n, pairs, trip)
    got = _SPREADS.get(key)
    if got is None:
        sizes = [3] * trip + [2] * pairs
        out: list[tuple[tuple[int, int], ...]] = []
        acc: list[tuple[int, int]] = []

        def go(idx: int, left: int, cap3: int, cap2: int) -> None:
            if idx == len(sizes):
                if left == 0:
                    out.append(tuple(acc))
                return
            sz = sizes[idx]
            for r in range(min(sz, left, cap3 if sz == 3 else cap2), -1, -1):
                acc.append((sz, r))
                go(idx + 1, left - r, r if sz == 3 else cap3, r if sz == 2 else cap2)
                acc.pop()

        go(0, n, 3, 2)
        got = _SPREADS[key] = tuple(out)
    return got


def _kind_spreads(k: int, n: int, pairs: int, trip: int) -> tuple[tuple[_AGroup, ...], ...]:
    key = (k, n, pairs, trip)
    got = _KIND_SPREADS.get(key)
    if got is None:
        got = _KIND_SPREADS[key] = tuple(
            tuple([(GroupKind.TRIPLET if sz == 3 else GroupKind.PAIR, (k,) * sz, (k,) * (sz - r)) for sz, r in split])
            for split in _spreads(n, pairs, trip))
    return got


@dataclass(slots=True)
class _PairsSearch:
    """What :func:`_pairs_split` reads and fills."""

    counts: list[int]
    present: list[int]
    kinds: tuple[int, ...]
    acc: list[_AGroup]
    out: set[tuple[_AGroup, ...]]
    dead: set[tuple[int, int, int, int]]


def _pairs_split(q: _PairsSearch, idx: int, j: int, pairs_left: int, trip_left: int) -> bool:
    """:func:`_pairs_abstract`'s search from kind ``q.present[idx]`` on with ``j`` wilds left.
    (A module function, not a closure: a recursive closure is a reference cycle that keeps
    the frame until the collector runs, issue 26.)"""
    counts, present, kinds, acc, out, dead = q.counts, q.present, q.kinds, q.acc, q.out, q.dead
    if idx == len(present):
        if j != 2 * pairs_left + 3 * trip_left:
            return False
        trips: list[list[_AGroup]] = [[]]
        if trip_left:
            trips = [[(GroupKind.TRIPLET, (k, k, k), (k, k, k))] for k in kinds]
        for tr in trips:
            for combo in combinations_with_replacement(kinds, pairs_left):
                extra: list[_AGroup] = [(GroupKind.PAIR, (k, k), (k, k)) for k in combo]
                out.add(tuple(sorted(acc + tr + extra)))
        return True
    state = (idx, j, pairs_left, trip_left)
    if state in dead:
        return False
    k = present[idx]
    n = counts[k]
    found = False
    for t in range(0, trip_left + 1):
        for p in range(0, pairs_left + 1):
            cap = 3 * t + 2 * p
            if cap < n or cap - n > j or (t == 0 and p == 0):
                continue
            for groups in _kind_spreads(k, n, p, t):
                acc.extend(groups)
                found = _pairs_split(q, idx + 1, j - (cap - n), pairs_left - p, trip_left - t) or found
                del acc[len(acc) - len(groups) :]
    if not found:
        dead.add(state)
    return found


def _pairs_abstract(counts: list[int], jokers: int, triplet: bool, info: _Info) -> set[tuple[_AGroup, ...]]:
    """Every split into 7 pairs (+ 1 triplet for 八对半); four equal tiles may be two pairs (L14)."""
    out: set[tuple[_AGroup, ...]] = set()
    present = [k for k, n in enumerate(counts) if n]
    acc: list[_AGroup] = []
    kinds = info.non_flower_kinds
    # states (kind index, wilds left, pairs left, triplets left) that lead to no split: a
    # kind's tiles may not fit what is left, and many ways of placing the wilds before it
    # reach the same state
    dead: set[tuple[int, int, int, int]] = set()

    _pairs_split(_PairsSearch(counts, present, kinds, acc, out, dead), 0, jokers, 7, 1 if triplet else 0)
    return out


def arrangements(hand: Hand, ruleset: Forms, wilds: frozenset[int] = _EMPTY) -> tuple[Arrangement, ...]:
    """Every distinct way to read a winning hand (winning tile included) as groups, with
    what each wild stands for; empty if the hand does not win.

    Complete and without repeats: scoring picks the best (L13 就高不就低). Declared
    melds are fixed groups (L13); concealed groups are never kongs (four equal concealed
    tiles are a triplet plus one, L19); a wild may stand for any kind of the ruleset (L8),
    itself included (财神归位, shown as ``(w, w)``). 推土机 is one arrangement with no groups.
    """
    counts = [0] * NUM_NON_FLOWER
    keys = [0, 0, 0, 0]
    wild_tiles: list[int] = []
    for t in hand.concealed:
        if t in wilds:
            wild_tiles.append(t)
        else:
            counts[t] += 1
            keys[_SLOT[t]] += _POW[t]
    if max(counts) > 4:
        raise HandError(f"the hand holds {max(counts)} tiles of one kind; there are 4")
    if not is_win(hand, ruleset, wilds):
        return ()
    info = _info(ruleset)
    real = len(hand.concealed) - len(wild_tiles)  # real tiles
    zheng = len(wild_tiles)
    wild_tiles.extend(f for f in hand.flowers if f in wilds)
    if flower_wilds(wilds):  # the 正财神 are the wild flowers (L5)
        zheng = len(wild_tiles) - zheng
    elif info.bull_own:  # 坐花 counts toward 推土机 (L8 金乡灵溪)
        zheng = len(wild_tiles)
    wild_tiles.sort()
    result: list[Arrangement] = []
    if info.bulldozer and zheng >= info.bulldozer:
        result.append(Arrangement(Form.BULLDOZER, ()))
    melds = tuple(_meld_group(m) for m in hand.melds)
    sets = info.sets - len(hand.melds)
    size = real + len(wild_tiles)
    if sets < 0 or size != 3 * sets + 2:
        return tuple(result)
    # distinct abstract arrangements give distinct arrangements: no repeats to weed out
    std: list[tuple[Group, ...]]
    if not wild_tiles or wild_tiles[0] == wild_tiles[-1]:  # one way to put the wilds in
        std = _standard_one_wild_kind(keys, len(wild_tiles), sets, info, wild_tiles[0] if wild_tiles else -1)
    else:
        std = []
        run = tuple(wild_tiles)
        for a, b, c, d, extra in _std_combos(keys, len(wild_tiles), sets, info):
            std.extend(_assign(a[0] + b[0] + c[0] + d[0] + extra, run))
    if len(std) > 1:
        std.sort(key=_arrangement_key)
    result.extend(Arrangement(Form.STANDARD, melds + gs) for gs in std)
    # the pairs form only if the wilds can pair the real tiles up (the tables, as in is_win)
    # and every real tile fits its slots (most standard wins do not)
    if not hand.melds and (info.eight_half or info.seven) and _pairs_cost(
            keys[0], keys[1], keys[2], keys[3], info.eight_half) <= len(wild_tiles) and _pairs_cover(
            [n for n in counts if n], info.eight_half) >= real:
        prs: list[tuple[Group, ...]] = []
        run = tuple(wild_tiles)
        for ab in _pairs_abstract(counts, len(wild_tiles), info.eight_half, info):
            prs.extend(_assign(ab, run))
        prs.sort(key=_arrangement_key)
        result.extend(Arrangement(Form.PAIRS, gs) for gs in prs)
    return tuple(result)
