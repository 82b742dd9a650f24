"""Accounts (issue 30, item 1): a guest may claim a login name and a password, and so sign in
on other devices; the person stays the same (same id, same matches). docs/server.md, "Accounts".

- ``POST /api/account``: claim (a guest becomes an account; with no guest yet, a new person
  named after the login is made first: one click and a form);
- ``POST /api/login`` / ``POST /api/logout``: a new session for the account / end this one;
- ``GET /api/account``, ``GET /api/account/sessions``, ``DELETE /api/account/sessions/ID``;
- ``POST /api/account/password`` (the old one needed; every other session ends);
- ``POST /api/account/delete`` (the password needed): the login and the hash go, the person's
  name becomes "deleted player" in every stored match, which stay.

Passwords are kept only as argon2id hashes (``argon2-cffi``). Wrong login and wrong password
get the same answer (``bad_login``, and the same work: a hash is checked either way). Log-in
attempts are limited per login name and per address (:mod:`caishen.server.limits`, kind
``logins``). Every refusal is an :class:`AccountError` (a ``CaishenError``) answered as JSON
``{"detail", "code"}`` with its HTTP status, never a 500.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path as PathLib
from typing import Annotated

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import FastAPI, HTTPException, Path, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Engine, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from caishen.server.db import Account, Member, Room, SessionRow, User, now
from caishen.server.limits import Gate
from caishen.server.protocol import ApiError, signed_in
from caishen.server.store import Store
from caishen.server.tables import Tables
from caishen.table.signing import SIGNATURE

STATIC = PathLib(__file__).resolve().parent / "static"
DELETED_NAME = "deleted player"
SESSION_DAYS = 30  # as caishen.server.app: a session unused this long no longer counts
LOGIN_MIN, LOGIN_MAX = 3, 32
PASSWORD_MIN, PASSWORD_MAX = 8, 256
HASHING_AT_ONCE = 2  # argon2 takes 64 MiB and some 50 ms a hash: at most this many at a time
_LOGIN = re.compile(r"^[\w.-]+$")  # letters and digits of any script, _ . -

_hasher = PasswordHasher()  # argon2id, RFC 9106's low-memory profile (t=3, 64 MiB, p=4)
_hashing = threading.BoundedSemaphore(HASHING_AT_ONCE)
_dummy: list[str] = []  # a hash to check an unknown login's password against (same work)


class AccountError(ApiError):
    """A refused account request (answered by the app's handler of :class:`ApiError`)."""

    code = "account"


def bad_login() -> AccountError:
    """The one answer to a wrong login name and to a wrong password."""
    return AccountError("wrong login name or password", code="bad_login", status=401)


# ---------------------------------------------------------------- passwords and names

def hash_password(password: str) -> str:
    with _hashing:
        return _hasher.hash(password)


def check_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches the argon2 hash ``stored``; with no hash (an unknown login)
    a dummy hash is checked, so both take the same time, and False."""
    if stored is None:
        if not _dummy:
            _dummy.append(hash_password("not the password of anyone"))
        stored = _dummy[0]
        password = "\x00" + password
    with _hashing:
        try:
            return _hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False


def normal_login(text: str) -> str:
    """The login name as kept and compared: NFKC, case-folded, without surrounding space."""
    login = unicodedata.normalize("NFKC", text).casefold().strip()
    if not LOGIN_MIN <= len(login) <= LOGIN_MAX or not _LOGIN.match(login):
        raise AccountError(f"a login name is {LOGIN_MIN}-{LOGIN_MAX} letters, digits, '_', '.' or '-'",
                           code="bad_login_name", status=422)
    return login


def check_new_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AccountError(f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters", code="weak_password",
                           status=422)


def session_handle(sid: str) -> str:
    """What the pages see of a session: a digest of its id (the id itself stays in the cookie)."""
    return hashlib.sha256(sid.encode()).hexdigest()[:16]


# ---------------------------------------------------------------- messages

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClaimBody(_Strict):
    login: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)
    name: str | None = Field(default=None, max_length=24)  # the display name, when there is no guest yet


class LoginBody(_Strict):
    login: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class PasswordBody(_Strict):
    old: str = Field(min_length=1, max_length=PASSWORD_MAX)
    new: str = Field(min_length=1, max_length=PASSWORD_MAX)


class DeleteBody(_Strict):
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class AccountOut(BaseModel):
    """You: the person (``id``, ``name``; None with no cookie) and the login name if claimed."""

    id: str | None
    name: str | None
    login: str | None


class SessionOut(BaseModel):
    """One signed-in browser of yours: ``id`` is a handle (not the cookie's secret)."""

    id: str
    created: str
    last_used: str
    current: bool


class EndedOut(BaseModel):
    """How many sessions a request ended."""

    sessions: int


# ---------------------------------------------------------------- store queries

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


# ---------------------------------------------------------------- routes

def install(app: FastAPI, store: Store, gate: Gate, tables: Tables,
            uid_of: Callable[[Request], str | None]) -> AccountStore:
    """Add the account routes to ``app``; ``uid_of``: the person a request's cookie names
    (``caishen.server.app``)."""
    accounts = AccountStore(store.engine)

    def limit(request: Request, kind: str, who: str | None) -> None:
        try:
            gate.check(kind, who, request.client.host if request.client is not None else None)
        except HTTPException as exc:
            wait = int((exc.headers or {}).get("Retry-After", "1"))
            raise AccountError(f"too many attempts: try again in {wait} s", code="too_many_attempts", status=429,
                               retry_after=wait) from None


    def with_account(request: Request, password: str) -> tuple[str, str]:
        """The signed-in person and their login, once ``password`` is theirs (limited as a log-in)."""
        uid = signed_in(uid_of(request))
        row = accounts.hash_of(uid)
        if row is None:
            raise AccountError("you have no account", code="no_account", status=409)
        login, hashed = row
        limit(request, "logins", "login:" + login)
        if not check_password(hashed, password):
            raise AccountError("wrong password", code="bad_password", status=401)
        return uid, login

    def sign_in(request: Request, uid: str) -> None:
        """This browser's cookie now names a new session of ``uid`` (the one it had ends)."""
        old = request.session.get("sid")
        if isinstance(old, str):
            with Session(store.engine) as db, db.begin():
                db.execute(delete(SessionRow).where(SessionRow.id == old))
        request.session.clear()
        request.session.update(uid=uid, sid=store.new_session(uid), day=now().date().toordinal())

    @app.get("/account", include_in_schema=False)
    def account_page() -> FileResponse:
        return FileResponse(STATIC / "account.html", media_type="text/html")

    @app.get("/api/account")
    def get_account(request: Request) -> AccountOut:
        """You: your person and your login name (None for a guest)."""
        uid = uid_of(request)
        u = store.user(uid)
        return AccountOut(id=uid, name=None if u is None else u.name, login=None if uid is None else accounts.login_of(uid))

    @app.post("/api/account")
    def claim(request: Request, body: ClaimBody) -> AccountOut:
        """Claim an account: this guest (or, with no guest yet, a new person named ``name`` or
        after the login) gets a login name and a password; their matches stay theirs."""
        uid = uid_of(request)
        login = normal_login(body.login)
        check_new_password(body.password)
        if uid is not None and accounts.login_of(uid) is not None:
            raise AccountError("you already have an account", code="already_account", status=409)
        limit(request, "accounts", uid)  # each claim costs a hash
        if uid is None:
            name = "".join(ch for ch in (body.name or body.login) if unicodedata.category(ch)[0] != "C").strip()
            uid = store.save_user(None, name[:24] or login)
            sign_in(request, uid)
        accounts.claim(uid, login, hash_password(body.password))
        u = store.user(uid)
        return AccountOut(id=uid, name=None if u is None else u.name, login=login)

    @app.post("/api/login")
    def login(request: Request, body: LoginBody) -> AccountOut:
        """Sign in to an account on this browser (a new session; a guest here is left)."""
        try:
            name = normal_login(body.login)
        except AccountError:
            name = None
        limit(request, "logins", "login:" + (name or "?"))
        found = accounts.credentials(name) if name is not None else None
        if not check_password(None if found is None else found[1], body.password) or found is None:
            raise bad_login()
        uid, hashed = found
        if _hasher.check_needs_rehash(hashed):
            accounts.rehash(uid, hash_password(body.password))
        sign_in(request, uid)
        u = store.user(uid)
        return AccountOut(id=uid, name=None if u is None else u.name, login=name)

    @app.post("/api/logout")
    def logout(request: Request) -> EndedOut:
        """End this browser's session (the others stay signed in)."""
        uid = uid_of(request)
        sid = request.session.get("sid")
        ended = uid is not None and isinstance(sid, str) and accounts.end_session(uid, sid)
        request.session.clear()
        return EndedOut(sessions=int(ended))

    @app.get("/api/account/sessions")
    def list_sessions(request: Request) -> list[SessionOut]:
        """Your signed-in browsers, the latest used first; ``current``: this one."""
        uid = signed_in(uid_of(request))
        mine = request.session.get("sid")
        t = now()
        return [SessionOut(id=session_handle(sid), created=made.isoformat(timespec="seconds") + "Z",
                           last_used=used.isoformat(timespec="seconds") + "Z", current=sid == mine)
                for sid, made, used in accounts.sessions(uid, t - timedelta(days=SESSION_DAYS))]

    @app.delete("/api/account/sessions/{handle}")
    def end_session(request: Request,
                    handle: Annotated[str, Path(pattern="^[0-9a-f]{16}$")]) -> EndedOut:
        """End one of your sessions: its cookie opens nothing from now on, and your open
        tables close (4002: they reopen on the devices still signed in)."""
        uid = signed_in(uid_of(request))
        limit(request, "sessions", uid)
        sid = next((s for s, _, _ in accounts.sessions(uid, datetime.min) if session_handle(s) == handle), None)
        if sid is None or not accounts.end_session(uid, sid):
            raise AccountError("no such session", code="no_session", status=404)
        if sid == request.session.get("sid"):
            request.session.clear()
        else:
            tables.sign_out(uid)
        return EndedOut(sessions=1)

    @app.post("/api/account/password")
    def change_password(request: Request, body: PasswordBody) -> EndedOut:
        """A new password (the old one is needed). Every other session ends: whoever knew
        the old password is signed out."""
        uid, _ = with_account(request, body.old)
        check_new_password(body.new)
        sid = request.session.get("sid")
        ended = accounts.set_password(uid, hash_password(body.new), sid if isinstance(sid, str) else None)
        if ended:
            tables.sign_out(uid)
        return EndedOut(sessions=ended)

    @app.post("/api/account/delete")
    def delete_account(request: Request, body: DeleteBody) -> EndedOut:
        """Delete your account (the password is needed): the login and the password go, every
        session ends, and your name becomes "deleted player" in your matches, which stay."""
        uid, _ = with_account(request, body.password)
        ended = len(accounts.sessions(uid, datetime.min))
        codes = accounts.delete(uid)
        for code in codes:  # a table in play here shows and records the new name too
            live = tables.live.get(code)
            if live is not None:
                players = tuple(replace(p, name=DELETED_NAME) if p.user == uid else p for p in live.room.players)
                live.room = replace(live.room, players=players)
                live.session.match.names = live.room.names
        tables.sign_out(uid)
        request.session.clear()
        return EndedOut(sessions=ended)

    app.state.accounts = accounts
    return accounts
