"""Accounts' routes: claim, log in and out, sessions, password, delete (docs/server.md,
"Accounts")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path as PathLib
from typing import Annotated

from fastapi import FastAPI, Path, Request
from fastapi.responses import FileResponse
from sqlalchemy import delete
from sqlalchemy.orm import Session

from caishen.server.accounts.messages import (
    AccountError,
    AccountOut,
    ClaimBody,
    DeleteBody,
    EndedOut,
    LoginBody,
    PasswordBody,
    SessionOut,
    bad_login,
)
from caishen.server.accounts.passwords import (
    check_new_password,
    check_password,
    hash_password,
    needs_rehash,
    normal_login,
    session_handle,
)
from caishen.server.accounts.store import DELETED_NAME, AccountStore
from caishen.server.db import SessionRow, now
from caishen.server.limits import Gate
from caishen.server.protocol import ApiError, clean_name, signed_in
from caishen.server.store import Store
from caishen.server.tables import Tables

STATIC = PathLib(__file__).resolve().parent.parent / "static"
SESSION_DAYS = 30  # as caishen.server.app: a session unused this long no longer counts


def install(app: FastAPI, store: Store, gate: Gate, tables: Tables,
            uid_of: Callable[[Request], str | None]) -> AccountStore:
    """Add the account routes to ``app``; ``uid_of``: the person a request's cookie names
    (``caishen.server.app``)."""
    accounts = AccountStore(store.engine)

    def limit(request: Request, kind: str, who: str | None) -> None:
        try:
            gate.check(kind, who, request.client.host if request.client is not None else None)
        except ApiError as exc:
            wait = exc.retry_after or 1
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
            try:
                name = clean_name(body.name or body.login)
            except ApiError:
                name = login  # a name that shows nothing: the login name stands for it
            uid = store.save_user(None, name)
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
        if needs_rehash(hashed):
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
