"""The seat draw 校位定莊 (L2, issue 10 item 14): "拿到東風的坐假定東家位，其餘南、西、北依逆時針
方向入座，拿紅中或青發者做替補。假定東家擲第二次色子…擲到之點數即為真東家". Before, player i always sat
in seat i. The draw comes from the match seed, is recorded, replayed and verified."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from caishen import fair
from caishen.table.match import selfplay
from caishen.table.record import RecordError, VerifyError, loads
from caishen.table.replay import verify
from caishen.table.seating import SeatDraw, draw_seats
from caishen.variants.longgang.rules import LONGGANG


def test_the_dice_count_from_the_provisional_east_l2() -> None:
    # p0 drew 中, p1 N, p2 W, p3 S, p4 E: p4 sits as provisional East, p3 South, p2 West, p1 North.
    tiles = (4, 3, 2, 1, 0)
    # 3 counts E(1) S(2) W(3): the West drawer p2 is the real East; turn order follows.
    assert SeatDraw.from_draw(tiles, (1, 2)) == SeatDraw(tiles, (1, 2), (2, 1, 4, 3), (0,))
    # 5 and 9 come back to the provisional East (no 五变六 / 九变八 here)
    assert SeatDraw.from_draw(tiles, (2, 3)).seats == (4, 3, 2, 1)
    assert SeatDraw.from_draw(tiles, (4, 5)).seats == (4, 3, 2, 1)
    # six players: 中 then 发 wait
    assert SeatDraw.from_draw((5, 0, 1, 2, 3, 4), (6, 6)).waiting == (5, 0)


def test_draws_are_uniform_enough_and_seeded() -> None:
    east = Counter(draw_seats(bytes([i % 256, i // 256]) * 16, 4).seats[0] for i in range(4000))
    assert set(east) == {0, 1, 2, 3} and min(east.values()) > 850  # each about 1000
    assert draw_seats(b"s" * 32, 6) == draw_seats(b"s" * 32, 6)
    assert fair.seat_draw(b"s" * 32, 5) != fair.seat_draw(b"t" * 32, 5)


def test_a_drawn_match_is_recorded_replayed_and_verified() -> None:
    seed = b"seat-draw-record".ljust(32, b".")
    rec = selfplay(LONGGANG.replace(hands_per_match=4), seed, 5, seat_draw=True)
    draw = draw_seats(seed, 5)
    assert rec.hands[0].seats == draw.seats and rec.seat_draw == draw
    data = json.loads(rec.dumps())
    assert data["seat_draw"]["seats"] == list(draw.seats)
    assert verify(loads(rec.dumps())).hands == 4
    # a seating that the tiles and dice do not give is not a record
    bad = dict(data, seat_draw=dict(data["seat_draw"], seats=[0, 1, 2, 3]))
    with pytest.raises(RecordError, match="record.seat_draw: these tiles and dice seat"):
        loads(json.dumps(bad))
    # another (consistent) draw than the seed's fails verification
    other = draw_seats(b"other".ljust(32, b"."), 5)
    assert other != draw
    forged = dict(data, seat_draw=other.to_json())
    with pytest.raises(VerifyError, match="seat draw is not the one the match seed gives"):
        verify(loads(json.dumps(forged)))
    # records without a draw stay as they were: no key at all
    assert "seat_draw" not in json.loads(selfplay(LONGGANG.replace(hands_per_match=1), seed).dumps())
