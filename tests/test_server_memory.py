"""Bounded memory (issue 26): a room whose table nobody opens costs no memory and expires (24 h
by default), and is not loaded at the next start; a table nobody is connected to leaves memory
and is rebuilt, the same, when opened again. The clocks are injected: nothing here waits."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from caishen.server import core
from caishen.server.app import create_app
from caishen.server.db import now
from helpers_server import act_json, asked, next_of, next_state, until, url_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


url = url_fixture("sqlite", "postgresql")


def test_unopened_rooms_expire_and_are_not_reloaded(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann:
        assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
        waiting = ann.post("/api/rooms", json={"friends": 1}).json()["code"]
        unopened = ann.post("/api/practice").json()["code"]
        opened = ann.post("/api/practice").json()["code"]
        tables = app.state.tables
        assert tables.live == {}  # a room costs no memory until its table is opened
        with ann.websocket_connect(f"/ws/{opened}") as ws:
            next_state(ws)
        assert set(tables.live) == {opened}
        assert tables.sweep() == (0, 0)  # a day has not passed
        tables.wall = lambda: now() + timedelta(hours=24, minutes=1)
        assert tables.sweep()[1] == 2
        statuses = {c: ann.get(f"/api/rooms/{c}").json()["status"] for c in (waiting, unopened, opened)}
        assert statuses == {waiting: "expired", unopened: "expired", opened: "playing"}
        cookies = dict(ann.cookies)
    again = create_app(url)
    with TestClient(again, cookies=cookies) as ann2:
        assert set(again.state.tables.live) == {opened}  # the expired rooms were not loaded
        with pytest.raises(WebSocketDisconnect) as refused, ann2.websocket_connect(f"/ws/{unopened}") as ws:
            ws.receive_json()
        assert refused.value.code == 1008
    with TestClient(again) as bob:
        assert bob.post("/api/me", json={"name": "Bob"}).status_code == 200
        assert bob.post(f"/api/rooms/{waiting}/join").status_code == 409  # no seat in an expired room
        assert set(again.state.tables.live) == {opened}


def test_a_table_nobody_is_connected_to_leaves_memory_and_comes_back_the_same(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as bo:
        assert bo.post("/api/me", json={"name": "Bo"}).status_code == 200
        # the instant pace: once Bo is asked, nothing moves until he acts (at the normal pace
        # the bots' moves would still be coming when the table leaves memory)
        code = bo.post("/api/practice?pace=instant").json()["code"]
        tables = app.state.tables
        t = [1000.0]
        tables.clock = lambda: t[0]
        with bo.websocket_connect(f"/ws/{code}") as ws:
            v = asked(ws)
            tables.sweep()
            t[0] += 10 * tables.evict_after
            assert tables.sweep()[0] == 0  # someone is connected
        assert tables.sweep()[0] == 0  # idle from now on
        t[0] += tables.evict_after - 1
        assert tables.sweep()[0] == 0 and code in tables.live
        t[0] += 1
        assert tables.sweep()[0] == 1 and tables.live == {}
        # reads of a table out of memory come from the database and do not bring it back
        assert bo.get(f"/api/matches/{code}").json()["status"] == "playing"
        assert [m["code"] for m in bo.get("/api/my/matches").json()] == [code]
        assert tables.live == {}
        with bo.websocket_connect(f"/ws/{code}") as ws:
            back = next_state(ws)
        assert (back["hand"], back["step"], back["tiles"], back["choices"]) == (
            v["hand"], v["step"], v["tiles"], v["choices"])
        assert code in tables.live


def test_rooms_with_the_same_rules_share_one_ruleset() -> None:
    """The rules code remembers rulesets by identity (with their counting tables): a new but
    equal ruleset for every room kept one for good per match."""
    a = core.ruleset_json(core.build_ruleset("longgang", {}, 8))
    b = core.ruleset_json(core.build_ruleset("longgang", {"bulldozer": False}, 8))
    assert core.ruleset_from_json(a) is core.ruleset_from_json(a)
    assert core.ruleset_from_json(b) is not core.ruleset_from_json(a)
    assert core.ruleset_from_json(b) == core.build_ruleset("longgang", {"bulldozer": False}, 8)


@contextmanager
def practice(url: str, name: str) -> Iterator[tuple[Any, Any, str, list[float]]]:
    """A person's practice table at the instant pace (nothing moves until the person acts):
    the client, the app's tables (their clock ``t[0]``, injected), the room's code, ``t``."""
    app = create_app(url)
    with TestClient(app) as client:
        assert client.post("/api/me", json={"name": name}).status_code == 200
        code = client.post("/api/practice?pace=instant").json()["code"]
        tables = app.state.tables
        t = [1000.0]
        tables.clock = lambda: t[0]
        yield client, tables, code, t


def test_a_table_that_leaves_memory_is_freed_at_once_not_at_the_collectors_sweep(url: str) -> None:
    """A table holds no cycle through its parts (spectators, votes, timers): once it leaves
    memory, reference counting frees it. The server freezes what has lived a second, so a table
    in a cycle waited, whole, for the collector's sweep minutes later (issue 26)."""
    with practice(url, "Bo") as (bo, tables, code, t):
        with bo.websocket_connect(f"/ws/{code}") as ws:
            asked(ws)
            ws.send_json({"type": "vote", "kind": "pause"})  # a vote's timer, and the votes' part used
            assert next_of(ws, "vote_state")["kind"] == "pause"
        until(lambda: not tables.live[code].clients)
        table = weakref.ref(tables.live[code])
        gc.disable()
        try:
            assert tables.sweep()[0] == 0
            t[0] += tables.evict_after
            tables.sweep()
            assert code not in tables.live
            assert table() is None  # no collection ran: freed by its last reference going
        finally:
            gc.enable()


def test_a_finished_match_leaves_memory_at_the_first_sweep_after_its_last_viewer(url: str) -> None:
    """A finished match is served from its stored record: it does not wait ``evict_after``
    (at a busy centre hundreds of finished tables waited minutes, each some 300 KiB)."""
    with practice(url, "Solo") as (solo, tables, code, t):
        with solo.websocket_connect(f"/ws/{code}") as ws:
            asked(ws)
            ws.send_json({"type": "vote", "kind": "dismiss"})  # alone: the vote passes at once
            while not (state := next_state(ws))["match_over"]:
                pass
            live = tables.live[code]
            until(lambda: live.stored.match_done and not live.lock.locked())
            assert tables.sweep()[0] == 0 and code in tables.live  # Solo still looks at it
        until(lambda: not live.clients)
        tables.sweep()  # (or the app's own, every 5 s: whichever comes first)
        assert tables.live == {} and t[0] == 1000.0  # gone, and no clock moved
        assert state["match_end"]["ended_by"] == "dismissed"
        assert solo.get(f"/api/matches/{code}").json()["status"] == "over"  # from the database
        assert solo.get(f"/api/matches/{code}/record").json()["result"]["ended_by"] == "dismissed"
        assert tables.live == {}


def test_a_connection_left_at_a_table_that_left_memory_is_sent_to_the_table_as_stored(url: str) -> None:
    """A sweep can take a table out of memory between a page's lookup of it and its join (the
    table had nobody connected long enough): the connection must not stay at the old object,
    where a move would be made nowhere and never answered. Its next message closes it with
    CLOSE_MOVED (1012), as a table moved to another node does; the page connects again and is
    served the table as stored, where its move counts."""
    from caishen.server.conns import CLOSE_MOVED  # noqa: PLC0415

    with practice(url, "Eve") as (eve, tables, code, _t):
        with eve.websocket_connect(f"/ws/{code}") as ws:
            v = asked(ws)
            left = tables.live.pop(code)  # the sweep's part, while the page is still at it
            left.evict()
            ws.send_text(act_json(v, v["choices"][-1]["action"]))
            with pytest.raises(WebSocketDisconnect) as moved:
                while True:
                    ws.receive_json()
            assert moved.value.code == CLOSE_MOVED
        with eve.websocket_connect(f"/ws/{code}") as ws:  # the page's reconnect
            again = asked(ws)
            assert (again["hand"], again["step"], again["tiles"]) == (v["hand"], v["step"], v["tiles"])  # nothing lost
            ws.send_text(act_json(again, again["choices"][-1]["action"]))
            after = next_state(ws, errors=False)
            # the move was taken: the table moved on (a pass on a claim is no step: the phase
            # and whose turn it is tell the states of one step apart)
            key = ("hand", "step", "phase", "current")
            assert [after[k] for k in key] != [again[k] for k in key] or after["hand_end"] is not None
