"""托管, the stand-in of an away person (issue 30, "Table manners"). A room's ``stand_in``
policy: ``discard`` (the default, as the regional apps do) only draws and discards: it passes
every claim and every win it is offered, declares no kong and no self-drawn win, and discards
the tile just drawn (摸打); ``full`` plays as the bot would. The stand-in starts when the turn
timer runs out, spares the first prompt after the person connects again, and ends with one
click ("back") or a move of their own. Rooms from before migration 0011 keep ``full``."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from fastapi import FastAPI

from caishen.engine.actions import ActionKind
from caishen.server import core
from helpers_server import app_fixture, choose, person, to_pong, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")
OWN = (ActionKind.WIN, ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG, ActionKind.DECLARE_DRAW)


@pytest.mark.parametrize("variant", ["longgang", "luoyang-gangci"])
def test_the_discard_only_stand_in_never_claims_wins_or_kongs(variant: str) -> None:
    """Every prompt of four people over whole matches (the full bot moving, so that claims,
    kongs and wins come up): the ``discard`` stand-in's answer is legal, a pass wherever a pass
    is, else a discard, and the tile just drawn whenever that may be discarded."""
    ruleset = core.build_ruleset(variant, {}, 8)
    rng = random.Random(2026)
    bot = core.stand_in(ruleset)
    seen: Counter[str] = Counter()
    for _ in range(3):
        session = core.new_session(ruleset, (None, None, None, None), rng.randbytes(16), ("a", "b", "c", "d"))
        while not session.over:
            if session.hand_over:
                session.next_hand()
                continue
            for seat in session.waiting_for():
                legal = session.legal_actions(seat)
                got = core.stand_in_action(bot, session, seat, "discard")
                assert got in legal
                if any(a.kind is ActionKind.PASS for a in legal):
                    assert got.kind is ActionKind.PASS
                    seen["claim or win declined" if len(legal) > 1 else "pass"] += 1
                    continue
                assert got.kind is ActionKind.DISCARD
                drawn = session.drawn_tile(seat)
                if drawn is not None and any(a.kind is ActionKind.DISCARD and a.tile == drawn for a in legal):
                    assert got.tile == drawn
                    seen["drawn tile discarded"] += 1
                if any(a.kind in OWN for a in legal):
                    seen["own win or kong declined"] += 1
            seat = session.waiting_for()[0]
            session.act(seat, core.stand_in_action(bot, session, seat, "full"))
    assert seen["claim or win declined"] > 50 and seen["drawn tile discarded"] > 200, seen
    assert seen["own win or kong declined"] > 0, seen


# slow: it failed 2 times in about 10 runs of the new server tests together (-n 2), and once in
# a CI run's slow stage on 2026-12-06: the table still waited for Bob because his last act had
# not reached it yet, and he answered again from a state without choices. He now answers only
# after a barrier behind his last act, the question as the table holds it.
@pytest.mark.slow
def test_the_stand_in_plays_only_draws_and_discards_spares_a_return_and_ends_with_back(app: FastAPI) -> None:
    with person(app, "Ann") as ann, person(app, "Bob") as bob:
        bob.portal = ann.portal  # one event loop for both, as in the server
        room = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 600, "hands": 8, "pace": "instant"}).json()
        assert room["stand_in"] == "discard"  # the default
        code = room["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        players = {x["name"]: x["player"] for x in ann.get(f"/api/rooms/{code}").json()["seats"] if x["name"]}
        a, b = players["Ann"], players["Bob"]
        with ann.websocket_connect(f"/ws/{code}") as wa, bob.websocket_connect(f"/ws/{code}") as wb:
            live = app.state.tables.live[code]

            def stands_for(player: int) -> bool:  # the table stands, waiting for that person only
                s = live.session
                return (not live.lock.locked() and not live._holding and s.dealt and not s.hand_over  # no claim pause
                        and {s.seats[x] for x in s.waiting_for()} == {player})

            def bob_moves() -> None:
                """Bob answers the question the table waits for him on, as the table holds it.
                His messages are read up to a pong first: a barrier behind his last act (the
                table could still wait for him only because that act had not reached it yet,
                and he answered twice) and his socket never falls behind; then, only if the
                table still waits for him alone."""
                to_pong(wb)
                if not stands_for(b):
                    return
                s = live.session
                choices = [json.loads(core._choice_json(x)) for x in s.legal_actions(s.seat_of(b))]
                assert choices, "the table waits for Bob with nothing to ask him"
                wb.send_json({"type": "act", "hand": s.hand_index, "step": core.public_step(s),
                              "action": choose({"choices": choices})})

            def to_ann(ann_ws: Any) -> None:
                """Bob answers (and both start the next hand) until the table waits for Ann alone."""
                for _ in range(500):
                    until(lambda: stands_for(a) or stands_for(b) or (not live.lock.locked() and live.session.hand_over))
                    if stands_for(a):
                        return
                    if live.session.hand_over:
                        assert not live.session.over
                        h = live.session.hand_index
                        for ws in (ann_ws, wb):
                            ws.send_json({"type": "next", "hand": h})
                        until(lambda h=h: live.session.hand_index != h and not live.lock.locked())
                        continue
                    bob_moves()
                raise AssertionError("the table never waited for Ann alone within 500 of Bob's moves")

            to_ann(wa)
            s = live.session
            hand, seat_a = s.hand_index, s.seat_of(a)
            done = len(live.log[hand])
            # her timer runs out (called as the timer calls it): 托管 begins, the stand-in plays
            ann.portal.call(live._timeout, (s.hand_index, len(s.moves), s.hand_over))
            assert a in live.away
            until(lambda: stands_for(b) or live.session.hand_over)  # on until Bob must answer
            mine = [core.action_of(text).kind for seat, text, _, _ in live.log[hand][done:] if seat == seat_a]
            assert mine and set(mine) <= {ActionKind.DISCARD, ActionKind.PASS}, mine

            # she comes back on a new connection: 托管 goes on, but her next prompt is hers
            wa.close()
            until(lambda: not live.lock.locked() and all(c.player != a for c in live.clients))
            with ann.websocket_connect(f"/ws/{code}") as wa2:
                until(lambda: any(c.player == a for c in live.clients) and not live.lock.locked())
                assert a in live.away and a in live.spared
                to_ann(wa2)
                # the table waits for her (the stand-in spared this prompt), still under 托管
                assert a in live.away
                view = [m for m in to_pong(wa2) if m["type"] == "state"][-1]
                assert view["choices"] and view["away"] is True
                # one click ends it
                wa2.send_json({"type": "back"})
                until(lambda: a not in live.away and not live.lock.locked())
                assert a not in live.spared
                view = [m for m in to_pong(wa2) if m["type"] == "state"][-1]
                assert view["away"] is False and view["choices"]


@pytest.mark.parametrize("variant", ["longgang", "luoyang-gangci"])
def test_matches_of_discard_only_stand_ins_run_to_their_end(variant: str) -> None:
    """Four seats all played by the ``discard`` stand-in: every hand still ends (the wall runs
    out: nobody wins) and the match with it, within a bound of moves."""
    ruleset = core.build_ruleset(variant, {}, 8)
    bot = core.stand_in(ruleset)
    session = core.new_session(ruleset, (None, None, None, None), b"stand-in" * 4, ("a", "b", "c", "d"))
    moves = hands = 0
    while not session.over:
        assert moves < 20_000, "the match did not end"
        if session.hand_over:
            hands += 1
            session.next_hand()
            continue
        seat = session.waiting_for()[0]
        action = core.stand_in_action(bot, session, seat, "discard")
        assert action.kind in (ActionKind.DISCARD, ActionKind.PASS)
        session.act(seat, action)
        moves += 1
    assert hands >= 1 and moves > 100
