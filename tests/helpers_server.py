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
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
PG_BASE = os.environ.get("CAISHEN_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

#: A seed whose first hand offers the person (player 0, seated by the draw) 叫和局 with 九么九和
#: on: found once by dealing practice tables with greedy bots.
NINE_TERMINALS_SEED = bytes.fromhex("ae8d26ddfc92d618cff242e3d5f37fad2763ee7c3d4138d6a8608103d29ccdaf")

# ``caishen serve`` with every room's master seed fixed (argv[1], hex): the subprocess twin of
# the in-process tests' ``monkeypatch.setattr(core, "new_seed", ...)``.
_FIXED_SEED_SERVE = (
    "import sys\n"
    "from caishen import cli\n"
    "from caishen.server import core\n"
    "seed = bytes.fromhex(sys.argv.pop(1))\n"
    "core.new_seed = lambda: seed\n"
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
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """``caishen serve`` as a subprocess on a free loopback port; with ``seed``, every room it
    opens gets that master seed (so its deals are known in advance)."""

    def __init__(self, db: str, port: int | None = None, seed: bytes | None = None, workers: int = 1) -> None:
        self.db = db
        self.port = port or free_port()
        self.seed = seed
        self.workers = workers
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
        launch = ["-m", "caishen.cli"] if self.seed is None else ["-c", _FIXED_SEED_SERVE, self.seed.hex()]
        self.proc = subprocess.Popen(
            [sys.executable, *launch, "serve", "--port", str(self.port), "--db", self.db,
             *(["--workers", str(self.workers)] if self.workers != 1 else [])],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.proc.stderr.read().decode() if self.proc.stderr else ''}")
            try:
                if httpx.get(self.base + "/api/variants", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)  # polling for readiness, not timing a behaviour
        raise RuntimeError("server did not start")

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


def act_json(view: dict[str, Any], action: str) -> str:
    return json.dumps({"type": "act", "action": action, "hand": view["hand"], "step": view["step"]})
