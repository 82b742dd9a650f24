"""Value types for a player's tiles: :class:`Meld` and :class:`Hand`.

Both are small frozen dataclasses of tile kinds (ints, see :mod:`caishen.tiles`).
Text forms live in :mod:`caishen.notation`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from caishen.errors import HandError
from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER, NUM_SUITED, is_flower, is_suited

# Packed counts of concealed tiles: one base-5 number per suit in 21-bit fields (m, p, s at
# bits 0, 21, 42; honours at 63), the integer key the analyser's per-suit tables index by.
PACK: Final[tuple[int, ...]] = tuple(
    5 ** (k % 9) << (21 * (k // 9)) if k < NUM_SUITED else 5 ** (k - NUM_SUITED) << 63
    for k in range(NUM_NON_FLOWER)
)


# The same split in two halves below 2^42 (small ints, unboxed in the compiled build): characters
# and dots (``_LOW``), bamboo and honours shifted down 42 bits (``_HIGH``); ``pack`` adds small
# ints and makes the one large int at the end (adding PACK's large ints one by one cost 0.5 µs).
_SPLIT: Final = 2 * 9
_LOW: Final[tuple[int, ...]] = tuple(PACK[k] if k < _SPLIT else 0 for k in range(NUM_NON_FLOWER))
_HIGH: Final[tuple[int, ...]] = tuple(PACK[k] >> 42 if k >= _SPLIT else 0 for k in range(NUM_NON_FLOWER))


def pack(concealed: tuple[int, ...]) -> int:
    """The packed counts (see ``PACK``) of non-flower tiles."""
    lo = hi = 0
    for t in concealed:
        if t < _SPLIT:
            lo += _LOW[t]
        else:
            hi += _HIGH[t]
    return lo + (hi << 42)


class MeldKind(enum.IntEnum):
    """How an open (or declared) set was made."""

    CHOW = 0            # 吃, sequence claimed from the left
    PONG = 1            # 碰, exposed triplet
    EXPOSED_KONG = 2    # 大明杠, kong on a discard
    ADDED_KONG = 3      # 小明杠, pong plus the drawn fourth
    CONCEALED_KONG = 4  # 暗杠

    @property
    def is_kong(self) -> bool:
        return self >= MeldKind.EXPOSED_KONG

    @property
    def is_concealed(self) -> bool:
        return self is MeldKind.CONCEALED_KONG


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set 副露. ``tiles`` in order; for a chow the claimed tile comes first."""

    kind: MeldKind
    tiles: tuple[int, ...]

    def __post_init__(self) -> None:
        t = self.tiles
        if any(not 0 <= k < NUM_KINDS for k in t):
            raise HandError(f"meld has a tile that is not a tile kind: {t}")
        if any(is_flower(k) for k in t):
            raise HandError("a flower cannot be part of a meld")
        if self.kind is MeldKind.CHOW:
            s = sorted(t)
            if len(t) != 3 or not all(is_suited(k) for k in t) or s[0] // 9 != s[2] // 9 or s != [
                s[0], s[0] + 1, s[0] + 2
            ]:
                raise HandError(f"a chow must be three consecutive tiles of one suit: {t}")
        else:
            need = 3 if self.kind is MeldKind.PONG else 4
            if len(t) != need or len(set(t)) != 1:
                raise HandError(f"a {self.kind.name.lower()} must be {need} equal tiles: {t}")

    def __reduce__(self) -> tuple[type[Meld], tuple[MeldKind, tuple[int, ...]]]:
        # Pickle and copy through the constructor: the compiled build (mypyc) cannot set the
        # fields of a frozen dataclass after construction.
        return (Meld, (self.kind, self.tiles))

    @property
    def tile(self) -> int:
        """The lowest tile of the set (the tile kind of a pong or kong)."""
        return min(self.tiles)

    @property
    def claimed(self) -> int:
        """For a chow, the tile taken from the discard."""
        return self.tiles[0]

    @classmethod
    def chow(cls, claimed: int, low: int) -> Meld:
        """A chow of ``low, low+1, low+2`` with ``claimed`` taken from the left."""
        rest = [k for k in (low, low + 1, low + 2) if k != claimed]
        if len(rest) != 2:
            raise HandError("the claimed tile must be one of the chow's three")
        return cls(MeldKind.CHOW, (claimed, *rest))

    @classmethod
    def pong(cls, k: int) -> Meld:
        return cls(MeldKind.PONG, (k, k, k))

    @classmethod
    def kong(cls, k: int, kind: MeldKind) -> Meld:
        return cls(kind, (k, k, k, k))


def counts_of(tiles: Iterable[int]) -> list[int]:
    """A list of 38 counts, one per tile kind."""
    c = [0] * NUM_KINDS
    for k in tiles:
        c[k] += 1
    return c


class Hand:
    """A player's tiles: ``concealed`` (sorted kinds, any own-flower wild included
    as a flower kind is not: see ``flowers``), declared ``melds`` in the order made,
    and ``flowers`` (sorted flower kinds the player holds; the seat decides which is
    the own flower 坐花, a wild kept in hand, and which are 客花 laid open).

    An immutable value (equal and hashed by its three parts) like a frozen dataclass, written
    out so that the compiled build constructs it natively: a hand built from a list of tiles is
    on every hot path of the analyser's users (0.5 µs the goal, issue 31). ``packed``: the
    packed per-suit counts of ``concealed`` (see ``PACK``), kept for the analyser.

    Tiles that do not come sorted are checked and packed at once and sorted on the first read
    of ``concealed`` (then kept): the analyser's answers (``is_win``, ``shanten``) read only
    ``packed`` and the number of tiles, so a hand built from a random list of tiles and only
    analysed never pays the sort (docs/performance.md)."""

    __slots__ = ("_concealed", "_ordered", "flowers", "melds", "packed")

    _concealed: tuple[int, ...]
    _ordered: bool
    melds: Final[tuple[Meld, ...]]
    flowers: Final[tuple[int, ...]]
    packed: Final[int]

    def __init__(self, concealed: tuple[int, ...] = (), melds: tuple[Meld, ...] = (),
                 flowers: tuple[int, ...] = (), *, trusted: bool = False) -> None:
        ordered = True
        if trusted:
            packed = pack(concealed)
        else:
            # One pass checks the kinds, packs them and sees whether they come sorted (the
            # engine's, the notation's and most callers' do); unsorted ones are sorted on the
            # first read of ``concealed`` (see the class docstring).
            if type(concealed) is not tuple:
                concealed = tuple(concealed)
            prev = lo = hi = 0
            for k in concealed:
                if not 0 <= k < NUM_NON_FLOWER:  # the flower kinds come after every other kind
                    raise HandError("concealed tiles must be non-flower tile kinds; flowers go in flowers")
                if k < prev:
                    ordered = False
                prev = k
                if k < _SPLIT:
                    lo += _LOW[k]
                else:
                    hi += _HIGH[k]
            packed = lo + (hi << 42)
            if flowers or type(flowers) is not tuple:
                if any(not is_flower(k) for k in flowers):
                    raise HandError("flowers must be flower kinds")
                if len(set(flowers)) != len(flowers):
                    raise HandError("each flower exists once")
                flowers = tuple(sorted(flowers))
            if type(melds) is not tuple:
                melds = tuple(melds)
        self._concealed = concealed
        self._ordered = ordered
        self.melds = melds
        self.flowers = flowers
        self.packed = packed

    @property
    def concealed(self) -> tuple[int, ...]:
        """The concealed tiles, sorted."""
        if self._ordered:
            return self._concealed
        got = tuple(sorted(self._concealed))
        self._concealed = got
        self._ordered = True
        return got

    @property
    def num_concealed(self) -> int:
        """How many concealed tiles: ``len(concealed)`` without sorting them."""
        return len(self._concealed)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return self.concealed == other.concealed and self.melds == other.melds and self.flowers == other.flowers

    def __hash__(self) -> int:
        return hash((self.concealed, self.melds, self.flowers))

    def __repr__(self) -> str:
        return f"Hand(concealed={self.concealed!r}, melds={self.melds!r}, flowers={self.flowers!r})"

    def __reduce__(self) -> tuple[type[Hand], tuple[tuple[int, ...], tuple[Meld, ...], tuple[int, ...]]]:
        # Pickle and copy through the constructor (see Meld.__reduce__).
        return (Hand, (self.concealed, self.melds, self.flowers))

    @staticmethod
    def trusted(concealed: tuple[int, ...], melds: tuple[Meld, ...] = (), flowers: tuple[int, ...] = ()) -> Hand:
        """A hand from tiles its caller already keeps valid (the engine's and the bots' own
        state): ``concealed`` sorted non-flower kinds, ``flowers`` sorted distinct flower kinds.
        Nothing is checked or sorted: cheaper than ``Hand(...)``, the same value."""
        return Hand(concealed, melds, flowers, trusted=True)

    def counts(self) -> list[int]:
        """Counts of the concealed tiles per kind (38 entries)."""
        return counts_of(self.concealed)

    def all_tiles(self) -> list[int]:
        """Every tile of the hand: concealed, melds and flowers."""
        out = list(self.concealed)
        for m in self.melds:
            out.extend(m.tiles)
        out.extend(self.flowers)
        return out

    @property
    def size(self) -> int:
        """Tiles counting toward the hand size: concealed + 3 per meld (a kong's 4th is
        extra, L13), flowers not counted."""
        return len(self.concealed) + 3 * len(self.melds)

    def with_tile(self, k: int) -> Hand:
        """This hand with one more tile (a flower goes to ``flowers``)."""
        if is_flower(k):
            return Hand(self.concealed, self.melds, (*self.flowers, k))
        return Hand((*self.concealed, k), self.melds, self.flowers)

    def without_tile(self, k: int) -> Hand:
        """This hand with one concealed copy of ``k`` removed."""
        c = list(self.concealed)
        try:
            c.remove(k)
        except ValueError:
            raise HandError(f"the hand holds no concealed tile of kind {k}") from None
        return Hand(tuple(c), self.melds, self.flowers)
