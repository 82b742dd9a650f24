"""``caishen serve --workers N``: N server processes sharing the port, one owner per table.

The first process (the supervisor) prepares the database (schema, cookie key, record-signing
key), opens the listening socket and starts N worker processes. Each worker serves the whole
app on that socket (the kernel hands each new connection to one of them) and on a Unix socket
of its own. A worker runs the tables it owns (:meth:`WorkerPlan.owner_of`, a hash of the room
code) and hands any other table's new WebSocket connection to its owner (:class:`Door`), or
failing that relays it (:mod:`caishen.server.nodes.sibling`); all else it answers from the database,
which stays the one truth. A worker that dies is
started again and resumes its tables from the database, as after a restart; a worker whose
supervisor is gone stops. docs/server.md has the design and the measured load.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import functools
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path

import uvicorn

from caishen.server.app import create_app
from caishen.server.db import make_engine, upgrade
from caishen.server.hygiene import OPTIONS_ENV, GuardedHttpProtocol, ServeOptions, TableSocketProtocol
from caishen.server.logs import setup as setup_logs
from caishen.server.nodes.sibling import HandedOff
from caishen.server.store import Store
from caishen.server.tables import WorkerPlan
from caishen.table.signing import load_or_create_key

BIND_SECONDS = 10.0    # a restarted server waits this long for the old workers to let go of the port
RESTART_SECONDS = 1.0  # between a worker's death and its new start
PEEK_BYTES = 1024      # of a new connection's first request, read without taking them: its first line
PEEK_SECONDS = 5.0     # a connection that sends no first line in this time is served where it came in
HAND_OFF_SECONDS = 2.0  # a full inbox (the owner busy) is tried again this long, then the relay serves
CAP_SLACK = 32  # uvicorn answers 503 past the cap plus this (the oldest idle closing meanwhile)
WS_PING_SECONDS = 4.0  # WebSocket keep-alive: a ping this often, a pong within this long
GRACE_SECONDS = 5      # a stopping server waits this long for its connections, then closes them
_TABLE_SOCKET = re.compile(rb"GET /ws/([A-Za-z0-9_-]{1,32})[ ?]")  # the app's /ws/{code}


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
            if time.monotonic() > deadline:
                raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
            time.sleep(0.2)
            continue
        sock.listen(2048)
        sock.set_inheritable(True)
        return sock


def supervise(host: str, port: int, db_url: str, count: int, options: ServeOptions | None = None) -> int:
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
            pass_fds=(sock.fileno(),), preexec_fn=functools.partial(_stop_with, os.getpid()),
            env=dict(os.environ, CAISHEN_DB=db_url, **{OPTIONS_ENV: (options or ServeOptions()).to_env()}),  # not on the command line: ps shows that to everyone
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


ProtocolFactory = Callable[[], asyncio.Protocol]


class Door:
    """A worker's accept loop on the public socket. A new connection whose first request opens
    the WebSocket of a table another worker owns is handed to that worker before anything is
    read from it: its file descriptor goes over the owner's Unix datagram socket (SCM_RIGHTS),
    and the owner serves it as if it had accepted it. Every other connection is served here,
    and a WebSocket that cannot be handed on is relayed (:mod:`caishen.server.nodes.sibling`).
    A relayed message costs a receive and a send in a second busy process and waits in both
    event loops: at 100 tables on two workers relayed moves took twice as long (docs/server.md).
    """

    def __init__(self, public: socket.socket, plan: WorkerPlan, handed_off: HandedOff) -> None:
        assert plan.sockets is not None
        self.public = public
        self.plan = plan
        self.handed_off = handed_off
        self.inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        path = Path(plan.inbox_of(plan.index))
        path.unlink(missing_ok=True)
        self.inbox.bind(str(path))
        os.chmod(path, 0o600)
        self.outbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        for s in (self.public, self.inbox, self.outbox):
            s.setblocking(False)
        self._serve: ProtocolFactory | None = None
        self._tasks: set[asyncio.Task[object]] = set()

    def open(self, serve: ProtocolFactory) -> None:
        """Start accepting; ``serve`` makes the protocol that serves one connection."""
        self._serve = serve
        loop = asyncio.get_running_loop()
        loop.add_reader(self.inbox.fileno(), self._take)
        self._spawn(self._accept())

    def close(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self.inbox.fileno())
        for task in list(self._tasks):
            task.cancel()
        self.inbox.close()
        self.outbox.close()

    def _spawn(self, coro: Coroutine[object, object, object]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(self.public)
            except OSError:  # e.g. too many open files: let some close
                await asyncio.sleep(0.1)
                continue
            self._spawn(self._route(conn))

    async def _route(self, conn: socket.socket) -> None:
        owner = self._owner(await self._first_line(conn))
        if owner is not None and owner != self.plan.index and await self._hand(conn, owner):
            conn.close()  # the owner has its own descriptor of the connection now
            return
        self._serve_here(conn)

    async def _first_line(self, conn: socket.socket) -> bytes:
        """The start of the first request, left in the socket for whoever serves it (b"" if
        none came in time)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PEEK_SECONDS
        head = b""
        while loop.time() < deadline:
            ready = _readable(loop, conn.fileno())
            try:
                await asyncio.wait_for(ready, deadline - loop.time())
                head = conn.recv(PEEK_BYTES, socket.MSG_PEEK)
            except (OSError, TimeoutError):
                return b""
            finally:
                loop.remove_reader(conn.fileno())
            if not head or b"\n" in head or len(head) >= PEEK_BYTES:
                return head
            await asyncio.sleep(0.01)  # the first line split over packets: rare
        return head

    def _owner(self, head: bytes) -> int | None:
        m = _TABLE_SOCKET.match(head)
        return None if m is None else self.plan.owner_of(m.group(1).decode())

    async def _hand(self, conn: socket.socket, owner: int) -> bool:
        """Send the connection to worker ``owner``; False if it is not there (starting, or
        starting again) or its inbox stays full."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HAND_OFF_SECONDS
        while True:
            try:
                # (socket.send_fds drops its address argument before Python 3.12)
                self.outbox.sendmsg([b"c"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [conn.fileno()]))],
                                   0, self.plan.inbox_of(owner))
                return True
            except BlockingIOError:  # its inbox holds only a few (net.unix.max_dgram_qlen)
                if loop.time() > deadline:
                    return False
                await asyncio.sleep(0.005)
            except OSError:
                return False

    def _take(self) -> None:
        """Serve the connections other workers handed to this one."""
        while True:
            try:
                _, fds, _, _ = socket.recv_fds(self.inbox, 16, 4)
            except (BlockingIOError, InterruptedError):
                return
            for fd in fds:
                conn = socket.socket(fileno=fd)
                conn.setblocking(False)
                with contextlib.suppress(OSError):  # closed by now: nothing to serve
                    peer = conn.getpeername()
                    self.handed_off.add((str(peer[0]), int(peer[1])))
                self._serve_here(conn)

    def _serve_here(self, conn: socket.socket) -> None:
        assert self._serve is not None
        self._spawn(asyncio.get_running_loop().connect_accepted_socket(self._serve, conn))


def _readable(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.Future[None]:
    """Done when ``fd`` has something to read (its reader is removed by the caller)."""
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    return ready


class _WorkerServer(uvicorn.Server):
    """uvicorn serving the worker's Unix socket itself and, through the :class:`Door`, the
    public one."""

    def __init__(self, config: uvicorn.Config, door: Door) -> None:
        super().__init__(config)
        self.door = door

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        config = self.config
        # what uvicorn's own listeners make for each connection they accept
        self.door.open(functools.partial(config.http_protocol_class, config=config,  # type: ignore[call-arg]
                                         server_state=self.server_state, app_state=self.lifespan.state))

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.door.close()
        await super().shutdown(sockets=sockets)


def work() -> None:
    """A worker process: ``FD INDEX COUNT SOCKETS SUPERVISOR_PID`` on the command line, the
    database URL in ``$CAISHEN_DB``."""
    fd, index, count, sockets, supervisor = sys.argv[1:6]
    db_url = os.environ["CAISHEN_DB"]
    setup_logs()
    plan = WorkerPlan(int(index), int(count), sockets)
    public = socket.socket(fileno=int(fd))
    path = Path(sockets) / f"w{index}.sock"
    path.unlink(missing_ok=True)
    private = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    private.bind(str(path))
    os.chmod(path, 0o600)
    private.listen(2048)
    handed_off = HandedOff()
    door = Door(public, plan, handed_off)
    options = ServeOptions.from_env()
    server = _WorkerServer(uvicorn_config(create_app(db_url, plan, handed_off, options=options),
                                          options=options), door)

    async def orphaned() -> None:
        # a supervisor killed outright (SIGKILL) cannot stop its workers: they stop by themselves
        while os.getppid() == int(supervisor):
            await asyncio.sleep(0.5)
        server.should_exit = True

    async def main() -> None:
        watch = asyncio.ensure_future(orphaned())
        try:
            await server.serve(sockets=[private])
        finally:
            watch.cancel()

    # uvicorn's own choice of event loop (uvloop where installed), as `caishen serve` gets it
    with asyncio.Runner(loop_factory=server.config.get_loop_factory()) as runner:
        runner.run(main())
