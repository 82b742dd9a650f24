"""Profiles' store queries: a person, their seats and hands, and the people they last played
with (over the same engine as :class:`caishen.server.store.Store`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, aliased

from caishen.server.db import Account, HandRow, Member, Room, User
from caishen.server.profiles.counting import Seat

DELETED_NAME = "deleted player"  # as caishen.server.accounts
RECENT_PEOPLE = 12  # how many recent players are listed
RECENT_ROWS = 400  # ... found among the seats of this many of your latest seats' rooms


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
