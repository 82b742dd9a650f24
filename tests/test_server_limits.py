"""What one client can make the centre do (issue 26): the outgoing queue of a connection
(states coalesce, other messages keep their order, a stuck socket is given up), the budgets of
each message kind (help, back, ping and act floods refused past them; a state sent is no
refill), and the cap on connections per seat."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from caishen.server import conns
from caishen.server.app import create_app
from caishen.server.conns import CLOSE_BEHIND, CONNECTION_RATES, Outbox
from caishen.server.limits import Gate
from helpers_server import act_json, app_fixture, database, latest_state, next_state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# ---------------------------------------------------------------- the outgoing queue


def test_a_newer_state_supersedes_an_unsent_one_and_events_keep_their_order() -> None:
    async def run() -> list[str]:
        sent: list[str] = []
        gate = asyncio.Event()

        async def send(text: str) -> None:
            await gate.wait()
            sent.append(text)

        box = Outbox(send)
        writer = asyncio.ensure_future(box.run())
        box.put("s1", state=True)
        await asyncio.sleep(0)  # the writer takes s1 and waits in its send
        for item, state in (("e1", False), ("s2", True), ("e2", False), ("s3", True), ("e3", False)):
            box.put(item, state=state)
        assert len(box) == 4  # e1 e2 s3 e3: s2 was dropped for s3
        gate.set()
        while len(sent) < 5:
            await asyncio.sleep(0)
        writer.cancel()
        return sent

    assert asyncio.run(run()) == ["s1", "e1", "e2", "s3", "e3"]


def test_a_socket_that_takes_no_more_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A send that does not finish within the send timeout ends the writer with the close code
    the page reconnects on; so does a queue past its bound (here: events nobody sends)."""
    monkeypatch.setattr(conns, "SEND_TIMEOUT_SECONDS", 0.05)

    async def stuck() -> int | None:
        async def send(_text: str) -> None:
            await asyncio.Event().wait()  # never

        box = Outbox(send)
        box.put("s1", state=True)
        await asyncio.wait_for(box.run(), 30)
        return box.closed

    assert asyncio.run(stuck()) == CLOSE_BEHIND

    async def flooded() -> int | None:
        async def send(_text: str) -> None:
            await asyncio.Event().wait()

        box = Outbox(send)
        for i in range(conns.QUEUE_MESSAGES + 1):
            box.put(f"event {i}")
        box.put("state", state=True)  # nothing is queued once given up
        return box.closed if len(box) == 0 else None

    assert asyncio.run(flooded()) == CLOSE_BEHIND


# ---------------------------------------------------------------- budgets


app = app_fixture("sqlite")


def _client(app: FastAPI, name: str) -> TestClient:
    c = TestClient(app)
    assert c.post("/api/me", json={"name": name}).status_code == 200
    return c


def _replies(ws: Any, errors: int) -> Counter[str]:
    """Read until ``errors`` error messages came (errors are never dropped; a state put
    before an error is sent before it): what came, by type or error code."""
    got: Counter[str] = Counter()
    while got.total() - got["state"] - got["pong"] < errors:
        msg = ws.receive_json()
        got[msg["code"] if msg["type"] == "error" else msg["type"]] += 1
    return got


def _ready(ws: Any, v: dict[str, Any] | None = None) -> dict[str, Any]:
    """The state once this seat must act in a live hand (the bots may be moving), from ``v``
    (the last state read) if given."""
    v = v or next_state(ws)
    while not v["choices"] or v["hand_end"] is not None:
        if v["hand_end"] is not None:
            ws.send_text(json.dumps({"type": "next", "hand": v["hand"]}))
        v = next_state(ws)
    return v


def _quiet(ws: Any) -> None:
    """Nothing is on its way to ``ws``: a ping's pong is the next message."""
    ws.send_text('{"type":"ping"}')
    assert ws.receive_json() == {"type": "pong"}


def test_help_floods_are_refused_past_their_budget_and_states_are_no_refill(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch,
) -> None:
    with _client(app, "Ann") as ann:
        code = ann.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "pace": "instant"}).json()["code"]
        with ann.websocket_connect(f"/ws/{code}") as ws:
            _ready(ws)
            monkeypatch.setattr(conns, "clock", lambda: 1e9)  # no token comes back with time
            burst = int(CONNECTION_RATES["help"].burst)
            for i in range(300):
                ws.send_text(json.dumps({"type": "help", "on": i % 2 == 0}))
            got = _replies(ws, 300 - burst)
            assert got["rate_limited"] == 300 - burst
            assert 1 <= got["state"] <= burst  # the states answered; some may have been superseded
            # every state sent left the budget empty: the next help is refused as well
            ws.send_text('{"type":"help","on":true}')
            assert ws.receive_json()["code"] == "rate_limited"
            monkeypatch.setattr(conns, "clock", lambda: 1e9 + 10)  # ten seconds on: allowed again
            ws.send_text('{"type":"help","on":true}')
            assert next_state(ws)["help"] is not None


def test_back_floods_are_refused_and_reach_no_other_socket(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    """``back`` from a person who is not away changes nothing: it answers that connection
    only (1,000 of them once became 20,000 states on the seat's other sockets)."""
    with _client(app, "Bo") as bo:
        code = bo.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "pace": "instant"}).json()["code"]
        with bo.websocket_connect(f"/ws/{code}") as one, bo.websocket_connect(f"/ws/{code}") as two:
            _ready(one)  # the table waits for Bo: what it told the second socket so far, read to a pong
            assert latest_state(two, None) is not None  # (how many states: not assumed)
            monkeypatch.setattr(conns, "clock", lambda: 1e9)
            burst = int(CONNECTION_RATES["back"].burst)
            for _ in range(100):
                one.send_text('{"type":"back"}')
            got = _replies(one, 100 - burst)
            assert got["rate_limited"] == 100 - burst and 1 <= got["state"] <= burst
            _quiet(two)  # no state reached the seat's other socket


def test_ping_floods_count_against_the_person_across_connections(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each connection has its own budget and the person has one for all of them: a third
    socket of the same seat gets nothing once two have used the person's."""
    with _client(app, "Cy") as cy:
        code = cy.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "pace": "instant"}).json()["code"]
        with cy.websocket_connect(f"/ws/{code}") as a, cy.websocket_connect(f"/ws/{code}") as b, \
                cy.websocket_connect(f"/ws/{code}") as c:
            for ws in (a, b, c):
                next_state(ws)
            monkeypatch.setattr(conns, "clock", lambda: 1e9)
            burst = int(CONNECTION_RATES["ping"].burst)
            for ws in (a, b, c):
                for _ in range(2 * burst):
                    ws.send_text('{"type":"ping"}')
            counts = [_replies(ws, burst if ws is not c else 2 * burst) for ws in (a, b, c)]
            assert [x["pong"] for x in counts] == [burst, burst, 0]
            assert [x["rate_limited"] for x in counts] == [burst, burst, 2 * burst]


def test_act_floods_are_refused_past_their_budget_and_a_legal_move_gives_its_token_back(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch,
) -> None:
    with _client(app, "Di") as di:  # Gangci: nobody goes broke, the match outlasts the moves here
        code = di.post("/api/rooms", json={"variant": "luoyang-gangci", "friends": 0, "turn_seconds": 0, "pace": "instant"}).json()["code"]
        with di.websocket_connect(f"/ws/{code}") as ws:
            v = _ready(ws)
            monkeypatch.setattr(conns, "clock", lambda: 1e9)
            burst = int(CONNECTION_RATES["act"].burst)
            # legal moves cost nothing: more of them than the burst are all played
            moves = 0
            while moves < burst + 5:
                ws.send_text(act_json(v, v["choices"][-1]["action"]))
                v = next_state(ws)
                moves += 1
                assert not v["match_over"]
                v = _ready(ws, v)
            stale = {**v, "step": v["step"] + 7}
            for _ in range(3 * burst):
                ws.send_text(act_json(stale, "pass"))
            got = _replies(ws, 3 * burst)
            assert got["stale"] + got["hand_over"] == burst and got["rate_limited"] == 2 * burst
            ws.send_text(act_json(v, v["choices"][-1]["action"]))  # legal, but no token is left
            assert ws.receive_json()["code"] == "rate_limited"


def test_a_seat_keeps_at_most_four_connections(app: FastAPI) -> None:
    """A fifth connection of one seat closes the oldest (close code 4001, which the page
    does not reconnect on); one more connection of the same person brings the others no state."""
    with _client(app, "Ed") as ed:
        code = ed.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "pace": "instant"}).json()["code"]
        with ed.websocket_connect(f"/ws/{code}") as first:
            _ready(first)  # the table waits for Ed: nothing more comes but what a join brings
            opened = [ed.websocket_connect(f"/ws/{code}") for _ in range(conns.SOCKETS_PER_SEAT)]
            for ws in opened:
                ws.__enter__()
                next_state(ws)
            closed = first.receive()
            assert closed["type"] == "websocket.close" and closed["code"] == conns.CLOSE_REPLACED
            for ws in opened[:-1]:
                _quiet(ws)  # the newcomers brought the others nothing
            for ws in opened:
                ws.__exit__(None, None, None)


# ---------------------------------------------------------------- HTTP


def test_room_creation_is_limited_per_person_and_per_address(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    """One cookie once made 94 practice rooms a second. Past the person's burst: 429 with
    Retry-After, and no room made; another person from the same address still may, until the
    address's own budget is spent."""
    from caishen.server.limits import HttpLimits  # noqa: PLC0415

    person, address = HttpLimits().rates["rooms"]
    monkeypatch.setattr(conns, "clock", lambda: 1e9)
    with _client(app, "Fay") as fay, _client(app, "Gus") as gus:
        codes = [fay.post("/api/practice") for _ in range(int(person.burst) + 3)]
        assert [r.status_code for r in codes] == [200] * int(person.burst) + [429] * 3
        refused = codes[-1]
        assert int(refused.headers["Retry-After"]) == int(1 / person.per_second)
        assert "too many requests" in refused.json()["detail"] and refused.json()["code"] == "too_many_requests"
        assert len(fay.get("/api/my/matches").json()) == int(person.burst)
        assert gus.post("/api/practice").status_code == 200  # another person: their own budget
        monkeypatch.setattr(conns, "clock", lambda: 1e9 + 1 / person.per_second)
        assert fay.post("/api/practice").status_code == 200  # a token back after Retry-After
    assert address.burst > person.burst + 1


def test_a_person_has_a_capped_number_of_open_rooms(tmp_path: Path) -> None:
    from caishen.server.limits import HttpLimits  # noqa: PLC0415

    with database("sqlite", tmp_path) as url, _client(create_app(url, limits=HttpLimits(open_rooms=3)), "Hal") as hal:
        made = [hal.post("/api/rooms", json={"friends": 1}).status_code for _ in range(4)]
        assert made == [200, 200, 200, 429]
        r = hal.post("/api/practice")
        assert r.status_code == 429 and "3 open rooms" in r.json()["detail"] and int(r.headers["Retry-After"]) > 0
        assert r.json()["code"] == "too_many_rooms"


def test_joins_names_and_verify_are_limited(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    from caishen.server.limits import HttpLimits  # noqa: PLC0415

    rates = HttpLimits().rates
    monkeypatch.setattr(conns, "clock", lambda: 1e9)
    with _client(app, "Ivy") as ivy:
        code = ivy.post("/api/rooms", json={"friends": 1}).json()["code"]
        got = [ivy.post(f"/api/rooms/{code}/join").status_code for _ in range(int(rates["joins"][0].burst) + 1)]
        assert got[-1] == 429 and set(got[:-1]) == {200}
        got = [ivy.post("/api/me", json={"name": "Ivy"}).status_code for _ in range(int(rates["names"][0].burst) + 1)]
        assert got[-1] == 429 and 429 not in got[:-1]
        got = [ivy.get(f"/api/matches/{code}/verify").status_code for _ in range(int(rates["verify"][0].burst) + 1)]
        assert got[-1] == 429 and 429 not in got[:-1]


def test_the_sweep_forgets_the_buckets_that_are_full_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bucket is kept for each person and address seen; one that has filled up again is
    forgotten at the next sweep (it would start full anyway), so visitors leave no memory."""
    monkeypatch.setattr(conns, "clock", lambda: 1e9)
    gate = Gate()
    gate.check("rooms", "u1", "10.0.0.1")
    gate.check("names", None, "10.0.0.2")
    assert len(gate._buckets) == 3
    gate.sweep()
    assert len(gate._buckets) == 3  # still spent: kept
    person, _ = gate.limits.rates["rooms"]
    monkeypatch.setattr(conns, "clock", lambda: 1e9 + 1 / person.per_second)
    gate.sweep()
    assert len(gate._buckets) == 0
