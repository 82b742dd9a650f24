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
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

NAMES = ("strong", "greedy", "greedy", "random")
TOGGLE = "functools_reduce"


def play(hands: int, counted: str) -> int:
    """Play the hands; ``counted``'s decisions run inside ``functools.reduce``. Returns how
    many decisions it made."""
    from caishen import fair
    from caishen.bots import make_bot
    from caishen.engine.game import Game
    from caishen.variants.longgang.rules import LONGGANG

    decisions = 0
    for h in range(hands):
        game = Game.from_seed(fair.hand_seed(b"bench-bots-%d" % h, 0), LONGGANG, h % 4)
        rng = random.Random(h)
        bots = [make_bot(NAMES[(s + h) % 4], random.Random(rng.random()), LONGGANG) for s in range(4)]
        while not game.is_over:
            for s in game.to_move():
                if not game.legal_actions(s):
                    continue
                obs = game.observation(s)
                bot = bots[s]
                if bot.name == counted:
                    a = functools.reduce(lambda _, o, bot=bot: bot.act(o), [obs], None)
                    decisions += 1
                else:
                    a = bot.act(obs)
                game.step(s, a)
                if game.is_over:
                    break
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
        print(f"decisions {play(a.hands, a.play)}")
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
