"""Two people asked about one discard (docs/fairness.md, "An answer's step"; docs/server.md,
"What the timing tells"): each answers the same table, and neither learns from the other's
answer. Two faults, each found by a review of friends at one table (2026-12-06):

* the step counted the claims as they came: the second person's state said someone had
  claimed, and their answer, sent at the step they were shown, was refused as stale; in a room
  without a timer the table then waited for them for ever;
* the turn timer was keyed to the number of moves, and an answer is one: the second person's
  countdown started again at the first one's answer, past what their page showed (a clock that
  did not end when shown told them someone else had been asked), and their stand-in came up to
  a turn later for every person who had answered first."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass
class Two:
    """Ann (player 0) and Bob (player 1) at one table: its live table, their sockets and the
    last state each was sent."""

    live: Any
    socks: dict[int, Any]
    views: dict[int, dict[str, Any]]

    def answer(self, player: int, action: str) -> None:
        """``player`` sends ``action`` at the state they were shown; returns once it is made."""
        made = len(self.live.session.moves)
        self.socks[player].send_text(act_json(self.views[player], action))
        until(lambda: len(self.live.session.moves) > made)


def _until_both_asked(app: FastAPI, monkeypatch: pytest.MonkeyPatch, turn_seconds: int,
                      check: Callable[[Two], bool]) -> None:
    """Ann and Bob at a fixed match (one friend's seat, two bots) play, each answering as
    ``choose`` would, until both are asked about one move and ``check`` says it has seen what it
    wanted (it then makes its own answers)."""
    monkeypatch.setattr(core, "new_seed", lambda: b"two asked b")  # the same deals every run
    ann = TestClient(app)
    bob = TestClient(app)
    for c, name in ((ann, "Ann"), (bob, "Bob")):
        assert c.post("/api/me", json={"name": name}).status_code == 200
    with ann:
        bob.portal = ann.portal  # one event loop for both, as in the server
        body = {"friends": 1, "turn_seconds": turn_seconds, "hands": 24}
        code = ann.post("/api/rooms", json=body).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        with ann.websocket_connect(f"/ws/{code}") as wa, bob.websocket_connect(f"/ws/{code}") as wb:
            live = app.state.tables.live[code]
            until(lambda: len(live.clients) == 2 and not live.lock.locked())
            # the budgets' clock a second on at each look: the pings that read the sockets here
            # are not what the budgets are about
            ticks = itertools.count()
            monkeypatch.setattr(conns, "clock", lambda: time.monotonic() + next(ticks))
            two = Two(live, {0: wa, 1: wb}, {})

            def settled() -> bool:  # nothing moves by itself: the hand is over or only people are asked
                s = live.session
                if live._holding or live.lock.locked() or live._later_handles or live._tasks:
                    return False
                return s.hand_over or bool(s.waiting_for()) and all(live.room.bots[s.seats[x]] is None
                                                                       for x in s.waiting_for())

            for _ in range(3000):
                until(settled)
                for p in (0, 1):
                    got = latest_state(two.socks[p], two.views.get(p))
                    if got is not None:
                        two.views[p] = got
                s = live.session
                if s.hand_over:
                    assert not s.over, "the fixed seed asks the two about one discard in no hand: choose another"
                    for ws in (wa, wb):
                        ws.send_text(json.dumps({"type": "next", "hand": s.hand_index}))
                    until(lambda: not live.session.hand_over)
                    continue
                asked = sorted(s.seats[x] for x in s.waiting_for())
                if asked == [0, 1] and core.in_window(s) and check(two):
                    return
                for p in asked:
                    two.answer(p, choose(two.views[p]))
            raise AssertionError("the two were never asked about one discard")


def test_the_second_person_asked_answers_at_the_discards_step_after_the_first_claims(
        app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    def check(two: Two) -> bool:
        claim = {p: [c["action"] for c in two.views[p]["choices"] if c["kind"] in CLAIMS] for p in (0, 1)}
        if not any(claim.values()):
            return False
        first = next(p for p in (0, 1) if claim[p])
        other = 1 - first
        step = two.views[other]["step"]
        assert two.views[first]["step"] == step  # both asked at the discard's step
        at = len(two.live.session.moves)
        two.answer(first, claim[first][0])
        assert core.public_step(two.live.session) == step  # the claim moves no step while the window is open
        assert latest_state(two.socks[other], two.views[other]) is two.views[other]  # and tells the other nothing
        two.answer(other, "pass")  # at the step shown: accepted (it was refused as stale)
        # both answers are at the discard's step as a signed move's step is counted
        # (movesig.steps, what caishen verify checks a signature against)
        moves = two.live.session.moves
        steps = movesig.steps([(m.seat, m.action.text()) for m in moves])
        assert [m.action.text().split()[0] for m in moves[at:at + 2]] == [claim[first][0].split()[0], "pass"]
        assert steps[at][0] == steps[at + 1][0] == step
        return True

    _until_both_asked(app, monkeypatch, 0, check)  # no timer: a refused answer left the table waiting


def test_an_answer_in_a_claim_window_does_not_restart_the_others_countdown(
        app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    def check(two: Two) -> bool:
        live = two.live
        deadline, timer = live._deadline, live._timer
        assert deadline is not None and timer is not None
        two.answer(0, "pass")
        until(lambda: not live.lock.locked())
        s = live.session
        assert core.in_window(s) and s.seats[s.waiting_for()[0]] == 1  # Bob still decides
        # Bob's countdown is the one he was shown: the same timer, the same deadline
        assert live._timer is timer and live._deadline == deadline
        return True

    _until_both_asked(app, monkeypatch, 600, check)
