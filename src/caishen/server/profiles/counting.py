"""Counting a person's matches, hands, wins and chips from the stored hand records, reading
only the few top-level fields each needs."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from caishen.server.profiles.messages import StatsOut, VariantStatsOut


@dataclass(slots=True)
class _Tally:
    matches: int = 0
    finished: int = 0
    hands: int = 0
    wins: int = 0
    chips: int = 0
    latest: datetime = datetime.min


@dataclass(slots=True)
class Counted:
    """What :func:`count` makes of a person's seats: the totals and each variant's."""

    total: _Tally = field(default_factory=_Tally)
    variants: dict[str, _Tally] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Seat:
    """A person's seat in a started match: the room, its variant and status, when it was
    made, and their player index."""

    code: str
    variant: str
    status: str
    created: datetime
    player: int


_DECODER = json.JSONDecoder()


def _top_value(record: str, key: str) -> object:
    """The value of ``key`` in a stored hand's JSON, read from its first ``"key": `` on: a
    hand is written by ``json.dumps`` with ``seats`` and ``result`` before any nested key of
    those names (``caishen.table.record``), and reading two fields is some 7 times faster than
    the whole hand (its wall, moves and draws: ~4 KB). Raises ValueError if not found."""
    at = record.find(f'"{key}": ')
    if at < 0:
        raise ValueError(key)
    return _DECODER.raw_decode(record, at + len(key) + 4)[0]


def hand_part(record: str, player: int) -> tuple[bool, int] | None:
    """Whether player ``player`` won the hand of ``record`` (a stored hand's JSON) and the
    chips their seat got in its settlement (``result.chips`` is by seat; ``seats[s]`` is the
    player in seat ``s``; ``result.winner`` a seat). None for a record without them (none
    the centre writes: a profile then leaves the hand out rather than fail)."""
    try:
        try:
            seats, result = _top_value(record, "seats"), _top_value(record, "result")
        except ValueError:  # written some other way: the whole of it
            data = json.loads(record)
            seats, result = data["seats"], data["result"]
        if not isinstance(seats, list) or not isinstance(result, dict):
            return None
        seat = seats.index(player)
        return result.get("winner") == seat, int(result["chips"][seat])
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def count(seats: Iterable[Seat], hands: Iterable[tuple[str, str]]) -> Counted:
    """The totals of a person's ``seats`` and the finished ``hands`` (room code, hand JSON) of
    those rooms."""
    out = Counted()
    by_code: dict[str, Seat] = {}
    for s in seats:
        by_code[s.code] = s
        for t in (out.total, out.variants.setdefault(s.variant, _Tally())):
            t.matches += 1
            t.finished += s.status == "over"
            t.latest = max(t.latest, s.created)
    for code, record in hands:
        seat = by_code.get(code)
        if seat is None:
            continue
        part = hand_part(record, seat.player)
        if part is None:
            continue
        won, chips = part
        for t in (out.total, out.variants[seat.variant]):
            t.hands += 1
            t.wins += won
            t.chips += chips
    return out


def stats_of(c: Counted) -> StatsOut:
    t = c.total
    # most matches, then most hands, then the latest played
    order = sorted(c.variants.items(), key=lambda kv: (kv[1].matches, kv[1].hands, kv[1].latest, kv[0]), reverse=True)
    return StatsOut(
        matches=t.matches, finished=t.finished, hands=t.hands, wins=t.wins,
        win_rate=t.wins / t.hands if t.hands else None, chips=t.chips,
        chips_per_hand=t.chips / t.hands if t.hands else None,
        favourite_variant=order[0][0] if order else None,
        variants=[VariantStatsOut(variant=v, matches=x.matches, hands=x.hands, wins=x.wins, chips=x.chips)
                  for v, x in order],
    )
