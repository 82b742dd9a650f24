"""Helpers for the game centre's tests: databases (SQLite file, PostgreSQL schema), an app
with a test client, a server subprocess, and a client that plays a seat over the WebSocket."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PG_BASE = os.environ.get("CAISHEN_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

#: A seed whose first hand offers the person (player 0, seated by the draw) 叫和局 with 九么九和
#: on: found once by dealing practice tables with greedy bots (caishen-fair-2, nobody contributing).
NINE_TERMINALS_SEED = bytes.fromhex("d994d6c3cedde981eb3f4c04d3b4150f10ab0ec5a286d63edc2d9eb06a3c665e")

# ``caishen serve`` with every room's master seed fixed (argv[1], hex): the subprocess twin of
# the in-process tests' ``monkeypatch.setattr(core, "new_seed", ...)``.
_FIXED_SEED_SERVE = (
    "import sys\n"
    "from caishen import cli\n"
    "from caishen.server import core\n"
    "seed = bytes.fromhex(sys.argv.pop(1))\n"
    "core.new_seed = lambda: seed\n"
    "exec(sys.argv.pop(1))\n"
    "sys.exit(cli.main())\n"
)


@contextmanager
def database(kind: str, tmp: Path) -> Iterator[str]:
    """A database URL of ``kind`` (``sqlite`` or ``postgresql``) that only this test uses:
    a fresh SQLite file, or a fresh PostgreSQL schema dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp / 'caishen.sqlite3'}"
        return
    import psycopg  # noqa: PLC0415 - only the PostgreSQL runs need the driver here

    schema = "t_" + secrets.token_hex(6)
    plain = PG_BASE.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_BASE}?options=-csearch_path%3D{schema}"
    finally:
        _drop_schema(psycopg, plain, schema)


def _drop_schema(psycopg: Any, plain: str, schema: str) -> None:
    """Drop a test's schema. A table the test left playing may still be storing a hand from a
    worker thread when the test ends, and PostgreSQL may then pick the drop as a deadlock's
    victim (stop 37's CI): the drop is tried again until that write is done, within a bound."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with psycopg.connect(plain, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '5s'")
                conn.execute(f"DROP SCHEMA {schema} CASCADE")
            return
        except (psycopg.errors.DeadlockDetected, psycopg.errors.LockNotAvailable):
            if time.monotonic() > deadline:
                raise


def url_fixture(*kinds: Any) -> Callable[..., Iterator[str]]:
    """A pytest fixture (assign it to a module-level name, ``url = url_fixture("sqlite",
    "postgresql")``) giving each test a database URL of its own (:func:`database`), once
    for each of ``kinds`` (a kind may be a ``pytest.param`` with marks: :data:`PG_SLOW`)."""

    @pytest.fixture(params=list(kinds))
    def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
        with database(request.param, tmp_path) as u:
            yield u

    return url


#: PostgreSQL as a kind whose runs are slow (``-m slow``, CI's slow stage): for the API tests
#: that play whole matches, whose SQLite runs stay in the README's quick command
PG_SLOW = pytest.param("postgresql", marks=pytest.mark.slow)


def store_fixture(*kinds: str) -> Callable[..., Iterator[Any]]:
    """A pytest fixture (``store = store_fixture("sqlite", "postgresql")``) giving each test the
    centre's :class:`caishen.server.store.Store` on an upgraded database of its own, once for
    each of ``kinds``."""

    @pytest.fixture(params=list(kinds))
    def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
        from caishen.server.db import make_engine, upgrade  # noqa: PLC0415 - the server only for the tests that use it
        from caishen.server.store import Store  # noqa: PLC0415

        with database(request.param, tmp_path) as url:
            engine = make_engine(url)
            upgrade(engine)
            yield Store(engine)
            engine.dispose()

    return store


def app_fixture(*kinds: str) -> Callable[..., Iterator[Any]]:
    """A pytest fixture (``app = app_fixture("sqlite")``) giving each test the centre's app
    (``create_app``) on a database of its own, once for each of ``kinds``."""

    @pytest.fixture(params=list(kinds))
    def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
        from caishen.server.app import create_app  # noqa: PLC0415 - the server only for the tests that use it

        with database(request.param, tmp_path) as url:
            yield create_app(url)

    return app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """``caishen serve`` as a subprocess on a free loopback port; with ``seed``, every room it
    opens gets that master seed (so its deals are known in advance)."""

    def __init__(self, db: str, port: int | None = None, seed: bytes | None = None, workers: int = 1,
                 args: tuple[str, ...] = (), files: int | None = None,
                 setup: str = "", env: dict[str, str] | None = None) -> None:
        """``setup``: Python run in the server process before it starts (with ``seed`` only);
        ``env``: variables set for it."""
        self.db = db
        self.setup = setup
        # A fixed seed is a known deal: the pages' randomness mixed into each wall (issue 29)
        # would change it, so such a server takes none unless ``env`` says otherwise.
        self.env = ({"CAISHEN_CONTRIBUTE_SECONDS": "0"} if seed is not None else {}) | (env or {})
        self.port = port or free_port()
        self.seed = seed
        self.workers = workers
        self.args = args  # more `caishen serve` flags
        self.files = files  # the server's limit of open files (soft and hard), as `ulimit -n`
        self.proc: subprocess.Popen[bytes] | None = None
        # What the server writes to its standard error, read as it comes by a thread: a pipe
        # nobody reads fills (64 KiB) and then blocks the server in the middle of a test.
        self._log: list[str] = []  # every line, across restarts
        self._log_lock = threading.Lock()
        self._reader: threading.Thread | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), **self.env)
        launch = ["-m", "caishen.cli"] if self.seed is None else ["-c", _FIXED_SEED_SERVE, self.seed.hex(), self.setup]
        self.proc = subprocess.Popen(
            [sys.executable, *launch, "serve", "--port", str(self.port), "--db", self.db,
             *(["--workers", str(self.workers)] if self.workers != 1 else []), *self.args],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=self._limits,
        )
        self._follow(self.proc)
        deadline = time.monotonic() + 120  # a bound: a start took 27 s on a machine at load 11
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log()}")
            try:
                if httpx.get(self.base + "/api/variants", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)  # polling for readiness, not timing a behaviour
        raise RuntimeError("server did not start")

    def _follow(self, proc: subprocess.Popen[bytes]) -> None:
        stream = proc.stderr
        assert stream is not None

        def read() -> None:
            with suppress(ValueError):  # the pipe closed meanwhile
                for line in iter(stream.readline, b""):
                    with self._log_lock:
                        self._log.append(line.decode(errors="replace"))

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()

    def log(self) -> str:
        """What the server wrote to its standard error so far, over all its starts (to the end,
        once it has exited)."""
        if self.proc is not None and self.proc.poll() is not None and self._reader is not None:
            self._reader.join(10)  # a bound: the rest of the pipe is read at once
        with self._log_lock:
            return "".join(self._log)

    def _limits(self) -> None:
        if self.files is not None:
            import resource  # noqa: PLC0415 - Unix only, in the child

            resource.setrlimit(resource.RLIMIT_NOFILE, (self.files, self.files))

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def choose(view: dict[str, Any]) -> str:
    """A simple player: win when offered, else pong/kong when offered, else pass, else the
    last discard choice (the highest tile)."""
    acts = [c["action"] for c in view["choices"]]
    for want in ("win",):
        if want in acts:
            return want
    if "pass" in acts:
        return "pass"
    return acts[-1]


def states(ws: Any) -> Iterator[dict[str, Any]]:
    """Messages from a test-client socket until a state arrives (errors are yielded too)."""
    while True:
        msg = ws.receive_json()
        yield msg
        if msg["type"] == "state":
            return


def next_state(ws: Any, errors: bool = True) -> dict[str, Any]:
    """The next state from a test-client socket, past any other message (``errors=False``:
    an error message fails the test instead)."""
    while True:
        msg = ws.receive_json()
        assert errors or msg["type"] != "error", msg
        if msg["type"] == "state":
            return msg  # type: ignore[no-any-return]


def asked(ws: Any, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """Messages from a test-client socket (from ``view``, the last one read, if given) until a
    state asks this seat to act; a hand that ends first (a bot may end it before the person's
    first move: practice seeds are random) is followed by "next", as the page would."""
    msg = view if view is not None else ws.receive_json()
    while msg["type"] != "state" or not msg["choices"]:
        if msg["type"] == "state" and msg["match_over"]:  # nothing more comes: said, not waited for
            raise MatchOver(f"the match ended (hand {msg['hand']}) before this seat was asked again")
        if msg["type"] == "state" and msg["hand_end"] is not None:
            ws.send_text(json.dumps({"type": "next", "hand": msg["hand"]}))
        msg = ws.receive_json()
    return msg  # type: ignore[no-any-return]


class MatchOver(AssertionError):
    """The match ended where a test waited for a question (a deal may break a player early,
    L25.5): a test that can use another match catches it and opens one."""


def act_json(view: dict[str, Any], action: str) -> str:
    return json.dumps({"type": "act", "action": action, "hand": view["hand"], "step": view["step"]})


def person(app: Any, name: str, host: str = "testclient") -> Any:
    """A test client of ``app`` that picked the name ``name`` (a person with a cookie),
    connecting from ``host``."""
    from fastapi.testclient import TestClient  # noqa: PLC0415 - the server only for the tests that use it

    c = TestClient(app, client=(host, 40000))
    assert c.post("/api/me", json={"name": name}).status_code == 200
    return c


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` from a test-client socket (the table's states and
    events, in any number, may come between)."""
    for _ in range(5000):
        msg = ws.receive_json()
        if msg["type"] == kind:
            return dict(msg)
    raise AssertionError(f"no {kind} message within 5,000 messages")


def to_pong(ws: Any) -> list[dict[str, Any]]:
    """Every message up to the answer to a ping sent now: a barrier (the table answers a
    ping after every message the socket sent before it)."""
    ws.send_json({"type": "ping"})
    got = []
    for _ in range(5000):
        msg = ws.receive_json()
        if msg == {"type": "pong"}:
            return got
        got.append(msg)
    raise AssertionError("no pong within 5,000 messages")


def tiles_in(x: Any, skip: frozenset[str] = frozenset()) -> Counter[str]:
    """Every tile name anywhere in a JSON value (a message a page was sent), except under the
    keys ``skip``: what the leak tests count against what a reader may see."""
    from caishen.tiles import tile_name  # noqa: PLC0415 - the engine only for the tests that use it

    names = {tile_name(k) for k in range(38)}
    out: Counter[str] = Counter()
    if isinstance(x, dict):
        for k, v in x.items():
            if k not in skip:
                out += tiles_in(v, skip)
    elif isinstance(x, list):
        for v in x:
            out += tiles_in(v, skip)
    elif isinstance(x, str) and x in names:
        out[x] += 1
    return out


def until(check: Callable[[], bool], bound: float = 60.0) -> None:
    """Poll ``check`` until it holds, within ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while not check():
        assert time.monotonic() < deadline, f"not within {bound} s"
        time.sleep(0.01)  # polling a state, not timing a behaviour


def people_only(live: Any) -> bool:
    """Whether a live table waits for people only: no claim pause runs, its lock is free, and
    the hand is over or every seat asked is a person's (a bot's own turn, at the room's pace,
    is waited for too: until it has moved, the table is not quiet)."""
    s = live.session
    if live._holding or live.lock.locked():
        return False
    asked = s.waiting_for()
    return s.hand_over or bool(asked) and all(live.room.bots[s.seats[x]] is None for x in asked)


def latest_state(ws: Any, view: dict[str, Any] | None) -> dict[str, Any] | None:
    """The last state a test-client socket was sent (``view`` if none came since), read up to
    the answer to a ping sent now; an error on the way fails the test."""
    ws.send_text('{"type":"ping"}')
    while (msg := ws.receive_json())["type"] != "pong":
        assert msg["type"] != "error", msg
        if msg["type"] == "state":
            view = msg
    return view


def old_room(conn: Any, ruleset: str, players: str) -> None:
    """A waiting room ``oldroom`` of user ``old-kai`` (its first player), written with the
    columns of revision 0008/0009, for the tests that upgrade a database from before."""
    from sqlalchemy import text  # noqa: PLC0415 - the server only for the tests that use it

    from caishen.server.db import now  # noqa: PLC0415

    conn.execute(text(
        "INSERT INTO rooms (code, owner, variant, ruleset, hands, turn_seconds, help_allowed, players, seed, "
        "status, created_at, seat_draw, pace, epoch) VALUES ('oldroom', 'old-kai', 'longgang', :rs, 8, 0, true, "
        ":players, :seed, 'waiting', :at, true, 'normal', 0)"),
        {"rs": ruleset, "players": players, "seed": "ab" * 32, "at": now()})
    conn.execute(text("INSERT INTO members (room, player, \"user\") VALUES ('oldroom', 0, 'old-kai')"))
