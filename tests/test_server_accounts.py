"""Accounts (issue 30, item 1), on SQLite and PostgreSQL: a guest claims a login and keeps
the history; logging in on another browser, logging out; the list of sessions and ending one;
changing the password; deleting the account (the matches stay, under "deleted player"); the
limits on log-in attempts; one answer for a wrong name and a wrong password; passwords kept
as argon2 hashes only; a database from before accounts upgrades with its people as guests."""

from __future__ import annotations

import dataclasses
import json
from base64 import b64encode
from typing import Any

import itsdangerous
import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import text, update
from sqlalchemy.orm import Session
from starlette.websockets import WebSocketDisconnect

from caishen.server import core
from caishen.server.app import create_app
from caishen.server.conns import CLOSE_SIGNED_OUT, Rate
from caishen.server.db import MIGRATIONS, Room, make_engine, now
from caishen.server.limits import HttpLimits
from caishen.table.match import selfplay
from caishen.table.signing import load_or_create_key, sign_record
from helpers_server import old_room, url_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

url = url_fixture("sqlite", "postgresql")

PASSWORD = "correct horse battery"


def _guest(client: TestClient, name: str) -> str:
    r = client.post("/api/me", json={"name": name})
    assert r.status_code == 200
    uid: str = r.json()["id"]
    return uid


def _claim(client: TestClient, login: str, password: str = PASSWORD) -> dict[str, Any]:
    r = client.post("/api/account", json={"login": login, "password": password})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _login(client: TestClient, login: str, password: str = PASSWORD) -> Any:
    return client.post("/api/login", json={"login": login, "password": password})


def test_a_guest_claims_an_account_keeps_the_history_and_logs_in_elsewhere(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as phone, TestClient(app) as desktop:
        uid = _guest(phone, "Ann")
        code = phone.post("/api/practice").json()["code"]
        assert phone.get("/api/account").json() == {"id": uid, "name": "Ann", "login": None}
        assert _claim(phone, " Ann_Li ") == {"id": uid, "name": "Ann", "login": "ann_li"}  # the same person
        assert [m["code"] for m in phone.get("/api/my/matches").json()] == [code]
        mine = phone.get("/api/my/matches").json()[0]
        assert mine["players"][mine["me"]] == "Ann" and len(mine["chips"]) == len(mine["players"])
        assert desktop.get("/api/my/matches").json() == []
        r = _login(desktop, "ANN_LI")  # login names compare case-folded
        assert r.status_code == 200 and r.json() == {"id": uid, "name": "Ann", "login": "ann_li"}
        assert [m["code"] for m in desktop.get("/api/my/matches").json()] == [code]
        assert desktop.get(f"/api/rooms/{code}").json()["seats"][0]["mine"] is True
        sessions = desktop.get("/api/account/sessions").json()
        assert len(sessions) == 2 and [s["current"] for s in sessions].count(True) == 1
        assert set(sessions[0]) == {"id", "created", "last_used", "current"}
        # log out here: this browser is nobody now, the phone stays signed in
        assert desktop.post("/api/logout").json() == {"sessions": 1}
        assert desktop.get("/api/me").json() == {"id": None, "name": None}
        assert desktop.get("/api/my/matches").json() == []
        assert phone.get("/api/me").json()["id"] == uid
        assert len(phone.get("/api/account/sessions").json()) == 1


def test_claiming_with_no_guest_yet_makes_the_person_and_signs_in(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as c:
        r = c.post("/api/account", json={"login": "bo", "password": PASSWORD, "name": "Bo <b>"})
        assert r.status_code == 422 and r.json()["code"] == "bad_login_name"  # 3 characters at least
        out = _claim(c, "bo.chen")
        assert out["login"] == "bo.chen" and out["name"] == "bo.chen"
        assert c.get("/api/me").json()["id"] == out["id"]
        assert c.post("/api/practice").status_code == 200


def test_passwords_are_stored_as_argon2_hashes_only(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as c:
        uid = _guest(c, "Cy")
        _claim(c, "cy-login")
        assert c.post("/api/account/password", json={"old": PASSWORD, "new": "another long one"}).status_code == 200
    with app.state.store.engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text('SELECT "user", login, password FROM accounts'))]
        assert len(rows) == 1 and rows[0][:2] == (uid, "cy-login")
        stored = rows[0][2]
        assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
        for table in ("accounts", "users", "sessions", "settings"):  # neither password anywhere
            dump = json.dumps([[str(v) for v in r] for r in conn.execute(text(f"SELECT * FROM {table}"))])
            assert PASSWORD not in dump and "another long one" not in dump


def test_a_wrong_name_and_a_wrong_password_get_the_same_answer(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as c, TestClient(app) as other:
        _guest(c, "Di")
        _claim(c, "di-login")
        wrong_password = _login(other, "di-login", "not the password")
        wrong_name = _login(other, "nobody-here", PASSWORD)
        bad_name = _login(other, "<script>", PASSWORD)  # not even a login name: the same answer
        for r in (wrong_password, wrong_name, bad_name):
            assert r.status_code == 401
            assert r.json() == {"detail": "wrong login name or password", "code": "bad_login"}
            assert "set-cookie" not in r.headers
        assert other.get("/api/me").json()["id"] is None


def test_log_in_flooding_is_limited_per_account_and_per_address(url: str) -> None:
    """10 attempts on one login, then one a minute (the right password too), from any address;
    20 from one address, whatever the names. Nothing is waited for: the buckets are full at
    the start, and here they refill once an hour (the defaults, one a minute and one in 5 s,
    could refill on a busy machine while the attempts' hashes are checked)."""
    rates = HttpLimits().rates
    person, address = rates["logins"]
    assert (person.burst, address.burst) == (10, 20)
    slow = HttpLimits(rates={**rates, "logins": (Rate(1 / 3600, 10), Rate(1 / 3600, 20))})
    app = create_app(url, limits=slow)
    with TestClient(app) as owner:
        _guest(owner, "Ed")
        _claim(owner, "ed-login")
    with TestClient(app, client=("10.0.0.1", 1000)) as a, TestClient(app, client=("10.0.0.2", 1000)) as b:
        answers = [_login(a, "ed-login", f"guess {i}").status_code for i in range(10)]
        assert answers == [401] * 10
        r = _login(a, "ed-login", PASSWORD)
        assert r.status_code == 429 and r.json()["code"] == "too_many_attempts"
        assert int(r.headers["Retry-After"]) >= 1
        r = _login(b, "ed-login", PASSWORD)  # another address: still this account's limit
        assert r.status_code == 429 and r.json()["code"] == "too_many_attempts"
        # address a has 10 more attempts (20 in all) on other names, then none on any name
        answers = [_login(a, f"other-{i}", PASSWORD).status_code for i in range(10)]
        assert answers == [401] * 10
        assert _login(a, "someone-else", PASSWORD).status_code == 429
    with TestClient(app, client=("10.0.0.3", 1000)) as c:
        assert c.get("/api/me").json()["id"] is None
        assert _login(c, "someone-else", PASSWORD).status_code == 401  # that name and address: not limited


def test_an_ended_session_is_refused_at_once(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as phone, TestClient(app) as laptop:
        _guest(phone, "Fa")
        _claim(phone, "fa-login")
        code = phone.post("/api/practice").json()["code"]
        assert _login(laptop, "fa-login").status_code == 200
        sessions = phone.get("/api/account/sessions").json()
        other = next(s["id"] for s in sessions if not s["current"])
        assert phone.delete("/api/account/sessions/nothexatall").status_code == 422
        r = phone.delete("/api/account/sessions/0123456789abcdef")
        assert r.status_code == 404 and r.json()["code"] == "no_session"
        with laptop.websocket_connect(f"/ws/{code}") as ws:
            assert isinstance(ws.receive_json(), dict)  # connected as the player
            assert phone.delete(f"/api/account/sessions/{other}").json() == {"sessions": 1}
            msg = ws.receive()
            while msg["type"] == "websocket.send":  # a state may still have been on its way
                msg = ws.receive()
            assert msg["type"] == "websocket.close" and msg["code"] == CLOSE_SIGNED_OUT  # the open table too
        assert laptop.get("/api/me").json() == {"id": None, "name": None}
        assert laptop.get("/api/my/matches").json() == []
        r = laptop.get("/api/account/sessions")
        assert r.status_code == 401 and r.json()["code"] == "not_signed_in"
        with pytest.raises(WebSocketDisconnect) as refused, laptop.websocket_connect(f"/ws/{code}") as ws:
            ws.receive_json()
        assert refused.value.code == 1008
        # the phone is still signed in; ending its own session signs it out
        mine = phone.get("/api/account/sessions").json()
        assert [s["current"] for s in mine] == [True]
        assert phone.delete(f"/api/account/sessions/{mine[0]['id']}").status_code == 200
        assert phone.get("/api/me").json()["id"] is None
        assert _login(phone, "fa-login").status_code == 200  # the account itself is untouched


def test_changing_the_password_needs_the_old_one_and_ends_the_other_sessions(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as phone, TestClient(app) as laptop:
        _guest(phone, "Gu")
        _claim(phone, "gu-login")
        assert _login(laptop, "gu-login").status_code == 200
        r = phone.post("/api/account/password", json={"old": "not it at all", "new": "a new password"})
        assert r.status_code == 401 and r.json()["code"] == "bad_password"
        r = phone.post("/api/account/password", json={"old": PASSWORD, "new": "short"})
        assert r.status_code == 422 and r.json()["code"] == "weak_password"
        r = phone.post("/api/account/password", json={"old": PASSWORD, "new": " " * 12})  # was taken
        assert r.status_code == 422 and r.json()["code"] == "weak_password"
        assert phone.post("/api/account/password", json={"old": PASSWORD, "new": "a new password"}).json() == {
            "sessions": 1}
        assert laptop.get("/api/me").json()["id"] is None  # the other browser is signed out
        assert phone.get("/api/me").json()["name"] == "Gu"  # this one is not
        assert _login(laptop, "gu-login").status_code == 401
        assert _login(laptop, "gu-login", "a new password").status_code == 200


def _finish_with_record(app: Any, code: str) -> None:
    """Room ``code`` as if its match were over: a signed record of a 1-hand match under the
    room's names (the match itself played by random players)."""
    room = app.state.store.room(code)
    ruleset = core.build_ruleset(room.variant, {}, 8)
    record = dataclasses.replace(selfplay(ruleset, b"accounts", hands=1), players=room.names)
    with Session(app.state.store.engine) as db, db.begin():
        db.execute(update(Room).where(Room.code == code).values(
            status="over", finished_at=now(), record=sign_record(record.dumps(), load_or_create_key())))


def test_deleting_the_account_keeps_the_matches_under_deleted_player(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as hana, TestClient(app) as laptop:
        uid = _guest(hana, "Hana Secretname")
        _claim(hana, "hana-login")
        code = hana.post("/api/practice").json()["code"]
        _finish_with_record(app, code)
        playing = hana.post("/api/practice").json()["code"]  # a table in play in this process
        assert "Hana Secretname" in hana.get(f"/api/matches/{code}/record").text
        assert _login(laptop, "hana-login").status_code == 200
        r = hana.post("/api/account/delete", json={"password": "wrong password"})
        assert r.status_code == 401 and r.json()["code"] == "bad_password"
        assert hana.post("/api/account/delete", json={"password": PASSWORD}).json() == {"sessions": 2}
        for c in (hana, laptop):
            assert c.get("/api/me").json()["id"] is None
        assert _login(laptop, "hana-login").json()["code"] == "bad_login"
        result = hana.get(f"/api/matches/{code}").json()
        assert result["players"][0] == "deleted player" and result["status"] == "over"
        record = hana.get(f"/api/matches/{code}/record").text
        assert "Secretname" not in record and "deleted player" in record
        assert hana.get(f"/api/matches/{code}/verify").json()["ok"] is True  # signed again by the centre
        assert hana.get(f"/api/rooms/{code}").json()["seats"][0]["name"] == "deleted player"
        assert hana.get(f"/api/rooms/{playing}").json()["seats"][0]["name"] == "deleted player"
        assert hana.get(f"/api/matches/{playing}").json()["players"][0] == "deleted player"  # the live table's
        assert "Secretname" not in hana.get(f"/api/matches/{playing}/record").text
        with app.state.store.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM accounts")).scalar() == 0
            assert conn.execute(text("SELECT count(*) FROM sessions WHERE \"user\" = :u"), {"u": uid}).scalar() == 0
            assert conn.execute(text("SELECT name FROM users WHERE id = :u"), {"u": uid}).scalar() == "deleted player"
            for table in ("users", "rooms", "members", "hands"):
                dump = json.dumps([[str(v) for v in r] for r in conn.execute(text(f"SELECT * FROM {table}"))])
                assert "Secretname" not in dump, table
        # the login name is free again
        assert _claim(laptop, "hana-login")["id"] != uid


def test_clear_refusals_never_a_500(url: str) -> None:
    app = create_app(url)
    with TestClient(app, raise_server_exceptions=False) as c, TestClient(app) as d:
        r = c.get("/api/account/sessions")
        assert r.status_code == 401 and r.json()["code"] == "not_signed_in"
        r = c.post("/api/account/password", json={"old": PASSWORD, "new": "another one"})
        assert r.status_code == 401 and r.json()["code"] == "not_signed_in"
        _guest(c, "Io")
        r = c.post("/api/account/delete", json={"password": PASSWORD})
        assert r.status_code == 409 and r.json()["code"] == "no_account"
        r = c.post("/api/account", json={"login": "with space", "password": PASSWORD})
        assert r.status_code == 422 and r.json()["code"] == "bad_login_name"
        r = c.post("/api/account", json={"login": "io-login", "password": "short"})
        assert r.status_code == 422 and r.json()["code"] == "weak_password"
        _claim(c, "io-login")
        r = c.post("/api/account", json={"login": "io-other", "password": PASSWORD})
        assert r.status_code == 409 and r.json()["code"] == "already_account"
        _guest(d, "Jo")
        r = d.post("/api/account", json={"login": "IO-LOGIN", "password": PASSWORD})
        assert r.status_code == 409 and r.json()["code"] == "login_taken"
        for body in ({}, {"login": "x"}, {"login": "io-login", "password": PASSWORD, "extra": 1}, []):
            assert c.post("/api/login", json=body).status_code == 422
        assert c.post("/api/login", content=b"{not json", headers={"content-type": "application/json"}).status_code == 422
        # a lone surrogate (not Unicode text) is refused, and echoed escaped: it once failed the 422 itself (a 500)
        for path, raw in (("/api/login", b'{"login": "io-login", "password": "\\ud800abcdefgh"}'),
                          ("/api/account", b'{"login": "a\\ud800bcd", "password": "abcdefghij"}'),
                          ("/api/me", b'{"name": "\\udfff"}')):
            r = c.post(path, content=raw, headers={"content-type": "application/json"})
            assert r.status_code == 422 and r.json()["detail"][0]["type"] == "string_unicode", (path, r.text)


def test_names_with_html_are_kept_as_text(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as c:
        name = '<b>Bo</b><img src=x>'
        _guest(c, name)
        assert _claim(c, "html-name")["name"] == name
        assert c.get("/api/account").json()["name"] == name


def _session_cookie(secret: str, uid: str, sid: str) -> str:
    """The cookie as the centre signs it (SessionMiddleware: base64 JSON, timestamp-signed)."""
    data = {"uid": uid, "sid": sid, "day": now().date().toordinal()}
    return itsdangerous.TimestampSigner(secret).sign(b64encode(json.dumps(data).encode())).decode()


def test_a_database_from_before_accounts_upgrades_with_its_people_as_guests(url: str) -> None:
    engine = make_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    ruleset = core.ruleset_json(core.build_ruleset("longgang", {}, 8))
    players = json.dumps([{"name": "Kai", "user": "old-kai", "bot": None}] + [
        {"name": f"bot {i}", "user": None, "bot": "greedy"} for i in range(1, 4)])
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0008")
        conn.execute(text("INSERT INTO users (id, name, created_at) VALUES ('old-kai', 'Kai', :at)"), {"at": now()})
        conn.execute(text("INSERT INTO settings (key, value) VALUES ('cookie_secret', 'old-secret')"))
        conn.execute(text("INSERT INTO sessions (id, \"user\", created_at, last_seen) VALUES ('old-sid', 'old-kai', "
                          ":at, :at)"), {"at": now()})
        old_room(conn, ruleset, players)
    engine.dispose()
    app = create_app(url)  # upgrades to accounts
    with TestClient(app, cookies={"caishen": _session_cookie("old-secret", "old-kai", "old-sid")}) as kai:
        assert kai.get("/api/account").json() == {"id": "old-kai", "name": "Kai", "login": None}  # a guest
        assert [m["code"] for m in kai.get("/api/my/matches").json()] == ["oldroom"]
        _claim(kai, "kai-login")
    with TestClient(app) as elsewhere:
        assert _login(elsewhere, "kai-login").status_code == 200
        assert [m["code"] for m in elsewhere.get("/api/my/matches").json()] == ["oldroom"]
