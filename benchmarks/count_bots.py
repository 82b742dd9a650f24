"""Instructions per decision of the ``strong`` and ``greedy`` bots, counted by valgrind's
callgrind: deterministic, so two commits can be compared on a busy or noisy machine where
``bench_bots.py``'s times move by a fifth from run to run.

It plays ``bench_bots.py``'s seeded hands (a ``strong, greedy, greedy, random`` table, the
seats rotating from hand to hand) and counts only the instructions inside the chosen bot's
``act`` calls: each such call runs inside a C function nothing else in the run calls
(``functools.reduce``), and callgrind collects only inside it (``--toggle-collect``).

Usage::

    python benchmarks/count_bots.py [--hands N] [--json]          # this tree's src
    python benchmarks/count_bots.py --src OLD/src                   # another checkout
    CAISHEN_PURE=1 python benchmarks/count_bots.py                  # the pure-Python build

Needs ``valgrind``; about 25 s per bot for 35 hands (valgrind runs Python ~50× slower).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_bots import play  # the same hands, table and seeds as bench_bots.py

TOGGLE = "functools_reduce"


def play_counted(hands: int, counted: str) -> int:
    """Play bench_bots.py's hands; ``counted``'s decisions run inside ``functools.reduce``.
    Returns how many decisions it made."""
    decisions = 0

    def decide(bot: Any, obs: Any) -> Any:
        nonlocal decisions
        if bot.name != counted:
            return bot.act(obs)
        decisions += 1
        return functools.reduce(lambda _, o: bot.act(o), [obs], None)

    play(0, hands, decide)
    return decisions


def count(src: str, bot: str, hands: int) -> tuple[int, int]:
    """(instructions inside ``bot``'s decisions, decisions) in a fresh process under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, PYTHONPATH=src)
        got = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--toggle-collect={TOGGLE}", f"--callgrind-out-file={out}",
             sys.executable, __file__, "--play", bot, "--hands", str(hands)],
            env=env, capture_output=True, text=True, check=True)
    collected = re.search(r"Collected : (\d+)", got.stderr)
    decisions = re.search(r"^decisions (\d+)$", got.stdout, re.M)
    if collected is None or decisions is None:
        raise SystemExit(f"count_bots: no count from valgrind:\n{got.stderr[-2000:]}")
    return int(collected.group(1)), int(decisions.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=35)
    ap.add_argument("--src", default=str(Path(__file__).resolve().parent.parent / "src"),
                    help="the src directory to measure (default: this tree's)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--play", help=argparse.SUPPRESS)  # inside valgrind: play, counting this bot
    a = ap.parse_args()
    if a.play:
        print(f"decisions {play_counted(a.hands, a.play)}")
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("count_bots: valgrind is not installed (apt-get install valgrind)")
    figures: dict[str, int] = {}
    for bot in ("strong", "greedy"):
        instructions, decisions = count(a.src, bot, a.hands)
        figures[f"{bot}_instructions"] = instructions // decisions
        figures[f"{bot}_decisions"] = decisions
    if a.json:
        print(json.dumps(figures, sort_keys=True))
        return
    build = "pure Python" if os.environ.get("CAISHEN_PURE") else "the build PYTHONPATH finds"
    print(f"{a.src} ({build}), {a.hands} hands")
    for bot in ("strong", "greedy"):
        print(f"{bot:<8}{figures[f'{bot}_instructions']:>12,} instructions per decision "
              f"({figures[f'{bot}_decisions']} decisions)")


if __name__ == "__main__":
    main()
