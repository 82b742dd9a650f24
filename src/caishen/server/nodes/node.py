"""Game-centre nodes (issue 28; docs/server.md, "Nodes"): ``caishen serve --redis URL``.

A node is an ordinary server process on a database that several share (PostgreSQL) and a
Redis server. It runs a room's table only while it holds the room's **lease** in Redis
(:class:`Leases`): a key ``caishen:lease:CODE`` whose value is the node's token, taken when
the key is free (``SET NX PX`` semantics, in a script that also lets the node take back a key
that is still its own), renewed every ``renew`` seconds by a script that extends it only if it
still holds the node's token, and deleted by compare-and-delete when the node lets go.

Each renewal also sets the node's own key ``caishen:node:TOKEN``, which lives three renewals
(3 s by default): a lease whose holder's node key is gone belongs to a dead node, and a node a
connection reaches takes the table at once instead of waiting for the lease to run out (a node
only slow is fenced below, never wrong). A renewal that finds a lease's key absent (Redis
restarted empty, or the lease ran out and nobody took the table) takes it again and checks
that the room's epoch is still its table's.

A node that cannot renew a lease (the key is another's; Redis does not answer until
the lease may have run out) stops acting for that table at once: the table leaves memory and
its connections are closed with ``CLOSE_MOVED`` (1012), which the page answers by connecting
again. Taking a table over raises the room's **epoch** (``Store.take_over``) before the table
is rebuilt from the database; every write of the table carries that epoch, and the database
refuses it once another node has raised it (``store.Fenced``). So a node that was paused past
its lease, and acts before it has noticed, cannot store a move (the fencing argument).

A connection for a room that no node runs takes its lease here. A connection for a room that
another live node runs is joined to that node through Redis pub/sub
(:mod:`caishen.server.nodes.edge`); one that cannot be (Redis away, the owner not listening) is
closed with ``CLOSE_ELSEWHERE`` (1013, "try again later"). Besides, each node **sweeps**
every lease ttl or so: a playing room whose lease key is absent (its node died, or the cluster
was started afresh) is taken over without waiting for a connection. A table that left memory
for want of connections (idle) leaves an ``idle`` mark instead of its lease, so that it rests
as on one process until a player comes back.

SIGTERM **drains** a node (:meth:`Node.drain`): it refuses new tables (1013), lets every write
on its way finish, lets go of its leases, stops taking relayed connections and closes its
pages with 1012, so that another node takes each table at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from caishen.errors import CaishenError
from caishen.server import metrics
from caishen.server.conns import CLOSE_MOVED
from caishen.server.logs import error_line, fields, log
from caishen.server.nodes.edge import Owner, edge
from caishen.server.store import RoomInfo, Store
from caishen.server.tables import LiveTable, Tables

REDIS_ENV = "CAISHEN_REDIS"       # the Redis URL when --redis is not given
LEASE_MS_ENV = "CAISHEN_LEASE_MS"  # a lease's time to live in ms (default LEASE_MS)
LEASE_MS = 5000
KEY_PREFIX = "caishen:lease:"
NODE_PREFIX = "caishen:node:"  # + a node's token: present while the node renews (it lives)
IDLE = "idle"  # the value a table's lease key keeps once it left memory for want of connections
REST_MS = 24 * 3600 * 1000  # how long an idle mark stays (then a sweep may take the table again)
DRAIN_SECONDS = 4.0  # a draining node waits this long at most for its tables' writes
SWEEP_TAKES = 16  # tables one sweep takes over at most (each is read from the database in the loop)
REQUEST_SECONDS = 5.0  # any other request to Redis fails past this (or past the lease's ttl)
# The bound of the node's Redis connection pool. Each page the node relays to another node
# holds a connection for its life (its subscription), and the node's WebSocket cap
# (--max-connections, 1,000 by default) bounds those; redis-py 8's default bound of 100 made
# the hundredth relayed page fail ("Too many connections") and reconnect, again and again.
REDIS_CONNECTIONS = 10_000

# Take the key if it is free, idle (ARGV[3]), still this node's own (a table dropped while Redis was
# away: a node need not wait out its own lease), or held by a node that no longer lives (its node
# key, ARGV[5] .. token, gone: it died, or has not reached Redis for a while); the node's own
# node key (ARGV[4]) is set too, for ARGV[6] ms.
_ACQUIRE = """
local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] or v == ARGV[3] or redis.call('EXISTS', ARGV[5] .. v) == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('SET', ARGV[4], '1', 'PX', ARGV[6])
  return 1
end
return 0
"""
# The lease's holder, if it lives (its node key is there); the idle mark as it is.
_HOLDER = """
local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] or redis.call('EXISTS', ARGV[2] .. v) == 1 then
  return v
end
return false
"""
# Extend each key that still holds this node's token (1), take again one that is absent (2: Redis
# restarted empty, or the lease ran out and nobody took it; the node checks the room's epoch
# before it goes on), 0 for a key another node holds or an idle mark.
_RENEW = """
redis.call('SET', ARGV[3], '1', 'PX', ARGV[4])
local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.call('GET', k)
  if v == ARGV[1] then
    redis.call('PEXPIRE', k, ARGV[2])
    out[i] = 1
  elseif v == false then
    redis.call('SET', k, ARGV[1], 'PX', ARGV[2])
    out[i] = 2
  else
    out[i] = 0
  end
end
return out
"""
# Compare-and-delete: only this node's own key.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# Compare-and-rest: this node's own key becomes the idle mark (a table that left memory idle).
_REST = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""


class NodeError(CaishenError):
    """A table this node cannot run now: ``owned_elsewhere`` (another node holds its lease),
    ``redis_unavailable`` (the lease could not be asked for), ``takeover_failed`` (the
    database did not let the epoch be raised or the table be rebuilt now) or ``draining``
    (this node is stopping)."""


@dataclass(frozen=True, slots=True)
class LeaseTimes:
    """A lease's time to live, how often it is renewed, how long one request to Redis may
    take, and the margin kept against clock drift: a lease counts as held until its last
    successful renewal was *sent* plus ``ttl - margin``. ``alive``: how long the node's own key
    (``NODE_PREFIX`` + token) lives after each renewal: a node whose key is gone is dead, and
    another node may take its tables at once, before their leases run out (three renewals
    missed; a node merely slow is fenced, never wrong)."""

    ttl: float = LEASE_MS / 1000
    renew: float = LEASE_MS / 5000
    timeout: float = LEASE_MS / 4000
    margin: float = LEASE_MS / 10_000
    alive: float = 3 * LEASE_MS / 5000

    @classmethod
    def from_env(cls) -> LeaseTimes:
        """From ``$CAISHEN_LEASE_MS`` (tests shorten it): renewed five times a lease."""
        try:
            ms = max(300, int(os.environ.get(LEASE_MS_ENV, str(LEASE_MS))))
        except ValueError:
            ms = LEASE_MS
        return cls(ttl=ms / 1000, renew=ms / 5000, timeout=ms / 4000, margin=ms / 10_000, alive=3 * ms / 5000)


def node_token() -> str:
    """This node's token: host, process and 64 random bits (a restarted process is a new node)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"


class Leases:
    """The leases this node holds, kept alive by :meth:`run`. ``on_lost(code)`` is called (in
    the event loop) for each lease that could not be renewed."""

    def __init__(self, url: str, on_lost: Callable[[str], None], times: LeaseTimes | None = None,
                 token: str | None = None, on_retaken: Callable[[str], None] | None = None) -> None:
        import redis.asyncio as aioredis  # noqa: PLC0415 - only a node needs the client

        self.times = times or LeaseTimes.from_env()
        self.token = token or node_token()
        self.on_lost = on_lost
        self.on_retaken = on_retaken
        # each lease request is bounded by times.timeout (_ask); the relay's requests may take
        # longer on a busy machine before they count as failed
        wait = max(REQUEST_SECONDS, self.times.ttl)
        self.redis = aioredis.Redis.from_url(url, socket_timeout=wait, socket_connect_timeout=wait,
                                             max_connections=REDIS_CONNECTIONS)
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self._rest = self.redis.register_script(_REST)
        self._holder = self.redis.register_script(_HOLDER)
        self.node_key = NODE_PREFIX + self.token
        self.held: dict[str, float] = {}  # code -> held until (time.monotonic())
        # a renewal takes an absent key again: a release (compare-and-delete) waits for the
        # renewal on its way, so that the key it deletes is not set again just after
        self._renewing = asyncio.Lock()

    @property
    def _ttl_ms(self) -> int:
        return int(self.times.ttl * 1000)

    async def _ask(self, call: Awaitable[Any]) -> Any:
        return await asyncio.wait_for(call, self.times.timeout)

    async def acquire(self, code: str) -> bool:
        """Take room ``code``'s lease if it is free (or still this node's); whether it is held.
        Raises :class:`NodeError` ``redis_unavailable`` if Redis does not answer."""
        sent = time.monotonic()
        try:
            got = await self._ask(self._acquire(keys=[KEY_PREFIX + code], args=[
                self.token, self._ttl_ms, IDLE, self.node_key, NODE_PREFIX, int(self.times.alive * 1000)]))
        except Exception as exc:  # noqa: BLE001 - any failure to ask is "not now"
            raise NodeError(f"cannot reach Redis for room {code}'s lease: {type(exc).__name__}",
                            code="redis_unavailable") from None
        if int(got) != 1:
            return False
        self.held[code] = sent + self.times.ttl - self.times.margin
        return True

    async def release(self, code: str) -> None:
        """Let go of room ``code``'s lease (compare-and-delete: never another node's)."""
        self.held.pop(code, None)
        with contextlib.suppress(Exception):  # Redis away: the lease runs out by itself
            async with self._renewing:  # after a renewal on its way, which may set the key again
                await self._ask(self._release(keys=[KEY_PREFIX + code], args=[self.token]))

    async def rest(self, code: str) -> None:
        """Let go of room ``code``'s lease leaving the idle mark (compare-and-set): its table left
        memory for want of connections, and no sweep takes it until a player comes back."""
        self.held.pop(code, None)
        with contextlib.suppress(Exception):  # Redis away: the lease runs out by itself
            await self._ask(self._rest(keys=[KEY_PREFIX + code], args=[self.token, IDLE, REST_MS]))

    async def free(self, codes: list[str]) -> list[str]:
        """Those of rooms ``codes`` whose lease key is absent (no node runs them, none rests)."""
        out: list[str] = []
        for i in range(0, len(codes), 500):
            part = codes[i:i + 500]
            got = await self._ask(self.redis.mget([KEY_PREFIX + c for c in part]))
            out += [c for c, v in zip(part, got, strict=True) if v is None]
        return out

    async def holder(self, code: str) -> str | None:
        """The token that holds room ``code``'s lease, if any and its node lives (a dead node's
        lease, not run out yet, is nobody's: a connection takes the table over)."""
        got = await self._ask(self._holder(keys=[KEY_PREFIX + code], args=[IDLE, NODE_PREFIX]))
        return None if got is None else bytes(got).decode()

    def _lose(self, code: str, why: str) -> None:
        if self.held.pop(code, None) is None:
            return
        metrics.leases_lost.inc()
        log.warning("lease lost: the table stops here", extra=fields(event="lease_lost", room=code, why=why))
        self.on_lost(code)

    async def give_up(self, code: str, why: str) -> None:
        """Stop acting for room ``code``'s table (as for a lost lease) and let go of its key."""
        self._lose(code, why)
        await self.release(code)

    async def renew_once(self) -> None:
        """Renew every lease held. A lease whose key is another node's is lost at once; one
        whose key is absent (Redis restarted empty, or the lease ran out and nobody took it) is
        taken again, and ``on_retaken`` checks that nobody ran the table meanwhile; if Redis
        does not answer, every lease whose time is up is lost."""
        codes = list(self.held)
        if not codes:
            return
        sent = time.monotonic()
        try:
            async with self._renewing:
                got = await self._ask(self._renew(keys=[KEY_PREFIX + c for c in codes], args=[
                    self.token, self._ttl_ms, self.node_key, int(self.times.alive * 1000)]))
        except Exception as exc:  # noqa: BLE001 - Redis away or slow: the leases run on their time
            t = time.monotonic()
            for code in codes:
                if code in self.held and t >= self.held[code]:
                    self._lose(code, f"not renewed in time ({type(exc).__name__})")
            return
        for code, ok in zip(codes, got, strict=True):
            if code not in self.held:
                continue  # let go of meanwhile (its key deleted after this renewal: _renewing)
            if int(ok) in (1, 2):
                self.held[code] = sent + self.times.ttl - self.times.margin
                if int(ok) == 2:
                    metrics.leases_retaken.inc()
                    if self.on_retaken is not None:
                        self.on_retaken(code)
            else:
                self._lose(code, "held by another node or expired")

    async def run(self) -> None:
        """Renew the leases every ``times.renew`` seconds, for as long as the node runs, and
        probe Redis as often: one line in the log when it stops answering
        (``redis_unavailable``, with the reason) and one when it answers again
        (``redis_available``, with the seconds it was away), and ``caishen_redis_ok``; the
        relay and the sweep otherwise said only the error's type, every second, and nothing
        when it came back (an operator's review)."""
        lost: float | None = None
        metrics.redis_ok.set(1)
        while True:
            await asyncio.sleep(self.times.renew)  # the pace of the renewals, not a wait for a state
            try:
                await self.renew_once()
            except Exception:  # noqa: BLE001 - never let the renewals stop
                log.exception("renewing the leases failed")
            failed: BaseException | None = None
            try:
                await self._ask(self.redis.ping())
            except Exception as exc:  # noqa: BLE001 - any failure to answer is "away"
                failed = exc
            if failed is not None and lost is None:
                lost = time.monotonic()
                metrics.redis_ok.set(0)
                log.warning("Redis does not answer", extra=fields(event="redis_unavailable", error=error_line(failed)))
            elif failed is None and lost is not None:
                metrics.redis_ok.set(1)
                log.warning("Redis answers again", extra=fields(
                    event="redis_available", seconds=round(time.monotonic() - lost, 1)))
                lost = None

    async def release_all(self) -> int:
        """Let go of every lease held (compare-and-delete); how many."""
        codes = list(self.held)
        await asyncio.gather(*(self.release(code) for code in codes))
        return len(codes)

    async def close(self) -> None:
        """Let go of every lease (a clean shutdown: other nodes may take the tables at once)."""
        await self.release_all()
        with contextlib.suppress(Exception):
            await self.redis.aclose()


class Node:
    """This process as a game-centre node: it runs the tables whose leases it holds, taking a
    table over when a connection for it arrives and no node runs it, or when its sweep finds
    a playing room without a lease; :meth:`drain` hands its tables on when it stops."""

    def __init__(self, redis_url: str, tables: Tables, store: Store, times: LeaseTimes | None = None) -> None:
        self.tables = tables
        self.store = store
        self.leases = Leases(redis_url, self._lost, times, on_retaken=self._retaken)
        self.owner = Owner(self.leases.redis, tables, self.leases.times.renew)  # relayed connections
        self._taking: dict[str, tuple[asyncio.Lock, int]] = {}  # a lock per room being taken, and its users
        self._tasks: set[asyncio.Task[None]] = set()
        self._renewing: asyncio.Task[None] | None = None
        self._sweeping: asyncio.Task[None] | None = None
        self.draining = False  # stopping: no table is taken any more
        self._absent: set[str] = set()  # the playing rooms without a lease key at the last sweep
        self._drained: asyncio.Future[None] | None = None
        tables.on_leave = self._left

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._renewing = loop.create_task(self.leases.run())
        self._sweeping = loop.create_task(self.keep_sweeping())

    async def stop(self) -> None:
        await self.drain()
        if self._renewing is not None:
            self._renewing.cancel()
        await self.owner.stop()
        await self.leases.close()

    # ------------------------------------------------------------ the sweep

    async def keep_sweeping(self) -> None:
        """:meth:`sweep` every lease ttl or so (between a half and one ttl, at random: the
        nodes do not sweep in step), from a random moment within a ttl of the start."""
        ttl = self.leases.times.ttl
        failed = 0  # sweeps failed in a row: the first is logged, and the one that works again
        await asyncio.sleep(random.uniform(0, ttl))  # the pace of the sweeps, not a wait for a state
        while not self.draining:
            try:
                await self.sweep()
            except Exception as exc:  # noqa: BLE001 - the database or Redis away: the next sweep tries again
                if not failed:  # (every sweep of an outage said it again, every few seconds)
                    log.warning("sweeping for tables without a node failed", extra=fields(
                        event="node_sweep_failed", error=error_line(exc)))
                failed += 1
            else:
                if failed:
                    log.warning("sweeping for tables without a node works again", extra=fields(
                        event="node_sweep_recovered", failed_sweeps=failed))
                failed = 0
            await asyncio.sleep(random.uniform(ttl / 2, ttl))  # the pace of the sweeps

    async def sweep(self) -> int:
        """Take over up to SWEEP_TAKES playing rooms (with a hand dealt) whose lease key is
        absent, and was at this node's last sweep too, chosen at random: a dead node's tables
        nobody connects to, or, on a cluster started afresh, every unfinished match. (Seen
        twice, half a ttl apart at least: when Redis restarts empty, the owners' renewals,
        five a ttl, take their keys again first, and no table is taken from a live node.)
        Taking is ``SET NX``: two nodes never both take one. How many this node took."""
        if self.draining:
            return 0
        codes = [c for c in await asyncio.to_thread(self.store.playing_codes, True) if c not in self.tables.live]
        if not codes:
            self._absent = set()
            return 0
        absent = await self.leases.free(codes)
        free = [c for c in absent if c in self._absent]
        self._absent = set(absent)
        random.shuffle(free)
        taken = 0
        for code in free[:SWEEP_TAKES]:
            if self.draining:
                break
            room = await asyncio.to_thread(self.store.room, code)
            if room is None or room.status != "playing" or code in self.tables.live:
                continue
            try:
                live = await self.open(room)
            except NodeError:  # another node was quicker, or not now: the next sweep looks again
                continue
            if live is not None:
                await live.run_on()  # nobody may ever connect: its bots and timers go on
                taken += 1
                metrics.swept_tables.inc()
                log.info("table taken over by the sweep", extra=fields(event="swept", room=code))
        return taken

    # ------------------------------------------------------------ draining

    async def drain(self, seconds: float = DRAIN_SECONDS) -> None:
        """Hand this node's tables on (SIGTERM, docs/server.md "Nodes"): take no table any more
        (a connection is closed with 1013, the page tries again elsewhere; no sweep); wait up to
        ``seconds`` for every write on its way, storing what each table did beyond it; let go
        of every lease (compare-and-delete), so that other nodes take the tables at once; stop
        taking relayed connections; close every page with 1012, which reconnects. A table
        whose write does not end in time is stopped all the same: its late write, if any, is
        refused by the epoch of the node that takes it over. Once only; later calls wait."""
        if self._drained is not None:
            await asyncio.shield(self._drained)
            return
        self._drained = asyncio.get_running_loop().create_future()
        try:
            await self._drain(seconds)
        finally:
            self._drained.set_result(None)

    async def _drain(self, seconds: float) -> None:
        began = time.monotonic()
        self.draining = True
        if self._sweeping is not None:
            self._sweeping.cancel()
            with contextlib.suppress(BaseException):
                await self._sweeping

        async def settle() -> None:
            for lock, _ in list(self._taking.values()):  # takeovers on their way end first
                async with lock:
                    pass
            tasks = [asyncio.ensure_future(live.settle()) for live in list(self.tables.live.values())]
            if tasks:
                await asyncio.wait(tasks)

        settling = asyncio.ensure_future(settle())
        await asyncio.wait([settling], timeout=seconds)  # never cancelled: a write is not cut
        tables = list(self.tables.live.values())
        self.tables.live.clear()
        stuck = 0
        for live in tables:
            if not live.evicted:  # its write did not end in time: stopped all the same
                stuck += 1
                live.evict()
        metrics.drained_tables.labels(outcome="stored").inc(len(tables) - stuck)
        metrics.drained_tables.labels(outcome="stuck").inc(stuck)
        if self._renewing is not None:
            self._renewing.cancel()
        released = await self.leases.release_all()
        relayed = await self.owner.stop()
        closed = 0
        for live in tables:
            for c in list(live.clients):
                if c.outbox.closed is None:  # (the relayed ones were closed above)
                    c.outbox.give_up(CLOSE_MOVED, "this node is stopping: reconnecting")
                    closed += 1
            live.watching.give_up(CLOSE_MOVED, "this node is stopping: reconnecting")  # its spectators too
        log_at = log.warning if stuck else log.info
        log_at("node drained", extra=fields(
            event="node_drained", tables=len(tables), stuck=stuck, leases_released=released,
            connections_closed=closed, relayed_closed=relayed, seconds=round(time.monotonic() - began, 3)))

    def _spawn(self, job: Awaitable[None]) -> None:
        async def run() -> None:
            await job

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _lost(self, code: str) -> None:
        """A lease not renewed: stop acting for the table at once."""
        live = self.tables.live.pop(code, None)
        if live is not None:
            live.drop()
        self._spawn(self.owner.forget(code))

    def _retaken(self, code: str) -> None:
        """A lease whose key had gone was taken again by the renewal (Redis restarted empty, or
        the lease ran out and nobody took the table): the table goes on here if the room's epoch
        is still its own; if another node ran it meanwhile (and let go), this node's table is
        stale: it stops here, as for a lost lease, and the key is let go of."""
        live = self.tables.live.get(code)
        if live is None:
            return

        async def check() -> None:
            try:
                epoch = await asyncio.to_thread(self.store.epoch, code)
            except Exception:  # noqa: BLE001 - the database away: the table's next write is fenced if stale
                return
            if self.tables.live.get(code) is live and live.epoch is not None and epoch != live.epoch:
                await self.leases.give_up(code, f"the room's epoch is {epoch}, not this table's {live.epoch}")

        self._spawn(check())

    def _fenced(self, code: str) -> None:
        """A write of the table was refused for its epoch: out of memory, the lease let go."""
        live = self.tables.live.get(code)
        if live is not None and live.evicted:  # (not a table taken again since)
            del self.tables.live[code]
        self._spawn(self.owner.forget(code))
        self._spawn(self.leases.release(code))

    def _left(self, code: str) -> None:
        """A table left memory (idle, damaged): its lease becomes the idle mark, so that no
        sweep takes it until a player comes back (as a table that left memory on one process)."""
        self._spawn(self.owner.forget(code))
        self._spawn(self.leases.rest(code))

    async def open(self, room: RoomInfo) -> LiveTable | None:
        """Room ``room``'s live table on this node: the one it runs, or, if no node runs it,
        taken over here (lease, epoch raised, rebuilt from the database). None for a room not
        playing (or damaged); :class:`NodeError` if another node runs it, Redis is away or this
        node drains."""
        if self.draining:
            raise NodeError("this node is stopping: try again", code="draining")
        live = self.tables.live.get(room.code)
        if live is not None or room.status != "playing":
            return live
        lock, users = self._taking.get(room.code) or (asyncio.Lock(), 0)
        self._taking[room.code] = (lock, users + 1)
        try:
            async with lock:  # one takeover at a time per room: the others then find it live
                live = self.tables.live.get(room.code)
                if live is not None:
                    return live
                return await self._take(room)
        finally:
            lock, users = self._taking[room.code]
            if users <= 1:
                del self._taking[room.code]
            else:
                self._taking[room.code] = (lock, users - 1)

    async def relay(self, code: str, uid: str, player: int, contributes: bool, since: str | None,
                    receive: Callable[[], Awaitable[str | None]], send: Callable[[str], Awaitable[None]],
                    close: Callable[[int, str], Awaitable[None]], peer: str = "", watch: str | None = None) -> None:
        """Join an accepted WebSocket of table ``code``, which another node runs, to that
        node through Redis pub/sub (:mod:`caishen.server.nodes.edge`); ``peer``: its address;
        ``watch``: a spectator's name (then ``player`` is -1)."""
        await edge(self.leases.redis, code, uid, player, contributes, since, self.leases.times.renew,
                   lambda: self.leases.holder(code), receive, send, close, peer=peer, spectator=watch)

    async def _take(self, room: RoomInfo) -> LiveTable | None:
        code = room.code
        if self.draining:
            raise NodeError("this node is stopping: try again", code="draining")
        if not await self.leases.acquire(code):
            raise NodeError(f"room {code}'s table runs on another node: try again", code="owned_elsewhere")
        try:
            # the epoch is raised before the moves are read: a write of the node that ran the
            # table before is stored before this commit (and read below) or refused after it
            # both in a thread: the event loop runs every other table meanwhile (a takeover waits
            # up to TAKE_OVER_LOCK_MS for the room's row)
            epoch = await asyncio.to_thread(self.store.take_over, code)
            live = await self.tables.open_soon(room, epoch)
        except CaishenError as exc:  # fenced: yet another node took it meanwhile
            await self.leases.release(code)
            raise NodeError(f"room {code}'s table runs on another node: try again", code="owned_elsewhere") from exc
        except Exception as exc:  # the database away, or the room's row held past the lock timeout
            await self.leases.release(code)
            log.warning("taking a table over failed", extra=fields(
                event="takeover_failed", room=code, error=error_line(exc)))
            raise NodeError(f"room {code}'s table cannot be taken over now: try again",
                            code="takeover_failed") from exc
        except BaseException:
            await self.leases.release(code)
            raise
        if live is None:  # damaged
            await self.leases.release(code)
            return None
        live.on_lost = self._fenced
        try:
            await self.owner.listen(code)
        except Exception:  # noqa: BLE001 - Redis away: the table runs; relayed connections wait for it
            log.warning("cannot take relayed connections", extra=fields(event="relay_unavailable", room=code))
        log.info("table taken over", extra=fields(event="takeover", room=code, epoch=epoch))
        return live
