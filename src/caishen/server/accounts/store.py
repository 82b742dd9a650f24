"""Accounts' store queries: the ``accounts`` and ``sessions`` rows, over the same engine as
:class:`caishen.server.store.Store`."""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import Engine, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from caishen.server.accounts.messages import AccountError
from caishen.server.db import Account, Member, Room, SessionRow, User, now
from caishen.table.signing import SIGNATURE

DELETED_NAME = "deleted player"


class AccountStore:
    """The account rows (over the same engine as :class:`caishen.server.store.Store`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def login_of(self, uid: str) -> str | None:
        with Session(self.engine) as db:
            return db.scalar(select(Account.login).where(Account.user == uid))

    def credentials(self, login: str) -> tuple[str, str] | None:
        """The person and the password hash of ``login``, if any."""
        with Session(self.engine) as db:
            row = db.execute(select(Account.user, Account.password).where(Account.login == login)).first()
            return None if row is None else (row[0], row[1])

    def hash_of(self, uid: str) -> tuple[str, str] | None:
        """The login and the password hash of person ``uid``, if they have an account."""
        with Session(self.engine) as db:
            row = db.execute(select(Account.login, Account.password).where(Account.user == uid)).first()
            return None if row is None else (row[0], row[1])

    def claim(self, uid: str, login: str, hashed: str) -> None:
        """Give person ``uid`` the login and the password hash; cookies from before sessions
        stop naming them (an account is not opened by a cookie without a session)."""
        try:
            with Session(self.engine) as db, db.begin():
                u = db.get(User, uid)
                if u is None or u.deleted_at is not None:
                    raise AccountError("no such person", code="no_guest", status=401)
                if db.get(Account, uid) is not None:
                    raise AccountError("you already have an account", code="already_account", status=409)
                if db.scalar(select(Account.user).where(Account.login == login)) is not None:
                    raise AccountError("this login name is taken", code="login_taken", status=409)
                at = now()
                db.add(Account(user=uid, login=login, password=hashed, created_at=at, password_at=at))
                u.revoked_at = u.revoked_at or at
        except IntegrityError:  # a claim of the same name (or by the same person) at the same time
            raise AccountError("this login name is taken", code="login_taken", status=409) from None

    def rehash(self, uid: str, hashed: str) -> None:
        with Session(self.engine) as db, db.begin():
            row = db.get(Account, uid)
            if row is not None:
                row.password = hashed

    def set_password(self, uid: str, hashed: str, keep: str | None) -> int:
        """A new password hash; every session of ``uid`` but ``keep`` ends. How many ended."""
        with Session(self.engine) as db, db.begin():
            row = db.get(Account, uid)
            if row is None:
                raise AccountError("you have no account", code="no_account", status=409)
            row.password, row.password_at = hashed, now()
            ended = db.execute(delete(SessionRow).where(SessionRow.user == uid, SessionRow.id != (keep or "")))
            return int(ended.rowcount or 0)  # type: ignore[attr-defined]

    def sessions(self, uid: str, since: datetime) -> list[tuple[str, datetime, datetime]]:
        """The sessions of ``uid`` used since ``since``: id, made, last used; newest use first."""
        with Session(self.engine) as db:
            rows = db.execute(select(SessionRow.id, SessionRow.created_at, SessionRow.last_seen)
                              .where(SessionRow.user == uid, SessionRow.last_seen >= since)
                              .order_by(SessionRow.last_seen.desc(), SessionRow.created_at.desc()))
            return [(r[0], r[1], r[2]) for r in rows]

    def end_session(self, uid: str, sid: str) -> bool:
        with Session(self.engine) as db, db.begin():
            ended = db.execute(delete(SessionRow).where(SessionRow.user == uid, SessionRow.id == sid))
            return bool(ended.rowcount)  # type: ignore[attr-defined]

    def delete(self, uid: str) -> list[str]:
        """Delete the account of ``uid``: the login and the hash, every session; the person's
        name becomes "deleted player" in their user row, in the rooms' players and in the
        finished matches' records (unsigned again: the centre signs them when it serves them).
        The rooms whose players changed."""
        with Session(self.engine) as db, db.begin():
            db.execute(delete(Account).where(Account.user == uid))
            db.execute(delete(SessionRow).where(SessionRow.user == uid))
            u = db.get(User, uid)
            if u is not None:
                u.name, u.deleted_at, u.revoked_at = DELETED_NAME, now(), now()
            codes = list(db.scalars(select(Member.room).where(Member.user == uid)))
            for room in db.scalars(select(Room).where(Room.code.in_(codes))) if codes else ():
                players = json.loads(room.players)
                mine = [i for i, p in enumerate(players) if p.get("user") == uid]
                for i in mine:
                    players[i]["name"] = DELETED_NAME
                room.players = json.dumps(players, ensure_ascii=False)
                if room.record is not None:
                    record = json.loads(room.record)
                    for i in mine:
                        if i < len(record.get("players", [])):
                            record["players"][i] = DELETED_NAME
                    record.pop(SIGNATURE, None)
                    room.record = json.dumps(record, ensure_ascii=False)
            return codes
