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
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent


def choose(view: dict[str, object]) -> str:
    acts = [c["action"] for c in view["choices"]]  # type: ignore[attr-defined]
    if "win" in acts:
        return "win"
    if "pass" in acts:
        return "pass"
    return str(acts[-1])


async def table(base: str, stop: float, bot: str, lat: list[float], hands: list[int], opened: list[int]) -> None:
    # a pooled connection idle for a whole match would meet uvicorn closing it (after 5 s)
    # just as the next room is asked for: drop idle connections sooner
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(keepalive_expiry=2)) as http:
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
                        lat.append(time.monotonic() - sent)
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


async def steady_cpu(pid: int, tables: int, stop: float, lat: list[float], opened: list[int]) -> tuple[float, int]:
    """The server's CPU and the moves measured from when every table has its socket open
    (the rooms' opening left out; at the latest from half-time) to the end."""
    half = stop - (stop - time.monotonic()) / 2
    while opened[0] < tables and time.monotonic() < half:
        await asyncio.sleep(0.05)
    cpu0, n0 = server_cpu(pid), len(lat)
    await asyncio.sleep(max(0.0, stop - time.monotonic()))
    return server_cpu(pid) - cpu0, len(lat) - n0


async def run(base: str, tables: int, seconds: float, bot: str, pid: int) -> tuple[float, float, float, int, float]:
    lat: list[float] = []
    hands = [0]
    opened = [0]
    start = time.monotonic()
    stop = start + seconds
    steady = asyncio.ensure_future(steady_cpu(pid, tables, stop, lat, opened))
    await asyncio.gather(*(table(base, stop, bot, lat, hands, opened) for _ in range(tables)))
    cpu, moves = await steady
    elapsed = time.monotonic() - start
    lat.sort()
    p50 = statistics.median(lat) * 1000 if lat else float("nan")
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else float("nan")
    return hands[0] / elapsed, p50, p99, len(lat), cpu / moves if moves else float("nan")


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
        hps, p50, p99, n, per_move = asyncio.run(run(base, args.tables, args.seconds, args.bot, proc.pid))
        client_cpu = time.process_time() - cpu0
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"moves measured: {n}, server bots: {args.bot}, workers: {args.workers}, database: {db.split('@')[-1]}, "
          f"client CPU {client_cpu:.1f} s in {args.seconds:.0f} s (the load generator shares the machine)")
    # the server's CPU per move is steadier than wall time on a busy machine
    print(f"server CPU per client move {per_move * 1e6:.0f} us once every table is open or from half-time "
          "(the move, the three bots' answers, the database write and the state sent)")
    print(f"tables={args.tables} hands/s={hps:.2f} p50={p50:.1f} ms p99={p99:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
