"""``bench_server.py --human-paced``: at each table one scripted person who moves 2-4 s
(uniform, seeded) after being asked, three server bots at the normal pace, a turn timer of
60 s (the person is never timed out), and the server's answer time to the person's moves,
measured over a fixed window after every table is open and a warm-up (docs/server.md,
"Capacity at a human pace")."""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import websockets

ANSWER_TIMEOUT = 10.0  # s without a state after a move: counted as a timeout the person saw


@dataclass
class Human:
    """The scripted people's settings and what they saw."""

    rng: random.Random
    low: float = 2.0  # s, the shortest think
    high: float = 4.0
    told: list[int] = field(default_factory=lambda: [0])  # moves told (events received), bots' and the person's
    errors: dict[str, int] = field(default_factory=dict)  # error messages by code
    timeouts: list[int] = field(default_factory=lambda: [0])
    gate: asyncio.Semaphore | None = None  # rooms opened at once


def choose(view: dict[str, object]) -> str:
    acts = [c["action"] for c in view["choices"]]  # type: ignore[attr-defined]
    if "win" in acts:
        return "win"
    if "pass" in acts:
        return "pass"
    return str(acts[-1])


async def play_human(ws: websockets.ClientConnection, code: str, lat: list[float],
                     when: list[tuple[float, str]], hands: list[int], human: Human) -> None:
    """Play one match as a person: asked (a state with choices, or a hand's end), answer
    2-4 s later with the latest state's hand and step; the answer time is from the send to
    the first event or state that follows it."""
    pending: tuple[float, str] | None = None  # (when to send, what)
    sent: float | None = None
    last_hand = -1
    while True:
        now = time.monotonic()
        waits = [t for t in ((pending[0] if pending else None), (sent + ANSWER_TIMEOUT if sent else None))
                 if t is not None]
        try:
            raw = await (asyncio.wait_for(ws.recv(), max(0.0, min(waits) - now)) if waits else ws.recv())
        except TimeoutError:
            now = time.monotonic()
            if sent is not None and now >= sent + ANSWER_TIMEOUT:
                human.timeouts[0] += 1
                sent = None
            if pending is not None and now >= pending[0]:
                sent = time.monotonic()
                await ws.send(pending[1])
                pending = None
            continue
        msg = json.loads(raw)
        if sent is not None and msg["type"] in ("event", "state"):
            # the server's answer: the move told back as an event (the state that follows waits for
            # the claim pause, 0.8 s, and the bots' pace: the pace, not the server), or the state
            # (a pass, the next hand)
            now = time.monotonic()
            lat.append(now - sent)
            when.append((now, code))
            sent = None
        if msg["type"] == "event":
            human.told[0] += 1
            continue
        if msg["type"] == "error":
            human.errors[msg.get("code", "?")] = human.errors.get(msg.get("code", "?"), 0) + 1
            continue
        if msg["type"] != "state":
            continue
        if msg["match_over"]:
            hands[0] += 1
            return
        due = pending[0] if pending is not None else time.monotonic() + human.rng.uniform(human.low, human.high)
        if msg["hand_end"] is not None:
            if msg["hand"] != last_hand:
                hands[0] += 1
                last_hand = msg["hand"]
            pending = (due, json.dumps({"type": "next", "hand": msg["hand"]}))
        elif msg["choices"]:
            pending = (due, json.dumps({"type": "act", "action": choose(msg), "hand": msg["hand"],
                                        "step": msg["step"]}))
        else:
            pending = None


@dataclass
class HumanResult:
    tables: int
    opened_s: float  # s until every table had its socket open
    window: float  # s measured
    p50: float  # ms, the person's move to the first event or state after it
    p99: float
    person_moves: int
    told: int  # moves told to the people (every seat's moves but passes)
    server_cpu: float  # s in the window, every node
    client_cpu: float  # s in the window, this process
    hands_per_s: float
    load: tuple[float, float]  # 1-min load average at the window's start and end
    reconnects: int
    failures: list[str]
    timeouts: int
    errors: dict[str, int]

    @property
    def ok(self) -> bool:
        return self.p99 < 100 and not self.failures and not self.timeouts and not self.reconnects

    def line(self) -> str:
        pm = self.person_moves or 1
        return (f"tables={self.tables}: p50={self.p50:.1f} ms p99={self.p99:.1f} ms; person moves/s "
                f"{self.person_moves / self.window:.1f}, moves told/s {self.told / self.window:.1f}, hands/s "
                f"{self.hands_per_s:.2f}; server CPU per person move {self.server_cpu / pm * 1e6:,.0f} us "
                f"(per move told {self.server_cpu / (self.told or 1) * 1e6:,.0f} us), server CPU "
                f"{self.server_cpu / self.window:.2f} cores, load generator CPU {self.client_cpu / self.window:.2f} "
                f"cores; load average {self.load[0]:.1f}->{self.load[1]:.1f}; opened in {self.opened_s:.0f} s; "
                f"reconnects {self.reconnects}, timeouts {self.timeouts}, failures {len(self.failures)}"
                + (f" ({self.failures[0]})" if self.failures else "")
                + (f", error messages {self.errors}" if self.errors else ""))


async def run_human(tables: int, start_table: Callable[[int, list[int]], Awaitable[None]],
                    cpu: Callable[[], float], lat: list[float], hands: list[int], human: Human,
                    reconnects: list[int], warmup: float, window: float, open_limit: float = 900) -> HumanResult:
    """Start ``tables`` tables (``start_table(i, opened)``), wait until every one is open (at
    most ``open_limit`` s), then ``warmup`` s, then measure ``window`` s; then stop them."""
    opened = [0]
    tasks = [asyncio.ensure_future(start_table(i, opened)) for i in range(tables)]
    t0 = time.monotonic()
    while opened[0] < tables and time.monotonic() < t0 + open_limit and not any(t.done() for t in tasks):
        await asyncio.sleep(0.2)
    opened_s = time.monotonic() - t0
    await asyncio.sleep(warmup)
    reconnects[0] = 0
    load0 = os.getloadavg()[0]
    cpu0, n0, told0, hands0, c0, to0 = cpu(), len(lat), human.told[0], hands[0], time.process_time(), human.timeouts[0]
    w0 = time.monotonic()
    await asyncio.sleep(window)
    cpu1, n1, told1, hands1, c1, to1 = cpu(), len(lat), human.told[0], hands[0], time.process_time(), human.timeouts[0]
    took = time.monotonic() - w0
    load1 = os.getloadavg()[0]
    errors = dict(human.errors)
    failures = [f"{type(t.exception()).__name__}: {t.exception()}"[:200] for t in tasks
                if t.done() and not t.cancelled() and t.exception() is not None]
    if opened[0] < tables:
        failures.append(f"only {opened[0]} of {tables} tables opened in {open_limit:.0f} s")
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    xs = sorted(lat[n0:n1])
    p50 = statistics.median(xs) * 1000 if xs else float("nan")
    p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))] * 1000 if xs else float("nan")
    return HumanResult(tables, opened_s, took, p50, p99, n1 - n0, told1 - told0, cpu1 - cpu0, c1 - c0,
                       (hands1 - hands0) / took, (load0, load1), reconnects[0], failures, to1 - to0, errors)


def capacity_table(rows: list[HumanResult]) -> str:
    """The --find-capacity summary."""
    out = ["| tables | p50 ms | p99 ms | person moves/s | moves told/s | server CPU per person move | "
           "server cores | client cores | load avg | errors |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        pm = r.person_moves or 1
        out.append(f"| {r.tables} | {r.p50:.1f} | {r.p99:.1f} | {r.person_moves / r.window:.1f} | "
                   f"{r.told / r.window:.1f} | {r.server_cpu / pm * 1e3:.2f} ms | {r.server_cpu / r.window:.2f} | "
                   f"{r.client_cpu / r.window:.2f} | {r.load[0]:.1f}-{r.load[1]:.1f} | "
                   f"{r.reconnects + r.timeouts + len(r.failures)} |")
    ok = [r.tables for r in rows if r.ok]
    out.append(f"largest N with p99 < 100 ms and no error: {max(ok) if ok else 'none'}")
    return "\n".join(out)
