"""``caishen serve --workers N``: N game-centre nodes on one machine, sharing its port.

Each worker is an ordinary node (:mod:`caishen.server.nodes`, as ``caishen serve --redis``):
it holds the tables it runs by lease in Redis, and a page whose table another worker runs is
joined to it through Redis, as across machines. The first process (the supervisor) prepares
the database (schema, cookie key, record-signing key), opens the listening socket (the kernel
hands each new connection to one of the workers) and starts the workers. A worker that dies is
started again, and its tables are taken by whichever worker its pages reconnect to; on SIGINT
or SIGTERM every worker drains (its tables stored, its leases let go of) and stops; a worker
whose supervisor is gone does the same. docs/server.md has the design and the measured load.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

import uvicorn

from caishen.server.app import create_app
from caishen.server.db import make_engine, upgrade
from caishen.server.hygiene import OPTIONS_ENV, GuardedHttpProtocol, ServeOptions, TableSocketProtocol
from caishen.server.logs import fields, log
from caishen.server.logs import setup as setup_logs
from caishen.server.nodes import REDIS_ENV
from caishen.server.store import Store
from caishen.table.signing import load_or_create_key

BIND_SECONDS = 10.0    # a restarted server waits this long for the old workers to let go of the port
RESTART_SECONDS = 1.0  # between a worker's death and its new start
STOP_SECONDS = 15.0    # a stopping worker's drain (nodes.node.DRAIN_SECONDS) and grace, then it is killed
CAP_SLACK = 32  # uvicorn answers 503 past the cap plus this (the oldest idle closing meanwhile)
WS_PING_SECONDS = 4.0  # WebSocket keep-alive: a ping this often, a pong within this long
GRACE_SECONDS = 5      # a stopping server waits this long for its connections, then closes them


def uvicorn_config(app: object, host: str = "127.0.0.1", port: int = 8000,
                   options: ServeOptions | None = None) -> uvicorn.Config:
    """uvicorn's settings for the game centre: quiet, the person's messages limited to 64 kB
    at the door (the table checks its own limit), no compression. Every WebSocket is pinged
    every WS_PING_SECONDS and closed when its pong is WS_PING_SECONDS late: a page that stops
    reading (a phone put away, a stalled network) leaves its table within 2 x WS_PING_SECONDS.
    The connection guards of :mod:`caishen.server.hygiene` (``options``): a header timeout,
    the keep-alive timeout, and a cap on open connections. A server told to stop waits at most
    GRACE_SECONDS for its connections (uvicorn's default waits for ever: a worker whose
    supervisor was gone could stay for good behind one connection that did not close)."""
    options = options or ServeOptions()
    cap = options.connection_cap()
    # log_config=None: uvicorn leaves the logging to caishen.server.logs (its own configuration
    # would take the JSON lines off its error log, whose tracebacks would then come out loose)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", log_config=None,  # type: ignore[arg-type]
                            ws_max_size=64 * 1024,
                            ws_per_message_deflate=False, ws=TableSocketProtocol, http=GuardedHttpProtocol,
                            ws_ping_interval=WS_PING_SECONDS, ws_ping_timeout=WS_PING_SECONDS,
                            timeout_keep_alive=options.keep_alive, limit_concurrency=cap + CAP_SLACK,
                            timeout_graceful_shutdown=GRACE_SECONDS)
    config.caishen = options  # type: ignore[attr-defined]
    config.caishen_cap = cap  # type: ignore[attr-defined]
    return config


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
            if isinstance(exc, socket.gaierror) or time.monotonic() > deadline:  # a bad address waits for nothing
                raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
            time.sleep(0.2)
            continue
        sock.listen(2048)
        sock.set_inheritable(True)
        return sock


def supervise(host: str, port: int, db_url: str, count: int, redis: str,
              options: ServeOptions | None = None) -> int:
    """Run ``count`` nodes on Redis ``redis`` and a database already prepared (:func:`prepare`)
    until SIGINT or SIGTERM, then drain and stop them all; 0 then."""
    sock = listen(host, port)
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    env = dict(os.environ, CAISHEN_DB=db_url, **{REDIS_ENV: redis, OPTIONS_ENV: (options or ServeOptions()).to_env()})

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-c", "from caishen.server.workers import work; work()", str(sock.fileno()), str(os.getpid())],
            pass_fds=(sock.fileno(),), preexec_fn=functools.partial(_stop_with, os.getpid()),
            env=env,  # the URLs not on the command line: ps shows that to everyone
        )

    procs = [start() for _ in range(count)]
    try:
        while not stopping:
            for i, p in enumerate(procs):
                if p.poll() is not None and not stopping:
                    log.error("a worker ended: starting it again", extra=fields(  # one JSON line, as every log line
                        event="worker_restarted", worker=i, returncode=p.returncode))
                    time.sleep(RESTART_SECONDS)
                    procs[i] = start()
            time.sleep(0.2)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()  # each drains: its tables stored, its leases let go of
        for p in procs:
            try:
                p.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                p.kill()
        sock.close()
    return 0


def _stop_with(supervisor: int) -> None:
    """In a new worker, before it runs: be sent SIGTERM when the supervisor dies (Linux's
    parent-death signal, kept across exec), from the first moment; the worker's own watch
    (``orphaned`` in :func:`work`) runs only once its modules are imported and its app made,
    which takes seconds on a busy machine. Elsewhere the watch alone."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes  # noqa: PLC0415 - Linux only

        ctypes.CDLL(None).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != supervisor:  # gone before the signal was asked for
        os._exit(0)


class DrainingServer(uvicorn.Server):
    """uvicorn's server, which on SIGTERM (or SIGINT) first lets a node drain
    (:meth:`caishen.server.nodes.Node.drain`, bounded) and only then stops as uvicorn does:
    no more connections, the open ones closed with 1012, the app's lifespan ended. Without
    ``drain`` (one process) it is uvicorn's server."""

    def __init__(self, config: uvicorn.Config, drain: Callable[[], Awaitable[None]] | None) -> None:
        super().__init__(config)
        self.drain = drain

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.drain is not None and not self.force_exit:
            try:
                await self.drain()
            except Exception:  # noqa: BLE001 - a failed drain still stops the server
                log.exception("draining the node failed")
        await super().shutdown(sockets)


def work() -> None:
    """A worker process: ``FD SUPERVISOR_PID`` on the command line, the database URL in
    ``$CAISHEN_DB``, the Redis URL in ``$CAISHEN_REDIS``: a node (:mod:`caishen.server.nodes`)
    serving the supervisor's listening socket."""
    fd, supervisor = sys.argv[1:3]
    setup_logs()
    public = socket.socket(fileno=int(fd))
    options = ServeOptions.from_env()
    app = create_app(os.environ["CAISHEN_DB"], options=options, redis=os.environ[REDIS_ENV])
    server = DrainingServer(uvicorn_config(app, options=options), app.state.drain)

    async def orphaned() -> None:
        # a supervisor killed outright (SIGKILL) cannot stop its workers: they drain and stop
        while os.getppid() == int(supervisor):
            await asyncio.sleep(0.5)
        server.should_exit = True

    async def main() -> None:
        watch = asyncio.ensure_future(orphaned())
        try:
            await server.serve(sockets=[public])
        finally:
            watch.cancel()

    # uvicorn's own choice of event loop (uvloop where installed), as `caishen serve` gets it
    with asyncio.Runner(loop_factory=server.config.get_loop_factory()) as runner:
        runner.run(main())
