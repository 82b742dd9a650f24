"""Sessions (issue 26): a cookie lasts 30 days without use and is renewed on use; "log out
everywhere" ends every session of a person and closes their tables; a database from before
sessions upgrades, and its cookies keep working until their person logs out everywhere."""

from __future__ import annotations

import json
import time
from base64 import b64encode
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import itsdangerous
import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import text, update
from sqlalchemy.orm import Session
from starlette.websockets import WebSocketDisconnect

from caishen.server import app as app_module
from caishen.server import core
from caishen.server.app import create_app
from caishen.server.conns import CLOSE_SIGNED_OUT
from caishen.server.db import MIGRATIONS, SessionRow, make_engine, now
from caishen.server.tables import live as tables_module
from helpers_server import next_state, url_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


url = url_fixture("sqlite", "postgresql")


def _old_cookie(secret: str, uid: str) -> str:
    """A cookie as the centre signed it before sessions: the person's id alone."""
    return itsdangerous.TimestampSigner(secret).sign(b64encode(json.dumps({"uid": uid}).encode())).decode()


def test_a_cookie_is_renewed_on_use_and_expires_after_30_days_without(
    url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = create_app(url)
    with TestClient(app) as ann:
        r = ann.post("/api/me", json={"name": "Ann"})
        assert r.status_code == 200 and "max-age=2592000" in r.headers["set-cookie"].lower()
        assert "set-cookie" not in ann.get("/api/me").headers  # renewed once a day, not on every request
        monkeypatch.setattr(app_module, "now", lambda: now() + timedelta(days=2))
        r = ann.get("/api/me")  # used two days later: sent again, 30 days from then
        assert r.json()["name"] == "Ann" and "max-age=2592000" in r.headers["set-cookie"].lower()
        monkeypatch.undo()
        # the session unused for 31 days (its last use moved back in the database)
        with Session(app.state.store.engine) as db, db.begin():
            db.execute(update(SessionRow).values(last_seen=now() - timedelta(days=31)))
        assert ann.get("/api/me").json() == {"id": None, "name": None}
        assert ann.post("/api/practice").status_code == 401


def test_log_out_everywhere_ends_every_session_and_closes_the_tables(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as phone:
        assert phone.post("/api/me", json={"name": "Bo"}).status_code == 200
        code = phone.post("/api/practice").json()["code"]
        with TestClient(app, cookies=dict(phone.cookies)) as desktop, desktop.websocket_connect(f"/ws/{code}") as ws:
            assert ws.receive_json()["type"] == "state"
            r = phone.post("/api/logout-everywhere")
            assert r.status_code == 200 and r.json() == {"sessions": 1}
            msg = ws.receive()
            while msg["type"] == "websocket.send":  # a state may still have been on its way
                msg = ws.receive()
            assert msg["type"] == "websocket.close" and msg["code"] == CLOSE_SIGNED_OUT
            assert desktop.get("/api/me").json()["id"] is None
        assert phone.get("/api/me").json()["id"] is None
        with pytest.raises(WebSocketDisconnect) as refused, phone.websocket_connect(f"/ws/{code}") as ws2:
            ws2.receive_json()
        assert refused.value.code == 1008


def test_a_database_from_before_sessions_upgrades_and_its_cookies_keep_working(url: str) -> None:
    engine = make_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
        conn.execute(text("INSERT INTO users (id, name, created_at) VALUES ('old-person', 'Cy', :at)"), {"at": now()})
        conn.execute(text("INSERT INTO settings (key, value) VALUES ('cookie_secret', 'the-old-secret')"))
    engine.dispose()
    app = create_app(url)  # upgrades to sessions
    old = _old_cookie("the-old-secret", "old-person")
    with TestClient(app, cookies={"caishen": old}) as cy:
        r = cy.get("/api/me")
        assert r.json() == {"id": "old-person", "name": "Cy"}
        renewed = r.headers["set-cookie"].split(";")[0].removeprefix("caishen=")
        assert renewed != old  # the cookie now names a session of its own
        assert cy.post("/api/practice").status_code == 200
        assert cy.post("/api/logout-everywhere").json() == {"sessions": 1}
    for cookie in (old, renewed):  # neither the old cookie nor the renewed one opens anything now
        with TestClient(app, cookies={"caishen": cookie}) as again:
            assert again.get("/api/me").json()["id"] is None


def _friends_room(ann: TestClient, bob: TestClient, turn_seconds: int) -> str:
    """Ann's room for a friend, Bob seated: playing (two people, two bots)."""
    assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
    assert bob.post("/api/me", json={"name": "Bob"}).status_code == 200
    code: str = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": turn_seconds, "pace": "instant"}).json()["code"]
    assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
    return code


def test_the_others_may_hand_an_absent_seat_to_a_bot_after_3_minutes_and_he_takes_it_back(url: str) -> None:
    """A room without a turn timer: Bob leaves; before 3 minutes Ann cannot hand his seat to
    a bot, after them she can (the view offers it); the bot plays his turns; Bob comes back
    and the seat is his again. The 3 minutes are moved back in the table, not waited for."""
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob:
        code = _friends_room(ann, bob, turn_seconds=0)
        with ann.websocket_connect(f"/ws/{code}") as wa:
            # Ann's seat, read from the table once her join is done: the first deal may wait for
            # Bob's claim on a bot's discard, and Ann, not asked, is then rightly sent no state
            live = _joined(app, code)
            ann_player = live.clients[0].player
            with bob.websocket_connect(f"/ws/{code}"):
                # Bob's seat, read from the table: while a discard waits for Ann's claim, Bob,
                # not asked, is rightly sent no state (this test once waited for one until its
                # time limit, in the pure-Python build)
                _wait_until(lambda: any(c.player != ann_player for c in live.clients))
                bob_player = next(c.player for c in live.clients if c.player != ann_player)
            bob_seat = live.session.seats.index(bob_player)
            _wait_until(lambda: bob_player in live.gone_since)  # his leaving is taken in
            wa.send_text(json.dumps({"type": "takeover", "seat": bob_seat}))
            msg = wa.receive_json()
            while msg["type"] in ("state", "event"):  # Bob's arrival and departure; the bots' moves
                assert msg["type"] == "event" or msg["takeover"] == []
                msg = wa.receive_json()
            assert msg["code"] == "no_takeover"
            live.gone_since[bob_player] -= tables_module.TAKEOVER_SECONDS  # three minutes on
            # asked for while a claim pause runs, Ann's state is rightly not sent (nobody may learn
            # whether someone may claim), and the table may then wait for Bob's claim, which the
            # others hear of only when his real three minutes are up (this test once waited here
            # until its time limit): asked for once the table rests, it is sent at once
            _wait_until(lambda: _rests_showing(live, ann_player))
            wa.send_text('{"type":"help","on":false}')  # asks for the state: it offers the takeover
            v = _state_where(wa, lambda v: v["takeover"] != [])  # (past states put before the three minutes)
            assert v["takeover"] == [bob_seat]
            wa.send_text(json.dumps({"type": "takeover", "seat": v["me"]}))  # not one's own
            msg = wa.receive_json()
            while msg["type"] in ("state", "event"):  # the bots' moves at the room's pace
                msg = wa.receive_json()
            assert msg["code"] == "no_takeover"
            wa.send_text(json.dumps({"type": "takeover", "seat": bob_seat}))
            # and asks for her state: the table may now wait for a claim Ann is not asked on, and
            # then rightly sends her nothing (this test once waited here until its time limit);
            # states put before the takeover may still be on their way: read up to the first after it
            wa.send_text('{"type":"help","on":false}')
            v = _state_where(wa, lambda v: _seat(v, bob_seat)["away"])
            assert v["takeover"] == []
            # the stand-in plays Bob's turns: the table never waits for him
            _wait_until(lambda: bob_seat not in live.session.waiting_for())
            with bob.websocket_connect(f"/ws/{code}"):
                # the seat is his again (read from the table: while a discard waits for Ann's
                # claim, Bob, not asked, is rightly sent no state, so his socket may stay silent)
                _wait_until(lambda: bob_player not in live.handed and bob_player not in live.away)
                # and Ann's view says so: built as the table builds it, since asking for it on
                # her socket may rightly get nothing (the table may now wait for Bob's claim,
                # which Ann is not asked on: a stress run once waited here until its time limit)
                extras = core.ViewExtras(code=code, variant=live.room.variant, hands_total=live.room.hands or None)
                seen = json.loads(core.table_view_json(live.session, ann_player, live._people(), extras, []))
                assert not _seat(seen, bob_seat)["away"]


def _seat(view: dict[str, Any], seat: int) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in view["seats"] if s["seat"] == seat)
    return found


def _state_where(ws: Any, want: Callable[[dict[str, Any]], bool], bound: int = 2000) -> dict[str, Any]:
    """The first state ``want`` accepts, within ``bound`` messages (the bots' moves come between)."""
    for _ in range(bound):
        v = next_state(ws)
        if want(v):
            return v
    raise AssertionError(f"no such state within {bound} messages")


def _rests_showing(live: tables_module.LiveTable, player: int) -> bool:
    """Whether the table rests (no move, claim pause or telling under way: it waits for a
    person, who does not act here) where ``player`` may be sent a state when it asks for one."""
    if live.lock.locked() or live._holding or live._untold:
        return False
    s = live.session
    if not s.dealt or not (s.hand_over or s.waiting_for()):
        return False
    return any(c.player == player and live._may_see(c) for c in live.clients)


def _joined(app: Any, code: str) -> tables_module.LiveTable:
    """The table once the one connection opened on it has joined (a join holds its lock)."""
    tables = app.state.tables
    _wait_until(lambda: code in tables.live and len(tables.live[code].clients) == 1
                and not tables.live[code].lock.locked())
    live: tables_module.LiveTable = tables.live[code]
    return live


def _wait_until(check: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.01)  # polling the table's state, not timing a behaviour


def test_no_seat_is_handed_to_a_bot_in_a_room_with_a_timer(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob:
        code = _friends_room(ann, bob, turn_seconds=60)
        with ann.websocket_connect(f"/ws/{code}") as wa:
            # her join done, read from the table (while the first deal waits for Bob's claim she
            # is rightly sent no state: she would wait for the turn timer's 60 s)
            live = _joined(app, code)
            bob_player = 1
            assert live.clients[0].player != bob_player
            live.gone_since[bob_player] -= 10 * tables_module.TAKEOVER_SECONDS
            wa.send_text(json.dumps({"type": "takeover", "seat": live.session.seats.index(bob_player)}))
            msg = wa.receive_json()
            while msg["type"] in ("state", "event"):  # the bots' moves at the room's pace
                assert msg["type"] == "event" or msg["takeover"] == []
                msg = wa.receive_json()
            assert msg["code"] == "no_takeover"  # the timer hands seats over in such rooms
