"""Load test of the game centre: N tables played at once through real WebSocket clients.

Starts ``caishen serve`` on loopback (a fresh SQLite file for every run unless --db), opens N
rooms, each with one client-played seat and three server bots, and plays for S seconds. The
client answers every state at once (a win when offered, else pass, else its last discard
choice). Latency is the time from sending a move to receiving the state that follows it. The
rooms play at the instant pace (one person and bots: no claim pause either): the normal and
fast paces only wait on timers between moves (docs/server.md, "Paced play"), which costs no CPU
per move but would measure the pace instead of the server.

    python benchmarks/bench_server.py                          # 100 tables, 3 runs of 20 s, one process
    python benchmarks/bench_server.py --tables 10,100 --runs 3 --json

Each table count is run ``--runs`` times, the counts interleaved (10, 100, 10, 100, ...), each
run a fresh server on a fresh database. For each count it prints the median and the spread
(lowest-highest) of the runs: the server process's CPU seconds per client move (user + system
from ``/proc/<pid>/stat``, its worker processes included; the move, the three bots' answers,
the database write and the states sent), and p50/p99 of the latency, both counted once every
table has its socket open. ``--json`` ends with one JSON object: ``build``,
``server_cpu_per_move_us``, ``p50_ms``, ``p99_ms`` and ``hands_per_s`` (medians at
``at_tables``, 100 when it was run, else the largest count), ``*_runs`` lists beside them, and
``by_tables`` with every count's figures. The build is asked again before every run: a run
whose server ran another build than the one named at the start (a source edited meanwhile
makes the installed compiled modules stale, and caishen then runs pure Python) is printed,
left out of the figures and listed in ``dropped_runs``.

The server runs the installed caishen package, whatever ``PYTHONPATH`` says: the benchmark
prints the build it runs (compiled with mypyc or pure Python, and where it is imported from)
and refuses to start when the server would import another caishen than the installed one (a
source tree on ``PYTHONPATH``), so that a figure always names the build that made it.
``--source`` lets it run the caishen that ``PYTHONPATH`` gives (a worktree, usually pure
Python), and says so in every line that gives a figure. ``CAISHEN_PURE=1`` runs the installed
package's pure-Python build.

A match that ends (someone broke, 断筹) is followed at its table by a new room, opened while
the CPU is counted: each run prints how many (``rooms_in_window_runs`` in ``--json``), and
``--opening N`` measures what one costs the server (N rooms opened one after another, each
as a table opens it: a person, the room, its WebSocket, the first state), so that a figure
can be read with and without them (docs/performance.md).

    python benchmarks/bench_server.py --opening 100             # server CPU per room opened
    python benchmarks/bench_server.py --tables 10 --flood 2    # hostile clients beside 10 tables
    python benchmarks/bench_server.py --tables 10 --slow 10    # a seat that reads nothing at each

With ``--nodes N`` the server is N game-centre nodes (``caishen serve --redis``) on a fresh
PostgreSQL schema (``--pg``, default ``$CAISHEN_TEST_PG`` or the local ``test`` database) and
Redis (``--redis``), behind HAProxy run from ``deploy/haproxy.cfg`` (``benchmarks/balancer.py``);
every client goes through the balancer. The CPU per move is the sum of every node's (the
balancer's own CPU is printed beside it), and each run prints the share of the clients' moves
that crossed nodes (``caishen_relayed_messages_total{direction="in"}`` of every node over the
moves sent; each table's one person makes the node it reaches take the table, so the share is 0
unless a page is sent to another node than its table's, docs/server.md "Deployment"; ``--cross F``
makes a share F of the tables so: taken by one node, played from a page on the next one):

    python benchmarks/bench_server.py --source --nodes 1 --tables 100 --runs 2
    python benchmarks/bench_server.py --source --nodes 3 --tables 100 --runs 2
    python benchmarks/bench_server.py --source --nodes 3 --tables 100 --cross 0.5   # half the tables relayed

With ``--human-paced`` each table's person answers 2-4 s (uniform, ``--seed``) after being
asked, the bots play at the normal pace, the turn timer is 60 s; the figures are counted over
``--seconds`` (default 60) after every table is open and ``--warmup`` s (default 20): p50/p99
of the person's move to the server's first event or state after it, moves/s, the server CPU
per person move over every node, the load generator's CPU, the load average.
``--find-capacity`` steps the table count up until p99 >= 100 ms or a client sees a failure,
a reconnect or a move unanswered for 10 s, and prints a table (benchmarks/human_pace.py;
docs/server.md, "Capacity at a human pace"). Every server gets ``--max-connections``
(default here 20000: the server's own default, 1000, is below 1,000 tables' sockets):

    python benchmarks/bench_server.py --human-paced --find-capacity
    python benchmarks/bench_server.py --human-paced --nodes 3 --tables 100,400,800 --warmup 10 --seconds 30

With ``--flood`` or ``--slow`` the honest tables' p99 (once every table is open) is measured
without and with them, alternated ``--rounds`` times; the last line gives the ratio of the medians.
Each table's client sends its own ``X-Forwarded-For`` (the centre limits requests per address).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import resource
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import websockets

import balancer
import human_pace
from human_pace import choose  # the scripted player of every bench table

# One TLS context for every client (the server is plain HTTP on loopback): httpx makes one per
# client otherwise, loading the CA bundle each time, which took 40% of the load generator's CPU,
# all of it while the rooms open.
TLS = ssl.create_default_context()


def forwarded(i: int) -> dict[str, str]:
    """Client ``i``'s address, as a trusted proxy on loopback would say (each person at an
    address of their own: the centre limits requests per address; 198.18.0.0/15 is the range
    kept for benchmarks, and no packet goes there)."""
    return {"X-Forwarded-For": f"198.{18 + i // 62500 % 2}.{i // 250 % 250}.{i % 250 + 1}"}


async def post(http: httpx.AsyncClient, url: str, body: dict[str, object]) -> httpx.Response:
    """POST, tried again while the answer is 502, 503 or 504 (a node too busy, or the balancer
    finding none in time; as a person would try again, for up to a minute; counted with the
    reconnects)."""
    for _ in range(120):
        r = await http.post(url, json=body)
        if r.status_code not in (502, 503, 504):
            break
        reconnects[0] += 1
        await asyncio.sleep(0.5)  # the pace of the retries
    r.raise_for_status()
    return r


async def person(http: httpx.AsyncClient, name: str) -> str:
    r = await post(http, "/api/me", {"name": name})
    return r.cookies["caishen"]


# Closes and refusals a page answers by connecting again: the node restarting or losing the
# table (1012), try again later (1013), an error or a cut connection, the balancer refusing.
RECONNECT = (1006, 1011, 1012, 1013)
reconnects = [0]  # how many times the run's pages connected again


_people = iter(range(1_000_000))
# --old-server: a checkout from before rooms had a pace and `serve` had --max-connections
OLD_SERVER = [False]


async def table(base: str, stop: float, bot: str, lat: list[float], when: list[tuple[float, str]], hands: list[int],
                opened: list[int], index: int = 0, slow: bool = False, cross: tuple[str, str] | None = None,
                human: human_pace.Human | None = None) -> None:
    """One honest table; with ``slow``, a second person sits at it who reads nothing (and
    reconnects whenever the server closes that socket), the turn timer (1 s) playing their turns.
    Each match is a new person at an address of their own (the centre limits how many rooms one
    person or address makes). With ``human`` (``--human-paced``), a person who answers 2-4 s
    after being asked, the bots at the normal pace, a turn timer of 60 s."""
    while time.monotonic() < stop:
        if human is not None and human.gate is not None:
            await human.gate.acquire()  # rooms opened a few at a time
        # a pooled connection idle for a whole match would meet uvicorn closing it (after 5 s)
        # just as the next room is asked for: drop idle connections sooner
        async with httpx.AsyncClient(base_url=base, timeout=120, verify=TLS, limits=httpx.Limits(keepalive_expiry=2),
                                     headers=forwarded(next(_people))) as http, \
                httpx.AsyncClient(base_url=base, timeout=120, verify=TLS, headers=forwarded(next(_people))) as other:
            cookie = await person(http, "bench")
            body = {"friends": 1, "turn_seconds": 1} if slow else {"friends": 0, "turn_seconds": 0}
            if human is not None:
                body = {"friends": 0, "turn_seconds": 60}
            pace = {} if OLD_SERVER[0] else {"pace": "normal" if human else "instant"}
            room = (await post(http, "/api/rooms", {**body, "hands": 24, "bot": bot, **pace})).json()
            reader: asyncio.Future[None] | None = None
            if slow:
                slow_cookie = await person(other, "slow")
                (await other.post(f"/api/rooms/{room['code']}/join")).raise_for_status()
                reader = asyncio.ensure_future(slow_reader(base, room["code"], slow_cookie, stop))
        url = base.replace("http://", "ws://") + f"/ws/{room['code']}"
        if cross is not None:  # the table taken by one node, the person's page on another: relayed
            await take(cross[0].replace("http://", "ws://") + f"/ws/{room['code']}", cookie)
            url = cross[1].replace("http://", "ws://") + f"/ws/{room['code']}"
        try:
            first = True
            while time.monotonic() < stop:
                try:
                    async with websockets.connect(url, additional_headers={"Cookie": f"caishen={cookie}"},
                                                  max_size=2**22, open_timeout=120, ping_interval=None) as ws:
                        opened[0] += first
                        if first and human is not None and human.gate is not None:
                            human.gate.release()
                        first = False
                        if human is not None:
                            await human_pace.play_human(ws, room["code"], lat, when, hands, human)
                        else:
                            await play(ws, room["code"], stop, lat, when, hands)
                        break
                except (websockets.ConnectionClosed, websockets.InvalidStatus, OSError) as exc:
                    code = exc.rcvd.code if isinstance(exc, websockets.ConnectionClosed) and exc.rcvd else 1006
                    if code not in RECONNECT:
                        raise
                    reconnects[0] += 1
                    await asyncio.sleep(0.5)  # the page's pause before it connects again
        finally:
            if reader is not None:
                reader.cancel()


async def take(url: str, cookie: str) -> None:
    """Open a table's WebSocket at ``url`` until its first state (the node takes the table), then close it."""
    async with websockets.connect(url, additional_headers={"Cookie": f"caishen={cookie}"}, max_size=2**22,
                                  open_timeout=120, ping_interval=None) as ws:
        while json.loads(await ws.recv())["type"] != "state":
            pass


async def play(ws: websockets.ClientConnection, code: str, stop: float, lat: list[float],
               when: list[tuple[float, str]], hands: list[int]) -> None:
    sent: float | None = None
    while time.monotonic() < stop:
        msg = json.loads(await ws.recv())
        if msg["type"] != "state":
            continue
        if sent is not None:
            now = time.monotonic()
            lat.append(now - sent)
            when.append((now, code))
            sent = None
        if msg["match_over"]:
            hands[0] += 1
            break
        if msg["hand_end"] is not None:
            hands[0] += 1
            sent = time.monotonic()
            await ws.send(json.dumps({"type": "next", "hand": msg["hand"]}))
        elif msg["choices"]:
            sent = time.monotonic()
            await ws.send(json.dumps({"type": "act", "action": choose(msg), "hand": msg["hand"], "step": msg["step"]}))


async def slow_reader(base: str, code: str, cookie: str, stop: float) -> None:
    """A person whose page opens the table's WebSocket and then reads nothing (a small receive
    buffer); the server closes it within a few seconds, and it comes back, as a page would."""
    host, port = base.removeprefix("http://").split(":")
    while time.monotonic() < stop:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        writer: asyncio.StreamWriter | None = None
        try:
            await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
            reader, writer = await asyncio.open_connection(sock=sock)
            writer.write((f"GET /ws/{code} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                          "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                          f"Sec-WebSocket-Version: 13\r\nCookie: caishen={cookie}\r\n\r\n").encode())
            await reader.readuntil(b"\r\n\r\n")
            await asyncio.sleep(min(12.0, max(0.0, stop - time.monotonic())))  # reading nothing
        except (OSError, asyncio.IncompleteReadError):
            await asyncio.sleep(1)
        finally:
            if writer is not None:
                writer.transport.abort()
            else:
                sock.close()


async def flooder(base: str, stop: float, index: int, counts: dict[str, int]) -> None:
    """A hostile client at a table of its own: help, back, ping and stale act messages as fast
    as it can send them, reading whatever comes back."""
    async with httpx.AsyncClient(base_url=base, timeout=120, verify=TLS, headers=forwarded(next(_people))) as http:
        cookie = await person(http, "flood")
        room = (await http.post("/api/rooms", json={"variant": "luoyang-gangci", "friends": 0,
                                                    "turn_seconds": 0})).json()
    url = base.replace("http://", "ws://") + f"/ws/{room['code']}"
    batch = [json.dumps({"type": "help", "on": True}), json.dumps({"type": "help", "on": False}),
             '{"type":"back"}', '{"type":"ping"}', json.dumps({"type": "act", "action": "pass", "hand": 0, "step": 0})]
    while time.monotonic() < stop:  # closed for falling behind (4000), it comes back, as a page would
        try:
            async with websockets.connect(url, additional_headers={"Cookie": f"caishen={cookie}"}, max_size=2**22,
                                          ping_interval=None) as ws:
                while time.monotonic() < stop:
                    for _ in range(20):
                        for m in batch:
                            await ws.send(m)
                            counts["sent"] += 1
                    try:
                        while True:
                            msg = json.loads(await asyncio.wait_for(ws.recv(), 0.01))
                            key = msg["code"] if msg["type"] == "error" else msg["type"]
                            counts[key] = counts.get(key, 0) + 1
                    except TimeoutError:
                        pass
        except websockets.ConnectionClosed:
            counts["closed"] = counts.get("closed", 0) + 1


async def steady_cpu(cpu: Callable[[], float], tables: int, stop: float, lat: list[float],
                     opened: list[int]) -> tuple[float, int, int, int]:
    """The server's CPU and the moves measured from when every table has its socket open
    (the first rooms' opening left out; at the latest from half-time) to the end, the index in
    ``lat`` where that part starts, and how many rooms were opened in that part (a match that
    ends, someone broke at 断筹, is followed by a new room: its opening is in the figure)."""
    half = stop - (stop - time.monotonic()) / 2
    while opened[0] < tables and time.monotonic() < half:
        await asyncio.sleep(0.05)
    cpu0, n0, rooms0 = cpu(), len(lat), opened[0]
    await asyncio.sleep(max(0.0, stop - time.monotonic()))
    return cpu() - cpu0, len(lat) - n0, n0, opened[0] - rooms0


def percentiles(lat: list[float]) -> tuple[float, float]:
    """p50 and p99 of ``lat`` (seconds) in ms."""
    if not lat:
        return float("nan"), float("nan")
    xs = sorted(lat)
    return statistics.median(xs) * 1000, xs[min(len(xs) - 1, int(len(xs) * 0.99))] * 1000


@dataclass
class Result:
    hands_per_second: float
    p50: float  # ms, every move
    p99: float
    moves: int
    cpu_per_move: float  # s, steady part
    steady_p50: float  # ms, the moves after every table is open
    steady_p99: float
    trace: list[tuple[float, str, float]]  # (s since start, room, latency s) of every move
    rooms_in_window: int = 0  # rooms opened while the CPU was counted (new matches)
    steady_moves: int = 0  # the moves the CPU was counted over
    reconnects: int = 0  # the pages' reconnects (a table lost by its node, the balancer refusing) and retried POSTs
    relayed_share: float = float("nan")  # --nodes: of the moves sent, those relayed to another node
    balancer_cpu_per_move: float = float("nan")  # --nodes: HAProxy's CPU s per move (steady part)


async def run(base: str, tables: int, seconds: float, bot: str, pid: int | Callable[[], float], flood: int = 0,
              slow: int = 0, counts: dict[str, int] | None = None, cross: list[str] | None = None,
              crossed: int = 0) -> Result:
    """``cross``: the nodes' URLs; the first ``crossed`` tables are then taken by one node and
    played from another (``--cross``)."""
    lat: list[float] = []
    when: list[tuple[float, str]] = []
    hands = [0]
    opened = [0]
    start = time.monotonic()
    stop = start + seconds
    cpu = pid if callable(pid) else (lambda: server_cpu(pid))
    reconnects[0] = 0
    steady = asyncio.ensure_future(steady_cpu(cpu, tables, stop, lat, opened))
    counts = {"sent": 0} if counts is None else counts
    pairs = [(cross[i % len(cross)], cross[(i + 1) % len(cross)]) if cross and i < crossed else None
             for i in range(tables)]
    await asyncio.gather(*(table(base, stop, bot, lat, when, hands, opened, i, i < slow, pairs[i])
                           for i in range(tables)),
                         *(flooder(base, stop, i, counts) for i in range(flood)))
    cpu, moves, first, rooms = await steady
    elapsed = time.monotonic() - start
    p50, p99 = percentiles(lat)
    s50, s99 = percentiles(lat[first:])
    return Result(hands[0] / elapsed, p50, p99, len(lat), cpu / moves if moves else float("nan"), s50, s99,
                  [(w - start, code, x) for (w, code), x in zip(when, lat, strict=True)], rooms, moves,
                  reconnects[0])


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) the server has used, its worker processes
    (``--workers``) included; NaN off Linux."""
    total = 0.0
    try:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # a process that has just ended
            if stat.parent.name == str(pid) or fields[1] == str(pid):
                total += int(fields[11]) + int(fields[12])
    except OSError:
        return float("nan")
    return total / os.sysconf("SC_CLK_TCK") if total else float("nan")


_WHICH = "import caishen, json; print(json.dumps([caishen.__file__, caishen.build(), caishen.__version__]))"


def which_caishen(env: dict[str, str], cwd: str) -> tuple[str, str, str]:
    """(the package directory, the build, the version) of the caishen a process started with
    ``env`` in ``cwd`` imports."""
    out = subprocess.run([sys.executable, "-c", _WHICH], env=env, cwd=cwd, capture_output=True, text=True,
                         check=False)
    if out.returncode:
        raise SystemExit(f"bench_server: caishen does not import here: {out.stderr.strip().splitlines()[-1:]}")
    path, build, version = json.loads(out.stdout)
    return str(Path(path).resolve().parent), build, version


CAPACITY_STEPS = "100,200,400,800,1000,1400,2000"


def tables_list(text: str) -> list[int]:
    """``--tables``: one count or several, comma-separated."""
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a table count or a list of them: {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"not a table count or a list of them: {text!r}")
    return counts


def spread(xs: list[float], scale: float = 1.0, digits: int = 1) -> str:
    """``median (lowest-highest)`` of ``xs`` times ``scale``."""
    ys = [x * scale for x in xs]
    return f"{statistics.median(ys):,.{digits}f} ({min(ys):,.{digits}f}-{max(ys):,.{digits}f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=tables_list, default=[100], metavar="N[,N...]",
                    help="table count(s) played at once; several are interleaved (default 100)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each table count, interleaved (default 3)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="seconds played (default 20); --human-paced: the window measured (default 60)")
    ap.add_argument("--bot", default="greedy", help="level of the server's bots (random, greedy, strong)")
    ap.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file for every run)")
    ap.add_argument("--port", type=int, default=8790)
    ap.add_argument("--workers", type=int, default=1,
                    help="server processes (caishen serve --workers: N nodes on one machine, on --redis)")
    ap.add_argument("--nodes", type=int, default=0, metavar="N",
                    help="N game-centre nodes on PostgreSQL and Redis behind HAProxy (deploy/haproxy.cfg)")
    ap.add_argument("--cross", type=float, default=0.0, metavar="F",
                    help="--nodes N>1: this share of the tables is taken by one node and played from a page on "
                         "another (straight to the nodes, not through the balancer): relayed moves (default 0)")
    ap.add_argument("--pg", default=os.environ.get("CAISHEN_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
                    help="--nodes: the PostgreSQL database a fresh schema is made in for each run")
    ap.add_argument("--redis", default=os.environ.get("CAISHEN_TEST_REDIS", "redis://127.0.0.1:6379/0"),
                    help="--nodes and --workers: the Redis of the nodes")
    ap.add_argument("--source", action="store_true",
                    help="run the caishen that PYTHONPATH gives instead of refusing (the build is still printed)")
    ap.add_argument("--old-server", action="store_true",
                    help="with --source: a checkout from before rooms had a pace and serve had --max-connections "
                         "(the commit before issue 31, f11c009: its bots always moved at once): asks for neither")
    ap.add_argument("--json", action="store_true", help="end with one JSON object of the figures")
    ap.add_argument("--profile", default=None, metavar="FILE",
                    help="run the server under cProfile and write its statistics here (the last run; "
                         "the profiler's overhead inflates the CPU figures)")
    ap.add_argument("--flood", type=int, default=0, metavar="K",
                    help="also K hostile clients flooding help, back, ping and act; runs with and without, alternated")
    ap.add_argument("--slow", type=int, default=0, metavar="K",
                    help="K of the tables get a second person who reads nothing; runs with and without, alternated")
    ap.add_argument("--rounds", type=int, default=2, help="with --flood or --slow: pairs of runs")
    ap.add_argument("--opening", type=int, default=0, metavar="N",
                    help="only measure the server CPU per room opened as the load generator opens one "
                         "(person, room, WebSocket, first state), N rooms one after another")
    ap.add_argument("--trace", default=None, help="write each move's time since the start, room and latency (ms) here "
                                                  "(the last run)")
    ap.add_argument("--human-paced", action="store_true",
                    help="one person per table answering 2-4 s after being asked (seeded), three bots at the "
                         "normal pace, turn timer 60 s; measured for --seconds after every table is open and --warmup")
    ap.add_argument("--find-capacity", type=tables_list, nargs="?", const=tables_list(CAPACITY_STEPS), default=None,
                    metavar="N[,N...]", help=f"--human-paced: step the table count up ({CAPACITY_STEPS}) until p99 >= "
                                             "100 ms or a client sees an error or a timeout; print a table")
    ap.add_argument("--warmup", type=float, default=20, help="--human-paced: seconds after every table is open "
                                                             "before the window (default 20)")
    ap.add_argument("--seed", type=int, default=1, help="--human-paced: the people's think times (default 1)")
    ap.add_argument("--opening-at-once", type=int, default=50, help="--human-paced: rooms opened at once (default 50)")
    ap.add_argument("--max-connections", type=int, default=20000,
                    help="caishen serve --max-connections of every server process (default here 20000; the "
                         "server's own default is 1000, below 1,000 tables' sockets)")
    ap.add_argument("--bot-cache-share", default=None, metavar="F",
                    help="caishen serve --bot-cache-share of every server process (default: the server's own, 0.1)")
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 60.0 if args.human_paced else 20.0
    if args.find_capacity and not args.human_paced:
        ap.error("--find-capacity goes with --human-paced")
    if args.nodes and (args.workers != 1 or args.opening or args.profile):
        ap.error("--nodes runs single-process nodes: not with --workers, --opening or --profile")
    if args.old_server and (not args.source or args.nodes or args.human_paced or args.flood or args.slow or args.opening):
        ap.error("--old-server measures another checkout (--source) at the instant pace, one process")
    OLD_SERVER[0] = args.old_server
    tmp = tempfile.mkdtemp(prefix="caishen-bench-")
    env = dict(os.environ)
    if env.get("PYTHONPATH"):  # the servers run in a temporary directory: a relative entry would name nothing there
        env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    served = which_caishen(env, tmp)
    if not args.source:
        installed = which_caishen({k: v for k, v in env.items() if k != "PYTHONPATH"}, tmp)
        if served[0] != installed[0]:
            print(f"bench_server: the server would run caishen from {served[0]} ({served[1]}), not the installed "
                  f"package at {installed[0]} ({installed[1]}); unset PYTHONPATH, install that tree, or say "
                  "--source to measure it as it is", file=sys.stderr)
            return 2
    origin = "the installed package" if not args.source else "PYTHONPATH, --source"
    build = served[1]
    print(f"server build: caishen {served[2]}, {build}, from {served[0]} ({origin})", flush=True)
    if args.human_paced:
        return human_main(args, env, tmp, build)
    if args.opening:
        return opening(args, env, tmp, build)
    if args.flood or args.slow:
        args.tables = args.tables[-1]
        db = args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        return compare(args, db, env, tmp)
    results: dict[int, list[tuple[Result, float]]] = {n: [] for n in args.tables}
    dropped: list[dict[str, object]] = []
    for r in range(args.runs):
        for n in args.tables:
            db = args.db or f"sqlite:///{Path(tmp) / f'bench-{n}-{r}.sqlite3'}"
            # the build is asked again before every run: a source edited meanwhile (a commit
            # landing on the tree that is installed) makes the compiled modules stale, and the
            # next server runs pure Python
            now_build = which_caishen(env, tmp)[1]
            res, client_cpu, _ = one_run(args, db, env, tmp, tables=n)
            print(f"run {r + 1}/{args.runs} tables={n} [{now_build}]: server CPU per client move "
                  f"{res.cpu_per_move * 1e6:,.0f} us, p50={res.steady_p50:.1f} ms p99={res.steady_p99:.1f} ms, "
                  f"hands/s={res.hands_per_second:.2f}, moves {res.moves} ({res.steady_moves} counted), rooms opened "
                  f"while counted {res.rooms_in_window}, load generator CPU {client_cpu:.1f} s in {args.seconds:.0f} s"
                  + (f", reconnects {res.reconnects}" if res.reconnects or args.nodes else "")
                  + (f", relayed {res.relayed_share:.1%} of moves, balancer CPU per move "
                     f"{res.balancer_cpu_per_move * 1e6:,.0f} us" if args.nodes else ""), flush=True)
            if now_build != build:
                print(f"run {r + 1} tables={n}: the server ran {now_build}, not {build} as at the start: "
                      "left out of the figures below", flush=True)
                dropped.append({"tables": n, "run": r + 1, "build": now_build,
                                "server_cpu_per_move_us": round(res.cpu_per_move * 1e6, 1), "p99_ms": res.steady_p99})
                continue
            results[n].append((res, client_cpu))
            if args.trace:
                Path(args.trace).write_text("".join(f"{t:.4f} {code} {x * 1000:.2f}\n" for t, code, x in res.trace))
    where = ('SQLite, fresh file per run' if args.db is None else args.db.split('@')[-1]) if not args.nodes else (
        f"PostgreSQL {args.pg.split('@')[-1]}, fresh schema per run; {args.nodes} nodes on Redis "
        f"{args.redis.split('@')[-1]} behind HAProxy (deploy/haproxy.cfg)"
        + (f", {args.cross:.0%} of the tables played from another node than their own" if args.cross else ""))
    print(f"server bots: {args.bot}, their caches' share {args.bot_cache_share or 'the server default'}, "
          f"workers: {args.workers}, pace: instant, "
          f"database: {where}; "
          f"figures counted once every table is open (at the latest from half-time); "
          f"median (lowest-highest) of {args.runs} runs; the load generator shares the machine")
    by_tables: dict[str, dict[str, object]] = {}
    if not any(results.values()):
        print(f"bench_server: no run was made with {build}", file=sys.stderr)
        return 1
    results = {n: got for n, got in results.items() if got}
    for n, got in results.items():
        rs = [res for res, _ in got]
        cpu = [res.cpu_per_move for res in rs]
        p50 = [res.steady_p50 for res in rs]
        p99 = [res.steady_p99 for res in rs]
        hps = [res.hands_per_second for res in rs]
        print(f"[{build}] tables={n}: server CPU per client move {spread(cpu, 1e6, 0)} us, "
              f"p50 {spread(p50)} ms, p99 {spread(p99)} ms, hands/s {spread(hps, digits=2)}"
              + (f", relayed {spread([r.relayed_share for r in rs], 100)} % of moves, balancer CPU per move "
                 f"{spread([r.balancer_cpu_per_move for r in rs], 1e6, 0)} us" if args.nodes else "")
              + (f" ({len(rs)} of {args.runs} runs)" if len(rs) < args.runs else ""))
        by_tables[str(n)] = {
            "server_cpu_per_move_us": statistics.median(cpu) * 1e6,
            "server_cpu_per_move_us_runs": [round(x * 1e6, 1) for x in cpu],
            "p50_ms": statistics.median(p50), "p50_ms_runs": [round(x, 2) for x in p50],
            "p99_ms": statistics.median(p99), "p99_ms_runs": [round(x, 2) for x in p99],
            "hands_per_s": statistics.median(hps), "hands_per_s_runs": [round(x, 3) for x in hps],
            "moves_runs": [res.moves for res in rs],
            "rooms_in_window_runs": [res.rooms_in_window for res in rs],
            "steady_moves_runs": [res.steady_moves for res in rs],
            "whole_run_p99_ms_runs": [round(res.p99, 2) for res in rs],
            "client_cpu_s_runs": [round(c, 2) for _, c in got],
            "reconnects_runs": [r.reconnects for r in rs],
            **({"relayed_share_runs": [round(r.relayed_share, 4) for r in rs],
                "balancer_cpu_per_move_us_runs": [round(r.balancer_cpu_per_move * 1e6, 1) for r in rs]}
               if args.nodes else {}),
        }
    at = 100 if 100 in results else max(results)
    last = by_tables[str(at)]
    print(f"server build: {build}{' (--source)' if args.source else ''}")
    print(f"tables={at} server CPU per client move={last['server_cpu_per_move_us']:.0f} us "
          f"p50={last['p50_ms']:.1f} ms p99={last['p99_ms']:.1f} ms hands/s={last['hands_per_s']:.2f}")
    if args.json:
        print(json.dumps({
            "build": build, "version": served[2], "package": served[0], "source": args.source,
            "bot": args.bot, "workers": args.workers, "nodes": args.nodes, "pace": "instant", "seconds": args.seconds, "runs": args.runs,
            "at_tables": at,
            **{k: v for k, v in last.items() if not k.startswith(("moves", "whole", "client", "rooms", "steady"))},
            "by_tables": by_tables, "dropped_runs": dropped,
        }, sort_keys=True))
    return 0


def human_main(args: argparse.Namespace, env: dict[str, str], tmp: str, build: str) -> int:
    """``--human-paced``: each table count of ``--tables`` (or ``--find-capacity``'s steps, stopping
    at the first with p99 >= 100 ms or an error) once, on a fresh database."""
    steps = args.find_capacity or args.tables
    rows: list[human_pace.HumanResult] = []
    where = f"{args.nodes} nodes behind HAProxy, PostgreSQL and Redis" if args.nodes else "one process, SQLite"
    print(f"human pace: {where}; build {build}{' (--source)' if args.source else ''}; think 2-4 s (seed "
          f"{args.seed}), bots {args.bot} at the normal pace, turn timer 60 s; window {args.seconds:.0f} s after "
          f"every table is open and {args.warmup:.0f} s; --max-connections {args.max_connections}; "
          f"ulimit -n {resource.getrlimit(resource.RLIMIT_NOFILE)[0]}; {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    for n in steps:
        db = args.db or f"sqlite:///{Path(tmp) / f'human-{n}.sqlite3'}"
        res, _, _ = one_run(args, db, env, tmp, tables=n)
        assert isinstance(res, human_pace.HumanResult)
        print(f"[{build}] {res.line()}", flush=True)
        rows.append(res)
        if args.find_capacity and not res.ok:
            break
    print(human_pace.capacity_table(rows))
    if args.json:
        print(json.dumps({"build": build, "source": args.source, "nodes": args.nodes, "pace": "human",
                          "rows": [{k: v for k, v in vars(r).items()} for r in rows]}, sort_keys=True))
    return 0


def _share_option(args: argparse.Namespace) -> list[str]:
    share = getattr(args, "bot_cache_share", None)
    return [] if share is None else ["--bot-cache-share", str(share)]


def wait_up(base: str) -> None:
    """Until the server at ``base`` answers (at most about 30 s)."""
    for _ in range(300):
        try:
            if httpx.get(base + "/api/variants", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)


async def human_run(args: argparse.Namespace, base: str, tables: int, cpu: Callable[[], float],
                    cross: list[str] | None = None, crossed: int = 0) -> human_pace.HumanResult:
    """``--human-paced``: ``tables`` tables, each a person answering 2-4 s after being asked
    (seeded by ``--seed`` and the table count), measured for ``--seconds`` after every table is
    open and ``--warmup`` s (human_pace.run_human)."""
    lat: list[float] = []
    when: list[tuple[float, str]] = []
    hands = [0]
    human = human_pace.Human(random.Random(args.seed * 100_003 + tables), gate=asyncio.Semaphore(args.opening_at_once))
    pairs = [(cross[i % len(cross)], cross[(i + 1) % len(cross)]) if cross and i < crossed else None
             for i in range(tables)]

    def start(i: int, opened: list[int]) -> Awaitable[None]:
        return table(base, math.inf, args.bot, lat, when, hands, opened, i, False, pairs[i], human)

    return await human_pace.run_human(tables, start, cpu, lat, hands, human, reconnects, args.warmup, args.seconds)


def one_run(args: argparse.Namespace, db: str, env: dict[str, str], tmp: str, flood: int = 0,
            slow: int = 0, tables: int | None = None) -> tuple[Result, float, dict[str, int]]:
    """One server on a fresh database (``db``), ``tables`` (default ``args.tables``) played
    (``--nodes``: the nodes behind the balancer, :func:`nodes_run`)."""
    if getattr(args, "nodes", 0):
        return nodes_run(args, env, tmp, flood, slow, tables)
    profile = ["-m", "cProfile", "-o", str(Path(args.profile).resolve())] if getattr(args, "profile", None) else []
    proc = subprocess.Popen([sys.executable, *profile, "-m", "caishen.cli", "serve", "--port", str(args.port), "--db", db,
                             "--workers", str(args.workers), *([] if OLD_SERVER[0] else ["--max-connections", str(args.max_connections)]),
                             *(["--redis", args.redis] if args.workers > 1 else []),  # N workers are N nodes
                             *_share_option(args)],
                            env=env, cwd=tmp, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    counts: dict[str, int] = {"sent": 0}
    try:
        wait_up(base)
        cpu0 = time.process_time()
        n = args.tables if tables is None else tables
        res = asyncio.run(human_run(args, base, n, lambda: server_cpu(proc.pid)) if args.human_paced else
                          run(base, n, args.seconds, args.bot, proc.pid, flood, slow, counts))
        client_cpu = time.process_time() - cpu0
    finally:
        if profile:  # uvicorn raises the signal again once it has shut down: SIGINT lets cProfile write its file
            proc.send_signal(signal.SIGINT)
            proc.wait(60)
        else:
            proc.terminate()
            proc.wait(10)
    return res, client_cpu, counts


def relayed_in(base: str) -> float:
    """The messages of pages that this node relayed to another node (its ``/metrics``)."""
    text = httpx.get(base + "/metrics", timeout=30).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith('caishen_relayed_messages_total{direction="in"}'))


def nodes_run(args: argparse.Namespace, env: dict[str, str], tmp: str, flood: int = 0, slow: int = 0,
              tables: int | None = None) -> tuple[Result, float, dict[str, int]]:
    """``--nodes N``: N nodes (``caishen serve --redis``) on a fresh PostgreSQL schema, HAProxy
    from deploy/haproxy.cfg in front (benchmarks/balancer.py), ``tables`` played through it."""
    ports = [balancer.free_port() for _ in range(args.nodes)]
    procs: list[subprocess.Popen[bytes]] = []
    front: balancer.Balancer | None = None
    counts: dict[str, int] = {"sent": 0}
    with balancer.pg_schema(args.pg) as db:
        try:
            for i, port in enumerate(ports):
                with (Path(tmp) / f"node-{i + 1}.log").open("ab") as log:  # its JSON log lines, kept out of the figures
                    procs.append(subprocess.Popen(
                        [sys.executable, "-m", "caishen.cli", "serve", "--port", str(port), "--db", db, "--redis",
                         args.redis, "--max-connections", str(args.max_connections), "--keep-alive", "75", *_share_option(args)], env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=log))
                if i == 0:
                    wait_up(f"http://127.0.0.1:{port}")  # the first makes the schema
            for port in ports:
                wait_up(f"http://127.0.0.1:{port}")
            front = balancer.Balancer(ports, port=args.port).start()
            pids = [p.pid for p in procs]
            haproxy_cpu0 = front.cpu_seconds()
            cpu0 = time.process_time()
            n = args.tables if tables is None else tables
            crossed = round(n * args.cross) if args.nodes > 1 else 0
            urls = [f"http://127.0.0.1:{port}" for port in ports]
            if args.human_paced:
                hres = asyncio.run(human_run(args, front.base, n, lambda: balancer.process_cpu(pids), urls, crossed))
                return hres, time.process_time() - cpu0, counts  # type: ignore[return-value]
            res = asyncio.run(run(front.base, n, args.seconds, args.bot, lambda: balancer.process_cpu(pids), flood,
                                  slow, counts, urls, crossed))
            client_cpu = time.process_time() - cpu0
            relayed = sum(relayed_in(f"http://127.0.0.1:{port}") for port in ports)
            res = replace(res, relayed_share=relayed / res.moves if res.moves else float("nan"),
                          balancer_cpu_per_move=(front.cpu_seconds() - haproxy_cpu0) / res.moves
                          if res.moves else float("nan"))
        finally:
            if front is not None:
                front.stop()
            for p in procs:
                p.terminate()
            for p in procs:
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    return res, client_cpu, counts


async def open_rooms(base: str, n: int, bot: str, pid: int) -> float:
    """Server CPU seconds per room opened, ``n`` rooms one after another, each as
    :func:`table` opens it (a new person, the room, its WebSocket, the first state)."""
    await asyncio.sleep(2)  # start-up's own work done
    cpu0 = server_cpu(pid)
    for _ in range(n):
        async with httpx.AsyncClient(base_url=base, timeout=120, verify=TLS, headers=forwarded(next(_people))) as http:
            cookie = await person(http, "bench")
            made = await http.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": 24, "bot": bot,
                                                       "pace": "instant"})
            made.raise_for_status()
            code = made.json()["code"]
        async with websockets.connect(base.replace("http://", "ws://") + f"/ws/{code}",
                                      additional_headers={"Cookie": f"caishen={cookie}"}, max_size=2**22,
                                      ping_interval=None) as ws:
            while json.loads(await ws.recv())["type"] != "state":
                pass
    await asyncio.sleep(0.5)  # the last socket's closing
    return (server_cpu(pid) - cpu0) / n


def opening(args: argparse.Namespace, env: dict[str, str], tmp: str, build: str) -> int:
    """``--opening N``: the server CPU per room opened (what a run's new matches add to its
    CPU per move: ``rooms opened while counted`` times this, over the moves)."""
    proc = subprocess.Popen([sys.executable, "-m", "caishen.cli", "serve", "--port", str(args.port), "--db",
                             f"sqlite:///{Path(tmp) / 'opening.sqlite3'}"], env=env, cwd=tmp, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    try:
        wait_up(base)
        per = asyncio.run(open_rooms(base, args.opening, args.bot, proc.pid))
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"[{build}] server CPU per room opened (person, room, WebSocket, first state; {args.opening} rooms one "
          f"after another): {per * 1000:.1f} ms")
    if args.json:
        print(json.dumps({"build": build, "rooms": args.opening, "server_cpu_per_room_ms": per * 1000}))
    return 0


def compare(args: argparse.Namespace, db: str, env: dict[str, str], tmp: str) -> int:
    """``--flood K`` / ``--slow K``: the honest tables' latency without and with the hostile or
    slow clients, alternated ``--rounds`` times, each run on a fresh database."""
    plain: list[float] = []
    loaded: list[float] = []
    what = (f"{args.flood} flooding clients" if args.flood else "") + (" and " if args.flood and args.slow else "") + (
        f"{args.slow} tables with a seat that reads nothing" if args.slow else "")
    for r in range(args.rounds):
        for with_load in (False, True):
            run_db = db.replace(".sqlite3", f"-{r}-{int(with_load)}.sqlite3")
            res, _, counts = one_run(args, run_db, env, tmp, args.flood if with_load else 0,
                                     args.slow if with_load else 0)
            (loaded if with_load else plain).append(res.steady_p99)
            extra = ""
            if with_load and args.flood:
                refused = counts.get("rate_limited", 0)
                extra = (f"; flood: {counts['sent']} messages sent, {refused} refused, "
                         f"{counts.get('state', 0)} states and {counts.get('pong', 0)} pongs back, "
                         f"closed {counts.get('closed', 0)} times for falling behind")
            print(f"round {r + 1} {'with' if with_load else 'without'} {what}: tables={args.tables} "
                  f"hands/s={res.hands_per_second:.2f} p50={res.steady_p50:.1f} ms p99={res.steady_p99:.1f} ms{extra}",
                  flush=True)
    m0, m1 = statistics.median(plain), statistics.median(loaded)
    print(f"median p99 of {args.tables} honest tables: {m0:.1f} ms without, {m1:.1f} ms with {what}: "
          f"ratio {m1 / m0:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
