"""Helpers for the fault-injection tests (issue 26): a TCP proxy in front of PostgreSQL that
can refuse every connection (the database unreachable), a writer that holds an SQLite file's
lock (the database busy past the busy timeout), and a seat that plays over the WebSocket,
remembering every state it was told."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from websockets.sync.client import ClientConnection, connect

from helpers_server import act_json, choose

BOUND = 90.0  # seconds: the most any awaited state may take on a busy machine (a bound, not a timing)


class Proxy:
    """A TCP proxy on a free loopback port to ``host:port``, run by an asyncio loop in a thread.
    :meth:`cut` closes every connection through it and refuses new ones (each is accepted and
    closed at once) until :meth:`heal`."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.refusing = False
        self._pipes: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pg-proxy", daemon=True)
        self._thread.start()
        assert self._ready.wait(30)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port: int = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._pipes.update((writer, up_writer))
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                if self.refusing:
                    break
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self._pipes.discard(writer)
            writer.close()

    def _call(self, fn: Callable[[], None]) -> None:
        done = threading.Event()

        def run() -> None:
            fn()
            done.set()

        self._loop.call_soon_threadsafe(run)
        assert done.wait(30)

    def cut(self) -> None:
        def cut() -> None:
            self.refusing = True
            for w in list(self._pipes):
                w.close()
            self._pipes.clear()

        self._call(cut)

    def heal(self) -> None:
        def heal() -> None:
            self.refusing = False

        self._call(heal)

    def url(self, db: str) -> str:
        """``db`` (a URL at the proxy's target) pointed at the proxy."""
        where = f"{self.target[0]}:{self.target[1]}"
        assert where in db, db
        return db.replace(where, f"127.0.0.1:{self.port}")

    def close(self) -> None:
        self.cut()

        def stop() -> None:
            self._server.close()
            self._loop.stop()

        self._loop.call_soon_threadsafe(stop)
        self._thread.join(30)


class SqliteLock:
    """Another writer holding the SQLite file's write lock (``BEGIN IMMEDIATE``) from
    :meth:`cut` to :meth:`heal`: the centre's writes wait their busy timeout, then fail."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.conn: sqlite3.Connection | None = None

    def cut(self) -> None:
        self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.conn.execute("BEGIN IMMEDIATE")

    def heal(self) -> None:
        assert self.conn is not None
        self.conn.execute("ROLLBACK")
        self.conn.close()
        self.conn = None


def cookie(base: str, name: str) -> dict[str, str]:
    r = httpx.post(base + "/api/me", json={"name": name}, timeout=BOUND)
    r.raise_for_status()
    return {"caishen": r.cookies["caishen"]}


class Seat:
    """One person's WebSocket at a table. ``told`` is the furthest (hand, step) any state it
    received showed; ``storage`` the last storage notice (True: none, or the last said ok)."""

    def __init__(self, base: str, code: str, cookies: dict[str, str]) -> None:
        self.code = code
        self.ws: ClientConnection = connect(
            base.replace("http://", "ws://") + f"/ws/{code}",
            additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}, open_timeout=BOUND)
        self.view: dict[str, Any] = {}
        self.told: tuple[int, int] = (-1, -1)
        self.storage = True
        self.errors: list[str] = []

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()

    def recv(self) -> dict[str, Any]:
        try:
            msg: dict[str, Any] = json.loads(self.ws.recv(timeout=BOUND))
        except TimeoutError as exc:  # what this seat knew, for the failure's report
            v = self.view
            exc.add_note(f"seat at room {self.code}: told {self.told}, storage ok {self.storage}, errors {self.errors}, "
                         f"last state: hand {v.get('hand')} step {v.get('step')} phase {v.get('phase')} current "
                         f"{v.get('current')} choices {[c['action'] for c in v.get('choices', [])]} "
                         f"hand_end {v.get('hand_end') is not None}")
            raise
        if msg["type"] == "state":
            self.view = msg
            self.told = max(self.told, (msg["hand"], msg["step"]))
        elif msg["type"] == "storage":
            self.storage = msg["ok"]
        elif msg["type"] == "error":
            self.errors.append(msg["code"])
        return msg

    def until(self, want: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Messages until one ``want`` accepts (within ``BOUND`` seconds each)."""
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            msg = self.recv()
            if want(msg):
                return msg
        raise AssertionError(f"no such message within {BOUND} s")

    def state(self) -> dict[str, Any]:
        return self.until(lambda m: m["type"] == "state")

    def my_turn(self) -> dict[str, Any]:
        """The next state in which this seat must act in a hand in play (starting the next
        hand when one ends)."""
        view = self.view if self.view else self.state()
        while not view["choices"] or view["hand_end"] is not None:
            assert not view["match_over"]
            if view["hand_end"] is not None:
                self.ws.send(json.dumps({"type": "next", "hand": view["hand"]}))
            view = self.state()
        return view

    def play_on(self, moves: int) -> dict[str, Any]:
        """Up to ``moves`` moves, fewer if the match ends first (a deal may break a player and
        end it early, L25.5: a CI run's did); the last state."""
        for _ in range(moves):
            view = self.view if self.view else self.state()
            while not view["match_over"] and (not view["choices"] or view["hand_end"] is not None):
                if view["hand_end"] is not None:
                    self.ws.send(json.dumps({"type": "next", "hand": view["hand"]}))
                view = self.state()
            if view["match_over"]:
                break
            self.move()
        return self.view

    def move(self) -> dict[str, Any]:
        """Play one move and return the state that follows it."""
        view = self.my_turn()
        self.ws.send(act_json(view, choose(view)))
        # a pass is no step (docs/server.md, "What the timing tells"): the phase and whose turn
        # tell the state after it from the one it answered
        return self.until(lambda m: m["type"] == "state" and ((m["hand"], m["step"]) > (view["hand"], view["step"])
                                                              or (m["phase"], m["current"]) != (view["phase"], view["current"])))

    def ping(self) -> None:
        self.ws.send('{"type":"ping"}')
        self.until(lambda m: m["type"] == "pong")


def stored_moves(db: str) -> dict[tuple[str, int], list[int]]:
    """The stored ``seq`` of every hand of every room, in order."""
    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT room, hand, seq FROM moves ORDER BY room, hand, seq")).all()
    finally:
        engine.dispose()
    out: dict[tuple[str, int], list[int]] = {}
    for room, hand, seq in rows:
        out.setdefault((room, hand), []).append(seq)
    return out


def wait_for(check: Callable[[], bool], what: str) -> None:
    """Poll ``check`` until it holds, within ``BOUND`` seconds."""
    deadline = time.monotonic() + BOUND
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {BOUND} s")
        time.sleep(0.05)  # polling a state, not timing a behaviour
