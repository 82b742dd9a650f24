"""Leases (issue 28, docs/server.md "Nodes"). A lease held by a node that no longer lives (its
node key gone: three renewals missed) is nobody's: a connection takes the table at once, before
the lease runs out. A lease whose key went away: Redis restarted empty, or the
lease ran out and nobody took the table. The owner's renewal takes the key again and the table
plays on, with nobody disconnected; unless the room's epoch was raised meanwhile (another node
ran the table and let go), when the owner's table is stale: it stops there, its pages are closed
with 1012 (reconnect) and the key is let go of. And a sweep takes a room only once its key was
absent at the node's last sweep too, so that a sweep right after Redis restarted does not take
a live node's tables before its renewals have taken their keys again.

Skipped when PostgreSQL or Redis is not reachable on 127.0.0.1 (CI starts both)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from caishen.server.db import make_engine
from caishen.server.nodes import KEY_PREFIX
from caishen.server.nodes.node import NODE_PREFIX, Leases, LeaseTimes, Node
from caishen.server.store import Store
from helpers_nodes import BOUND, REDIS_URL, asked, poll, require_services
from helpers_nodes import closed as _closed
from helpers_server import ServerProcess, act_json, choose, database

pytestmark = [pytest.mark.redis, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

LEASE_MS = 1500  # renewed every 0.3 s


@pytest.fixture(autouse=True)
def _services() -> None:
    require_services()


@pytest.fixture
def node(tmp_path: Path) -> Iterator[tuple[ServerProcess, Store]]:
    with database("postgresql", tmp_path) as db:
        server = ServerProcess(db, args=("--redis", REDIS_URL), env={"CAISHEN_LEASE_MS": str(LEASE_MS)}).start()
        engine = make_engine(db)
        try:
            yield server, Store(engine)
        finally:
            server.stop()
            engine.dispose()
        assert "Traceback" not in server.log()



def _metric(server: ServerProcess, name: str) -> float:
    for line in httpx.get(server.base + "/metrics", timeout=BOUND).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _stored_moves(store: Store, code: str) -> int:
    return sum(len(h) for h in store.moves(code))


def _table(server: ServerProcess, name: str) -> tuple[str, ClientConnection, dict[str, Any]]:
    """A practice room (one person, three bots, no turn timer) opened on ``server``, a move
    played: its code, the person's connection and the state that asks for the next move."""
    http = httpx.Client(base_url=server.base, timeout=BOUND)
    cookie = http.post("/api/me", json={"name": name}).cookies["caishen"]
    code = http.post("/api/rooms", json={"turn_seconds": 0, "pace": "instant", "hands": 8}).json()["code"]
    http.close()
    ws = connect(f"ws://127.0.0.1:{server.port}/ws/{code}", additional_headers={"Cookie": f"caishen={cookie}"},
                 open_timeout=BOUND, ping_interval=None)
    view = asked(ws)
    ws.send(act_json(view, choose(view)))
    return code, ws, asked(ws)


def _holds(server: ServerProcess, value: object) -> bool:
    assert server.proc is not None
    return isinstance(value, bytes) and f":{server.proc.pid}:".encode() in value


def test_a_lease_key_gone_is_taken_again_and_the_table_plays_on(node: tuple[ServerProcess, Store]) -> None:
    import redis  # noqa: PLC0415 - skipped above without it

    server, store = node
    r = redis.Redis.from_url(REDIS_URL)
    code, ws, view = _table(server, "丁")
    key = KEY_PREFIX + code
    assert _holds(server, r.get(key)) and store.epoch(code) == 1
    r.delete(key)  # as a Redis restarted without its data
    poll(lambda: _holds(server, r.get(key)), BOUND, "the renewal to take the key again")
    poll(lambda: _metric(server, "caishen_leases_retaken_total") >= 1, BOUND, "the retaking to be counted")
    # the same table, at the same epoch: the person plays on, on the same connection
    at = _stored_moves(store, code)
    ws.send(act_json(view, choose(view)))
    asked(ws)
    assert _stored_moves(store, code) > at
    assert store.epoch(code) == 1 and _metric(server, "caishen_leases_lost_total") == 0
    assert _metric(server, "caishen_live_tables") == 1
    ws.close()
    r.close()


def test_a_lease_key_gone_after_another_node_ran_the_table_stops_the_stale_table(
        node: tuple[ServerProcess, Store]) -> None:
    import redis  # noqa: PLC0415 - skipped above without it

    server, store = node
    r = redis.Redis.from_url(REDIS_URL)
    code, ws, _view = _table(server, "戊")
    key = KEY_PREFIX + code
    at = _stored_moves(store, code)
    # another node took the table over (epoch 2) and let go of it, all while this one paused
    assert store.take_over(code) == 2
    r.delete(key)
    # the renewal takes the key, finds the epoch is not its table's, and stops acting for it
    told, closed = _closed(ws)
    assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
    assert [m for m in told if m["type"] in ("event", "state")] == [], told
    poll(lambda: _metric(server, "caishen_live_tables") == 0, BOUND, "the stale table to leave memory")
    poll(lambda: r.get(key) is None, BOUND, "the key to be let go of")
    assert _stored_moves(store, code) == at
    assert _metric(server, "caishen_leases_lost_total") == 1
    r.close()


@dataclass
class _Tables:
    live: dict[str, Any] = field(default_factory=dict)
    on_leave: Any = None


@dataclass
class _Room:
    code: str
    status: str = "playing"


@dataclass
class _Store:
    codes: list[str]

    def playing_codes(self, dealt: bool) -> list[str]:
        return list(self.codes)

    def room(self, code: str) -> _Room:
        return _Room(code)


class _Taken:
    async def run_on(self) -> None:
        return None


def test_a_sweep_takes_a_room_whose_key_was_absent_at_its_last_sweep_too() -> None:
    """Three playing rooms without a lease key: the first sweep takes none, the second takes
    the two still without one; the third's key was taken meanwhile (an owner's renewal)."""
    import redis  # noqa: PLC0415 - skipped above without it

    codes = [f"test{secrets.token_hex(6)}" for _ in range(3)]
    r = redis.Redis.from_url(REDIS_URL)

    async def run() -> tuple[int, int, list[str]]:
        taken: list[str] = []
        node = Node(REDIS_URL, _Tables(), _Store(codes), LeaseTimes())  # type: ignore[arg-type]

        async def take(room: _Room) -> _Taken:
            taken.append(room.code)
            return _Taken()

        node.open = take  # type: ignore[assignment,method-assign]
        try:
            first = await node.sweep()
            r.set(KEY_PREFIX + codes[2], "another node's token", px=10_000)
            second = await node.sweep()
        finally:
            await node.leases.redis.aclose()
        return first, second, taken

    try:
        first, second, taken = asyncio.run(run())
    finally:
        r.delete(*(KEY_PREFIX + c for c in codes))
        r.close()
    assert (first, second, sorted(taken)) == (0, 2, sorted(codes[:2]))


def test_a_lease_of_a_dead_node_is_nobodys_and_taken_at_once() -> None:
    """Room X's lease is held by a node whose node key is gone (dead): its holder reads as
    nobody and another node's acquire takes it before it runs out. Room Y's holder lives (its
    node key is there): it is the holder, and the lease is not taken."""
    import redis  # noqa: PLC0415 - skipped above without it

    x, y = (f"test{secrets.token_hex(6)}" for _ in range(2))
    dead, live = f"dead:1:{secrets.token_hex(8)}", f"live:2:{secrets.token_hex(8)}"
    r = redis.Redis.from_url(REDIS_URL)
    r.set(KEY_PREFIX + x, dead, px=60_000)
    r.set(KEY_PREFIX + y, live, px=60_000)
    r.set(NODE_PREFIX + live, "1", px=60_000)

    async def run() -> tuple[str | None, str | None, bool, bool]:
        leases = Leases(REDIS_URL, lambda code: None, LeaseTimes())
        try:
            seen = (await leases.holder(x), await leases.holder(y))
            return *seen, await leases.acquire(x), await leases.acquire(y)
        finally:
            await leases.redis.aclose()

    try:
        holder_x, holder_y, took_x, took_y = asyncio.run(run())
        taker = r.get(KEY_PREFIX + x)
        assert isinstance(taker, bytes) and r.exists(NODE_PREFIX + taker.decode()) == 1  # the taker's node key is set
        assert r.pttl(KEY_PREFIX + x) <= 5000  # the taker's lease, its own ttl
        assert r.get(KEY_PREFIX + y) == live.encode()
    finally:
        r.delete(KEY_PREFIX + x, KEY_PREFIX + y, NODE_PREFIX + live)
        r.close()
    assert (holder_x, holder_y, took_x, took_y) == (None, live, True, False)


def test_a_node_relays_more_pages_than_redis_pys_default_pool() -> None:
    """Each page a node relays holds a Redis connection for its subscription. redis-py 8 bounds
    a pool at 100 connections unless told otherwise, and a node relaying more pages failed the
    rest with "Too many connections" (bench_server.py --nodes 3 --cross 1: 17 relays ended on
    one node, their pages reconnecting). The node's pool takes 300 subscriptions at once, and
    its commands still answer."""
    channels = [f"test:many:{secrets.token_hex(6)}" for _ in range(300)]

    async def run() -> tuple[int, str | None]:
        leases = Leases(REDIS_URL, lambda code: None, LeaseTimes())
        subs = [leases.redis.pubsub() for _ in channels]
        try:
            await asyncio.gather(*(p.subscribe(c) for p, c in zip(subs, channels, strict=True)))
            listening = sum(n for _, n in await leases.redis.pubsub_numsub(*channels))
            return listening, await leases.holder("test" + secrets.token_hex(6))
        finally:
            for p in subs:
                await p.aclose()
            await leases.redis.aclose()

    assert asyncio.run(run()) == (300, None)
