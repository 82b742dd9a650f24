"""Fast hand-shape evaluation for the bots: shanten (向听) with wilds, the tiles that lower
it (进张) and the discards that keep it.

The bots ask this thousands of times a hand, so a hand is two integers: the base-5 number of
its non-wild concealed counts for man and pin (``lo``, digit ``k`` = count of kind ``k``) and
for sou and honours (``hi``, digit ``k - 18``). Adding or removing a tile is one addition.
It is an estimate for play, not a rules oracle: :mod:`caishen.shapes.analysis` stays the
reference for wins and waits, and the engine decides what is legal.

The model is the analyser's (``analysis.shanten``): a complete hand is ``S`` set slots and a
pair slot (``S = sets_needed - melds``, L13); the *cover* of a hand is the most of its tiles
that fit into at most ``S`` groups of one suit (a set or part of one: 1-3 tiles) and at most
one pair (1-2 equal tiles); every wild (财神, 坐花) fills one missing tile (L8), so
``shanten = 3*S + 2 - wilds - cover - 1``, at least -1 (complete). 八对半 (L14): 7 pairs + 1
triplet, no melds. 推土机 (L8): enough 正财神 is complete at once.

Tables, filled on demand and kept in bounded dictionaries, with their sizes measured after
300 hands of play at the ``bench_bots.py`` table (tracemalloc, pure-Python build):

* per suit key (one suit's 9 counts, honours 7): its cover for each number of groups and
  pair (``2*m + p``). Every cover has a small integer id: the 163 covers of single suits
  and the 124 more that combining them makes are a closed set of 287. The table file
  ``caishen/data/bot-covers-v2.zlib`` (155 kB, SHA-256 checked, loaded in about 15 ms;
  ``python -m caishen.bots.shape`` rebuilds it in about 15 s) holds the covers, one byte
  per key naming its cover (2 MB in memory) and, for every pair of covers, the id of the
  two combined (82,369 entries, 165 kB in memory), so combining two parts is one lookup.
  Without the file, covers are worked out on demand and kept in memos of
  :data:`COVER_CACHE` = 50,000 keys per kind of suit (at the limit the older half is
  dropped), and combinations in a dictionary of at most 287 * 287 entries. And a
  :class:`SuitEntry` that works out, for the entries asked for
  only, the kinds whose addition raises it (the suit's with-one-more-tile result) and whose
  removal lowers it (:data:`SUIT_CACHE` = 10,000 per kind of suit, about 0.9 kB each; the
  suits of at most :data:`SMALL_SUIT` tiles, four lookups in five, are kept for good in a
  table of their own, at most 1,993 + 785 entries, whatever the share: a game centre's
  caches, a tenth of their limits, were cleared and filled again with the same small suits);
* per half (``lo`` or ``hi``) and per *rest* (a hand's three suits other than one): two
  parts combined, masks worked out on demand (:data:`HALF_CACHE` = 10,000 per half,
  about 0.8 kB each; :data:`REST_CACHE` = 64: a rest is met again within a decision, for
  each discard of the same suit, and seldom after it, so rests are let go young rather than
  kept for the garbage collector to walk);
* per hand and context (sets, wilds, 八对半): the kinds whose draw lowers its shanten, and
  those whose discard keeps it, each with the shanten in one integer (:data:`HAND_CACHE` =
  40,000 such answers over all contexts, about 0.1 kB each; integers, not objects, so the
  garbage collector does not walk them);
* per pair of cover ids and number of sets: a hand's best total with its best splits
  (:class:`HandShape`; :data:`COMBINED_CACHE` = 20,000, about 0.2 kB per entry).

All but the cover memos and the small suits are cleared when full. At their limits the caches hold about 42 MB;
300 hands of play fill about 16 MB (14,097 answers, 6,277 suits, 15,046 halves, 48 rests,
6,480 best splits), besides the 2 MB cover table. :func:`set_cache_share` scales every limit
(the game centre keeps half: its bots wait for people, and its memory must not grow with the
matches it has served; docs/server.md, "Memory").
"""

from __future__ import annotations

import hashlib
import sys
import zlib
from array import array
from collections.abc import Callable
from importlib import resources
from itertools import islice
from operator import add, itemgetter, mul
from pathlib import Path
from typing import Final, Union

from caishen.errors import ArgumentError
from caishen.tiles import NUM_NON_FLOWER, NUM_SUITED

GROUPS: Final = 6  # set slots 0..5 (a 17-tile hand has at most 5 concealed sets)
WIDTH: Final = 2 * GROUPS  # entry 2*m + p: at most m groups and p pairs
P5: Final = tuple(5**i for i in range(18))
HALF_SPLIT: Final = 18  # kinds 0-17 (man, pin) in ``lo``, 18-33 (sou, honours) in ``hi``
SUIT_CACHE: Final = 10_000
COVER_CACHE: Final = 50_000
COMBINED_CACHE: Final = 20_000
SUIT_KEYS: Final = 5**9
HONOUR_KEYS: Final = 5**7
COVERS_NAME: Final = "bot-covers-v2.zlib"
# SHA-256 of the uncompressed cover tables (build_cover_data).
COVERS_DIGEST: Final = "4bb42e09c1a5e1744f9daaae9f8e9573e2cd2cd8f323be4b4fb2dfbca7c53cf1"
HALF_CACHE: Final = 10_000
HAND_CACHE: Final = 40_000
REST_CACHE: Final = 64
# The limits in force, in entries (:func:`set_cache_share`): suits, halves, answers, best splits, covers.
_limits: Final = [SUIT_CACHE, HALF_CACHE, HAND_CACHE, COMBINED_CACHE, COVER_CACHE]
ALL_KINDS: Final = (1 << NUM_NON_FLOWER) - 1
HAND_KEY_SHIFT: Final = 38  # a hand's cache key: lo << 38 | hi (hi < 5**16 < 2**38)

# The digit a kind adds to its half.
ADD: Final = tuple(P5[k] if k < HALF_SPLIT else P5[k - HALF_SPLIT] for k in range(NUM_NON_FLOWER))

# Per-suit histogram of counts packed in 6-bit fields (kinds held 1, 2, 3, 4 times).
HIST: Final = (0, 1, 1 << 6, 1 << 12, 1 << 18)

_ZERO: Final = (0,) * WIDTH


def keys_of(counts: list[int] | tuple[int, ...]) -> tuple[int, int]:
    """``(lo, hi)`` of a 34-count vector."""
    return sum(map(mul, counts[:HALF_SPLIT], P5)), sum(map(mul, counts[HALF_SPLIT:NUM_NON_FLOWER], P5))


# ---------------------------------------------------------------- one suit


# Per entry 2*m + p: the splits (ja, jb) of its groups and pairs over two parts.
SPLITS: Final = tuple(
    tuple((2 * ma + pa, 2 * (j // 2 - ma) + (j % 2 - pa)) for ma in range(j // 2 + 1) for pa in range(j % 2 + 1))
    for j in range(WIDTH)
)

# The same splits flattened: entry j's sums are at _RANGES[j] of the lists _JA, _JB.
_JA: Final = tuple(ja for sp in SPLITS for ja, _ in sp)
_JB: Final = tuple(jb for sp in SPLITS for _, jb in sp)
_RANGES: Final = tuple(
    (sum(len(sp) for sp in SPLITS[:j]), sum(len(sp) for sp in SPLITS[: j + 1])) for j in range(WIDTH)
)
_PICK_A: Final = itemgetter(*_JA)
_PICK_B: Final = itemgetter(*_JB)


# Every cover has an id, its index in ``_covers``; ``_cover_ids`` finds it. Covers are few:
# the 163 of single suits and the 124 more that combining them makes (287 in all, a closed
# set: combining any two gives one of them), so this registry stays that small.
_covers: list[tuple[int, ...]] = []
_cover_ids: dict[tuple[int, ...], int] = {}
# Without the table file: cover ids per key, worked out on demand (bounded memos).
_cover_memos: tuple[dict[int, int], dict[int, int]] = ({}, {})


def _intern(c: tuple[int, ...]) -> int:
    got = _cover_ids.get(c)
    if got is None:
        got = _cover_ids[c] = len(_covers)
        _covers.append(c)
    return got


def _trim(memo: dict[int, int], limit: int) -> None:
    """Bound a memo: at ``limit`` entries drop the older half (dicts keep insertion order),
    so the keys of the hands in play stay."""
    if len(memo) >= limit:
        for k in list(islice(memo, limit // 2)):
            del memo[k]


def _cover_from(key: int, honours: bool, sub: Callable[[int], tuple[int, ...]]) -> tuple[int, ...]:
    """The cover of ``key`` (not 0) from the covers ``sub`` gives of smaller keys: the lowest
    tile is left out, or is the lowest of a group or of the pair."""
    i = 0
    while key // P5[i] % 5 == 0:
        i += 1
    pi = P5[i]
    a = key // pi % 5
    nxt = 0 if honours or i >= 8 else key // P5[i + 1] % 5
    nxt2 = 0 if honours or i >= 7 else key // P5[i + 2] % 5
    out = list(sub(key - pi))  # the lowest tile left out
    # groups whose lowest tile is i: (counts removed, tiles covered)
    groups = [(pi, 1)]
    if a >= 2:
        groups.append((2 * pi, 2))
    if a >= 3:
        groups.append((3 * pi, 3))
    if nxt:
        groups.append((pi + P5[i + 1], 2))
        if nxt2:
            groups.append((pi + P5[i + 1] + P5[i + 2], 3))
    if nxt2:
        groups.append((pi + P5[i + 2], 2))
    for removed, n in groups:
        got = sub(key - removed)
        for j in range(2, WIDTH):
            v = got[j - 2] + n
            if v > out[j]:
                out[j] = v
    for removed, n in ((pi, 1), (2 * pi, 2)) if a >= 2 else ((pi, 1),):  # the pair
        got = sub(key - removed)
        for j in range(1, WIDTH, 2):
            v = got[j - 1] + n
            if v > out[j]:
                out[j] = v
    return tuple(out)


def _combine(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The cover of two parts together: per entry, the best split of its groups and pair."""
    sums: list[int] = list(map(add, _PICK_A(a), _PICK_B(b)))
    return tuple([max(sums[i:j]) for i, j in _RANGES])


def build_cover_data() -> bytes:
    """The table file's contents: the number ``n`` of distinct covers (2 bytes,
    little-endian), each cover's 12 entries (a byte each), then per key the id of its cover
    (a byte): 5**9 suit keys, 5**7 honours keys; then for every pair of covers the id of the
    two combined (2 bytes, little-endian, ``n * a + b``). The covers of keys come first (163),
    then the further ones combining makes (the set is closed). About 15 s."""
    values: dict[tuple[int, ...], int] = {_ZERO: 0}
    indexes: list[bytes] = []
    for honours, n in ((False, SUIT_KEYS), (True, HONOUR_KEYS)):
        covers: list[tuple[int, ...]] = [_ZERO] * n
        index = bytearray(n)
        for key in range(1, n):
            c = _cover_from(key, honours, covers.__getitem__)
            v = values.setdefault(c, len(values))
            covers[key] = c
            index[key] = v
        indexes.append(bytes(index))
    every = list(values)
    new = every[:]
    while new:  # close the set under combining
        found: list[tuple[int, ...]] = []
        for a in every:
            for b in new:
                for c in (_combine(a, b), _combine(b, a)):
                    if c not in values:
                        values[c] = len(values)
                        found.append(c)
        every.extend(found)
        new = found
    n = len(every)
    combined = bytearray()
    for a in every:
        for b in every:
            v = values[_combine(a, b)]
            combined += bytes((v & 255, v >> 8))
    head = bytes((n & 255, n >> 8))
    return head + bytes(x for c in every for x in c) + b"".join(indexes) + bytes(combined)


def _load_covers() -> tuple[tuple[tuple[int, ...], ...], bytes, bytes, array[int]]:
    """The cover tables from the package's data file: (covers by id, suit index, honours
    index, combined ids); empty if the file is missing or not the expected one (then covers
    are worked out on demand and kept in the bounded memos)."""
    try:
        raw = resources.files("caishen").joinpath("data", COVERS_NAME).read_bytes()
        blob = zlib.decompress(raw)
    except (OSError, zlib.error):
        return (), b"", b"", array("H")
    if hashlib.sha256(blob).hexdigest() != COVERS_DIGEST:
        return (), b"", b"", array("H")
    n = blob[0] | blob[1] << 8
    o = 2 + WIDTH * n
    values = tuple(tuple(blob[2 + WIDTH * v : 2 + WIDTH * (v + 1)]) for v in range(n))
    o2 = o + SUIT_KEYS + HONOUR_KEYS
    combined = array("H", blob[o2 : o2 + 2 * n * n])
    if sys.byteorder == "big":
        combined.byteswap()
    return values, blob[o : o + SUIT_KEYS], blob[o + SUIT_KEYS : o2], combined


def write_cover_data(path: Path | None = None) -> str:
    """Rebuild the cover tables, write the compressed file, return its digest."""
    blob = build_cover_data()
    target = path or Path(__file__).parent.parent / "data" / COVERS_NAME
    target.write_bytes(zlib.compress(blob, 9))
    return hashlib.sha256(blob).hexdigest()


_COVER_TABLES = _load_covers()
_COVER_INDEX: Final = (_COVER_TABLES[1], _COVER_TABLES[2])
_COMBINED: Final = _COVER_TABLES[3]
_TABLE_COVERS: Final = len(_COVER_TABLES[0])  # covers with a row in _COMBINED
for _c in _COVER_TABLES[0] or (_ZERO,):
    _intern(_c)
# Without the table file: combined ids per pair of ids (a << 16 | b), at most 287 * 287.
_combined_ids: dict[int, int] = {}


def _suit_cover(key: int) -> tuple[int, ...]:
    return _covers[cover_id(key, False)]


def _honours_cover(key: int) -> tuple[int, ...]:
    return _covers[cover_id(key, True)]


def cover_id(key: int, honours: bool) -> int:
    """The id of the cover of one suit's counts (base-5 ``key``): read from the table, else
    worked out and kept."""
    index = _COVER_INDEX[honours]
    if index:
        return index[key]
    memo = _cover_memos[honours]
    got = memo.get(key)
    if got is None:
        got = _intern(_cover_from(key, honours, _honours_cover if honours else _suit_cover)) if key else 0
        _trim(memo, _limits[4])
        memo[key] = got
    return got


def cover(key: int, honours: bool) -> tuple[int, ...]:
    """Most tiles of one suit's counts (base-5 ``key``) that fit into at most ``m`` groups
    and ``p`` pairs, at entry ``2*m + p``."""
    return _covers[cover_id(key, honours)]


def combined_id(a: int, b: int) -> int:
    """The id of the covers ``a`` and ``b`` combined, for a pair without a row in the table
    file (``Combo`` reads the table itself): worked out and kept."""
    key = a << 16 | b
    got = _combined_ids.get(key)
    if got is None:
        got = _combined_ids[key] = _intern(_combine(_covers[a], _covers[b]))
    return got


class SuitEntry:
    """One suit's cover and, per entry, on demand, the kinds (bit ``i`` = value ``i``) whose
    addition raises it (:meth:`up`: the suit's with-one-more-tile result) and whose removal
    lowers it (:meth:`down`); its count histogram and the kinds it holds 0-4 times
    (``held_by``). Only the entries asked for are worked out, each from the covers of the
    suit with one tile more (or less) of each kind, fetched once."""

    __slots__ = ("_less", "_masks", "_more", "cid", "cover", "held_by", "hist", "honours", "key")
    cid: int
    cover: tuple[int, ...]
    held_by: tuple[int, ...]
    hist: int

    def __init__(self, key: int, honours: bool) -> None:
        self.key = key
        self.honours = honours
        self.cid = cid = cover_id(key, honours)
        self.cover = _covers[cid]
        held_by = [0] * 5
        hist = 0
        k = key
        for i in range(7 if honours else 9):
            d = k % 5
            k //= 5
            held_by[d] |= 1 << i
            hist += HIST[d]
        self.held_by = tuple(held_by)
        self.hist = hist
        # per entry j: up(j) at j, down(j) at WIDTH + j; -1 until worked out (one list, not
        # two: every kept part is an object the garbage collector walks)
        self._masks = [-1] * (2 * WIDTH)
        self._more: tuple[tuple[int, ...], ...] | None = None
        self._less: tuple[tuple[int, ...], ...] | None = None

    def _neighbours(self, n: int) -> tuple[tuple[int, ...], ...]:
        """The covers of the suit with one tile more (``n`` = 1) or less (-1) of each kind.
        A kind held 4 times cannot be added, nor one not held removed: the suit's own cover
        stands in (it neither raises nor lowers any entry). Tuples, not lists: the garbage
        collector stops tracking a tuple of untracked tuples, and these are kept."""
        key, honours, own = self.key, self.honours, self.cover
        out: list[tuple[int, ...]] = []
        index = _COVER_INDEX[honours]
        no = 4 if n > 0 else 0
        for i in range(7 if honours else 9):
            p = P5[i]
            if key // p % 5 == no:
                out.append(own)
            elif index:  # cover() inlined: calling it cost 2.5-3.7% more instructions per decision
                out.append(_covers[index[key + n * p]])
            else:
                out.append(cover(key + n * p, honours))
        return tuple(out)

    def up(self, j: int) -> int:
        """Kinds whose addition raises entry ``j``."""
        got = self._masks[j]
        if got < 0:
            more = self._more
            if more is None:
                more = self._more = self._neighbours(1)
            c = self.cover[j]
            got = 0
            for i, m in enumerate(more):
                if m[j] > c:
                    got |= 1 << i
            self._masks[j] = got
        return got

    def down(self, j: int) -> int:
        """Kinds whose removal lowers entry ``j``."""
        got = self._masks[WIDTH + j]
        if got < 0:
            less = self._less
            if less is None:
                less = self._less = self._neighbours(-1)
            c = self.cover[j]
            got = 0
            for i, m in enumerate(less):
                if m[j] < c:
                    got |= 1 << i
            self._masks[WIDTH + j] = got
        return got


_suits: tuple[dict[int, SuitEntry], dict[int, SuitEntry]] = ({}, {})
# Suits of at most SMALL_SUIT tiles, kept for good: 1,993 such suits of nine kinds, 785 of
# seven, and four suits in five that the bots look up are one of them.
_small_suits: tuple[dict[int, SuitEntry], dict[int, SuitEntry]] = ({}, {})
SMALL_SUIT: Final = 5


def suit_entry(key: int, honours: bool) -> SuitEntry:
    small = _small_suits[honours]
    got = small.get(key)
    if got is not None:
        return got
    memo = _suits[honours]
    got = memo.get(key)
    if got is None:
        got = SuitEntry(key, honours)
        h = got.hist
        if (h & 63) + 2 * (h >> 6 & 63) + 3 * (h >> 12 & 63) + 4 * (h >> 18) <= SMALL_SUIT:
            small[key] = got
            return got
        if len(memo) >= _limits[0]:
            memo.clear()
        memo[key] = got
    return got


Part = Union["SuitEntry", "Combo"]

# A hand's best total with the entries of its first part at a best split, per (cover id,
# cover id, last entry) as one int (HandShape).
_best_splits: dict[int, tuple[int, tuple[int, ...]]] = {}


class Combo:
    """Two parts combined (two suits, or a suit and a half): the cover of at most ``m``
    groups and ``p`` pairs across both, and on demand (:meth:`up`, :meth:`down`) per entry the kinds
    (part ``a`` at bit 0, part ``b`` at bit ``shift``) whose addition raises it and whose
    removal lowers it (a kind lowers the combined entry only if it lowers every best split)."""

    __slots__ = ("_masks", "a", "b", "cid", "cover", "held_by", "hist", "shift")
    cid: int
    cover: tuple[int, ...]
    held_by: tuple[int, ...]
    hist: int

    def __init__(self, a: Part, b: Part, shift: int) -> None:
        self.a = a
        self.b = b
        self.shift = shift
        ai, bi = a.cid, b.cid
        n = _TABLE_COVERS
        self.cid = cid = _COMBINED[ai * n + bi] if ai < n and bi < n else combined_id(ai, bi)
        self.cover = _covers[cid]
        ah, bh = a.held_by, b.held_by
        self.held_by = (ah[0] | bh[0] << shift, ah[1] | bh[1] << shift, ah[2] | bh[2] << shift,
                        ah[3] | bh[3] << shift, ah[4] | bh[4] << shift)
        self.hist = a.hist + b.hist
        # per entry j: up(j) at j, down(j) at WIDTH + j; -1 until worked out (one list, not
        # two: every kept part is an object the garbage collector walks)
        self._masks = [-1] * (2 * WIDTH)

    def up(self, j: int) -> int:
        """Kinds whose addition raises entry ``j``: those of either part at a best split."""
        got = self._masks[j]
        if got < 0:
            a, b = self.a, self.b
            ac, bc = a.cover, b.cover
            best = self.cover[j]
            shift = self.shift
            got = 0
            for ja, jb in SPLITS[j]:
                if ac[ja] + bc[jb] == best:
                    ua = a._masks[ja]
                    ub = b._masks[jb]
                    got |= (ua if ua >= 0 else a.up(ja)) | (ub if ub >= 0 else b.up(jb)) << shift
            self._masks[j] = got
        return got

    def down(self, j: int) -> int:
        """Kinds whose removal lowers entry ``j``: only those that lower every best split."""
        got = self._masks[WIDTH + j]
        if got < 0:
            a, b = self.a, self.b
            ac, bc = a.cover, b.cover
            best = self.cover[j]
            shift = self.shift
            got = -1
            for ja, jb in SPLITS[j]:
                if ac[ja] + bc[jb] == best:
                    da = a._masks[WIDTH + ja]
                    db = b._masks[WIDTH + jb]
                    got &= (da if da >= 0 else a.down(ja)) | (db if db >= 0 else b.down(jb)) << shift
            self._masks[WIDTH + j] = got
        return got


_halves: tuple[dict[int, Combo], dict[int, Combo]] = ({}, {})


def half_entry(key: int, honours: bool) -> Combo:
    """The two suits of ``lo`` (man, pin) or ``hi`` (sou, honours) combined."""
    memo = _halves[honours]
    got = memo.get(key)
    if got is None:
        got = Combo(suit_entry(key % P5[9], False), suit_entry(key // P5[9], honours), 9)
        if len(memo) >= _limits[1]:
            memo.clear()
        memo[key] = got
    return got


# ---------------------------------------------------------------- 八对半


_pairs_memo: dict[int, int] = {}


def pairs_used(hist: int) -> int:
    """Most tiles of 7 pairs + 1 triplet already held, from the packed histogram of counts
    (kinds held 1, 2, 3, 4 times). Four equal tiles may be two pairs (L14)."""
    got = _pairs_memo.get(hist)
    if got is not None:
        return got
    h = (0, hist & 63, hist >> 6 & 63, hist >> 12 & 63, hist >> 18 & 63)
    pairs = h[2] + h[3] + 2 * h[4]
    singles = h[1] + h[3]
    best = 0
    for c in (1, 2, 3, 4):
        if not h[c]:
            continue
        # a kind held c times is the triplet; pairs and singles from the rest
        take = min(c, 3)
        rest = c - take
        p = pairs - c // 2 + rest // 2
        s = singles - c % 2 + rest % 2
        used = take + 2 * min(p, 7) + min(s, max(0, 7 - p))
        if used > best:
            best = used
    if len(_pairs_memo) < 65_536:
        _pairs_memo[hist] = best
    return best


# ---------------------------------------------------------------- a whole hand


# A hand's answer in a context's tables: a mask of kinds and the shanten, one integer
# (``mask << RESULT_SHIFT | shanten + 1``): a table of integers is one the garbage collector
# does not walk, where a table of shapes was most of what it walked.
RESULT_SHIFT: Final = 5
SHANTEN_BITS: Final = (1 << RESULT_SHIFT) - 1


class HandShape:
    """A hand's shanten and, on demand, the kinds whose draw lowers it (:meth:`better`) and
    whose discard keeps it (:meth:`keep`), as masks over the 34 non-flower kinds (wild kinds
    included: the caller removes them); :attr:`held` is the mask of kinds held. Built for
    one question: a :class:`Context` keeps the answers, as integers, not the shape."""

    __slots__ = ("_last", "_pairs", "_tight", "_x", "_xoff", "_y", "_yoff", "shanten")

    def __init__(self, x: Part, xoff: int, y: Part, yoff: int, ctx: Context) -> None:
        """The hand made of parts ``x`` and ``y`` (their kinds at bits ``xoff``, ``yoff``),
        which hold every kind between them, in context ``ctx``."""
        last = ctx.last
        # entry i of x with entry last - i of y: at most ``sets`` groups and one pair in all
        key = (x.cid << 16 | y.cid) << 4 | last
        got = _best_splits.get(key)
        if got is None:
            got = _best_split(x.cover, y.cover, last, key)
        std = ctx.base - got[0]
        tight = got[1]
        pairs = 0  # 1: 八对半 only, 2: both forms at the best
        if ctx.pairs_form:
            hist = x.hist + y.hist
            used = _pairs_memo.get(hist)
            pr = ctx.pairs_base - (pairs_used(hist) if used is None else used)
            if pr < std:
                std, pairs, tight = pr, 1, ()
            elif pr == std:
                pairs = 2
        self.shanten = std if std > -1 else -1
        self._x = x
        self._y = y
        self._xoff = xoff
        self._yoff = yoff
        self._last = last
        self._tight = tight
        self._pairs = pairs

    @property
    def held(self) -> int:
        """The kinds held."""
        return ALL_KINDS & ~(self._x.held_by[0] << self._xoff | self._y.held_by[0] << self._yoff)

    def better(self) -> int:
        """Kinds whose draw lowers the shanten (none for a complete hand)."""
        got = 0
        if self.shanten >= 0:
            x, y = self._x, self._y
            xoff, yoff = self._xoff, self._yoff
            last = self._last
            for i in self._tight:
                ux = x._masks[i]
                uy = y._masks[last - i]
                got |= (ux if ux >= 0 else x.up(i)) << xoff | (uy if uy >= 0 else y.up(last - i)) << yoff
            if self._pairs:
                hist = x.hist + y.hist
                used = pairs_used(hist)
                for c in range(4):  # draw a kind held c times
                    if pairs_used(hist - HIST[c] + HIST[c + 1]) > used:
                        got |= x.held_by[c] << xoff | y.held_by[c] << yoff
        return got

    def better_answer(self) -> int:
        """:meth:`better` with the shanten, as a context keeps it."""
        return self.better() << RESULT_SHIFT | self.shanten + 1

    def keep_answer(self) -> int:
        """:meth:`keep` with the shanten, as a context keeps it."""
        return self.keep() << RESULT_SHIFT | self.shanten + 1

    def keep(self) -> int:
        """Held kinds whose discard keeps the shanten (none for a complete hand)."""
        got = 0
        if self.shanten >= 0:
            x, y = self._x, self._y
            xoff, yoff = self._xoff, self._yoff
            last = self._last
            lastw = WIDTH + last
            if self._tight:
                down = ALL_KINDS
                for i in self._tight:
                    dx = x._masks[WIDTH + i]
                    dy = y._masks[lastw - i]
                    down &= ((dx if dx >= 0 else x.down(i)) << xoff
                             | (dy if dy >= 0 else y.down(last - i)) << yoff)
                got = self.held & ~down
            if self._pairs:
                hist = x.hist + y.hist
                used = pairs_used(hist)
                for c in range(1, 5):  # discard a kind held c times
                    if pairs_used(hist - HIST[c] + HIST[c - 1]) == used:
                        got |= x.held_by[c] << xoff | y.held_by[c] << yoff
        return got


def _best_split(xc: tuple[int, ...], yc: tuple[int, ...], last: int, key: int) -> tuple[int, tuple[int, ...]]:
    """The best total of entry i of cover ``xc`` with entry ``last - i`` of ``yc``, and the
    entries i of ``xc`` that reach it; kept under ``key``."""
    sums: list[int] = list(map(add, xc[: last + 1], yc[last::-1]))
    top = max(sums)
    got = (top, tuple([i for i, v in enumerate(sums) if v == top]))
    if len(_best_splits) >= _limits[3]:
        _best_splits.clear()
    _best_splits[key] = got
    return got


_contexts: dict[int, Context] = {}
_hands_size = [0]


class Context:
    """One context of hands — ``sets`` set slots, ``wilds`` wilds, 八对半 counted when
    ``pairs_form`` — and the answers for its hands met so far, by ``lo << HAND_KEY_SHIFT |
    hi``: the kinds whose draw lowers the shanten (:meth:`better`) and those whose discard
    keeps it (:meth:`keep`), each with the shanten (see :data:`RESULT_SHIFT`;
    :data:`HAND_CACHE` answers over all contexts, all cleared when full)."""

    __slots__ = ("base", "betters", "keeps", "last", "pairs_base", "pairs_form")

    def __init__(self, sets: int, wilds: int, pairs_form: bool) -> None:
        self.pairs_form = pairs_form
        self.last = 2 * sets + 1
        self.base = 3 * sets + 1 - wilds  # shanten = base - cover (standard form)
        self.pairs_base = 16 - wilds  # shanten = pairs_base - tiles used (八对半, L14)
        self.betters: dict[int, int] = {}
        self.keeps: dict[int, int] = {}

    def shape(self, lo: int, hi: int) -> HandShape:
        """The shape of the hand ``(lo, hi)``, built afresh."""
        return HandShape(half_entry(lo, False), 0, half_entry(hi, True), HALF_SPLIT, self)

    def shanten(self, lo: int, hi: int) -> int:
        """The shanten of the hand ``(lo, hi)``."""
        key = lo << HAND_KEY_SHIFT | hi
        got = self.keeps.get(key)
        if got is None:
            got = self.betters.get(key)
            if got is None:
                return self.shape(lo, hi).shanten
        return (got & SHANTEN_BITS) - 1

    def better(self, lo: int, hi: int) -> int:
        """The kinds whose draw lowers the shanten of the hand ``(lo, hi)``, with it."""
        key = lo << HAND_KEY_SHIFT | hi
        got = self.betters.get(key)
        if got is None:
            got = self._store(self.betters, key, self.shape(lo, hi).better_answer())
        return got

    def keep(self, lo: int, hi: int) -> int:
        """The held kinds whose discard keeps the shanten of the hand ``(lo, hi)``, with it."""
        key = lo << HAND_KEY_SHIFT | hi
        got = self.keeps.get(key)
        if got is None:
            got = self._store(self.keeps, key, self.shape(lo, hi).keep_answer())
        return got

    def changed_better(self, lo: int, hi: int, k: int, n: int) -> int:
        """:meth:`better` of the hand ``(lo, hi)`` with ``n`` more tiles of kind ``k`` (``n``
        < 0: fewer)."""
        key = (lo + n * ADD[k]) << HAND_KEY_SHIFT | hi if k < HALF_SPLIT else lo << HAND_KEY_SHIFT | hi + n * ADD[k]
        got = self.betters.get(key)
        if got is None:
            got = self._store(self.betters, key, self.changed(lo, hi, k, n).better_answer())
        return got

    def changed_keep(self, lo: int, hi: int, k: int, n: int) -> int:
        """:meth:`keep` of the hand ``(lo, hi)`` with ``n`` more tiles of kind ``k``."""
        key = (lo + n * ADD[k]) << HAND_KEY_SHIFT | hi if k < HALF_SPLIT else lo << HAND_KEY_SHIFT | hi + n * ADD[k]
        got = self.keeps.get(key)
        if got is None:
            got = self._store(self.keeps, key, self.changed(lo, hi, k, n).keep_answer())
        return got

    def changed(self, lo: int, hi: int, k: int, n: int) -> HandShape:
        """The shape of the hand ``(lo, hi)`` with ``n`` more tiles of kind ``k`` (``n`` < 0:
        fewer), built afresh from the rest of ``(lo, hi)`` (kept for the next kind of the
        same suit) and the changed suit's entry."""
        if k < HALF_SPLIT:
            lo2 = lo + n * ADD[k]
            if k < 9:
                part, off = rest(lo, hi, 0)
                return HandShape(suit_entry(lo2 % P5[9], False), 0, part, off, self)
            part, off = rest(lo, hi, 1)
            return HandShape(suit_entry(lo2 // P5[9], False), 9, part, off, self)
        hi2 = hi + n * ADD[k]
        if k < NUM_SUITED:
            part, off = rest(lo, hi, 2)
            return HandShape(suit_entry(hi2 % P5[9], False), 18, part, off, self)
        part, off = rest(lo, hi, 3)
        return HandShape(suit_entry(hi2 // P5[9], True), 27, part, off, self)

    @staticmethod
    def _store(table: dict[int, int], key: int, got: int) -> int:
        if _hands_size[0] >= _limits[2]:
            for c in _contexts.values():
                c.betters.clear()
                c.keeps.clear()
            _hands_size[0] = 0
        _hands_size[0] += 1
        table[key] = got
        return got


def set_cache_share(share: float) -> None:
    """Keep each cache to ``share`` (over 0, at most 1) of its default limit, from now on: a
    smaller share holds less memory at its peak and finds fewer answers ready (the bots'
    choices are the same). Caches already past their new limit are cleared.
    :func:`caishen.bots.caches.set_cache_share` sets the same share for every cache a bot's
    decisions fill."""
    if not 0.0 < share <= 1.0:
        raise ArgumentError(f"a cache share is over 0 and at most 1, not {share}")
    for i, full in enumerate((SUIT_CACHE, HALF_CACHE, HAND_CACHE, COMBINED_CACHE, COVER_CACHE)):
        _limits[i] = max(64, int(full * share))
    for suits in _suits:
        if len(suits) >= _limits[0]:
            suits.clear()
    for halves in _halves:
        if len(halves) >= _limits[1]:
            halves.clear()
    if len(_best_splits) >= _limits[3]:
        _best_splits.clear()
    for cover_memo in _cover_memos:
        _trim(cover_memo, _limits[4])
    if _hands_size[0] >= _limits[2]:
        for c in _contexts.values():
            c.betters.clear()
            c.keeps.clear()
        _hands_size[0] = 0


def held_kinds(lo: int, hi: int) -> int:
    """The kinds the hand ``(lo, hi)`` holds, as a mask."""
    return ALL_KINDS & ~(half_entry(lo, False).held_by[0] | half_entry(hi, True).held_by[0] << HALF_SPLIT)


def context(sets: int, wilds: int, pairs_form: bool) -> Context:
    """The :class:`Context` of hands with ``sets`` set slots and ``wilds`` wilds, 八对半
    counted when ``pairs_form``."""
    key = sets << 5 | wilds << 1 | pairs_form
    got = _contexts.get(key)
    if got is None:
        got = _contexts[key] = Context(sets, wilds, pairs_form)
    return got


def hand_shape(lo: int, hi: int, sets: int, wilds: int, pairs_form: bool) -> HandShape:
    """The shape of the hand ``(lo, hi)`` with ``wilds`` wilds and ``sets`` set slots,
    八对半 counted when ``pairs_form``."""
    return HandShape(half_entry(lo, False), 0, half_entry(hi, True), HALF_SPLIT, context(sets, wilds, pairs_form))


_rests: dict[int, Combo] = {}


def rest(lo: int, hi: int, suit: int) -> tuple[Combo, int]:
    """The three suits of the hand ``(lo, hi)`` other than ``suit`` (0-3: m, p, s,
    honours) combined, and the bit of its lowest kind. A hand that differs from ``(lo, hi)``
    only in ``suit`` is that suit's entry and this."""
    if suit < 2:
        k = lo // P5[9] if suit == 0 else lo % P5[9]
        key = (k << HAND_KEY_SHIFT | hi) << 2 | suit
    else:
        k = hi // P5[9] if suit == 2 else hi % P5[9]
        key = (lo << HAND_KEY_SHIFT | k) << 2 | suit
    got = _rests.get(key)
    if got is None:
        if suit == 0:
            got = Combo(suit_entry(k, False), half_entry(hi, True), 9)
        elif suit == 1:
            got = Combo(suit_entry(k, False), half_entry(hi, True), 18)
        elif suit == 2:
            got = Combo(half_entry(lo, False), suit_entry(k, True), 27)
        else:
            got = Combo(half_entry(lo, False), suit_entry(k, False), 18)
        if len(_rests) >= REST_CACHE:
            _rests.clear()
        _rests[key] = got
    return got, 9 if suit == 0 else 0


# ---------------------------------------------------------------- counts API


def standard_shanten(counts: list[int] | tuple[int, ...], melds: int, wilds: int, sets_needed: int) -> int:
    """Shanten of the standard form: ``counts`` = 34 non-wild concealed counts."""
    lo, hi = keys_of(counts)
    return hand_shape(lo, hi, sets_needed - melds, wilds, False).shanten


def pairs_shanten(counts: list[int] | tuple[int, ...], wilds: int) -> int:
    """Shanten of 八对半 (7 pairs + 1 triplet, 17 tiles, no melds; L14)."""
    hist = 0
    for c in counts:
        hist += HIST[c]
    return max(-1, 17 - pairs_used(hist) - wilds - 1)


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
    lo, hi = keys_of(counts)
    return hand_shape(lo, hi, sets_needed - melds, wilds, pairs_form and melds == 0).shanten


if __name__ == "__main__":
    print(write_cover_data())
