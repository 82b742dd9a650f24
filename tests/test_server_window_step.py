"""Two people asked on one discard answer the same table (docs/fairness.md, "Signed moves"):
every answer in a claim window has the step after the discard, however many answered before
it. The step counted the claims as they came: the second person's state said someone had
claimed, and their answer, sent at the step they were shown, was refused as stale; in a room
without a timer the table then waited for them for ever (an operator's review, 2026-12-06)."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from caishen.server import conns, core
from caishen.table import movesig
from helpers_server import act_json, app_fixture, choose, latest_state, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite")
CLAIMS = ("chow", "pong", "exposed_kong")


def test_the_second_person_asked_answers_at_the_discards_step_after_the_first_claims(
        app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "new_seed", lambda: b"two asked b")  # a fixed match: the same deals every run
    ann = TestClient(app)
    bob = TestClient(app)
    for c, name in ((ann, "Ann"), (bob, "Bob")):
        assert c.post("/api/me", json={"name": name}).status_code == 200
    with ann:
        bob.portal = ann.portal  # one event loop for both, as in the server
        code = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "hands": 24}).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        with ann.websocket_connect(f"/ws/{code}") as wa, bob.websocket_connect(f"/ws/{code}") as wb:
            live = app.state.tables.live[code]
            until(lambda: len(live.clients) == 2 and not live.lock.locked())
            # the budgets' clock a second on at each look: the pings that read the sockets here
            # are not what the budgets are about
            ticks = itertools.count()
            monkeypatch.setattr(conns, "clock", lambda: time.monotonic() + next(ticks))
            socks = {0: wa, 1: wb}
            views: dict[int, dict[str, Any] | None] = {0: None, 1: None}

            def settled() -> bool:  # nothing moves by itself: the hand is over or only people are asked
                s = live.session
                if live._holding or live.lock.locked():
                    return False
                return s.hand_over or bool(s.waiting_for()) and all(live.room.bots[s.seats[x]] is None
                                                                       for x in s.waiting_for())

            def answer(player: int, action: str) -> None:
                made = len(live.session.moves)
                view = views[player]
                assert view is not None
                socks[player].send_text(act_json(view, action))
                until(lambda: len(live.session.moves) > made)

            for _ in range(3000):
                until(settled)
                for p in (0, 1):
                    views[p] = latest_state(socks[p], views[p])
                s = live.session
                if s.hand_over:
                    assert not s.over, "the fixed seed asks the two about one discard in no hand: choose another"
                    for ws in (wa, wb):
                        ws.send_text(json.dumps({"type": "next", "hand": s.hand_index}))
                    until(lambda: not live.session.hand_over)
                    continue
                asked = sorted(s.seats[x] for x in s.waiting_for())
                claim = {p: [c["action"] for c in views[p]["choices"] if c["kind"] in CLAIMS]  # type: ignore[index]
                         for p in asked}
                if asked == [0, 1] and any(claim.values()):
                    first = next(p for p in asked if claim[p])
                    other = 1 - first
                    step = views[other]["step"]  # type: ignore[index]
                    assert views[first]["step"] == step  # both asked at the discard's step
                    at = len(live.session.moves)
                    answer(first, claim[first][0])
                    assert core.public_step(live.session) == step  # the claim moves no step while the window is open
                    assert latest_state(socks[other], views[other]) is views[other]  # and tells the other nothing
                    answer(other, "pass")  # at the step shown: accepted (it was refused as stale)
                    break
                for p in asked:
                    answer(p, choose(views[p]))  # type: ignore[arg-type]
            else:
                raise AssertionError("the two were never asked about one discard")
            # both answers are at the discard's step as a signed move's step is counted
            # (movesig.steps, what caishen verify checks a signature against)
            moves = live.session.moves
            steps = movesig.steps([(m.seat, m.action.text()) for m in moves])
            assert [m.action.text().split()[0] for m in moves[at:at + 2]] == [claim[first][0].split()[0], "pass"]
            assert steps[at][0] == steps[at + 1][0] == step
