"""The seat draw 校位定莊 (L2): who sits where for a match's first hand, and who waits.

"如果四個人玩，就找出「東南西北」各一張，五個人玩多張「中」，六個人玩多兩張「中」「發」，將牌蓋住弄混
…拿到東風的坐假定東家位，其餘南、西、北依逆時針方向入座，拿紅中或青發者做替補。假定東家擲第二次色子
(假定東家色子點數無五變六，九變八規則)，擲到之點數即為真東家。" Each player draws one of the wind
tiles (and 中, 发 with 5 or 6 players); East's drawer sits as the provisional East, the others by
their wind in turn order; the holders of 中 then 发 wait (替补). The provisional East rolls two
dice; counting him as 1, the sum counts seats in turn order to the real East, the first dealer
(no 五变六 / 九变八 adjustment). The draw comes from the match's seed (:func:`caishen.fair.seat_draw`),
so a record's seating can be checked like its walls.
"""

from __future__ import annotations

from dataclasses import dataclass

from caishen import fair

SEATS = 4


@dataclass(frozen=True, slots=True)
class SeatDraw:
    """A seat draw: ``tiles[p]`` the tile player ``p`` drew (index in :data:`caishen.fair.SEAT_TILES`),
    the provisional East's ``dice``, and what follows from them: ``seats`` (the player at
    East = dealer, South, West, North for the first hand) and ``waiting`` (替补, in order)."""

    tiles: tuple[int, ...]
    dice: tuple[int, int]
    seats: tuple[int, int, int, int]
    waiting: tuple[int, ...]

    @classmethod
    def from_draw(cls, tiles: tuple[int, ...], dice: tuple[int, int]) -> SeatDraw:
        """The seating that ``tiles`` and ``dice`` give (ValueError if they are not a draw)."""
        n = len(tiles)
        if sorted(tiles) != list(range(n)) or not SEATS <= n <= len(fair.SEAT_TILES):
            raise ValueError(f"seat tiles must be a permutation of 0..{n - 1} for 4-6 players")
        if not all(1 <= d <= 6 for d in dice) or len(dice) != 2:
            raise ValueError("the seat draw has two dice of 1-6")
        holder = {t: p for p, t in enumerate(tiles)}
        provisional = [holder[t] for t in range(SEATS)]
        east = (dice[0] + dice[1] - 1) % SEATS  # the provisional East counts 1
        seats = tuple(provisional[(east + i) % SEATS] for i in range(SEATS))
        return cls(tiles, dice, (seats[0], seats[1], seats[2], seats[3]), tuple(holder[t] for t in range(SEATS, n)))

    def to_json(self) -> dict[str, object]:
        return {"tiles": [fair.SEAT_TILES[t] for t in self.tiles], "dice": list(self.dice),
                "seats": list(self.seats), "waiting": list(self.waiting)}


def draw_seats(seed: bytes, players: int) -> SeatDraw:
    """The seat draw of a match of ``players`` players from its master ``seed``."""
    tiles, dice = fair.seat_draw(seed, players)
    return SeatDraw.from_draw(tiles, dice)
