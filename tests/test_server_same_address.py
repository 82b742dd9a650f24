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

from caishen.server.tables import address_token
from helpers_server import app_fixture, person, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")
HOME, AWAY = "198.51.100.7", "203.0.113.20"  # documentation addresses (RFC 5737)


def _to_pong(ws: Any) -> list[dict[str, Any]]:
    """Every message up to the answer to a ping sent now (after the joins were done)."""
    ws.send_json({"type": "ping"})
    got = []
    for _ in range(2000):
        msg = ws.receive_json()
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
                want = {"type": "same_address", "groups": [["Ann", "Bob"]]}
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
