"""What every benchmark prints beside its figures: the build it ran and the host's pace.

Imported by the scripts of this directory (run as ``python benchmarks/bench_*.py``, which puts
this directory on the path).
"""

from __future__ import annotations

import time

import caishen


def build() -> str:
    """``compiled`` when caishen runs its mypyc build, else ``pure`` (also for a checkout from
    before ``caishen.build``, which had no compiled build: ``bench_bots.py --compare``)."""
    which = getattr(caishen, "build", None)
    return "compiled" if which is not None and which().startswith("compiled") else "pure"


def loop_ms() -> float:
    """Milliseconds of a plain Python loop of 10^6 additions (best of 3): the machine's pace,
    printed beside absolute figures so that runs in a busy and an idle hour can be compared."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        x = 0
        for i in range(1_000_000):
            x += i
        best = min(best, time.perf_counter() - start)
    return round(best * 1e3, 1)
