"""The relay between game-centre nodes (issue 28; docs/server.md, "Nodes"): a player's
connection that reaches a node which does not run the table is joined to the node that does,
through Redis pub/sub.

- The **edge** (the node that holds the WebSocket) checked the cookie, the Origin and the
  seat; it publishes the page's messages on ``caishen:table:CODE:in`` (``open``, then each
  message, a heartbeat every lease renewal, ``close``), and relays what the owner publishes
  on ``caishen:conn:ID:out`` (the seat's own messages, then a close code) to the page. It
  watches the room's lease: when the node holding it changes or it lapses (the owner died),
  it closes the page with 1012, and the page reconnects (to a node that takes the table).
- The **owner** subscribes to ``caishen:table:CODE:in`` while it runs the table. Each relayed
  connection is an ordinary table client there (its own budgets, its own outgoing queue),
  whose queue is published instead of sent; one the edge has not been heard from for
  ``SILENT_SECONDS`` is dropped (an edge that died).

Pub/sub delivers each publisher's messages in order, and drops them while nobody listens:
the edge refuses a connection (1013) if no owner received its ``open``. Nothing the page is
told is lost without a close: the page reconnects and gets the present state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from caishen.server import metrics
from caishen.server.conns import CLOSE_ELSEWHERE, CLOSE_MOVED, Outbox
from caishen.server.logs import error_line, fields, log
from caishen.server.protocol import parse_since
from caishen.server.tables import Client, LiveTable, Tables, address_token
from caishen.server.tables.watchers import Watcher, error_json, refusal, serve

STOP_SECONDS = 1.0  # a stopping owner waits this long for its relayed connections' edges to be told
SILENT_SECONDS = 10.0  # an edge not heard from for this long (it beats every lease renewal) is gone
IN, OUT = "caishen:table:{}:in", "caishen:conn:{}:out"


@dataclass(eq=False)
class _Remote:
    """A relayed connection, at the owner: its table client and what feeds it."""

    client: Client | Watcher  # a player's connection, or a spectator's
    out: str
    inbox: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    heard: float = field(default_factory=time.monotonic)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class Owner:
    """The owner's side: the relayed connections of the tables this node runs."""

    def __init__(self, redis: Any, tables: Tables, beat: float) -> None:
        self.redis = redis
        self.tables = tables
        self.beat = beat
        self.pubsub = redis.pubsub()
        self.remotes: dict[str, _Remote] = {}  # connection id -> remote
        # the tables whose relayed connections this node takes: subscribed to, or to be once
        # Redis answers (a subscription that failed, e.g. as Redis restarted, is made again by
        # the sweep; else every relayed page would be refused for as long as the table runs here)
        self.wanted: set[str] = set()
        self._subscribing: set[str] = set()  # asked for, not answered yet: the sweep leaves them be
        # one (un)subscribe at a time: redis-py's PubSub makes its connection on the first one, and
        # two at once each made a connection of their own, the first one's channels subscribed on
        # a connection nobody reads (bench_server --cross 1: every page relayed to a table taken
        # in the opening burst heard nothing until the table left memory, minutes later)
        self._lock = asyncio.Lock()
        self._runner: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._stopped = False

    async def listen(self, code: str) -> None:
        """Take relayed connections for table ``code`` (this node runs it now)."""
        if self._stopped:
            return
        self.wanted.add(code)
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        await self._subscribe(code)

    async def _subscribe(self, code: str) -> None:
        self._subscribing.add(code)
        try:
            async with self._lock:
                await self.pubsub.subscribe(**{IN.format(code): self._heard})
        finally:
            self._subscribing.discard(code)
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(
                self.pubsub.run(poll_timeout=self.beat, exception_handler=self._failed))

    def _held(self) -> set[str]:
        """The tables whose channel the subscription holds (or will hold again once Redis
        answers: redis-py subscribes to them again on a new connection)."""
        leaving = self.pubsub.pending_unsubscribe_channels  # (asked to end, not yet confirmed)
        names = (c.decode() if isinstance(c, bytes) else str(c) for c in self.pubsub.channels if c not in leaving)
        return {name.split(":")[2] for name in names if name.startswith("caishen:table:")}

    async def forget(self, code: str) -> None:
        """No more relayed connections for ``code`` (the table left this node); the open ones
        are closed with their table's close code (or 1012)."""
        self.wanted.discard(code)
        with contextlib.suppress(Exception):
            async with self._lock:
                await self.pubsub.unsubscribe(IN.format(code))
        for cid, r in list(self.remotes.items()):
            if cid.startswith(code + "/"):
                r.client.outbox.give_up(CLOSE_MOVED, "this table moved to another node: reconnecting")

    async def _failed(self, exc: BaseException, _pubsub: Any) -> None:
        """The subscription's reader failed (Redis away): tried again after a beat. Logged at
        debug level: the node's probe says once when Redis goes and once when it is back
        (``redis_unavailable``, ``redis_available``); this said it every beat."""
        log.debug("relay subscription failed", extra=fields(event="relay_failed", error=error_line(exc)))
        await asyncio.sleep(self.beat)  # the pace of the retries, not a wait for a state

    async def stop(self, seconds: float = STOP_SECONDS) -> int:
        """Take no more relayed connections; close the open ones with 1012 (their edges close
        their pages, which reconnect), waiting up to ``seconds`` for each edge to be told.
        How many were open. Once only."""
        if self._stopped:
            return 0
        self._stopped = True
        for task in (self._runner, self._sweeper):
            if task is not None:
                task.cancel()
        with contextlib.suppress(Exception):
            await self.pubsub.unsubscribe()
        remotes = list(self.remotes.values())
        for r in remotes:
            r.client.outbox.give_up(CLOSE_MOVED, "this node is stopping: reconnecting")
        serving = [t for r in remotes for t in r.tasks if not t.done()]
        if serving:
            await asyncio.wait(serving, timeout=seconds)
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        return len(remotes)

    async def _heard(self, message: dict[str, Any]) -> None:
        try:
            msg = json.loads(message["data"])
            code = str(message["channel"].decode() if isinstance(message["channel"], bytes) else message["channel"])
            code = code.split(":")[2]
            cid = f"{code}/{msg['c']}"
        except (ValueError, KeyError, IndexError, AttributeError):
            return
        kind = msg.get("k")
        r = self.remotes.get(cid)
        if kind == "open" and r is None:
            live = self.tables.live.get(code)
            out = OUT.format(msg["c"])
            if live is None:
                if code in self.wanted:  # (else a subscription left over: the table's node answers)
                    await self._publish(out, {"k": "close", "code": CLOSE_MOVED, "reason": "table moved"})
                return
            uid = str(msg.get("u", ""))

            async def send(text: str, to: str = out) -> None:
                await self._publish(to, {"k": "m", "t": text})

            if isinstance(msg.get("w"), str):  # a spectator (caishen.server.tables.watchers)
                refused = refusal(live.room, live.watching)
                if refused is not None:
                    await send(error_json(*refused))
                    await self._publish(out, {"k": "close", "code": 1008, "reason": refused[0]})
                    return
                w = Watcher(uid=uid, name=str(msg["w"]), outbox=Outbox(send), person=self.tables.person(uid))
                r = self.remotes[cid] = _Remote(w, out)
                r.tasks.append(asyncio.get_running_loop().create_task(self._watch(cid, r, w, live)))
                return

            since = msg.get("s")
            client = Client(player=int(msg["p"]), outbox=Outbox(send), uid=uid, person=self.tables.person(uid),
                            contributes=bool(msg.get("n")), since=parse_since(since if isinstance(since, str) else None),
                            addr=address_token(live.room.seed, str(msg.get("a") or "")))
            r = self.remotes[cid] = _Remote(client, out)
            r.tasks.append(asyncio.get_running_loop().create_task(self._serve(cid, r, live)))
        elif r is not None:
            r.heard = time.monotonic()
            if kind == "m":
                r.inbox.put_nowait(str(msg.get("t", "")))
            elif kind == "close":
                r.inbox.put_nowait(None)
        elif kind in ("beat", "m") and code in self.tables.live:
            # a connection to a table that runs here, unknown here: it ended here, and its close
            # to the edge was lost (Redis away for this node a moment); without this the page
            # would wait for ever, its heartbeats heard by nobody
            with contextlib.suppress(Exception):  # Redis still away: the edge's next beat asks again
                await self._publish(OUT.format(msg["c"]), {"k": "close", "code": CLOSE_MOVED, "reason": "reconnect"})

    async def _publish(self, channel: str, msg: dict[str, object]) -> None:
        await self.redis.publish(channel, json.dumps(msg, ensure_ascii=False))

    async def _watch(self, cid: str, r: _Remote, w: Watcher, live: LiveTable) -> None:
        """One relayed spectator at its table, as the app's handler serves one."""
        try:
            await serve(live.watching, w, r.inbox.get, lambda: None if live.lock.locked() else live.watch_public())
        finally:
            self.tables.release(w.uid)
            with contextlib.suppress(Exception):
                await self._publish(r.out, {"k": "close", "code": w.outbox.closed or CLOSE_MOVED,
                                            "reason": w.outbox.reason or "reconnect"})
            self.remotes.pop(cid, None)  # after its close: a beat heard before is not answered with another

    async def _serve(self, cid: str, r: _Remote, live: LiveTable) -> None:
        """One relayed connection at its table, as the app's handler serves a WebSocket."""
        client = r.client
        assert isinstance(client, Client)
        try:
            await live.serve(client, r.inbox.get)
        finally:
            self.tables.release(client.uid)
            closed = client.outbox.closed
            with contextlib.suppress(Exception):
                await self._publish(r.out, {"k": "close", "code": closed or CLOSE_MOVED,
                                            "reason": client.outbox.reason or "reconnect"})
            self.remotes.pop(cid, None)  # after its close: a beat heard before is not answered with another

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.beat)  # the pace of the check, not a wait for a state
            t = time.monotonic()
            for r in list(self.remotes.values()):
                if t - r.heard > SILENT_SECONDS:
                    r.client.outbox.give_up(CLOSE_MOVED, "relay silent: reconnecting")  # its edge is gone
            # the tables this node runs now are the truth: a table taken again while the
            # forgetting of its earlier run was still on its way is subscribed to all the same
            held, running = self._held() | self._subscribing, set(self.tables.live) | self.wanted
            try:
                for code in running - held:  # a subscription that failed, or undone meanwhile
                    self.wanted.add(code)
                    await self._subscribe(code)
                    log.info("relayed connections taken again", extra=fields(event="relay_resubscribed", room=code))
                for code in held - running:  # a table gone from here whose unsubscribing failed
                    async with self._lock:
                        await self.pubsub.unsubscribe(IN.format(code))
            except Exception:  # noqa: BLE001 - Redis still away: the next sweep tries again
                continue


async def edge(redis: Any, code: str, uid: str, player: int, contributes: bool, since: str | None, beat: float,
               holder: Callable[[], Awaitable[str | None]], receive: Callable[[], Awaitable[str | None]],
               send: Callable[[str], Awaitable[None]], close: Callable[[int, str], Awaitable[None]],
               peer: str = "", spectator: str | None = None) -> None:
    """Relay one accepted WebSocket (``receive``: the page's next message, None once it is
    gone; ``send``; ``close``) to the node that runs table ``code`` (``holder``: the lease's
    holder now); ``since``: the page's ``?since=H:S`` (the moves it missed are told first);
    ``peer``: its network address, for the owner's same-address warning (never stored);
    ``spectator``: a spectator's name (caishen.server.tables.watchers)."""
    cid = secrets.token_hex(8)
    pubsub = redis.pubsub()
    inbound = IN.format(code)
    sent_in, sent_out = metrics.relayed_messages.labels(direction="in"), metrics.relayed_messages.labels(direction="out")

    async def publish(msg: dict[str, object]) -> int:
        got: int = await redis.publish(inbound, json.dumps({"c": cid, **msg}, ensure_ascii=False))
        return got

    async def down() -> None:  # the owner's messages to the page, until it closes it
        while True:
            m = await pubsub.get_message(ignore_subscribe_messages=True, timeout=beat)
            if m is None:
                continue
            msg = json.loads(m["data"])
            if msg.get("k") == "m":
                await send(str(msg["t"]))
                sent_out.inc()
            elif msg.get("k") == "close":
                await close(int(msg.get("code") or 1000), str(msg.get("reason") or "")[:100])
                return

    async def up() -> None:  # the page's messages to the owner, until the page goes
        while (text := await receive()) is not None:
            await publish({"k": "m", "t": text})
            sent_in.inc()

    async def watch() -> None:  # heartbeats; the lease's holder changed or lapsed: reconnect
        heard = time.monotonic()
        while True:
            await asyncio.sleep(beat)  # the pace of the heartbeat, not a wait for a state
            try:
                await publish({"k": "beat"})
                now = await holder()
            except Exception:  # noqa: BLE001 - Redis slow or away: only a long silence ends the relay
                if time.monotonic() - heard > SILENT_SECONDS:
                    raise
                continue
            heard = time.monotonic()
            if now != owner:
                await close(CLOSE_MOVED, "this table moved to another node: reconnecting")
                return

    async def guarded(job: Callable[[], Awaitable[None]]) -> None:
        try:
            await job()
        except Exception as exc:  # noqa: BLE001 - Redis away or the page gone: the page reconnects
            log.warning("relay ended", extra=fields(event="relay_ended", room=code, error=type(exc).__name__))
            await close(CLOSE_MOVED, "relay lost: reconnecting")

    tasks: list[asyncio.Task[None]] = []
    try:
        owner = await holder()
        await pubsub.subscribe(OUT.format(cid))
        opening: dict[str, object] = {"k": "open", "u": uid, "p": player, "n": contributes, "s": since, "a": peer}
        if spectator is not None:
            opening["w"] = spectator
        if owner is None or await publish(opening) == 0:
            await close(CLOSE_ELSEWHERE, "owner_unreachable")
            return
        metrics.relayed_connections.inc()
        tasks = [asyncio.get_running_loop().create_task(guarded(job)) for job in (down, up, watch)]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    except Exception:  # noqa: BLE001 - Redis did not answer: the page tries again
        await close(CLOSE_ELSEWHERE, "redis_unavailable")
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await publish({"k": "close"})
        with contextlib.suppress(Exception):
            await pubsub.aclose()
