"""Helpers for the tests of game-centre nodes (issue 28; docs/server.md, "Nodes"): N
``caishen serve --redis`` processes on one fresh PostgreSQL schema (:func:`cluster`), a
scripted person who plays a seat through whichever node answers and reconnects as the table
page does (:class:`Person`), and the checks they share.

The tests that use them need PostgreSQL and Redis at 127.0.0.1 (``CAISHEN_TEST_PG``,
``CAISHEN_TEST_REDIS``): call :func:`require_services` from an autouse fixture."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from helpers_server import PG_BASE, ServerProcess, act_json, choose, database

REDIS_URL = os.environ.get("CAISHEN_TEST_REDIS", "redis://127.0.0.1:6379/0")
BOUND = 90.0  # seconds: every wait for a state is polled up to this (a busy two-core machine)
KEY_PREFIX = "caishen:lease:"  # (caishen.server.nodes.KEY_PREFIX)


def _reachable(url: str, default_port: int) -> bool:
    parts = urlsplit(url.replace("postgresql+psycopg://", "postgresql://"))
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=3):
            return True
    except OSError:
        return False


def require_services() -> None:
    """Skip the test unless the redis client is installed and PostgreSQL and Redis answer."""
    pytest.importorskip("redis")
    if not _reachable(PG_BASE, 5432):
        pytest.skip("no PostgreSQL reachable (CAISHEN_TEST_PG)")
    if not _reachable(REDIS_URL, 6379):
        pytest.skip("no Redis reachable (CAISHEN_TEST_REDIS)")


def poll(what: Callable[[], Any], seconds: float = BOUND, why: str = "") -> Any:
    """``what()`` once it is truthy, asked every 0.05 s for up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while not (got := what()):
        assert time.monotonic() < deadline, f"timed out waiting for {why or what}"
        time.sleep(0.05)  # polling for a state, not timing a behaviour
    return got


class Proxy:
    """A TCP relay (to Redis, PostgreSQL, ...) that the test can cut: while cut (``open``
    cleared), bytes in either direction are held (not lost), as by a network partition."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.open = threading.Event()
        self.open.set()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        """The relay as a Redis URL (when it relays to Redis)."""
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            try:
                up = socket.create_connection(self.target)
            except OSError:  # the server is down: the client sees its connection end
                conn.close()
                continue
            self.socks += [conn, up]
            threading.Thread(target=self._pipe, args=(conn, up), daemon=True).start()
            threading.Thread(target=self._pipe, args=(up, conn), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                self.open.wait()
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.open.set()
        self.listener.close()
        for s in self.socks:
            s.close()


@dataclass
class Cluster:
    """Nodes on one database and one Redis; ``store`` reads the database, ``redis`` Redis."""

    db: str
    nodes: list[ServerProcess]
    store: Any
    redis: Any

    def holder(self, code: str) -> ServerProcess | None:
        """The node whose token holds room ``code``'s lease now (None: no lease, or idle)."""
        value = self.redis.get(KEY_PREFIX + code)
        for n in self.nodes:
            if value is not None and n.proc is not None and f":{n.proc.pid}:".encode() in value:
                return n
        return None

    def lease_ms(self, code: str) -> int:
        """How long room ``code``'s lease has still to live, in ms (negative: no lease)."""
        return int(self.redis.pttl(KEY_PREFIX + code))

    def stored_moves(self, code: str) -> int:
        return sum(len(h) for h in self.store.moves(code))

    def metric(self, node: ServerProcess, name: str) -> float:
        text = httpx.get(node.base + "/metrics", timeout=BOUND).text
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.split()[-1])
        return 0.0

    def terminate(self, node: ServerProcess) -> int:
        """SIGTERM ``node`` and wait for it to exit (bounded); its exit code."""
        assert node.proc is not None
        node.proc.terminate()
        return node.proc.wait(BOUND)


@contextmanager
def cluster(tmp_path: Path, n: int, env: dict[str, str] | None = None, redis_url: str = REDIS_URL,
            db_url: Callable[[str], str] | None = None) -> Iterator[Cluster]:
    """``n`` nodes (``caishen serve --redis``, environment ``env``) on a fresh PostgreSQL
    schema (the first started first: it makes the schema; the others side by side); stopped afterwards,
    and none may have logged a traceback. ``redis_url``: the Redis the nodes use (default the
    shared one); ``db_url``: the URL the nodes are given for the schema's URL (e.g. through a
    :class:`Proxy`; the test itself reads the database directly)."""
    import redis  # noqa: PLC0415 - only with the services (require_services)

    from caishen.server.db import make_engine  # noqa: PLC0415 - the server only for these tests
    from caishen.server.store import Store  # noqa: PLC0415

    with database("postgresql", tmp_path) as db:
        nodes: list[ServerProcess] = []
        engine = make_engine(db)
        r = redis.Redis.from_url(redis_url)
        errors: list[str] = []
        node_db = db_url(db) if db_url is not None else db
        try:
            # idle connections kept longer than the balancer keeps them, as deploy/Dockerfile's
            # nodes (deploy/README.md, "Idle connections")
            nodes += [ServerProcess(node_db, args=("--redis", redis_url, "--keep-alive", "75"), env=env)
                      for _ in range(n)]
            nodes[0].start()  # the first makes the schema; the others start side by side
            starting = [threading.Thread(target=s.start, daemon=True) for s in nodes[1:]]
            for t in starting:
                t.start()
            for t in starting:
                t.join()
            for s in nodes[1:]:
                poll(lambda s=s: s.proc is not None and httpx.get(s.base + "/healthz", timeout=BOUND).status_code == 200,
                     BOUND, "a node to start")
            yield Cluster(db, nodes, Store(engine), r)
        finally:
            for s in nodes:
                s.stop()
                errors.append(s.log())
            engine.dispose()
            r.close()
        for text in errors:
            assert "Traceback" not in text, text


def restart(node: ServerProcess) -> ServerProcess:
    """``node`` started again on its port (after it stopped)."""
    text = node.log()
    assert "Traceback" not in text, text
    return node.start()


def asked(ws: Any, stale: bool = False) -> dict[str, Any]:
    """The next state that asks the person to act, read from a WebSocket client connection
    (a hand's end answered with "next"); ``stale``: a "stale" error (a "next" the table had
    already acted on) is let pass, any other error fails."""
    while True:
        msg = json.loads(ws.recv(timeout=BOUND))
        assert msg["type"] != "error" or (stale and msg["code"] == "stale"), msg
        if msg["type"] != "state":
            continue
        if msg["choices"]:
            return msg  # type: ignore[no-any-return]
        if msg["hand_end"] is not None and not msg["match_over"]:
            ws.send(json.dumps({"type": "next", "hand": msg["hand"]}))


def _from(address: str | None) -> dict[str, str]:
    """The headers of a request from ``address`` (None: the test's own, 127.0.0.1): the nodes
    share their HTTP limits per address, so many people made at once each say an address."""
    return {"X-Forwarded-For": address} if address else {}


def sign_up(node: ServerProcess, name: str, address: str | None = None) -> str:
    """A new person's cookie."""
    with httpx.Client(base_url=node.base, timeout=BOUND, headers=_from(address)) as http:
        return str(http.post("/api/me", json={"name": name}).cookies["caishen"])


def new_room(node: ServerProcess, cookie: str, address: str | None = None, **body: Any) -> str:
    """A practice-like room of the person's (three bots: it starts at once); its code."""
    with httpx.Client(base_url=node.base, timeout=BOUND, cookies={"caishen": cookie}, headers=_from(address)) as http:
        got = http.post("/api/rooms", json={"turn_seconds": 0, "pace": "instant", "hands": 8} | body)
        assert got.status_code == 200, got.text
        return str(got.json()["code"])


def stored_steps(store: Any, code: str) -> list[int]:
    """The public step each stored hand of room ``code`` reached: its moves but the passes and
    the claims that lost (:class:`caishen.table.movesig.Steps`)."""
    from caishen.table.movesig import Steps  # noqa: PLC0415

    out = []
    for h in store.moves(code):
        counter = Steps()
        for seat, text, _, _ in h:
            counter.add(seat, text.split(" ", 1)[0])
        out.append(counter.count)
    return out


@dataclass(eq=False)
class Person:
    """A scripted person at room ``code``'s table, playing every move asked (:func:`choose`)
    and "next" after a hand, in a thread. Connects to ``ports()[0]`` first; when its
    connection closes (1012: the node stops or the table moved; 1013: try again) or a node
    does not answer, it connects to the next port, as a balancer would send the page, with
    ``?since=`` the last (hand, step) it saw, as the page does. Everything it was told is
    kept, to check against the database. ``page_like``: reconnect after any close but those
    after which the page gives up too (static/table.js: 1008, 4001, 4002), e.g. the 1006 of a
    node killed behind the balancer, and count the server's error messages instead of failing
    on them (``errors``: a table whose Redis or database is away says so)."""

    port_list: Callable[[], list[int]]
    code: str
    cookie: str
    start_at: int = 0
    think: float = 0.0  # seconds the person takes before each move (a match that lasts)
    told: dict[int, int] = field(default_factory=dict)  # hand -> the latest step told
    seen: tuple[int, int] | None = None
    closes: list[int] = field(default_factory=list)  # the close code of each connection that ended
    refused: int = 0  # connections a node did not accept (stopped): tried on the next
    moves: int = 0  # moves sent
    states: int = 0
    over: bool = False
    failures: list[str] = field(default_factory=list)
    page_like: bool = False
    errors: list[str] = field(default_factory=list)  # the error codes told (page_like)
    times: list[float] = field(default_factory=list)  # time.monotonic() of each step forward told
    stopping: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def start(self) -> Person:
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(BOUND)
            assert not self.thread.is_alive(), f"room {self.code}'s person did not stop"

    def _url(self, port: int) -> str:
        since = f"&since={self.seen[0]}:{self.seen[1]}" if self.seen is not None else ""
        return f"ws://127.0.0.1:{port}/ws/{self.code}?contribute=0{since}"

    def run(self) -> None:
        from websockets.exceptions import ConnectionClosed, InvalidHandshake  # noqa: PLC0415
        from websockets.sync.client import connect  # noqa: PLC0415

        at = self.start_at
        while not self.stopping.is_set() and not self.over:
            ports = self.port_list()
            port = ports[at % len(ports)]
            try:
                ws = connect(self._url(port), additional_headers={"Cookie": f"caishen={self.cookie}"},
                             open_timeout=10, ping_interval=None)
            except (OSError, InvalidHandshake, TimeoutError):
                self.refused += 1
                at += 1
                time.sleep(0.2)  # the page's pause before it tries again, not a wait for a state
                continue
            try:
                with ws:
                    self._play(ws)
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else 1006
                self.closes.append(code)
                if self.page_like and code not in (1008, 4001, 4002):
                    time.sleep(0.2)  # the page's pause before it tries again, not a wait for a state
                    at += 1
                    continue
                if code not in (1012, 1013):
                    self.failures.append(f"closed with {code}: {exc}")
                    return
                if code == 1013:
                    time.sleep(0.2)  # the page's pause before it tries again
                at += 1
            except Exception as exc:  # noqa: BLE001 - any other failure fails the test
                self.failures.append(f"{type(exc).__name__}: {exc}")
                return

    def _play(self, ws: Any) -> None:
        while not self.stopping.is_set():
            try:
                msg = json.loads(ws.recv(timeout=0.5))
            except TimeoutError:
                continue
            kind = msg["type"]
            if kind == "error":
                if self.page_like:
                    self.errors.append(str(msg["code"]))
                elif msg["code"] not in ("stale",):  # a move or "next" the table had acted on already
                    self.failures.append(f"error: {msg}")
                continue
            if kind not in ("event", "state"):
                continue
            at = (int(msg["hand"]), int(msg["step"]))
            if self.seen is None or at > self.seen:
                self.times.append(time.monotonic())
            self.told[at[0]] = max(self.told.get(at[0], 0), at[1])
            self.seen = at
            if kind != "state":
                continue
            self.states += 1
            if msg["match_over"]:
                self.over = True
                return
            if msg["choices"]:
                if self.think:
                    time.sleep(self.think)  # the person's pace, not a wait for a state
                ws.send(act_json(msg, choose(msg)))
                self.moves += 1
            elif msg["hand_end"] is not None:
                ws.send(json.dumps({"type": "next", "hand": msg["hand"]}))

    def lost(self, store: Any) -> list[tuple[int, int, int]]:
        """Moves this person was told of that the database does not hold: (hand, step told,
        step stored) for each hand where the told step is beyond the stored one."""
        steps = stored_steps(store, self.code)
        return [(h, s, steps[h] if h < len(steps) else -1) for h, s in sorted(self.told.items())
                if h >= len(steps) or steps[h] < s]


def closed(ws: Any) -> tuple[list[dict[str, Any]], Any]:
    """Every message a connection is sent until it closes, and how it closed (the
    ``ConnectionClosed`` that ended it)."""
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

    told: list[dict[str, Any]] = []
    while True:
        try:
            told.append(json.loads(ws.recv(timeout=BOUND)))
        except ConnectionClosed as exc:
            return told, exc
