"""Two people asked on one discard in a room with a turn timer (docs/server.md, "What the
timing tells"): each has the whole turn from the moment the discard is put to them. The
countdown was started again at every answer in the window (the table's timer was keyed to the
number of moves, and an answer is a move): the second person's page counted down to a time
the table no longer kept, their stand-in came up to a turn later for every person who had
answered first, and a clock that did not end when the page said told them someone else had been
asked (a review of friends at one table, 2026-12-06)."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from caishen.server import conns, core
from helpers_server import act_json, app_fixture, choose

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite")


def _until(check: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.001)  # polling the table's state, not timing a behaviour


def _latest(ws: Any, view: dict[str, Any] | None) -> dict[str, Any] | None:
    ws.send_text('{"type":"ping"}')
    while (msg := ws.receive_json())["type"] != "pong":
        assert msg["type"] != "error", msg
        if msg["type"] == "state":
            view = msg
    return view


def test_an_answer_in_a_claim_window_does_not_restart_the_others_countdown(
        app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "new_seed", lambda: b"two asked b")  # a fixed match: the same deals every run
    ann = TestClient(app)
    bob = TestClient(app)
    for c, name in ((ann, "Ann"), (bob, "Bob")):
        assert c.post("/api/me", json={"name": name}).status_code == 200
    with ann:
        bob.portal = ann.portal
        code = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 600, "hands": 24}).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        with ann.websocket_connect(f"/ws/{code}") as wa, bob.websocket_connect(f"/ws/{code}") as wb:
            live = app.state.tables.live[code]
            _until(lambda: len(live.clients) == 2 and not live.lock.locked())
            ticks = itertools.count()
            monkeypatch.setattr(conns, "clock", lambda: time.monotonic() + next(ticks))
            socks = {0: wa, 1: wb}
            views: dict[int, dict[str, Any] | None] = {0: None, 1: None}

            def settled() -> bool:
                s = live.session
                if live._holding or live.lock.locked() or live._later_handles or live._tasks:
                    return False
                return s.hand_over or bool(s.waiting_for()) and all(live.room.bots[s.seats[x]] is None
                                                                       for x in s.waiting_for())

            def answer(player: int, action: str) -> None:
                made = len(live.session.moves)
                view = views[player]
                assert view is not None
                socks[player].send_text(act_json(view, action))
                _until(lambda: len(live.session.moves) > made)

            for _ in range(3000):
                _until(settled)
                for p in (0, 1):
                    views[p] = _latest(socks[p], views[p])
                s = live.session
                if s.hand_over:
                    for ws in (wa, wb):
                        ws.send_text(json.dumps({"type": "next", "hand": s.hand_index}))
                    _until(lambda: not live.session.hand_over)
                    continue
                asked = sorted(s.seats[x] for x in s.waiting_for())
                if asked == [0, 1] and core.in_window(s):
                    deadline, timer = live._deadline, live._timer
                    assert deadline is not None and timer is not None
                    answer(0, "pass")
                    _until(lambda: not live.lock.locked())
                    assert core.in_window(live.session) and s.seats[s.waiting_for()[0]] == 1  # Bob still decides
                    # Bob's countdown is the one he was shown: the same timer, the same deadline
                    assert live._timer is timer and live._deadline == deadline
                    break
                for p in asked:
                    answer(p, choose(views[p]))  # type: ignore[arg-type]
            else:
                raise AssertionError("the two were never asked about one discard")
