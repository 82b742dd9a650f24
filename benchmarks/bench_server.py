"""Load test of the game centre: N tables played at once through real WebSocket clients.

Starts ``caishen serve`` on loopback (a fresh SQLite file unless --db), opens N rooms, each
with one client-played seat and three server bots, and plays for S seconds. The client
answers every state at once (a win when offered, else pass, else its last discard choice).
Latency is the time from sending a move to receiving the state that follows it.

    python benchmarks/bench_server.py --tables 100 --seconds 30

The last line is ``tables=N hands/s=X p50=Y ms p99=Z ms``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
# One TLS context for every client (the server is plain HTTP on loopback): httpx makes one per
# client otherwise, loading the CA bundle each time, which took 40% of the load generator's CPU,
# all of it while the rooms open.
TLS = ssl.create_default_context()


def choose(view: dict[str, object]) -> str:
    acts = [c["action"] for c in view["choices"]]  # type: ignore[attr-defined]
    if "win" in acts:
        return "win"
    if "pass" in acts:
        return "pass"
    return str(acts[-1])


async def table(base: str, stop: float, bot: str, lat: list[float], when: list[tuple[float, str]], hands: list[int],
                opened: list[int]) -> None:
    # a pooled connection idle for a whole match would meet uvicorn closing it (after 5 s)
    # just as the next room is asked for: drop idle connections sooner
    async with httpx.AsyncClient(base_url=base, timeout=120, verify=TLS, limits=httpx.Limits(keepalive_expiry=2)) as http:
        r = await http.post("/api/me", json={"name": "bench"})
        cookie = r.cookies["caishen"]
        while time.monotonic() < stop:
            room = (await http.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": 24, "bot": bot})).json()
            url = base.replace("http://", "ws://") + f"/ws/{room['code']}"
            async with websockets.connect(url, additional_headers={"Cookie": f"caishen={cookie}"}, max_size=2**22,
                                          open_timeout=120, ping_interval=None) as ws:
                opened[0] += 1
                sent: float | None = None
                while time.monotonic() < stop:
                    msg = json.loads(await ws.recv())
                    if msg["type"] != "state":
                        continue
                    if sent is not None:
                        now = time.monotonic()
                        lat.append(now - sent)
                        when.append((now, room["code"]))
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


async def steady_cpu(pid: int, tables: int, stop: float, lat: list[float], opened: list[int]) -> tuple[float, int, int]:
    """The server's CPU and the moves measured from when every table has its socket open
    (the rooms' opening left out; at the latest from half-time) to the end, and the index in
    ``lat`` where that part starts."""
    half = stop - (stop - time.monotonic()) / 2
    while opened[0] < tables and time.monotonic() < half:
        await asyncio.sleep(0.05)
    cpu0, n0 = server_cpu(pid), len(lat)
    await asyncio.sleep(max(0.0, stop - time.monotonic()))
    return server_cpu(pid) - cpu0, len(lat) - n0, n0


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


async def run(base: str, tables: int, seconds: float, bot: str, pid: int) -> Result:
    lat: list[float] = []
    when: list[tuple[float, str]] = []
    hands = [0]
    opened = [0]
    start = time.monotonic()
    stop = start + seconds
    steady = asyncio.ensure_future(steady_cpu(pid, tables, stop, lat, opened))
    await asyncio.gather(*(table(base, stop, bot, lat, when, hands, opened) for _ in range(tables)))
    cpu, moves, first = await steady
    elapsed = time.monotonic() - start
    p50, p99 = percentiles(lat)
    s50, s99 = percentiles(lat[first:])
    return Result(hands[0] / elapsed, p50, p99, len(lat), cpu / moves if moves else float("nan"), s50, s99,
                  [(w - start, code, x) for (w, code), x in zip(when, lat, strict=True)])


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--bot", default="greedy", help="level of the server's bots (random, greedy, strong)")
    ap.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    ap.add_argument("--port", type=int, default=8790)
    ap.add_argument("--workers", type=int, default=1, help="server processes (caishen serve --workers)")
    ap.add_argument("--trace", default=None, help="write each move's time since the start, room and latency (ms) here")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="caishen-bench-")
    db = args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen([sys.executable, "-m", "caishen.cli", "serve", "--port", str(args.port), "--db", db,
                             "--workers", str(args.workers)],
                            env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(base + "/api/variants", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        cpu0 = time.process_time()
        res = asyncio.run(run(base, args.tables, args.seconds, args.bot, proc.pid))
        client_cpu = time.process_time() - cpu0
    finally:
        proc.terminate()
        proc.wait(10)
    if args.trace:
        Path(args.trace).write_text("".join(f"{t:.4f} {code} {x * 1000:.2f}\n" for t, code, x in res.trace))
    print(f"moves measured: {res.moves}, server bots: {args.bot}, workers: {args.workers}, "
          f"database: {db.split('@')[-1]}, client CPU {client_cpu:.1f} s in {args.seconds:.0f} s "
          "(the load generator shares the machine)")
    # the server's CPU per move is steadier than wall time on a busy machine
    print(f"server CPU per client move {res.cpu_per_move * 1e6:.0f} us once every table is open or from half-time "
          "(the move, the three bots' answers, the database write and the state sent)")
    print(f"once every table is open: p50={res.steady_p50:.1f} ms p99={res.steady_p99:.1f} ms")
    print(f"tables={args.tables} hands/s={res.hands_per_second:.2f} p50={res.p50:.1f} ms p99={res.p99:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
