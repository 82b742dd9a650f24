"""Profiles and recent players (issue 30, item 4). docs/server.md, "Profiles and share cards".

- ``GET /profile/ID`` (``/profile/me``: yours): the profile page;
- ``GET /api/players/ID/profile`` (``me``: yours): matches, hands, wins, win rate, chips per
  hand and the favourite variant, counted from the stored hand records;
- ``GET /api/my/recent-players``: the people you last played with (no bots), most recent first;
- ``GET /api/matches/CODE/profiles``: for each player of a match, their profile's id where
  you may open it (None: a bot, a guest, a deleted account).

What is public: the profile of a person with an **account** (anyone with its link); a
**guest**'s profile only to the guest (to anyone else it is "no such profile", the same answer
as an unknown id); a **deleted** account's is "deleted player" with nothing else. A profile
shows counts only, never a room code (a code opens the match's pages).

Every refusal is a :class:`ProfileError` answered as ``{"detail", "code"}``, never a 500.
The share card of a match is drawn by the result page itself (static/sharecard.js).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path as PathLib
from typing import Annotated

from fastapi import FastAPI, Path, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, aliased

from caishen.server.db import Account, HandRow, Member, Room, User
from caishen.server.protocol import ApiError, signed_in
from caishen.server.store import Store

STATIC = PathLib(__file__).resolve().parent / "static"
DELETED_NAME = "deleted player"  # as caishen.server.accounts
RECENT_PEOPLE = 12  # how many recent players are listed
RECENT_ROWS = 400  # ... found among the seats of this many of your latest seats' rooms
ME = "me"  # /profile/me, /api/players/me/profile: the person the cookie names
_ID = r"^[A-Za-z0-9_-]{1,40}$"
_CODE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class ProfileError(ApiError):
    """A refused profile request (answered by the app's handler of :class:`ApiError`)."""

    code = "profile"


def no_profile() -> ProfileError:
    """The one answer to an unknown id and to another person's guest profile."""
    return ProfileError("no such profile (a guest's profile is shown to the guest only)", code="no_profile",
                        status=404)


# ---------------------------------------------------------------- messages

class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class VariantStatsOut(_Out):
    """One variant's part of a profile (chips of different variants are not alike: Gangci
    pays in hundreds)."""

    variant: str
    matches: int
    hands: int
    wins: int
    chips: int


class StatsOut(_Out):
    """A person's record. ``matches``: matches started with them at the table (``finished``:
    of those, over); ``hands``: hands finished; ``wins``: hands they won; ``win_rate``: wins
    per hand; ``chips``: the sum of their chips won or lost in those hands' settlements (the
    table fee 头钱 and loans are not a hand's); ``chips_per_hand``: that per hand. None where
    there is no hand. ``favourite_variant``: the one of most matches (then most hands, then
    the latest)."""

    matches: int
    finished: int
    hands: int
    wins: int
    win_rate: float | None
    chips: int
    chips_per_hand: float | None
    favourite_variant: str | None
    variants: list[VariantStatsOut]


class ProfileOut(_Out):
    """A profile: ``account`` whether the person has one (else a guest), ``mine`` whether it is
    yours, ``deleted`` an account deleted (``name`` is then "deleted player" and ``stats`` None)."""

    id: str
    name: str
    account: bool
    mine: bool
    deleted: bool
    stats: StatsOut | None


class RecentPlayerOut(_Out):
    """A person you played with: their name now; ``profile`` their profile's id if you may open
    it (an account), else None; your last match together (its code: you sat there), its
    variant, hands and when it was made (UTC, ISO)."""

    name: str
    profile: str | None
    last_match: str
    variant: str
    hands: int
    when: str


# ---------------------------------------------------------------- counting

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


# ---------------------------------------------------------------- store queries

@dataclass(frozen=True, slots=True)
class Person:
    name: str
    account: bool
    deleted: bool


@dataclass(frozen=True, slots=True)
class Recent:
    user: str
    name: str
    account: bool
    code: str
    variant: str
    hands: int
    created: datetime


class ProfileStore:
    """The profile queries (over the same engine as :class:`caishen.server.store.Store`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def person(self, uid: str) -> Person | None:
        with Session(self.engine) as db:
            row = db.execute(select(User.name, User.deleted_at, Account.user).outerjoin(Account, Account.user == User.id)
                             .where(User.id == uid)).first()
            return None if row is None else Person(row[0], row[2] is not None, row[1] is not None)

    def seats(self, uid: str) -> list[Seat]:
        """Every seat of ``uid`` in a match that has started."""
        with Session(self.engine) as db:
            rows = db.execute(select(Room.code, Room.variant, Room.status, Room.created_at, Member.player)
                              .join(Member, Member.room == Room.code)
                              .where(Member.user == uid, Room.status != "waiting"))
            return [Seat(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def hands(self, uid: str) -> list[tuple[str, str]]:
        """(room, hand JSON) of every finished hand in a room where ``uid`` has a seat."""
        with Session(self.engine) as db:
            rows = db.execute(select(HandRow.room, HandRow.record).join(Member, Member.room == HandRow.room)
                              .where(Member.user == uid, HandRow.record.is_not(None)))
            return [(r[0], r[1]) for r in rows if r[1] is not None]

    def recent(self, uid: str) -> list[Recent]:
        """The people (not ``uid``, no bots, no deleted account) at ``uid``'s latest started
        matches, each once, the latest match first (then by seat)."""
        mine, other = aliased(Member), aliased(Member)
        with Session(self.engine) as db:
            rows = db.execute(
                select(other.user, User.name, Account.user, Room.code, Room.variant, Room.hands, Room.created_at)
                .join(mine, mine.room == Room.code).join(other, other.room == Room.code)
                .join(User, User.id == other.user).outerjoin(Account, Account.user == other.user)
                .where(mine.user == uid, other.user != uid, Room.status != "waiting", User.deleted_at.is_(None))
                .order_by(Room.created_at.desc(), Room.code, other.player).limit(RECENT_ROWS))
            out: list[Recent] = []
            seen: set[str] = set()
            for r in rows:
                if r[0] in seen:
                    continue
                seen.add(r[0])
                out.append(Recent(r[0], r[1], r[2] is not None, r[3], r[4], r[5], r[6]))
                if len(out) == RECENT_PEOPLE:
                    break
            return out

    def with_accounts(self, uids: Iterable[str]) -> set[str]:
        wanted = sorted(set(uids))
        if not wanted:
            return set()
        with Session(self.engine) as db:
            return set(db.scalars(select(Account.user).where(Account.user.in_(wanted))))


# ---------------------------------------------------------------- routes

def install(app: FastAPI, store: Store, uid_of: Callable[[Request], str | None]) -> ProfileStore:
    """Add the profile routes and page to ``app``; ``uid_of``: the person a request's cookie
    names (``caishen.server.app``)."""
    profiles = ProfileStore(store.engine)


    @app.get("/profile/{pid}", include_in_schema=False)
    def profile_page(pid: str) -> FileResponse:
        return FileResponse(STATIC / "profile.html", media_type="text/html")

    @app.get("/api/players/{pid}/profile")
    def get_profile(request: Request, pid: Annotated[str, Path(pattern=_ID)]) -> ProfileOut:
        """A person's profile (``me``: yours). An account's is public; a guest's is shown to
        the guest only (``no_profile`` to anyone else, as for an unknown id); a deleted
        account's says "deleted player" and nothing more."""
        viewer = uid_of(request)
        uid = signed_in(uid_of(request)) if pid == ME else pid
        person = profiles.person(uid)
        if person is None:
            raise no_profile()
        mine = uid == viewer
        if person.deleted:
            return ProfileOut(id=uid, name=DELETED_NAME, account=False, mine=mine, deleted=True, stats=None)
        if not person.account and not mine:
            raise no_profile()
        stats = stats_of(count(profiles.seats(uid), profiles.hands(uid)))
        return ProfileOut(id=uid, name=person.name, account=person.account, mine=mine, deleted=False, stats=stats)

    @app.get("/api/my/recent-players")
    def recent_players(request: Request) -> list[RecentPlayerOut]:
        """The people you last played with (bots and deleted accounts left out), the most
        recent first, each with your last match together: to invite them again."""
        uid = signed_in(uid_of(request))
        return [RecentPlayerOut(name=r.name, profile=r.user if r.account else None, last_match=r.code,
                                variant=r.variant, hands=r.hands, when=r.created.isoformat(timespec="seconds") + "Z")
                for r in profiles.recent(uid)]

    @app.get("/api/matches/{code}/profiles")
    def match_profiles(request: Request, code: str) -> list[str | None]:
        """For each player of the match (in the order of ``players``): their profile's id where
        you may open it (an account's, or yours), else None (a bot, a guest, a deleted account)."""
        room = store.room(code) if _CODE.match(code) else None
        if room is None:
            raise ProfileError("no such room", code="no_room", status=404)
        viewer = uid_of(request)
        users = [p.user for p in room.players]
        public = profiles.with_accounts(u for u in users if u is not None)
        return [u if u is not None and (u in public or u == viewer) else None for u in users]

    app.state.profiles = profiles
    return profiles
