"""Memory of the game centre over many matches (issue 26): M bot matches played to their end
through a real server, the server's RSS read after the first 100 and after all of them, each
time once the finished tables have left memory.

Starts ``caishen serve`` on loopback (a fresh SQLite file) with ``--evict-after`` short, plays
the matches on C concurrent tables (each a new person with one client seat and three server
bots, answering every state at once), and prints the RSS after 100 matches and after M, and
their difference. The acceptance of issue 26: within 20 MiB.

    python benchmarks/bench_memory.py --matches 1000 --concurrent 10

The server runs the installed caishen package (as ``bench_server.py``) and prints its build;
``--source`` runs the caishen that ``PYTHONPATH`` gives instead (a worktree built in place with
``python setup.py build_ext --inplace``, or pure Python).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_server import TLS, choose, forwarded, wait_up, which_caishen  # noqa: E402

SWEEP_SECONDS = 5.0  # caishen.server.tables.SWEEP_SECONDS
GC_SOONER_SECONDS = 120.0  # caishen.server.collector.SWEEP_SOONER_SECONDS: the cycles of evicted tables


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def live_tables(base: str) -> float:
    for line in httpx.get(base + "/metrics", timeout=30).text.splitlines():
        if line.startswith("caishen_live_tables "):
            return float(line.split()[1])
    return float("nan")


async def one_match(base: str, index: int, bot: str, hands: int) -> int:
    """A new person plays one match to its end; the hands played."""
    async with httpx.AsyncClient(base_url=base, timeout=120, verify=TLS, headers=forwarded(index)) as http:
        r = await http.post("/api/me", json={"name": f"m{index}"})
        r.raise_for_status()
        cookie = r.cookies["caishen"]
        room = await http.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": hands, "bot": bot,
                                                        "pace": "instant"})
        room.raise_for_status()
        code = room.json()["code"]
    played = 0
    url = base.replace("http://", "ws://") + f"/ws/{code}"
    async with websockets.connect(url, additional_headers={"Cookie": f"caishen={cookie}"}, max_size=2**22,
                                  open_timeout=120) as ws:
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] != "state":
                continue
            if msg["match_over"]:
                return played + 1
            if msg["hand_end"] is not None:
                played += 1
                await ws.send(json.dumps({"type": "next", "hand": msg["hand"]}))
            elif msg["choices"]:
                await ws.send(json.dumps({"type": "act", "action": choose(msg), "hand": msg["hand"],
                                          "step": msg["step"]}))


async def play(base: str, first: int, count: int, concurrent: int, bot: str, hands: int) -> int:
    queue = list(range(first, first + count))
    done = [0, 0]

    async def worker() -> None:
        while queue:
            i = queue.pop()
            played = await one_match(base, i, bot, hands)  # (not `done[0] += await ...`: read before the await)
            done[0] += played
            done[1] += 1

    await asyncio.gather(*(worker() for _ in range(concurrent)))
    assert done[1] == count, done
    return done[0]


def settle(base: str, pid: int, evict_after: float) -> tuple[int, float]:
    """Wait for the finished tables to leave memory (two sweeps past the eviction time) and for
    the garbage collector's sweep that follows; RSS (KiB) and the live tables then."""
    time.sleep(evict_after + 2 * SWEEP_SECONDS + GC_SOONER_SECONDS + 2)
    return rss_kib(pid), live_tables(base)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--first", type=int, default=100, help="RSS is read after this many matches, then after all")
    ap.add_argument("--concurrent", type=int, default=10)
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--bot", default="greedy")
    ap.add_argument("--evict-after", type=float, default=5.0)
    ap.add_argument("--port", type=int, default=8791)
    ap.add_argument("--source", action="store_true",
                    help="run the caishen that PYTHONPATH gives, not the installed package")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="caishen-mem-")
    db = f"sqlite:///{Path(tmp) / 'mem.sqlite3'}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if args.source and os.environ.get("PYTHONPATH"):  # absolute: the server runs in a temporary directory
        env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) for p in os.environ["PYTHONPATH"].split(os.pathsep)
                                            if p)
    package, build, version = which_caishen(env, tmp)
    print(f"server build: caishen {version}, {build}, from {package}"
          f"{' (PYTHONPATH, --source)' if args.source else ' (the installed package)'}", flush=True)
    proc = subprocess.Popen([sys.executable, "-m", "caishen.cli", "serve", "--port", str(args.port), "--db", db,
                             "--evict-after", str(args.evict_after)], env=env, cwd=tmp, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{args.port}"
    try:
        wait_up(base)
        start_rss = rss_kib(proc.pid)
        t0 = time.monotonic()
        hands = asyncio.run(play(base, 0, args.first, args.concurrent, args.bot, args.hands))
        t1 = time.monotonic()
        rss1, live1 = settle(base, proc.pid, args.evict_after)
        print(f"after {args.first} matches ({hands} hands, {t1 - t0:.0f} s): RSS {rss1 / 1024:.1f} MiB, "
              f"live tables {live1:.0f} (at start {start_rss / 1024:.1f} MiB)", flush=True)
        t2 = time.monotonic()
        hands += asyncio.run(play(base, args.first, args.matches - args.first, args.concurrent, args.bot, args.hands))
        t3 = time.monotonic()
        rss2, live2 = settle(base, proc.pid, args.evict_after)
        print(f"after {args.matches} matches ({hands} hands, {t3 - t2:.0f} s more): RSS {rss2 / 1024:.1f} MiB, "
              f"live tables {live2:.0f}")
        print(f"matches={args.matches} rss_first={rss1 / 1024:.1f} MiB rss_all={rss2 / 1024:.1f} MiB "
              f"growth={(rss2 - rss1) / 1024:.1f} MiB (acceptance: within 20 MiB)")
    finally:
        proc.terminate()
        proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
