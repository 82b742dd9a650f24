"""Value types for a player's tiles: :class:`Meld` and :class:`Hand`.

Both are small frozen dataclasses of tile kinds (ints, see :mod:`caishen.tiles`).
Text forms live in :mod:`caishen.notation`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER, NUM_SUITED, is_flower, is_suited

# Packed counts of concealed tiles: one base-5 number per suit in 21-bit fields (m, p, s at
# bits 0, 21, 42; honours at 63), the integer key the analyser's per-suit tables index by.
PACK: Final = tuple(
    5 ** (k % 9) << (21 * (k // 9)) if k < NUM_SUITED else 5 ** (k - NUM_SUITED) << 63
    for k in range(NUM_NON_FLOWER)
)


def pack(concealed: Iterable[int]) -> int:
    """The packed counts (see ``PACK``) of non-flower tiles."""
    acc = 0
    for t in concealed:
        acc += PACK[t]
    return acc


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
            raise ValueError(f"meld has a tile that is not a tile kind: {t}")
        if any(is_flower(k) for k in t):
            raise ValueError("a flower cannot be part of a meld")
        if self.kind is MeldKind.CHOW:
            s = sorted(t)
            if len(t) != 3 or not all(is_suited(k) for k in t) or s[0] // 9 != s[2] // 9 or s != [
                s[0], s[0] + 1, s[0] + 2
            ]:
                raise ValueError(f"a chow must be three consecutive tiles of one suit: {t}")
        else:
            need = 3 if self.kind is MeldKind.PONG else 4
            if len(t) != need or len(set(t)) != 1:
                raise ValueError(f"a {self.kind.name.lower()} must be {need} equal tiles: {t}")

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
            raise ValueError("the claimed tile must be one of the chow's three")
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


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's tiles: ``concealed`` (sorted kinds, any own-flower wild included
    as a flower kind is not: see ``flowers``), declared ``melds`` in the order made,
    and ``flowers`` (sorted flower kinds the player holds; the seat decides which is
    the own flower 坐花, a wild kept in hand, and which are 客花 laid open)."""

    concealed: tuple[int, ...] = ()
    melds: tuple[Meld, ...] = ()
    flowers: tuple[int, ...] = ()
    #: packed per-suit counts of ``concealed`` (see ``PACK``), kept for the analyser's hot path
    packed: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if any(is_flower(k) or not 0 <= k < NUM_KINDS for k in self.concealed):
            raise ValueError("concealed tiles must be non-flower tile kinds; flowers go in flowers")
        if any(not is_flower(k) for k in self.flowers):
            raise ValueError("flowers must be flower kinds")
        if len(set(self.flowers)) != len(self.flowers):
            raise ValueError("each flower exists once")
        object.__setattr__(self, "concealed", tuple(sorted(self.concealed)))
        object.__setattr__(self, "flowers", tuple(sorted(self.flowers)))
        object.__setattr__(self, "packed", pack(self.concealed))

    def __reduce__(self) -> tuple[type[Hand], tuple[tuple[int, ...], tuple[Meld, ...], tuple[int, ...]]]:
        # Pickle and copy through the constructor (see Meld.__reduce__).
        return (Hand, (self.concealed, self.melds, self.flowers))

    @staticmethod
    def trusted(concealed: tuple[int, ...], melds: tuple[Meld, ...] = (), flowers: tuple[int, ...] = ()) -> Hand:
        """A hand from tiles its caller already keeps valid (the engine's and the bots' own
        state): ``concealed`` sorted non-flower kinds, ``flowers`` sorted distinct flower kinds.
        Nothing is checked or sorted: several times cheaper than ``Hand(...)``, the same value."""
        h = Hand.__new__(Hand)  # not object.__new__: mypyc refuses it for its compiled classes
        object.__setattr__(h, "concealed", concealed)
        object.__setattr__(h, "melds", melds)
        object.__setattr__(h, "flowers", flowers)
        object.__setattr__(h, "packed", pack(concealed))
        return h

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
            raise ValueError(f"the hand holds no concealed tile of kind {k}") from None
        return Hand(tuple(c), self.melds, self.flowers)
