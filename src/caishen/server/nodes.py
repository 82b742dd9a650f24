"""Game-centre nodes (issue 28; docs/server.md, "Nodes"): ``caishen serve --redis URL``.

A node is an ordinary server process on a database that several share (PostgreSQL) and a
Redis server. It runs a room's table only while it holds the room's **lease** in Redis
(:class:`Leases`): a key ``caishen:lease:CODE`` whose value is the node's token, taken when
the key is free (``SET NX PX`` semantics, in a script that also lets the node take back a key
that is still its own), renewed every ``renew`` seconds by a script that extends it only if it
still holds the node's token, and deleted by compare-and-delete when the node lets go.

A node that cannot renew a lease (the key is gone or another's; Redis does not answer until
the lease may have run out) stops acting for that table at once: the table leaves memory and
its connections are closed with ``CLOSE_MOVED`` (1012), which the page answers by connecting
again. Taking a table over raises the room's **epoch** (``Store.take_over``) before the table
is rebuilt from the database; every write of the table carries that epoch, and the database
refuses it once another node has raised it (``store.Fenced``). So a node that was paused past
its lease, and acts before it has noticed, cannot store a move (the fencing argument).

Taking over is on demand: a connection for a room that no node runs takes its lease here.
A connection for a room that another live node runs is joined to that node through Redis
pub/sub (:mod:`caishen.server.noderelay`); one that cannot be (Redis away, the owner not
listening) is closed with ``CLOSE_ELSEWHERE`` (1013, "try again later").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from caishen.errors import CaishenError
from caishen.server import metrics
from caishen.server.logs import fields, log
from caishen.server.noderelay import Owner, edge
from caishen.server.store import RoomInfo, Store
from caishen.server.tables import LiveTable, Tables

REDIS_ENV = "CAISHEN_REDIS"       # the Redis URL when --redis is not given
LEASE_MS_ENV = "CAISHEN_LEASE_MS"  # a lease's time to live in ms (default LEASE_MS)
LEASE_MS = 5000
KEY_PREFIX = "caishen:lease:"
REQUEST_SECONDS = 5.0  # any other request to Redis fails past this (or past the lease's ttl)

# Take the key if it is free, or still this node's own (a table dropped while Redis was away):
# SET NX PX, and a node need not wait out its own lease.
_ACQUIRE = """
local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
# Extend each key that still holds this node's token; 1 or 0 per key.
_RENEW = """
local out = {}
for i, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then
    redis.call('PEXPIRE', k, ARGV[2])
    out[i] = 1
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


class NodeError(CaishenError):
    """A table this node cannot run now: ``owned_elsewhere`` (another node holds its lease),
    ``redis_unavailable`` (the lease could not be asked for) or ``takeover_failed`` (the
    database did not let the epoch be raised or the table be rebuilt now)."""


@dataclass(frozen=True, slots=True)
class LeaseTimes:
    """A lease's time to live, how often it is renewed, how long one request to Redis may
    take, and the margin kept against clock drift: a lease counts as held until its last
    successful renewal was *sent* plus ``ttl - margin``."""

    ttl: float = LEASE_MS / 1000
    renew: float = LEASE_MS / 5000
    timeout: float = LEASE_MS / 4000
    margin: float = LEASE_MS / 10_000

    @classmethod
    def from_env(cls) -> LeaseTimes:
        """From ``$CAISHEN_LEASE_MS`` (tests shorten it): renewed five times a lease."""
        try:
            ms = max(300, int(os.environ.get(LEASE_MS_ENV, str(LEASE_MS))))
        except ValueError:
            ms = LEASE_MS
        return cls(ttl=ms / 1000, renew=ms / 5000, timeout=ms / 4000, margin=ms / 10_000)


def node_token() -> str:
    """This node's token: host, process and 64 random bits (a restarted process is a new node)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"


class Leases:
    """The leases this node holds, kept alive by :meth:`run`. ``on_lost(code)`` is called (in
    the event loop) for each lease that could not be renewed."""

    def __init__(self, url: str, on_lost: Callable[[str], None], times: LeaseTimes | None = None,
                 token: str | None = None) -> None:
        import redis.asyncio as aioredis  # noqa: PLC0415 - only a node needs the client

        self.times = times or LeaseTimes.from_env()
        self.token = token or node_token()
        self.on_lost = on_lost
        # each lease request is bounded by times.timeout (_ask); the relay's requests may take
        # longer on a busy machine before they count as failed
        wait = max(REQUEST_SECONDS, self.times.ttl)
        self.redis = aioredis.Redis.from_url(url, socket_timeout=wait, socket_connect_timeout=wait)
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self.held: dict[str, float] = {}  # code -> held until (time.monotonic())

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
            got = await self._ask(self._acquire(keys=[KEY_PREFIX + code], args=[self.token, self._ttl_ms]))
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
            await self._ask(self._release(keys=[KEY_PREFIX + code], args=[self.token]))

    async def holder(self, code: str) -> str | None:
        """The token that holds room ``code``'s lease, if any."""
        got = await self._ask(self.redis.get(KEY_PREFIX + code))
        return None if got is None else bytes(got).decode()

    def _lose(self, code: str, why: str) -> None:
        if self.held.pop(code, None) is None:
            return
        metrics.leases_lost.inc()
        log.warning("lease lost: the table stops here", extra=fields(event="lease_lost", room=code, why=why))
        self.on_lost(code)

    async def renew_once(self) -> None:
        """Renew every lease held. A lease whose key is no longer this node's is lost at once;
        if Redis does not answer, every lease whose time is up is lost."""
        codes = list(self.held)
        if not codes:
            return
        sent = time.monotonic()
        try:
            got = await self._ask(self._renew(keys=[KEY_PREFIX + c for c in codes], args=[self.token, self._ttl_ms]))
        except Exception as exc:  # noqa: BLE001 - Redis away or slow: the leases run on their time
            t = time.monotonic()
            for code in codes:
                if code in self.held and t >= self.held[code]:
                    self._lose(code, f"not renewed in time ({type(exc).__name__})")
            return
        for code, ok in zip(codes, got, strict=True):
            if code not in self.held:
                continue  # let go of meanwhile
            if int(ok) == 1:
                self.held[code] = sent + self.times.ttl - self.times.margin
            else:
                self._lose(code, "held by another node or expired")

    async def run(self) -> None:
        """Renew the leases every ``times.renew`` seconds, for as long as the node runs."""
        while True:
            await asyncio.sleep(self.times.renew)  # the pace of the renewals, not a wait for a state
            try:
                await self.renew_once()
            except Exception:  # noqa: BLE001 - never let the renewals stop
                log.exception("renewing the leases failed")

    async def close(self) -> None:
        """Let go of every lease (a clean shutdown: other nodes may take the tables at once)."""
        for code in list(self.held):
            await self.release(code)
        with contextlib.suppress(Exception):
            await self.redis.aclose()


class Node:
    """This process as a game-centre node: it runs the tables whose leases it holds, taking a
    table over when a connection for it arrives and no node runs it."""

    def __init__(self, redis_url: str, tables: Tables, store: Store, times: LeaseTimes | None = None) -> None:
        self.tables = tables
        self.store = store
        self.leases = Leases(redis_url, self._lost, times)
        self.owner = Owner(self.leases.redis, tables, self.leases.times.renew)  # relayed connections
        self._taking: dict[str, tuple[asyncio.Lock, int]] = {}  # a lock per room being taken, and its users
        self._tasks: set[asyncio.Task[None]] = set()
        self._renewing: asyncio.Task[None] | None = None
        tables.on_leave = self._left

    def start(self) -> None:
        self._renewing = asyncio.get_running_loop().create_task(self.leases.run())

    async def stop(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
        await self.owner.stop()
        await self.leases.close()

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

    def _fenced(self, code: str) -> None:
        """A write of the table was refused for its epoch: out of memory, the lease let go."""
        live = self.tables.live.get(code)
        if live is not None and live.evicted:  # (not a table taken again since)
            del self.tables.live[code]
        self._spawn(self.owner.forget(code))
        self._spawn(self.leases.release(code))

    def _left(self, code: str) -> None:
        """A table left memory (idle, damaged): its lease is let go."""
        self._spawn(self.owner.forget(code))
        self._spawn(self.leases.release(code))

    async def open(self, room: RoomInfo) -> LiveTable | None:
        """Room ``room``'s live table on this node: the one it runs, or, if no node runs it,
        taken over here (lease, epoch raised, rebuilt from the database). None for a room not
        playing (or damaged); :class:`NodeError` if another node runs it or Redis is away."""
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
                    close: Callable[[int, str], Awaitable[None]]) -> None:
        """Join an accepted WebSocket of table ``code``, which another node runs, to that
        node through Redis pub/sub (:mod:`caishen.server.noderelay`)."""
        await edge(self.leases.redis, code, uid, player, contributes, since, self.leases.times.renew,
                   lambda: self.leases.holder(code), receive, send, close)

    async def _take(self, room: RoomInfo) -> LiveTable | None:
        code = room.code
        if not await self.leases.acquire(code):
            raise NodeError(f"room {code}'s table runs on another node: try again", code="owned_elsewhere")
        try:
            # the epoch is raised before the moves are read: a write of the node that ran the
            # table before is stored before this commit (and read below) or refused after it
            epoch = self.store.take_over(code)
            live = self.tables.open(room, epoch)
        except CaishenError as exc:  # fenced: yet another node took it meanwhile
            await self.leases.release(code)
            raise NodeError(f"room {code}'s table runs on another node: try again", code="owned_elsewhere") from exc
        except Exception as exc:  # the database away, or the room's row held past the lock timeout
            await self.leases.release(code)
            log.warning("taking a table over failed", extra=fields(
                event="takeover_failed", room=code, error=str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
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
