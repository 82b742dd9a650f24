"""The clubs' store queries (over the engine of :class:`caishen.server.store.Store`): clubs,
members and roles, rule templates, the club's rooms, and the season's leaderboard."""

from __future__ import annotations

import calendar
import json
import secrets
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import cast

from sqlalchemy import ColumnElement, Engine, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from caishen.server.clubs.messages import ClubError, LeaderOut, Role
from caishen.server.db import Club, ClubMember, ClubRoom, ClubTemplate, HandRow, Member, Room, User, now

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read out or typed from a phone
CODE_LENGTH = 6
MEMBERS = ("owner", "admin", "member")  # the roles that are in the club
ADMINS = ("owner", "admin")
# A person whose request an admin declined may ask again after this long (they are told so on
# the club's page; asking sooner is refused with ``declined``): no admin is asked by the same
# person more than once a day.
ASK_AGAIN_AFTER = timedelta(hours=24)


def ask_again_from(declined_at: datetime) -> datetime:
    """When a person declined at ``declined_at`` may ask to join again."""
    return declined_at + ASK_AGAIN_AFTER


def _no_stale_decline() -> ColumnElement[bool]:
    """Rows other than a no older than ``ASK_AGAIN_AFTER`` (such a person may ask again, and
    is no longer shown as declined, to them or to the admins)."""
    return (ClubMember.role != "declined") | (ClubMember.joined_at > now() - ASK_AGAIN_AFTER)
# The days a season may name: a club's games are of this century and the next (a last day of
# 9999-12-31 was accepted, and the leaderboard's day after it did not exist).
SEASON_FIRST = date(2000, 1, 1)
SEASON_LAST = date(2199, 12, 31)


def new_club_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def season_of(club: Club, today: date) -> tuple[date, date, bool]:
    """The season's first and last day, and whether the owner set them (else: the calendar
    month of ``today``, UTC)."""
    if club.season_start is not None and club.season_end is not None:
        return club.season_start, club.season_end, True
    last = calendar.monthrange(today.year, today.month)[1]
    return today.replace(day=1), today.replace(day=last), False


@dataclass(slots=True)
class Seat:
    name: str | None
    user: str | None


@dataclass(slots=True)
class RoomRow:
    """A club's room as its page shows it."""

    code: str
    template: str | None
    variant: str
    status: str
    created: str
    hands: int
    seats: list[Seat]
    record: str | None


@dataclass(slots=True)
class _Tally:
    rooms: set[str] = field(default_factory=set)
    hands: int = 0
    wins: int = 0
    chips: int = 0


class ClubStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------ clubs and roles

    def create(self, owner: str, name: str, approval: bool) -> str:
        for _ in range(10):  # 32**6 codes: a clash is rare, and tried again
            code = new_club_code()
            try:
                with Session(self.engine) as db, db.begin():
                    if db.get(Club, code) is not None:
                        continue
                    at = now()
                    db.add(Club(code=code, name=name, owner=owner, approval=approval, created_at=at))
                    db.flush()
                    db.add(ClubMember(club=code, user=owner, role="owner", joined_at=at, seen_at=at))
                return code
            except IntegrityError:
                continue
        raise ClubError("no free club code: try again", code="try_again", status=503)

    def club(self, code: str) -> Club | None:
        with Session(self.engine) as db:
            c = db.get(Club, code)
            if c is not None:
                db.expunge(c)
            return c

    def role(self, code: str, uid: str | None) -> Role | None:
        if uid is None:
            return None
        with Session(self.engine) as db:
            role = db.scalar(select(ClubMember.role).where(ClubMember.club == code, ClubMember.user == uid))
            return None if role is None else cast(Role, role)

    def member_count(self, code: str) -> int:
        with Session(self.engine) as db:
            return int(db.scalar(select(func.count()).select_from(ClubMember).where(
                ClubMember.club == code, ClubMember.role.in_(MEMBERS))) or 0)

    def people(self, code: str) -> list[tuple[str, str, Role, datetime | None]]:
        """Everyone with a row in the club (the declined only within the day, while the no
        holds): id, name, role, last seen; by role, then joining."""
        order = {r: i for i, r in enumerate(("owner", "admin", "member", "pending", "declined", "blacklisted"))}
        with Session(self.engine) as db:
            rows = db.execute(select(ClubMember.user, User.name, ClubMember.role, ClubMember.seen_at, ClubMember.joined_at)
                              .join(User, User.id == ClubMember.user).where(ClubMember.club == code)
                              .where(_no_stale_decline()))
            out = sorted(rows, key=lambda r: (order.get(r[2], 9), r[4], r[0]))
            return [(r[0], r[1], cast(Role, r[2]), r[3]) for r in out]

    def mine(self, uid: str) -> list[tuple[str, str, Role, int]]:
        """The clubs ``uid`` is in (or asked to join, or was declined by in the last day): code,
        name, role, members."""
        with Session(self.engine) as db:
            rows = list(db.execute(select(Club.code, Club.name, ClubMember.role).join(ClubMember, ClubMember.club == Club.code)
                                   .where(ClubMember.user == uid, ClubMember.role.in_((*MEMBERS, "pending", "declined")))
                                   .where(_no_stale_decline())
                                   .order_by(Club.created_at)))
        return [(r[0], r[1], cast(Role, r[2]), self.member_count(r[0])) for r in rows]

    def join(self, code: str, uid: str) -> Role:
        """``uid`` joins (or, if the club wants approval, asks to): their role afterwards. A
        blacklisted person is refused; a member stays what they are."""
        with Session(self.engine) as db, db.begin():
            club = db.get(Club, code)
            if club is None:
                raise ClubError("no such club", code="no_club", status=404)
            row = db.get(ClubMember, (code, uid), with_for_update=True)
            if row is not None and row.role == "blacklisted":
                raise ClubError("this club's admins do not let you join", code="blacklisted", status=403)
            role: Role = "pending" if club.approval else "member"
            if row is not None and row.role == "declined":
                t = now()
                if t < ask_again_from(row.joined_at):
                    raise ClubError("an admin declined your request: you may ask again 24 hours after",
                                    code="declined", status=409)
                row.role, row.joined_at = role, t  # asks again (or, approval now off, joins)
                return role
            if row is not None:
                return cast(Role, row.role)
            db.add(ClubMember(club=code, user=uid, role=role, joined_at=now()))
            return role

    def ask_again_at(self, code: str, uid: str) -> datetime | None:
        """When ``uid``, declined by the club, may ask again (None: not declined)."""
        with Session(self.engine) as db:
            row = db.get(ClubMember, (code, uid))
            return ask_again_from(row.joined_at) if row is not None and row.role == "declined" else None

    def set_role(self, code: str, uid: str, role: Role | None, allowed_from: tuple[str, ...]) -> None:
        """Give ``uid`` ``role`` (None: no row, as removed) if their role now is one of
        ``allowed_from``; else a ClubError (``not_a_member``, ``cannot_change``)."""
        try:
            with Session(self.engine) as db, db.begin():
                row = db.get(ClubMember, (code, uid), with_for_update=True)
                if row is None:
                    raise ClubError("this person is not in the club", code="not_in_club", status=404)
                if row.role not in allowed_from:
                    raise ClubError(f"a person who is {row.role} cannot be changed so", code="cannot_change",
                                    status=409)
                if role is None:
                    db.delete(row)
                else:
                    if role == "declined":
                        row.joined_at = now()  # when they may ask again counts from here
                    row.role = role
        except IntegrityError:
            raise ClubError("another request changed this at the same time; try again", code="conflict",
                            status=409) from None

    def hand_over(self, code: str, owner: str, to: str) -> None:
        """The owner ``owner`` hands the club to the admin ``to``, and is an admin from now on.
        One transaction of two guarded updates (each changes a row only if its role is still
        the one expected), so two hand-overs at once cannot leave two owners, on SQLite too."""
        with Session(self.engine) as db, db.begin():
            target = db.scalar(select(ClubMember.role).where(ClubMember.club == code, ClubMember.user == to))
            if target is None:
                raise ClubError("this person is not in the club", code="not_in_club", status=404)
            stepped_down = db.execute(update(ClubMember).where(
                ClubMember.club == code, ClubMember.user == owner, ClubMember.role == "owner").values(role="admin"))
            if stepped_down.rowcount != 1:  # type: ignore[attr-defined]
                raise ClubError("only the club's owner may do this", code="not_the_owner", status=403)
            promoted = db.execute(update(ClubMember).where(
                ClubMember.club == code, ClubMember.user == to, ClubMember.role == "admin").values(role="owner"))
            if promoted.rowcount != 1:  # type: ignore[attr-defined]
                raise ClubError("only an admin can be made the owner: make them an admin first",
                                code="cannot_change", status=409)
            db.execute(update(Club).where(Club.code == code).values(owner=to))

    def settings(self, code: str, approval: bool | None, start: date | None, end: date | None,
                 calendar_month: bool) -> None:
        with Session(self.engine) as db, db.begin():
            club = db.get(Club, code)
            assert club is not None
            if approval is not None:
                club.approval = approval
            if calendar_month:
                club.season_start = club.season_end = None
            elif start is not None or end is not None:
                if start is None or end is None or end < start:
                    raise ClubError("a season needs a first day and a last day, not before the first",
                                    code="bad_season", status=422)
                if start < SEASON_FIRST or end > SEASON_LAST:
                    # 9999-12-31 was taken, and every later look at the leaderboard failed
                    raise ClubError(f"a season's days lie from {SEASON_FIRST} to {SEASON_LAST}",
                                    code="bad_season", status=422)
                club.season_start, club.season_end = start, end

    def seen(self, code: str, uid: str, at: datetime) -> None:
        """``uid`` has the club's page open now (written at most once a minute)."""
        with Session(self.engine) as db, db.begin():
            row = db.get(ClubMember, (code, uid))
            if row is not None and (row.seen_at is None or row.seen_at < at - timedelta(minutes=1)):
                row.seen_at = at

    # ------------------------------------------------------------ templates

    def templates(self, code: str) -> list[tuple[str, str]]:
        with Session(self.engine) as db:
            rows = db.execute(select(ClubTemplate.name, ClubTemplate.options).where(ClubTemplate.club == code)
                              .order_by(ClubTemplate.created_at, ClubTemplate.name))
            return [(r[0], r[1]) for r in rows]

    def template(self, code: str, name: str) -> str | None:
        with Session(self.engine) as db:
            return db.scalar(select(ClubTemplate.options).where(ClubTemplate.club == code, ClubTemplate.name == name))

    def save_template(self, code: str, name: str, options: str) -> None:
        """Add the template, or change the one of that name."""
        try:
            with Session(self.engine) as db, db.begin():
                row = db.get(ClubTemplate, (code, name), with_for_update=True)
                if row is None:
                    db.add(ClubTemplate(club=code, name=name, options=options, created_at=now()))
                else:
                    row.options = options
        except IntegrityError:
            raise ClubError("another request saved this template at the same time; try again", code="conflict",
                            status=409) from None

    def delete_template(self, code: str, name: str) -> bool:
        with Session(self.engine) as db, db.begin():
            gone = db.execute(delete(ClubTemplate).where(ClubTemplate.club == code, ClubTemplate.name == name))
            return bool(gone.rowcount)  # type: ignore[attr-defined]

    # ------------------------------------------------------------ rooms

    def add_room(self, code: str, room: str, template: str | None, opened_by: str) -> None:
        with Session(self.engine) as db, db.begin():
            db.add(ClubRoom(room=room, club=code, template=template, opened_by=opened_by))

    def unseat(self, code: str, uid: str) -> list[str]:
        """``uid`` is no longer one of club ``code``'s members: their seat at each of the club's
        tables still waiting for players is open again (a table already playing keeps them
        until its match ends). A waiting table they opened passes to the next person seated,
        or, with nobody left, closes (``expired``). The rooms changed.

        Each room is changed by a guarded update (only if its seats are still the ones read
        and it still waits), tried again if a seat was taken or the match started meanwhile:
        a table that started in between keeps them, as any playing table does."""
        with Session(self.engine) as db:
            rooms = list(db.scalars(select(Room.code).join(ClubRoom, ClubRoom.room == Room.code)
                                    .join(Member, Member.room == Room.code)
                                    .where(ClubRoom.club == code, Member.user == uid, Room.status == "waiting")))
        changed = []
        for room in rooms:
            for _ in range(20):  # a seat taken at the same moment: read again (a few tries at most)
                done = self._unseat_once(room, uid)
                if done is not None:
                    if done:
                        changed.append(room)
                    break
        return changed

    def _unseat_once(self, room: str, uid: str) -> bool | None:
        """One try of :meth:`unseat` at ``room``: True (freed), False (nothing to free: no
        longer waiting, or not seated), None (the room changed meanwhile: try again)."""
        with Session(self.engine) as db, db.begin():
            row = db.execute(select(Room.players, Room.owner, Room.status).where(Room.code == room)).first()
            if row is None or row.status != "waiting":
                return False
            players = json.loads(row.players)
            if not any(p.get("user") == uid for p in players):
                return False
            seats = [{"name": None, "user": None, "bot": None} if p.get("user") == uid else p for p in players]
            people = [p["user"] for p in seats if p.get("user")]
            owner, status = row.owner, "waiting"
            if owner == uid:  # the table they opened: to the next person at it, else it closes
                owner, status = (people[0], "waiting") if people else (uid, "expired")
            freed = db.execute(update(Room).where(Room.code == room, Room.status == "waiting",
                                                  Room.players == row.players)
                               .values(players=json.dumps(seats, ensure_ascii=False), owner=owner, status=status))
            if freed.rowcount != 1:  # type: ignore[attr-defined]
                return None
            db.execute(delete(Member).where(Member.room == room, Member.user == uid))
            return True

    def club_of_room(self, room: str) -> str | None:
        with Session(self.engine) as db:
            return db.scalar(select(ClubRoom.club).where(ClubRoom.room == room))

    def rooms(self, code: str, statuses: tuple[str, ...], limit: int) -> list[RoomRow]:
        """The club's rooms of these statuses, newest first."""
        with Session(self.engine) as db:
            rows = db.execute(select(Room, ClubRoom.template).join(ClubRoom, ClubRoom.room == Room.code)
                              .where(ClubRoom.club == code, Room.status.in_(statuses))
                              .order_by(Room.created_at.desc(), Room.code).limit(limit))
            return [RoomRow(code=r.code, template=t, variant=r.variant, status=r.status,
                            created=r.created_at.isoformat(timespec="seconds"), hands=r.hands,
                            seats=[Seat(p.get("name"), p.get("user")) for p in json.loads(r.players)],
                            record=r.record) for r, t in rows]

    # ------------------------------------------------------------ the season

    def leaderboard(self, code: str, start: date, end: date) -> list[LeaderOut]:
        """Every person's hands finished in the club's rooms from ``start`` to ``end`` (days
        included, UTC): matches (with a hand in the season), hands, wins and chips won or lost
        in those hands (the table fee 头钱 is not a hand's: not counted); most chips first."""
        since = datetime.combine(start, datetime.min.time())
        until = datetime.combine(min(end, SEASON_LAST) + timedelta(days=1), datetime.min.time())
        tally: dict[str, _Tally] = defaultdict(_Tally)
        with Session(self.engine) as db:
            hands = db.execute(select(HandRow.room, HandRow.record).join(ClubRoom, ClubRoom.room == HandRow.room)
                               .where(ClubRoom.club == code, HandRow.record.is_not(None),
                                      HandRow.finished_at >= since, HandRow.finished_at < until))
            by_room: dict[str, list[str]] = defaultdict(list)
            for room, record in hands:
                if record is not None:
                    by_room[room].append(record)
            seated: dict[tuple[str, int], str] = {}
            if by_room:
                for room, player, user in db.execute(select(Member.room, Member.player, Member.user)
                                                     .where(Member.room.in_(list(by_room)))):
                    seated[(room, player)] = user
            for room, records in by_room.items():
                for text in records:
                    hand = json.loads(text)
                    seats, result = hand["seats"], hand["result"]
                    for s, player in enumerate(seats):
                        uid = seated.get((room, int(player)))
                        if uid is None:
                            continue  # a bot
                        t = tally[uid]
                        t.rooms.add(room)
                        t.hands += 1
                        t.wins += int(result.get("winner") == s)
                        t.chips += int(result["chips"][s])
            names = {r[0]: r[1] for r in db.execute(select(User.id, User.name).where(User.id.in_(list(tally))))}
        rows = [LeaderOut(id=uid, name=names.get(uid, "?"), matches=len(t.rooms), hands=t.hands, wins=t.wins,
                          chips=t.chips, wins_per_hand=round(t.wins / t.hands, 3),
                          chips_per_hand=round(t.chips / t.hands, 2)) for uid, t in tally.items() if t.hands]
        return sorted(rows, key=lambda r: (-r.chips, -r.wins, r.name, r.id))
