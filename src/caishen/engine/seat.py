"""One seat's part of a hand: :class:`SeatState`, kept by :class:`caishen.engine.game.Game`.

The seat's concealed tiles as counts per kind with the isolation masks the win pre-filter reads,
its wilds, melds, flowers and discards, and the restrictions that last across turns (过水, a
passed pong, the 獨吊 exception, the opening kong round). The game changes it only through
checked moves; what it answers here (a win's pre-filter, the hand for the analyser, the tiles
it may discard) depends on this seat alone.
"""

from __future__ import annotations

from bisect import insort
from typing import Final

from caishen.engine.actions import ADDED_KONGS, CHOWS, CONCEALED_KONGS, DISCARDS, Action
from caishen.hand import Hand, Meld
from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER, NUM_SUITED

# Bit of each non-flower kind in the isolation masks: suits 12 bits apart, honours 3 apart, so
# shifting by 1 or 2 never reaches another suit or honour (see SeatState.could_win).
BIT: Final = tuple(
    1 << ((k // 9) * 12 + k % 9 if k < NUM_SUITED else 36 + 3 * (k - NUM_SUITED)) for k in range(NUM_NON_FLOWER)
)
_KIND_AT: Final = {b.bit_length() - 1: k for k, b in enumerate(BIT)}


def chow_twin(claimed: int, low: int) -> int:
    """After chowing ``claimed`` into ``low..low+2``: the tile that would make the same
    sequence with the two tiles from the hand (L9), or -1."""
    if claimed == low and low % 9 <= 5:
        return low + 3
    if claimed == low + 2 and low % 9 >= 1:
        return low - 1
    return -1


def _chow_ways(tile: int) -> tuple[tuple[int, int, int, Action], ...]:
    """For a suited ``tile``: (the two tiles from the hand, the twin not to discard after,
    the action) of each chow it can complete."""
    out = []
    for low in (tile - 2, tile - 1, tile):
        if low < tile - tile % 9 or low % 9 > 6:
            continue
        a, b = (x for x in (low, low + 1, low + 2) if x != tile)
        out.append((a, b, chow_twin(tile, low), CHOWS[(tile, low)]))
    return tuple(out)


_CHOW_WAYS: Final = tuple(_chow_ways(k) if k < NUM_SUITED else () for k in range(NUM_KINDS))


class SeatState:
    """One seat's tiles and restrictions in a hand (see the module docstring). ``wild[k]``: kind
    ``k`` is wild for this seat; ``true_wild[k]``: it counts toward 推土机 (L8)."""

    def __new__(cls, *args: object, **kwargs: object) -> SeatState:
        # Pickle and copy make a seat without calling __init__ (see Game.__new__).
        return super().__new__(cls)

    def __init__(self, wild: list[bool], true_wild: list[bool], pending_flowers: bool, drew: bool) -> None:
        self.wild = wild
        self.true_wild = true_wild
        self.cnt = [0] * NUM_KINDS
        # Isolation masks over natural (non-wild) concealed tiles: kinds held, kinds held once.
        self.present = 0
        self.single = 0
        self.n = 0    # concealed tiles held (flowers held included)
        self.w = 0    # wild tiles held
        self.tw = 0   # 正财神 held
        self.melds: list[Meld] = []
        self.pongs = 0                         # bitmask of ponged kinds (for added kongs)
        self.open_flowers: list[int] = []
        self.discards: list[int] = []
        self.sea_flowers: list[int] = []       # laid open in 分张, unreplaced (L17)
        self.pending_flowers = pending_flowers  # guest flowers still to replace (L7)
        self.pass_win = False                  # 过水 (L11)
        self.pong_ban = 0                      # bitmask of kinds not to pong until the next draw (L11)
        self.last_discard = -1                 # kind of its own discard this go-round (L11)
        # 獨吊 exception (L11, source (五)G): that discard split the pair left after a chow or pong
        # chosen over a win, leaving a single wait on its kind: a win on that kind stays allowed.
        self.dudiao = False
        # The opening concealed-kong round (L9): kinds (bitmasks) it may kong now and has
        # declined, and whether it konged in this round.
        self.kong_offer = 0
        self.kong_declined = 0
        self.konged_in_round = False
        # A normal draw made (the dealer's 17th counts): 推土机 comes first only before it (L10).
        self.drew = drew
        self.wall_draws = 0  # normal draws made (a first-draw win, GameRules)

    def add(self, k: int, d: int) -> None:
        """Change a concealed count; keeps the isolation masks right."""
        c = self.cnt
        n = c[k] + d
        c[k] = n
        self.n += d
        if self.wild[k]:
            self.w += d
            if self.true_wild[k]:
                self.tw += d
        elif k < NUM_NON_FLOWER:
            b = BIT[k]
            if n:
                self.present |= b
            else:
                self.present &= ~b
            if n == 1:
                self.single |= b
            else:
                self.single &= ~b

    def guest_flowers(self) -> list[int]:
        """The 客花 held (flowers not wild for this seat), to be laid open (L7)."""
        c = self.cnt
        wild = self.wild
        return [k for k in range(NUM_NON_FLOWER, NUM_KINDS) if c[k] and not wild[k]]

    def hand(self, extra: int = -1) -> Hand:
        """The full hand (referee view: concealed tiles, melds, every flower), with ``extra``
        added (-1: none), for the analyser. Built without Hand's checks: the counts are valid by
        construction and the tuples come out sorted."""
        c = self.cnt
        conc: list[int] = []
        for k in range(NUM_NON_FLOWER):
            n = c[k]
            if n:
                conc.extend((k,) * n)
        flowers = [k for k in range(NUM_NON_FLOWER, NUM_KINDS) if c[k]]
        flowers.extend(self.open_flowers)
        if extra >= NUM_NON_FLOWER:
            flowers.append(extra)
        elif extra >= 0:
            insort(conc, extra)
        return Hand.trusted(tuple(conc), tuple(self.melds), tuple(sorted(flowers)))

    def could_win(self, extra: int, bulldozer_need: int, win_size: int) -> bool:
        """Cheap necessary condition for a win with ``extra`` added (-1: none): enough 正财神
        for 推土机 (L8), or the right size and every isolated natural tile (held once, no
        natural tile within two of it in its suit) paired with a wild of its own."""
        tw = self.tw
        w = self.w
        present = self.present
        single = self.single
        size = self.n + 3 * len(self.melds)
        if extra >= 0:
            size += 1
            if self.wild[extra]:
                w += 1
                if self.true_wild[extra]:
                    tw += 1
            elif extra < NUM_NON_FLOWER:
                b = BIT[extra]
                n = self.cnt[extra]
                present |= b
                if n == 0:
                    single |= b
                elif n == 1:
                    single &= ~b
        if tw >= bulldozer_need:
            return True
        if size != win_size:
            return False
        if self.pending_flowers and self.guest_flowers():
            return False  # a flower still to be replaced: the hand is short
        near = (present << 1) | (present << 2) | (present >> 1) | (present >> 2)
        return (single & ~near).bit_count() <= w

    def no_win_on(self, k: int) -> bool:
        """The pre-filter of :meth:`could_win` on another seat's natural discard ``k``, and
        过水 / one's own discard of the go-round (L11, but 獨吊): True when no win is possible."""
        if self.pass_win or (k == self.last_discard and not self.dudiao):
            return True
        b = BIT[k]
        p = self.present | b
        single = self.single
        single = single | b if not self.cnt[k] else single & ~b
        return (single & ~((p << 1) | (p << 2) | (p >> 1) | (p >> 2))).bit_count() > self.w

    def fours(self) -> int:
        """Bitmask (``1 << kind``) of the natural kinds held four times."""
        c = self.cnt
        wild = self.wild
        out = 0
        for k in range(NUM_NON_FLOWER):
            if c[k] == 4 and not wild[k]:
                out |= 1 << k
        return out

    def pong_bits(self) -> int:
        """The isolation-mask bits (``BIT``) of the kinds ponged."""
        pongs = self.pongs
        out = 0
        while pongs:
            low = pongs & -pongs
            pongs ^= low
            out |= BIT[low.bit_length() - 1]
        return out

    def discard_left_after(self, used: tuple[int, ...], forbid: tuple[int, int]) -> bool:
        """After a claim using ``used`` from the hand, would a tile be left that may be
        discarded (not wild, not a forbidden kind, not the fourth of a pong, not a guest flower)?"""
        c = self.cnt
        left = self.n - self.w - len(used)
        f1, f2 = forbid
        if f1 >= 0:
            left -= c[f1] - used.count(f1)
        if f2 >= 0 and f2 != f1:
            left -= c[f2] - used.count(f2)
        pongs = self.pongs
        while pongs:  # the fourth of an earlier pong cannot be discarded either (L9)
            low = pongs & -pongs
            pongs ^= low
            k = low.bit_length() - 1
            if k != f1 and k != f2:
                left -= c[k] - used.count(k)
        if self.pending_flowers:  # guest flowers still held cannot be discarded either
            left -= sum(c[k] for k in self.guest_flowers())
        return left > 0

    def discards_after_claim(self, forbid: tuple[int, int]) -> tuple[Action, ...]:
        """The discards of a turn begun with a chow or pong: natural tiles (L8) but the kinds
        ``forbid`` (L9) and the fourth of an earlier pong, never discarded, not even in this
        turn where it cannot be konged (source 小明杠: "若不補槓，則不能打出這張牌")."""
        m = self.present & ~self.pong_bits()
        f1, f2 = forbid
        out: list[Action] = []
        while m:
            low = m & -m
            m ^= low
            k = _KIND_AT[low.bit_length() - 1]
            if k != f1 and k != f2:
                out.append(DISCARDS[k])
        return tuple(out)

    def turn_moves(self, out: list[Action]) -> None:
        """Append the kongs then the discards of an ordinary turn to ``out``: a concealed kong
        of each four, an added kong of the fourth of each pong (source 补杠: konged, never
        discarded), every other natural kind (L8, L9)."""
        m = self.present
        c = self.cnt
        pongs = self.pongs
        discards: list[Action] = []
        while m:
            low = m & -m
            m ^= low
            k = _KIND_AT[low.bit_length() - 1]
            if c[k] == 4:
                out.append(CONCEALED_KONGS[k])
            if pongs >> k & 1:
                out.append(ADDED_KONGS[k])
            else:
                discards.append(DISCARDS[k])
        out.extend(discards)

    def chows(self, tile: int, out: list[Action]) -> None:
        """Append each chow of ``tile`` from the hand's natural tiles that leaves a discard (L9)."""
        c = self.cnt
        wild = self.wild
        for a, b, twin, act in _CHOW_WAYS[tile]:
            if c[a] and c[b] and not wild[a] and not wild[b] and self.discard_left_after((a, b), (tile, twin)):
                out.append(act)
