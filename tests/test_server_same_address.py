"""The same-address warning (issue 30, "Table manners"): when players of a room connect from
one network address, every page at the table is told their names, and a page that connects
later is told too; players at different addresses hear nothing of it. What the table keeps is
a token keyed by the room's secret seed (caishen.server.tables.address_token), never the
address, and nothing of it is stored."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, text
from starlette.websockets import WebSocketDisconnect

from caishen.server.conns import CLOSE_REMOVED
from caishen.server.tables import address_token
from helpers_server import app_fixture, person, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")
HOME, AWAY = "198.51.100.7", "203.0.113.20"  # documentation addresses (RFC 5737)


_LAST: dict[int, dict[str, Any]] = {}  # the latest state each socket read (a state is sent once)


def _read(ws: Any) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    if msg["type"] == "state":
        _LAST[id(ws)] = msg
    return msg


def _to_pong(ws: Any) -> list[dict[str, Any]]:
    """Every message up to the answer to a ping sent now (after the joins were done)."""
    ws.send_json({"type": "ping"})
    got = []
    for _ in range(2000):
        msg = _read(ws)
        if msg == {"type": "pong"}:
            return got
        got.append(msg)
    raise AssertionError("no pong within 2,000 messages")


def test_the_token_keeps_no_address() -> None:
    seed, other = bytes(range(32)), bytes(range(1, 33))
    t = address_token(seed, HOME)
    assert len(t) == 24 and HOME not in t and t == address_token(seed, HOME)
    assert t != address_token(other, HOME)  # another room: unlike
    assert t != address_token(seed, AWAY)
    assert address_token(seed, "2001:db8::1") == address_token(seed, "2001:0db8:0:0::1")  # one address, two spellings
    # no address to compare: a loopback peer (a proxy that did not say who), a test client's name, none
    for host in ("127.0.0.1", "::1", "0.0.0.0", "testclient", "", None):
        assert address_token(seed, host) == ""


def test_players_at_one_address_are_named_to_everyone(app: FastAPI) -> None:
    with person(app, "Ann", HOME) as ann:
        bob, cy = person(app, "Bob", HOME), person(app, "Cy <b>", AWAY)
        bob.portal = cy.portal = ann.portal  # one event loop for all, as in the server
        code = ann.post("/api/rooms", json={"friends": 2, "turn_seconds": 0, "hands": 8}).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").status_code == 200
        assert cy.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        with ann.websocket_connect(f"/ws/{code}") as wa, cy.websocket_connect(f"/ws/{code}") as wc:
            live = app.state.tables.live[code]
            until(lambda: len(live.clients) == 2 and not live.lock.locked())
            # Ann and Cy: two addresses, no warning
            for ws in (wa, wc):
                assert all(m["type"] != "same_address" for m in _to_pong(ws))
            with bob.websocket_connect(f"/ws/{code}") as wb:
                until(lambda: len(live.clients) == 3 and not live.lock.locked())
                seats = {x["name"]: x["player"] for x in ann.get(f"/api/rooms/{code}").json()["seats"]}
                want = {"type": "same_address", "groups": [["Ann", "Bob"]], "players": [[seats["Ann"], seats["Bob"]]]}
                for ws in (wa, wb, wc):  # every page, Cy's too
                    assert [m for m in _to_pong(ws) if m["type"] == "same_address"] == [want]
            # Bob again, once his first page has gone: the same group, told to that page only
            until(lambda: len(live.clients) == 2 and not live.lock.locked())
            with bob.websocket_connect(f"/ws/{code}") as wb2:
                until(lambda: len(live.clients) == 3 and not live.lock.locked())
                assert [m for m in _to_pong(wb2) if m["type"] == "same_address"] == [want]
                for ws in (wa, wc):
                    assert all(m["type"] != "same_address" for m in _to_pong(ws))
    # nothing of the address is stored, in any table
    engine = create_engine(str(app.state.store.engine.url))
    try:
        with engine.connect() as conn:
            dialect = engine.dialect.name
            if dialect == "sqlite":
                tables = [r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))]
            else:
                tables = [r[0] for r in conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))]
            for table in tables:
                for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                    assert HOME not in " ".join(str(v) for v in row), table
    finally:
        engine.dispose()


def _next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (a ping's answer may overtake it: the table answers
    pings at once, and a removal waits for the database)."""
    for _ in range(5000):
        msg = _read(ws)
        if msg["type"] == kind:
            return dict(msg)
    raise AssertionError(f"no {kind} within 5,000 messages")


def _error(ws: Any) -> str:
    return str(_next_of(ws, "error")["code"])


def test_the_owner_removes_one_of_a_group_and_a_bot_plays_the_seat_to_the_end(app: FastAPI) -> None:
    """"The host can remove a seat" (issue 30): only the room's owner, only a person told in a
    same-address group, never himself. The removal is stored; the person's pages are closed
    (4003) and cannot come back; everyone else is told; a bot plays the seat from then on."""
    with person(app, "Ann", HOME) as ann:
        bob, cy = person(app, "Bob <b>", HOME), person(app, "Cy", AWAY)
        bob.portal = cy.portal = ann.portal
        code = ann.post("/api/rooms", json={"friends": 2, "turn_seconds": 0, "hands": 8, "pace": "instant"}).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").status_code == 200
        assert cy.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        seats = {x["name"]: x["player"] for x in ann.get(f"/api/rooms/{code}").json()["seats"]}
        a, b, c = seats["Ann"], seats["Bob <b>"], seats["Cy"]
        with ann.websocket_connect(f"/ws/{code}") as wa, cy.websocket_connect(f"/ws/{code}") as wc:
            live = app.state.tables.live[code]
            # before any warning nobody can be removed
            wa.send_json({"type": "remove", "player": b})
            assert _error(wa) == "no_remove"
            with bob.websocket_connect(f"/ws/{code}") as wb:
                until(lambda: len(live.clients) == 3 and not live.lock.locked())
                assert [m["players"] for m in _to_pong(wa) if m["type"] == "same_address"] == [[[a, b]]]
                wc.send_json({"type": "remove", "player": b})  # Cy is not the owner
                assert _error(wc) == "not_owner"
                for who in (c, a):  # not in the group; himself
                    wa.send_json({"type": "remove", "player": who})
                    assert _error(wa) == "no_remove"
                assert live.removed == set()
                wa.send_json({"type": "remove", "player": b})
                told = {"type": "removed", "player": b, "name": "Bob <b>"}
                for ws in (wa, wc):
                    assert _next_of(ws, "removed") == told
                with pytest.raises(WebSocketDisconnect) as closed:
                    for _ in range(5000):
                        wb.receive_json()
                assert closed.value.code == CLOSE_REMOVED
            # stored: the room says so to everyone, and Bob's page cannot come back
            assert [x["removed"] for x in bob.get(f"/api/rooms/{code}").json()["seats"]] == [x == b for x in range(4)]
            assert app.state.store.room(code).players[b].removed is True
            with bob.websocket_connect(f"/ws/{code}") as wb2, pytest.raises(WebSocketDisconnect) as again:
                wb2.receive_json()
            assert again.value.code == CLOSE_REMOVED
            wa.send_json({"type": "remove", "player": b})  # once is enough
            assert _error(wa) == "no_remove"

            # the table plays on: Ann and Cy hand their seats to their stand-ins too, and the
            # hand runs to its end, Bob's seat moving without him (a bot's, "full")
            hand, seat_b = live.session.hand_index, live.session.seat_of(b)
            done = len(live.log[hand])

            async def everyone_away() -> None:
                async with live.lock:
                    live.away |= {a, c}
                    await live._go()

            ann.portal.call(everyone_away)
            until(lambda: not live.lock.locked() and live.session.hand_over, bound=120)
            moves = live.log[hand][done:]
            assert [seat for seat, *_ in moves if seat == seat_b] or len(moves) < 4  # (a hand won at once)
            assert live.removed == {b} and live._auto_to_move() is None

