"""Votes at the table (issue 30, "Table manners"; caishen.server.tables.votes, docs/server.md "Votes"):
dismiss the room (解散房间) or pause the game. The people seated vote (bots and stand-ins do
not); all yes passes at once, a no fails at once, and at the time-out more than half of the
voters saying yes passes (silence is not yes). After a vote the table takes no new one for a
minute. A dismissed match is over: its record says ``ended_by`` "dismissed", holds the hands
finished (the chips stand as after the last) and replays and verifies. A pause stops the move
clock, the bots and the time-outs until a seated person resumes it or its time runs out.

The votes' timers are called as they would fire (``time_out``, ``pause_over``): no test waits
30 seconds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from caishen.cli import main
from caishen.server.tables import votes
from caishen.table.match import DISMISSED
from caishen.table.record import loads
from caishen.table.replay import replay, verify
from helpers_server import act_json, app_fixture, choose, next_of, person, to_pong, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")


def _paused(ws: Any, on: bool) -> dict[str, Any]:
    """The next ``paused`` message with ``on`` as given (earlier ones passed over)."""
    for _ in range(20):
        got = next_of(ws, "paused")
        if got["on"] is on:
            return got
    raise AssertionError(f"no paused message with on={on}")


def _error(ws: Any) -> str:
    return str(next_of(ws, "error")["code"])


@contextmanager
def _table(app: FastAPI, names: list[str], **room: Any) -> Iterator[tuple[str, Any, list[Any], list[Any], dict[str, int]]]:
    """A friends room of the people ``names`` (the first made it), started and open on one
    socket each: (code, the live table, their clients, their sockets, player by name)."""
    with ExitStack() as stack:
        clients = [stack.enter_context(person(app, n)) for n in names]
        for c in clients[1:]:
            c.portal = clients[0].portal  # one event loop for all, as in the server
        body = {"friends": len(names) - 1, "turn_seconds": 0, "hands": 8, "pace": "instant"} | room
        code = clients[0].post("/api/rooms", json=body).json()["code"]
        for c in clients[1:]:
            c.post(f"/api/rooms/{code}/join")
        assert clients[0].get(f"/api/rooms/{code}").json()["status"] == "playing"
        players = {s["name"]: s["player"] for s in clients[0].get(f"/api/rooms/{code}").json()["seats"] if s["name"]}
        sockets = [stack.enter_context(c.websocket_connect(f"/ws/{code}")) for c in clients]
        live = app.state.tables.live[code]
        until(lambda: len(live.clients) == len(names) and live.session.dealt and not live.lock.locked())
        yield code, live, clients, sockets, players


def _vote(ws: Any, number: int, ended: bool = False) -> dict[str, Any]:
    """The next state of vote ``number`` told to ``ws``, open or (``ended``) ended: the
    states of earlier votes, and of this one before, are passed over."""
    for _ in range(100):
        got = next_of(ws, "vote_state")
        if got["vote"] == number and (got["outcome"] is not None) == ended:
            return got
    raise AssertionError(f"vote {number} not told within 100 vote states")


def test_the_rule() -> None:
    decide = votes.decide
    assert decide(2, 2, 0, False) == "passed" and decide(1, 1, 0, False) == "passed"
    assert decide(4, 3, 1, False) == "failed"  # a no fails at once, whatever the others said
    assert decide(4, 3, 0, False) is None  # open until the last answers or the time runs out
    assert decide(4, 3, 0, True) == "passed" and decide(3, 2, 0, True) == "passed"
    assert decide(4, 2, 0, True) == "failed" and decide(2, 1, 0, True) == "failed"  # half is not more than half


def test_who_votes() -> None:
    """The people seated, here or gone less than the wait; never a bot's seat, nor a person
    the room's owner removed (a bot plays it)."""
    from caishen.server import core  # noqa: PLC0415

    session = core.new_session(core.build_ruleset("longgang", {}, 8), (None, None, None, "greedy"), bytes(16),
                               ("a", "b", "c", "bot"))
    seat = {p: session.seat_of(p) for p in range(4)}
    gone = {2: 100.0}
    assert votes.electorate(session, frozenset({0, 1}), gone, 150.0, 180.0) == {0: seat[0], 1: seat[1], 2: seat[2]}
    assert votes.electorate(session, frozenset({0, 1}), gone, 280.0, 180.0) == {0: seat[0], 1: seat[1]}
    assert votes.electorate(session, frozenset({0, 1, 2}), {}, 0.0, 180.0, frozenset({1})) == {0: seat[0], 2: seat[2]}


def test_a_dismiss_vote_passes_when_everyone_says_yes(app: FastAPI) -> None:
    with _table(app, ["Ann", "Bob"]) as (code, live, (ann, bob), (wa, wb), players):
        seats = {n: live.session.seat_of(p) for n, p in players.items()}
        chips = list(live.session.match.table.ledger.chips)
        wa.send_json({"type": "vote", "kind": "dismiss"})
        for ws, mine in ((wa, False), (wb, True)):
            got = next_of(ws, "vote_state")
            assert 0 < got.pop("ms_left") <= 30000
            assert got == {"type": "vote_state", "vote": 0, "kind": "dismiss", "starter": "Ann", "mine": mine,
                           "voters": sorted([{"name": "Ann", "seat": seats["Ann"], "vote": "yes"},
                                             {"name": "Bob", "seat": seats["Bob"], "vote": None}],
                                            key=lambda v: v["seat"]),
                           "outcome": None, "cooldown_ms": 0}
        wb.send_json({"type": "ballot", "vote": 0, "yes": True})
        for ws in (wa, wb):
            state = next_of(ws, "state")  # the match is over for every page, then the vote's end
            while not state["match_over"]:
                state = next_of(ws, "state")
            assert state["choices"] == [] and state["hand_end"] is None and state["deadline_ms"] is None
            assert state["match_end"] == {"ended_by": "dismissed", "hands": 0, "broke": []}
            end = next_of(ws, "vote_state")
            assert end["outcome"] == "passed" and end["mine"] is False and 55000 < end["cooldown_ms"] <= 60000
            assert {v["name"]: v["vote"] for v in end["voters"]} == {"Ann": "yes", "Bob": "yes"}
        room = ann.get(f"/api/rooms/{code}").json()
        assert room["status"] == "over"
        result = bob.get(f"/api/matches/{code}").json()
        assert result["match_end"] == {"ended_by": "dismissed", "hands": 0, "broke": []}
        assert [s["chips"] for s in result["standings"]] == sorted(chips, reverse=True)
        assert ann.get(f"/api/matches/{code}/verify").json()["ok"] is True
        # nothing more to vote on
        wa.send_json({"type": "vote", "kind": "pause"})
        assert _error(wa) == "no_match"


def test_a_dismissed_match_keeps_its_finished_hands_and_its_record_verifies(app: FastAPI, tmp_path: Path) -> None:
    """Alone with three bots: a vote of one passes at once. Dismissed in the second hand, the
    record holds the first (its chips stand), says ``dismissed``, and replays and verifies."""
    with person(app, "Solo") as solo:
        code = solo.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": 8, "pace": "instant"}).json()["code"]
        with solo.websocket_connect(f"/ws/{code}") as ws:
            # (the bots may end a hand before the person is asked in it twice: the vote then
            # comes in the next hand, and the record holds every hand before it)
            for _ in range(4000):
                msg = ws.receive_json()
                if msg["type"] != "state":
                    continue
                if msg["hand_end"] is not None:
                    ws.send_json({"type": "next", "hand": msg["hand"]})
                elif msg["hand"] >= 1 and msg["choices"] and msg["step"] > 0:
                    break  # asked in the second hand (or a later one), some of it played
                elif msg["choices"]:
                    ws.send_text(act_json(msg, choose(msg)))
            else:
                raise AssertionError("not asked in the second hand")
            live = app.state.tables.live[code]
            voted_in = msg["hand"]
            first = live.session.match.results[voted_in - 1].chips_after
            assert list(live.session.match.table.ledger.chips) == list(first)
            moves_in_play = len(live.session.moves)
            assert moves_in_play > 0
            ws.send_json({"type": "vote", "kind": "dismiss"})
            end = next_of(ws, "vote_state")
            assert end["outcome"] == "passed" and [v["vote"] for v in end["voters"]] == ["yes"]
            until(lambda: not live.lock.locked())
            # the hand in play's moves are stored
            assert len(live.log) == voted_in + 1 and len(live.log[voted_in]) == moves_in_play
        text = solo.get(f"/api/matches/{code}/record").json()
        assert text["result"]["over"] is True and text["result"]["ended_by"] == DISMISSED
        assert text["result"]["hands"] == voted_in and text["result"]["chips"] == list(first)
        assert len(text["hands"]) == voted_in and text["seed"] is not None  # the seed is revealed: it is over
        raw = solo.get(f"/api/matches/{code}/record").text
        record = loads(raw)
        assert replay(record).result["ended_by"] == DISMISSED
        assert verify(record).hands == voted_in  # every finished hand (the vote may come in a later one)
        assert solo.get(f"/api/matches/{code}/verify").json()["ok"] is True
        path = tmp_path / "dismissed.json"
        path.write_text(raw, encoding="utf-8")
        assert main(["replay", str(path)]) == 0
        assert main(["verify", str(path)]) == 0
        # a record that claims a dismissal of a match that ended by itself does not replay
        d = json.loads(raw)
        d.pop("signature", None)
        d["result"]["ended_by"] = "hands"
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(d), encoding="utf-8")
        assert main(["replay", str(bad)]) == 2
        # the stored record, the table gone from memory: the same end
        app.state.tables.live.pop(code).evict()
        result = solo.get(f"/api/matches/{code}").json()
        # (who was broke when it ended, as the record says: in Longgang play may go on after a
        # player goes broke, L25, so a dismissed match can name one; a CI run's deal did)
        broke = [text["players"][p] for p in text["result"].get("broke", [])]
        assert result["status"] == "over" and result["match_end"] == {"ended_by": "dismissed", "hands": voted_in, "broke": broke}


def test_dismissed_between_hands_the_last_hand_stands(app: FastAPI) -> None:
    """Alone with bots, the first hand over and its score shown: dismissed before the next
    deal, the match ends with that hand's score and chips; "next" is refused after."""
    with person(app, "Solo") as solo:
        code = solo.post("/api/rooms", json={"friends": 0, "turn_seconds": 20, "hands": 8, "pace": "instant"}).json()["code"]
        with solo.websocket_connect(f"/ws/{code}") as ws:
            for _ in range(2000):
                msg = ws.receive_json()
                if msg["type"] == "state" and msg["hand_end"] is not None:
                    break
                if msg["type"] == "state" and msg["choices"]:
                    ws.send_text(act_json(msg, choose(msg)))
            else:
                raise AssertionError("the first hand did not end")
            live = app.state.tables.live[code]
            until(lambda: not live.lock.locked())
            assert live._deadline is not None  # the next hand would start by itself
            chips = list(live.session.match.results[0].chips_after)
            ws.send_json({"type": "vote", "kind": "dismiss"})
            state = next_of(ws, "state")
            assert state["match_over"] is True and state["hand_end"] is not None and state["deadline_ms"] is None
            assert state["match_end"] == {"ended_by": "dismissed", "hands": 1, "broke": []}
            assert _vote(ws, 0, ended=True)["outcome"] == "passed"
            assert live._timer is None and live.window is None
            ws.send_json({"type": "next", "hand": 0})
            assert _error(ws) == "stale"
        record = solo.get(f"/api/matches/{code}/record").json()
        assert len(record["hands"]) == 1 and record["result"]["chips"] == chips
        assert record["result"]["ended_by"] == "dismissed"
        assert solo.get(f"/api/matches/{code}/verify").json()["ok"] is True


def test_a_no_fails_the_vote_at_once_and_the_table_waits_a_minute(app: FastAPI) -> None:
    with _table(app, ["Ann", "Bob"]) as (code, live, (ann, bob), (wa, wb), players):
        wa.send_json({"type": "vote", "kind": "dismiss"})
        _vote(wa, 0), _vote(wb, 0)
        wb.send_json({"type": "vote", "kind": "pause"})
        assert _error(wb) == "vote_open"  # one vote at a time
        wb.send_json({"type": "ballot", "vote": 7, "yes": True})
        assert _error(wb) == "no_vote"
        wa.send_json({"type": "ballot", "vote": 0, "yes": False})
        assert _error(wa) == "already_voted"  # the one who asked said yes already
        wb.send_json({"type": "ballot", "vote": 0, "yes": "no"})
        assert _error(wb) == "bad_message"  # strict: a boolean
        wb.send_json({"type": "ballot", "vote": 0, "yes": False})
        for ws in (wa, wb):
            end = _vote(ws, 0, ended=True)
            assert end["outcome"] == "failed" and 55000 < end["cooldown_ms"] <= 60000
            assert {v["name"]: v["vote"] for v in end["voters"]} == {"Ann": "yes", "Bob": "no"}
        assert ann.get(f"/api/rooms/{code}").json()["status"] == "playing" and not live.session.over
        # the cooldown: refused for anyone, either kind
        for ws in (wa, wb):
            ws.send_json({"type": "vote", "kind": "pause"})
            assert _error(ws) == "vote_cooldown"
        live.votes.quiet_until = 0.0  # a minute later
        wb.send_json({"type": "vote", "kind": "dismiss"})
        opened = _vote(wa, 1)
        assert opened["starter"] == "Bob" and opened["mine"] is True


def test_at_the_time_out_more_than_half_passes_and_silence_is_not_yes(app: FastAPI) -> None:
    with _table(app, ["Ann", "Bob", "Cai"]) as (code, live, (ann, _, _), (wa, wb, wc), players):
        wa.send_json({"type": "vote", "kind": "dismiss"})
        for ws in (wa, wb, wc):
            _vote(ws, 0)
        ann.portal.call(live.votes.time_out, 0)  # 1 of 3 said yes
        for ws in (wa, wb, wc):
            end = _vote(ws, 0, ended=True)
            assert end["outcome"] == "failed" and [v["vote"] for v in end["voters"]].count(None) == 2
        assert not live.session.over

        live.votes.quiet_until = 0.0
        wc.send_json({"type": "vote", "kind": "dismiss"})
        _vote(wb, 1)
        wb.send_json({"type": "ballot", "vote": 1, "yes": True})
        until(lambda: len(live.votes.vote.yes) == 2 and not live.lock.locked())
        assert live.votes.open  # 2 of 3: not everyone yet
        ann.portal.call(live.votes.time_out, 1)  # 2 of 3 at the time-out
        until(lambda: live.session.over and not live.lock.locked())
        assert _vote(wa, 1, ended=True)["outcome"] == "passed"
        assert ann.get(f"/api/rooms/{code}").json()["status"] == "over"
        assert ann.get(f"/api/matches/{code}").json()["match_end"]["ended_by"] == "dismissed"


def test_one_gone_for_three_minutes_is_not_asked_and_cannot_answer(app: FastAPI) -> None:
    """Only the people seated who are here, or were a moment ago, vote: a person with no
    connection for 3 minutes (the takeover's wait) is not asked, and answering after coming
    back is refused (``not_seated``)."""
    with _table(app, ["Ann", "Bob", "Cai"]) as (code, live, (ann, _, cai), (wa, wb, wc), players):
        wc.close()
        until(lambda: len(live.clients) == 2 and not live.lock.locked())
        wa.send_json({"type": "vote", "kind": "pause"})
        assert len(_vote(wa, 0)["voters"]) == 3  # gone a moment ago: still asked
        ann.portal.call(live.votes.time_out, 0)
        assert _vote(wa, 0, ended=True)["outcome"] == "failed"  # 1 of 3

        live.votes.quiet_until = 0.0
        live.gone_since[players["Cai"]] -= 181  # gone 3 minutes
        wa.send_json({"type": "vote", "kind": "dismiss"})
        opened = _vote(wb, 1)
        assert [v["name"] for v in opened["voters"]] == sorted(["Ann", "Bob"], key=lambda n: live.session.seat_of(players[n]))
        with cai.websocket_connect(f"/ws/{code}") as wc2:
            told = _vote(wc2, 1)  # a page that connects is told the open vote
            assert told["mine"] is False
            wc2.send_json({"type": "ballot", "vote": 1, "yes": False})
            assert _error(wc2) == "not_seated"
            wb.send_json({"type": "ballot", "vote": 1, "yes": True})
            assert _vote(wc2, 1, ended=True)["outcome"] == "passed"
        until(lambda: live.session.over)


def test_a_pause_holds_the_clock_and_the_bots_until_resumed(app: FastAPI) -> None:
    with _table(app, ["Ann", "Bob"], turn_seconds=600, pace="normal") as (code, live, (ann, _), (wa, wb), players):
        until(lambda: not live.lock.locked() and live._deadline is not None)  # someone's clock runs
        wa.send_json({"type": "vote", "kind": "pause"})
        _vote(wb, 0)
        wb.send_json({"type": "ballot", "vote": 0, "yes": True})
        for ws in (wa, wb):
            assert _vote(ws, 0, ended=True)["outcome"] == "passed"
            paused = next_of(ws, "paused")
            assert paused["on"] is True and 295000 < paused["ms_left"] <= 300000
        until(lambda: not live.lock.locked())
        assert live.votes.held and live._timer is None and live._deadline is None
        s = live.session
        at = (s.hand_index, len(s.moves), s.hand_over)
        # the timers that would move the table, fired by hand: nothing moves, nobody goes away
        ann.portal.call(live._timeout, at)
        ann.portal.call(live._bot_turn, at[:2])
        ann.portal.call(live._go)
        assert (s.hand_index, len(s.moves), s.hand_over) == at and not live.away
        wa.send_json({"type": "act", "action": "pass", "hand": at[0], "step": 0})
        assert _error(wa) == "table_paused"
        live.votes.quiet_until = 0.0
        wb.send_json({"type": "vote", "kind": "pause"})
        assert _error(wb) == "paused_already"
        # a page that connects is told
        with ann.websocket_connect(f"/ws/{code}") as wa2:
            assert next_of(wa2, "paused")["on"] is True
        wb.send_json({"type": "resume"})
        for ws in (wa, wb):
            assert _paused(ws, False) == {"type": "paused", "on": False, "ms_left": 0, "by": "Bob"}
        until(lambda: not live.lock.locked() and live._deadline is not None)  # the clocks run again
        assert not live.votes.held

        # paused again, until its time runs out
        wb.send_json({"type": "vote", "kind": "pause"})
        _vote(wa, 1)
        wa.send_json({"type": "ballot", "vote": 1, "yes": True})
        _paused(wa, True)
        until(lambda: not live.lock.locked())
        ann.portal.call(live.votes.pause_over, live.votes._pauses)
        assert _paused(wb, False) == {"type": "paused", "on": False, "ms_left": 0, "by": None}
        wa.send_json({"type": "resume"})
        assert _error(wa) == "not_paused"
        assert live.session.hand_index >= at[0] and ann.get(f"/api/rooms/{code}").json()["status"] == "playing"


def test_votes_are_budgeted(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    from caishen.server import conns  # noqa: PLC0415

    with _table(app, ["Ann", "Bob"]) as (code, live, _, (wa, wb), players):
        monkeypatch.setattr(conns, "clock", lambda: 1e9)  # the budgets' clock held still
        codes = []
        for _ in range(6):
            wa.send_json({"type": "vote", "kind": "pause"})
        for msg in to_pong(wa):
            if msg["type"] == "error":
                codes.append(msg["code"])
        assert codes.count("rate_limited") >= 1 and "vote_open" in codes
