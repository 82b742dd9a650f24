"""A page that reconnects says the last move it saw (``?since=H:S``, issue 28 item 6): the
table tells it each move it missed, as the moves were told to a page that stayed connected,
then its state; when the table no longer keeps them all (``HISTORY_EVENTS``), the state alone.
Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from caishen.server.protocol import parse_since
from caishen.server.tables import live as tables_module
from helpers_server import act_json, app_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")


def _until(check: Callable[[], bool], seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.001)  # polling the table's state, not timing a behaviour


def _quiet(app: FastAPI, code: str) -> None:
    """Until the table waits for the person, Ann (asked, or a hand over): nothing more is sent."""
    live = app.state.tables.live[code]

    def waits() -> bool:
        s = live.session
        return (s.hand_over or s.seat_of(0) in s.waiting_for()) and not live._holding and not live.lock.locked()

    _until(waits)


def _drain(ws: Any) -> list[dict[str, Any]]:
    """Every message sent to ``ws`` so far (a ping's pong comes after them all)."""
    ws.send_text('{"type":"ping"}')
    got = []
    while (msg := ws.receive_json())["type"] != "pong":
        got.append(msg)
    return got


def _arrival(ws: Any) -> list[dict[str, Any]]:
    """What a new connection is sent as it joins, up to its state (a ping may be answered
    before it joins, so a pong is no barrier here)."""
    got = []
    while (msg := ws.receive_json())["type"] != "state":
        got.append(msg)
    return [*got, msg]


def _asked_to_discard(app: FastAPI, code: str, ws: Any, log: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Plays on (passing on claims, "next" after a hand) until the person is asked to
    discard; that state. Every message read goes into ``log``."""
    for _ in range(500):
        _quiet(app, code)
        got = _drain(ws)
        if log is not None:
            log.extend(got)
        states = [m for m in got if m["type"] == "state"]
        if not states:  # the answer just sent is still on its way: the table moves on first
            continue
        view = states[-1]
        assert not view["match_over"], view
        if view["hand_end"] is not None:
            ws.send_text(json.dumps({"type": "next", "hand": view["hand"]}))
        elif any(c["kind"] == "discard" for c in view["choices"]):
            return view
        elif view["choices"]:
            ws.send_text(act_json(view, "pass"))
    raise AssertionError("never asked to discard")


def _discard(view: dict[str, Any]) -> str:
    return [c["action"] for c in view["choices"] if c["kind"] == "discard"][-1]


def _practice(app: FastAPI) -> tuple[TestClient, str]:
    ann = TestClient(app)
    assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
    return ann, ann.post("/api/practice?pace=fast").json()["code"]


def test_since_is_two_plain_numbers_or_nothing() -> None:
    assert parse_since("3:41") == (3, 41)
    assert parse_since("0:0") == (0, 0)
    for bad in (None, "", "3", "3:", ":4", "3:4:5", "-1:2", "3:x", "٣:4", "1" * 20 + ":1", " 3:4"):
        assert parse_since(bad) is None, bad


def test_a_page_back_with_since_is_told_every_move_it_missed_then_its_state(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tables_module, "HISTORY_EVENTS", 1000)  # whatever happens until Ann's next turn
    ann, code = _practice(app)
    with ann, ann.websocket_connect(f"/ws/{code}") as stayed:
        view = _asked_to_discard(app, code, stayed)
        since = f"{view['hand']}:{view['step']}"
        stayed.send_text(act_json(view, _discard(view)))  # the moves that follow: this page sees them
        told: list[dict[str, Any]] = []
        last = _asked_to_discard(app, code, stayed, told)
        events = [m for m in told if m["type"] == "event"]
        assert events[0]["kind"] == "discard" and events[0]["seat"] == view["me"], told
        assert [(e["hand"], e["step"]) for e in events] == sorted({(e["hand"], e["step"]) for e in events})
        with ann.websocket_connect(f"/ws/{code}?since={since}") as back:
            got = _arrival(back)
        # the moves after ``since``, each as the page that stayed was told it, then the state
        assert got[:-1] == events
        assert got[-1]["type"] == "state" and (got[-1]["hand"], got[-1]["step"]) == (last["hand"], last["step"])
        # a page that saw everything is told nothing again; one without since, its state only
        with ann.websocket_connect(f"/ws/{code}?since={last['hand']}:{last['step']}") as upto:
            assert [m["type"] for m in _arrival(upto)] == ["state"]
        with ann.websocket_connect(f"/ws/{code}") as fresh:
            assert [m["type"] for m in _arrival(fresh)] == ["state"]


def test_a_page_too_far_behind_gets_its_state_alone(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables_module, "HISTORY_EVENTS", 1)  # the table keeps one move
    ann, code = _practice(app)
    with ann, ann.websocket_connect(f"/ws/{code}") as stayed:
        view = _asked_to_discard(app, code, stayed)
        since = f"{view['hand']}:{view['step']}"
        told: list[dict[str, Any]] = []
        for _ in range(10):  # until two moves were told after ``since`` (Ann's discard, and more)
            stayed.send_text(act_json(view, _discard(view)))
            view = _asked_to_discard(app, code, stayed, told)
            if sum(m["type"] == "event" for m in told) >= 2:
                break
        live = app.state.tables.live[code]
        assert len(live.history) == 1 and live.history_from > parse_since(since)
        with ann.websocket_connect(f"/ws/{code}?since={since}") as back:
            got = _arrival(back)
        assert [m["type"] for m in got] == ["state"]
        assert (got[0]["hand"], got[0]["step"]) == (view["hand"], view["step"])
