"""``caishen serve --workers N``: N server processes sharing the port, one owner per table.

The first process (the supervisor) prepares the database (schema, cookie key, record-signing
key), opens the listening socket and starts N worker processes. Each worker serves the whole
app on that socket (the kernel hands each new connection to one of them) and on a Unix socket
of its own. A worker runs the tables it owns (:meth:`WorkerPlan.owner_of`, a hash of the room
code) and passes any other table's WebSocket on to its owner (:mod:`caishen.server.relay`);
all else it answers from the database, which stays the one truth. A worker that dies is
started again and resumes its tables from the database, as after a restart; a worker whose
supervisor is gone stops. docs/server.md has the design and the measured load.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uvicorn

from caishen.server.app import create_app
from caishen.server.db import make_engine, upgrade
from caishen.server.store import Store
from caishen.server.tables import WorkerPlan
from caishen.table.signing import load_or_create_key

BIND_SECONDS = 10.0    # a restarted server waits this long for the old workers to let go of the port
RESTART_SECONDS = 1.0  # between a worker's death and its new start


def uvicorn_config(app: object, host: str = "127.0.0.1", port: int = 8000) -> uvicorn.Config:
    """uvicorn's settings for the game centre: quiet, the person's messages limited to 64 kB
    at the door (the table checks its own limit), no compression."""
    return uvicorn.Config(app, host=host, port=port, log_level="warning", ws_max_size=64 * 1024,  # type: ignore[arg-type]
                          ws_per_message_deflate=False)


def prepare(db_url: str) -> None:
    """What every worker would otherwise race to make on a new database: the schema, the
    cookie key, the key that signs records."""
    engine = make_engine(db_url)
    try:
        upgrade(engine)
        Store(engine).secret()
    finally:
        engine.dispose()
    load_or_create_key()


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, retried while workers of a killed server still hold the port."""
    deadline = time.monotonic() + BIND_SECONDS
    while True:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            if time.monotonic() > deadline:
                raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
            time.sleep(0.2)
            continue
        sock.listen(2048)
        sock.set_inheritable(True)
        return sock


def supervise(host: str, port: int, db_url: str, count: int) -> int:
    """Run ``count`` workers on a database already prepared (:func:`prepare`) until SIGINT or
    SIGTERM; 0 then."""
    sock = listen(host, port)
    sockets = tempfile.mkdtemp(prefix="caishen-workers-")
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    def start(index: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-c", "from caishen.server.workers import work; work()",
             str(sock.fileno()), str(index), str(count), sockets, str(os.getpid())],
            pass_fds=(sock.fileno(),),
            env=dict(os.environ, CAISHEN_DB=db_url),  # not on the command line: ps shows that to everyone
        )

    procs = [start(i) for i in range(count)]
    try:
        while not stopping:
            for i, p in enumerate(procs):
                if p.poll() is not None and not stopping:
                    print(f"caishen: worker {i} ended ({p.returncode}); starting it again", file=sys.stderr, flush=True)
                    time.sleep(RESTART_SECONDS)
                    procs[i] = start(i)
            time.sleep(0.2)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        sock.close()
        shutil.rmtree(sockets, ignore_errors=True)
    return 0


def work() -> None:
    """A worker process: ``FD INDEX COUNT SOCKETS SUPERVISOR_PID`` on the command line, the
    database URL in ``$CAISHEN_DB``."""
    fd, index, count, sockets, supervisor = sys.argv[1:6]
    db_url = os.environ["CAISHEN_DB"]
    plan = WorkerPlan(int(index), int(count), sockets)
    public = socket.socket(fileno=int(fd))
    path = Path(sockets) / f"w{index}.sock"
    path.unlink(missing_ok=True)
    private = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    private.bind(str(path))
    os.chmod(path, 0o600)
    private.listen(2048)
    server = uvicorn.Server(uvicorn_config(create_app(db_url, plan)))

    async def orphaned() -> None:
        # a supervisor killed outright (SIGKILL) cannot stop its workers: they stop by themselves
        while os.getppid() == int(supervisor):
            await asyncio.sleep(0.5)
        server.should_exit = True

    async def main() -> None:
        watch = asyncio.ensure_future(orphaned())
        try:
            await server.serve(sockets=[public, private])
        finally:
            watch.cancel()

    asyncio.run(main())
