"""Game-centre nodes on PostgreSQL and Redis (issue 28; docs/server.md, "Nodes"): the fencing
test. Two ``caishen serve --redis`` processes share a PostgreSQL schema and a Redis server. A
room is played on node A; A is frozen (SIGSTOP) with a move due (the person's turn timer,
whose stand-in move A makes when it runs again) and its link to Redis cut, until its lease has
run out; the person connects to node B, which takes the table over (lease, epoch raised,
rebuilt from the database). A is resumed (SIGCONT): its due move reaches the database with
A's old epoch and is refused, A drops the table, nobody is told of the move, and the match
goes on on B to its end; its record verifies (``caishen verify``).

Skipped when PostgreSQL or Redis is not reachable on 127.0.0.1 (``CAISHEN_TEST_PG``,
``CAISHEN_TEST_REDIS``); CI starts both (.ci/run)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from caishen.cli import main as cli_main
from caishen.server.db import make_engine
from caishen.server.nodes import KEY_PREFIX
from caishen.server.store import Store
from helpers_nodes import BOUND, REDIS_URL, Proxy, asked, poll, require_services
from helpers_nodes import closed as _closed
from helpers_server import ServerProcess, act_json, choose, database

pytestmark = [pytest.mark.redis, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

TURN_SECONDS = 20  # the person's turn timer: A is frozen before it runs out, and resumed after
A_LEASE_MS = 12_000  # A's lease; A waits up to a quarter of it (3 s) for Redis before it lets go


@pytest.fixture(autouse=True)
def _services() -> None:
    require_services()


def _socket(server: ServerProcess, code: str, cookie: str) -> ClientConnection:
    # no pings of the client's own: it must not close its connection to the frozen node itself
    return connect(f"ws://127.0.0.1:{server.port}/ws/{code}", additional_headers={"Cookie": f"caishen={cookie}"},
                   open_timeout=BOUND, ping_interval=None)


def _join(server: ServerProcess, code: str, cookie: str) -> tuple[ClientConnection, dict[str, Any]]:
    """A connection to table ``code`` and the first state that asks the person to act. A
    close with 1013 (try again: Redis did not answer the node in time, which a busy machine
    can make happen) is answered as the page does, by connecting again (up to BOUND s)."""
    deadline = time.monotonic() + BOUND
    while True:
        ws = _socket(server, code, cookie)
        try:
            return ws, asked(ws)
        except ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code != 1013 or time.monotonic() > deadline:
                raise
            time.sleep(0.5)  # the page's pause before it tries again, not a wait for a state



def _play_to_the_end(ws: ClientConnection, view: dict[str, Any]) -> dict[str, Any]:
    """Play every move the person is asked for until the match is over; the last state."""
    while not view["match_over"]:
        if view["choices"]:
            ws.send(act_json(view, choose(view)))
        elif view["hand_end"] is not None:
            ws.send(json.dumps({"type": "next", "hand": view["hand"]}))
        while True:
            msg = json.loads(ws.recv(timeout=BOUND))
            if msg["type"] == "error":
                assert msg["code"] == "stale", msg  # a "next" the table had already acted on
            if msg["type"] == "state":
                view = msg
                break
    return view


def _metric(server: ServerProcess, name: str) -> float:
    text = httpx.get(server.base + "/metrics", timeout=BOUND).text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _stored_moves(store: Store, code: str) -> int:
    return sum(len(h) for h in store.moves(code))


@contextmanager
def _nodes(tmp_path: Path, a_lease_ms: int) -> Iterator[tuple[ServerProcess, ServerProcess, Proxy, Store]]:
    """Nodes A (through a :class:`Proxy` to Redis, leases of ``a_lease_ms``) and B (the
    default 5 s leases) on a fresh PostgreSQL schema, and a store on it to look with."""
    redis_parts = urlsplit(REDIS_URL)
    proxy = Proxy((redis_parts.hostname or "127.0.0.1", redis_parts.port or 6379))
    with database("postgresql", tmp_path) as db:
        # one after the other: the first creates the schema
        a = ServerProcess(db, args=("--redis", proxy.url), env={"CAISHEN_LEASE_MS": str(a_lease_ms)}).start()
        b = None
        engine = make_engine(db)
        try:
            b = ServerProcess(db, args=("--redis", REDIS_URL)).start()
            yield a, b, proxy, Store(engine)
        finally:
            if a.proc is not None and a.proc.poll() is None:
                os.kill(a.proc.pid, signal.SIGCONT)
            for s in (a, b):
                if s is not None:
                    s.stop()
            engine.dispose()
            proxy.close()
        for s in (a, b):
            assert s is not None
            assert "Traceback" not in s.log()


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess, Proxy, Store]]:
    with _nodes(tmp_path, A_LEASE_MS) as got:
        yield got


def _holds(server: ServerProcess, value: bytes | None) -> bool:
    assert server.proc is not None
    return value is not None and f":{server.proc.pid}:".encode() in value


# slow: two nodes and a frozen process, 30 s of the README's command on two cores (CI's slow stage runs it)
@pytest.mark.slow
def test_a_node_frozen_past_its_lease_cannot_write_a_move_after_another_took_the_table_over(
        nodes: tuple[ServerProcess, ServerProcess, Proxy, Store], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import redis  # noqa: PLC0415 - skipped above without it

    a, b, proxy, store = nodes
    assert a.proc is not None
    r = redis.Redis.from_url(REDIS_URL)
    http = httpx.Client(base_url=a.base, timeout=BOUND)
    cookie = http.post("/api/me", json={"name": "甲"}).cookies["caishen"]
    room = http.post("/api/rooms", json={"turn_seconds": TURN_SECONDS, "pace": "instant", "hands": 8}).json()
    code = room["code"]
    key = KEY_PREFIX + code

    # played on A: A holds the lease, at epoch 1
    ws_a, view = _join(a, code, cookie)
    for _ in range(3):
        ws_a.send(act_json(view, choose(view)))
        view = asked(ws_a)
    assert _holds(a, r.get(key))
    assert store.epoch(code) == 1
    at = _stored_moves(store, code)
    # A is asked for the person's move and runs its turn timer: frozen now, with that move
    # due, and its link to Redis cut, past its lease
    os.kill(a.proc.pid, signal.SIGSTOP)
    frozen = time.monotonic()
    proxy.open.clear()
    assert _stored_moves(store, code) == at, "the turn timer ran out before A was frozen"
    # (B's sweep may take the table over as soon as A's lease has run out: the key is then B's)
    poll(lambda: not _holds(a, r.get(key)), A_LEASE_MS / 1000 + BOUND, "A's lease to run out")

    # B takes the table over: its lease, epoch 2, rebuilt from the database where A left it
    ws_b, on_b = _join(b, code, cookie)
    assert (on_b["hand"], on_b["step"]) == (view["hand"], view["step"])
    assert store.epoch(code) == 2
    assert _holds(b, r.get(key))
    # A's turn timer is overdue once it runs again: its stand-in's move is the first thing it does
    poll(lambda: time.monotonic() - frozen > TURN_SECONDS + 1, TURN_SECONDS + BOUND, "A's turn timer to be overdue")
    os.kill(a.proc.pid, signal.SIGCONT)

    # A's move reaches the database with epoch 1 and is refused; A drops the table
    poll(lambda: _metric(a, "caishen_fenced_writes_total") > 0, why="A's write to be refused")
    poll(lambda: _metric(a, "caishen_live_tables") == 0, why="A to drop the table")
    assert _stored_moves(store, code) == at  # A wrote no move
    # nobody was told of it: A's connection gets nothing more and is closed, to reconnect (1012;
    # 1011 if A's own keep-alive ping timed out first, a ping sent just before it was frozen)
    told, closed = _closed(ws_a)
    assert [m for m in told if m["type"] in ("event", "state")] == [], told
    assert closed.rcvd is None or closed.rcvd.code in (1012, 1011), closed
    proxy.open.set()

    # the match goes on on B, to its end, and its record verifies
    last = _play_to_the_end(ws_b, on_b)
    assert last["match_over"]
    ws_b.close()
    assert store.epoch(code) == 2
    record = httpx.get(b.base + f"/api/matches/{code}/record", timeout=BOUND)
    assert record.status_code == 200
    path = tmp_path / "record.json"
    path.write_text(record.text, encoding="utf-8")
    capsys.readouterr()
    assert cli_main(["verify", str(path)]) == 0
    assert ": OK: " in capsys.readouterr().out  # (up to 8 hands: a player gone broke ends it sooner, L25)
    # a clean shutdown lets go of the lease at once (compare-and-delete), not at its expiry
    b.stop()
    assert r.get(key) is None
    http.close()
    r.close()


# slow: waits out a lease with Redis cut off, 36 s of the README's command (CI's slow stage runs it)
@pytest.mark.slow
def test_a_node_that_cannot_renew_its_lease_stops_acting_for_the_table_and_takes_it_again_later(
        tmp_path: Path) -> None:
    """Redis away from node A (its link cut): once its lease may have run out, A stops acting
    for the table at once (it leaves memory, its connections close with 1012) and writes
    nothing more; once Redis answers again, a reconnecting page makes A take the table again
    (a new epoch), unless B's sweep took it first (A then relays the page to B), and it plays
    on from the database."""
    import redis  # noqa: PLC0415 - skipped above without it

    with _nodes(tmp_path, 5000) as (a, _b, proxy, store):
        r = redis.Redis.from_url(REDIS_URL)
        http = httpx.Client(base_url=a.base, timeout=BOUND)
        cookie = http.post("/api/me", json={"name": "乙"}).cookies["caishen"]
        code = http.post("/api/rooms", json={"turn_seconds": 0, "pace": "instant", "hands": 8}).json()["code"]
        ws_a, view = _join(a, code, cookie)
        ws_a.send(act_json(view, choose(view)))
        view = asked(ws_a)
        assert store.epoch(code) == 1 and _holds(a, r.get(key := KEY_PREFIX + code))
        at = _stored_moves(store, code)
        proxy.open.clear()
        told, closed = _closed(ws_a)
        assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
        assert [m for m in told if m["type"] in ("event", "state")] == [], told
        assert _metric(a, "caishen_live_tables") == 0 and _metric(a, "caishen_leases_lost_total") >= 1
        assert _stored_moves(store, code) == at
        proxy.open.set()
        # (or A's late renewal; B's sweep may take the table over as soon as it has run out,
        # and A then relays the page to B)
        poll(lambda: not _holds(a, r.get(key)), BOUND, "A's old lease to run out")
        ws_a, again = _join(a, code, cookie)
        assert (again["hand"], again["step"]) == (view["hand"], view["step"])
        assert store.epoch(code) == 2 and (_holds(a, r.get(key)) or _holds(_b, r.get(key)))
        ws_a.send(act_json(again, choose(again)))
        asked(ws_a)
        assert _stored_moves(store, code) > at  # (a pass is stored, though it makes no step)
        ws_a.close()
        http.close()
        r.close()


def test_a_player_on_another_node_is_relayed_to_the_owner_and_moves_on_when_the_owner_dies(
        tmp_path: Path) -> None:
    """A connection that reaches node B while A runs the table is joined to A through Redis
    pub/sub (``x-caishen-relayed: node``): the person plays through B. When A dies (SIGKILL),
    its lease runs out, B closes the relayed page with 1012, and the page's reconnect makes B
    take the table over (a new epoch) where A left it."""
    import redis  # noqa: PLC0415 - skipped above without it

    with _nodes(tmp_path, 5000) as (a, b, _proxy, store):
        r = redis.Redis.from_url(REDIS_URL)
        http = httpx.Client(base_url=a.base, timeout=BOUND)
        cookie = http.post("/api/me", json={"name": "丙"}).cookies["caishen"]
        code = http.post("/api/rooms", json={"turn_seconds": 0, "pace": "instant", "hands": 8}).json()["code"]
        key = KEY_PREFIX + code
        ws_a, _ = _join(a, code, cookie)  # A takes the table
        ws_a.close()
        at = _stored_moves(store, code)
        ws_b, view = _join(b, code, cookie)
        assert ws_b.response is not None and ws_b.response.headers.get("x-caishen-relayed") == "node"
        for _ in range(3):
            ws_b.send(act_json(view, choose(view)))
            view = asked(ws_b)
        assert _stored_moves(store, code) > at
        assert store.epoch(code) == 1 and _holds(a, r.get(key))  # played by A, through B
        at = _stored_moves(store, code)
        a.kill()
        told, closed = _closed(ws_b)
        assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
        assert [m for m in told if m["type"] == "error"] == [], told
        ws_b, again = _join(b, code, cookie)
        assert ws_b.response is not None and ws_b.response.headers.get("x-caishen-relayed") is None
        assert (again["hand"], again["step"]) == (view["hand"], view["step"])
        assert store.epoch(code) == 2 and _holds(b, r.get(key))
        ws_b.send(act_json(again, choose(again)))
        asked(ws_b)
        assert _stored_moves(store, code) > at
        ws_b.close()
        http.close()
        r.close()
