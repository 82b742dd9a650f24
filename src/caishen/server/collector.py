"""Garbage collection for a server that must not stop every table at once.

CPython's full collection walks every tracked object. Under load the server holds some
600,000 of them (the bots' shape caches, live matches, finished hands kept for their tables)
and a full collection then took 100-480 ms, about once a second at 100 busy tables: every
table waited for it, which made the whole long tail of the latency (docs/server.md).

Almost nothing the server keeps is cyclic garbage later (a sweep of 20 s of play at 100
tables found about 1,000 objects among 600,000), so objects that have lived a second are
frozen (:func:`gc.freeze`): the automatic collections no longer look at them, and
reference counting still frees them when they go. The few cycles among them are collected
by a sweep every :data:`SWEEP_SECONDS` (one full collection, about half a second at 100 busy
tables).

The youngest generation is collected every :data:`YOUNG_THRESHOLD` new objects instead of
CPython's 700: at 100 busy tables a move makes thousands of short-lived objects, and
collecting every 700 of them took about 7 % of the server's CPU (some 4,000 collections in a
20 s run, 1.8-1.9 s); every 20,000, about 75 collections took 0.9 s and the server's CPU per
move fell about 5 % (docs/performance.md, "fifth pass"). Most of those objects die of their
reference counts before any collection sees them; the few cycles are collected as before,
by the young collections or by the sweep once frozen.

Each young collection walks every object the tables made since the last freeze (50,000-66,000
at 100 busy tables, 10-25 ms). Collecting only past 1,000,000 (never, in practice: the survivors
frozen first) took the p99 at 100 tables from 108-110 to 94-96 ms and the CPU per move 4-7 %
down, but the memory after 1,000 matches grew 20.1 and 21.6 MiB against 17.1 (issue 26's
target: 20): the cycles that die young then wait for the sweep. Every 8,000 with the middle
generation never collected before the freeze: 18.4 MiB, p99 95-125 ms. Not changed
(docs/performance.md, "sixth pass"). On a later machine the same benchmark spread 15.4-25.2
MiB at one commit with 20,000, which holds the sixth pass's figures; every 200,000 grew 33.4
MiB, outside it, for 0-7 % less CPU per move ("seventh pass"): not changed either.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Callable

FREEZE_SECONDS = 1.0
SWEEP_SECONDS = 600.0
SWEEP_SOONER_SECONDS = 120.0  # a sweep asked for (tables left memory) comes at most this often
YOUNG_THRESHOLD = 20_000  # new objects between two collections of the youngest generation

_asked = False
_thresholds: tuple[int, int, int] | None = None  # CPython's own, while the server's are in force


def ask_for_sweep() -> None:
    """Tables have left memory: their cycles (the rules code's recursive closures, some 1,100
    objects a match in the pure build) are frozen and wait for a sweep; bring the next one
    forward, to at most SWEEP_SOONER_SECONDS after the last (issue 26: memory stays bounded
    over 1,000 matches, not only over 10 minutes)."""
    global _asked
    _asked = True


def settle() -> None:
    """Collect once and freeze what is left (what start-up made lives as long as the process);
    the youngest generation is collected every :data:`YOUNG_THRESHOLD` new objects from now
    on (:func:`release` puts CPython's thresholds back)."""
    global _thresholds
    if _thresholds is None:
        _thresholds = gc.get_threshold()
        gc.set_threshold(YOUNG_THRESHOLD, *_thresholds[1:])
    gc.collect()
    gc.freeze()


async def keep_collecting(
    freeze_seconds: float = FREEZE_SECONDS,
    sweep_seconds: float = SWEEP_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Freeze the survivors every ``freeze_seconds``; sweep everything every ``sweep_seconds``
    (by ``clock``). Runs until cancelled."""
    global _asked
    last_sweep = clock()
    while True:
        await sleep(freeze_seconds)
        since = clock() - last_sweep
        if since >= sweep_seconds or (_asked and since >= min(SWEEP_SOONER_SECONDS, sweep_seconds)):
            gc.unfreeze()
            settle()
            last_sweep = clock()
            _asked = False
        else:
            gc.freeze()


def release() -> None:
    """Give every frozen object back to the collector (an app made again in the same
    process, as in the tests, leaves nothing behind), and CPython's thresholds."""
    global _thresholds
    gc.unfreeze()
    if _thresholds is not None:
        gc.set_threshold(*_thresholds)
        _thresholds = None
