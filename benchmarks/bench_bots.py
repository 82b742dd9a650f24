"""Microseconds per decision of each bot (``strong``, ``greedy``, ``random``), cold and warm.

Seeded single hands at a ``strong, greedy, greedy, random`` table (the seats rotate from hand
to hand); only the bots' ``act`` calls are timed, not the engine nor building observations.

Decisions are timed in process CPU time (other load on the machine adds little). The
garbage collector's time inside each bot's timed decisions is also reported (``*_gc_us``,
part of the mean): a full collection walks every object the bots' caches keep, and in which
bot's decision it falls follows the allocations of the whole run, so it can move tens of
microseconds from one bot's mean to another's between two commits that do the same work.

* **cold**: the first ``--cold-hands`` hands of a fresh process (the bots' caches empty);
* **warm**: after ``--warm-hands`` more hands, the next ``--hands`` hands (other seeds).

Usage::

    python benchmarks/bench_bots.py [--hands N] [--json]
    python benchmarks/bench_bots.py --compare OLD_SRC [--rounds R]

``--json`` prints one JSON object: ``strong_us``, ``greedy_us``, ``random_us`` (warm means),
the cold means as ``*_cold_us`` and the collector's share of each warm mean as ``*_gc_us``.
``--compare OLD_SRC`` measures this tree's ``src`` and another checkout's ``src`` (e.g. an
older commit in a ``git worktree``) in one run: fresh processes, alternated ``--rounds``
times, and prints the medians and the speed-ups. The older checkout may be as old as the
commit before issue 14 (3c4d886: its engine was ``caishen.game`` and its bots took the legal
actions beside the observation); it plays the same seeds, but the engine and the rules have
changed since, so its hands do not play out alike (2,112 timed decisions against 2,029).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import inspect
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

NAMES = ("strong", "greedy", "greedy", "random")
BOTS = ("strong", "greedy", "random")


class _TakesLegal:
    """A bot of a checkout from before observations carried the legal actions (``--compare``
    with the commit before issue 14): ``act(observation, legal_actions)``. The legal actions
    are set before each decision, outside the timed call; this costs one call more per
    decision."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = bot.name
        self.legal: Any = ()

    def act(self, observation: Any) -> Any:
        return self.bot.act(observation, self.legal)


def play(first: int, count: int, decide: Callable[[Any, Any], Any]) -> None:
    """Play the seeded hands ``first`` .. ``first + count - 1`` at a ``strong, greedy, greedy,
    random`` table (the seats rotating from hand to hand); ``decide(bot, observation)`` makes
    each decision (it calls ``bot.act``)."""
    from caishen import fair
    from caishen.bots import make_bot

    game_cls: Any
    ruleset: Any
    try:
        from caishen.engine.game import Game as game_cls
        from caishen.variants.longgang.rules import LONGGANG as ruleset
    except ModuleNotFoundError:  # a checkout from before "One engine, many variants" (--compare)
        game_cls = importlib.import_module("caishen.game").Game
        ruleset = importlib.import_module("caishen.rules").LONGGANG

    for h in range(first, first + count):
        seed = b"bench-bots-%d" % h
        game = game_cls.from_seed(fair.hand_seed(seed, 0), ruleset, h % 4)
        rng = random.Random(h)
        bots: list[Any] = [make_bot(NAMES[(s + h) % 4], random.Random(rng.random()), ruleset) for s in range(4)]
        if "legal_actions" in inspect.signature(bots[0].act).parameters:
            bots = [_TakesLegal(b) for b in bots]
        while not game.is_over:
            for s in game.to_move():
                legal = game.legal_actions(s)
                if not legal:
                    continue
                if isinstance(bots[s], _TakesLegal):
                    bots[s].legal = legal  # worked out here, outside the timed call
                game.step(s, decide(bots[s], game.observation(s)))
                if game.is_over:
                    break


def run(hands: int, cold_hands: int, warm_hands: int) -> dict[str, float]:
    """Play the hands; return cold and warm mean microseconds per decision per bot."""

    deciding: list[str | None] = [None]
    collecting = [0]
    in_gc: dict[str, int] = {b: 0 for b in BOTS}

    def collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting[0] = time.process_time_ns()
        elif deciding[0] is not None:
            in_gc[deciding[0]] += time.process_time_ns() - collecting[0]

    def timed(times: dict[str, list[int]] | None) -> Callable[[Any, Any], Any]:
        def decide(bot: Any, obs: Any) -> Any:
            deciding[0] = bot.name if times is warm else None
            t = time.process_time_ns()
            a = bot.act(obs)
            dt = time.process_time_ns() - t
            deciding[0] = None
            if times is not None:
                times[bot.name].append(dt)
            return a
        return decide

    cold: dict[str, list[int]] = {b: [] for b in BOTS}
    warm: dict[str, list[int]] = {b: [] for b in BOTS}
    gc.callbacks.append(collector)
    try:
        play(0, cold_hands, timed(cold))
        play(cold_hands, warm_hands, timed(None))
        play(cold_hands + warm_hands, hands, timed(warm))
    finally:
        gc.callbacks.remove(collector)
    out: dict[str, float] = {}
    for b in BOTS:
        out[f"{b}_us"] = round(statistics.fmean(warm[b]) / 1000, 2)
    for b in BOTS:
        out[f"{b}_cold_us"] = round(statistics.fmean(cold[b]) / 1000, 2)
    for b in BOTS:
        out[f"{b}_gc_us"] = round(in_gc[b] / len(warm[b]) / 1000, 2)
    out["decisions"] = float(sum(len(v) for v in warm.values()))
    return out


def measure_in(src: str, args: Sequence[str]) -> dict[str, float]:
    """One fresh process with ``src`` first on the path; its JSON figures."""
    env = dict(os.environ, PYTHONPATH=src)
    got = subprocess.run([sys.executable, __file__, "--json", *args], env=env, check=True,
                         capture_output=True, text=True)
    figures: dict[str, float] = json.loads(got.stdout)
    return figures


def compare(old_src: str, rounds: int, args: Sequence[str]) -> None:
    new_src = str(Path(__file__).resolve().parent.parent / "src")
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for _ in range(rounds):  # alternate, so both see the same machine load
        runs["before"].append(measure_in(old_src, args))
        runs["after"].append(measure_in(new_src, args))
    print(f"{'bot':<8}{'before warm':>13}{'after warm':>12}{'x':>7}{'before cold':>13}{'after cold':>12}{'x':>7}"
          f"{'collector before':>18}{'after':>8}")
    for b in BOTS:
        row = [statistics.median(r[k] for r in runs[w]) for k in (f"{b}_us", f"{b}_cold_us", f"{b}_gc_us")
               for w in ("before", "after")]
        print(f"{b:<8}{row[0]:>11.1f}us{row[1]:>10.1f}us{row[0] / row[1]:>7.2f}"
              f"{row[2]:>11.1f}us{row[3]:>10.1f}us{row[2] / row[3]:>7.2f}{row[4]:>16.1f}us{row[5]:>6.1f}us")
    print(f"(medians of {rounds} fresh processes each; before = {old_src}, after = {new_src})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=60, help="warm hands timed")
    ap.add_argument("--cold-hands", type=int, default=10)
    ap.add_argument("--warm-hands", type=int, default=20, help="hands played untimed before the warm ones")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compare", metavar="OLD_SRC", help="also measure another checkout's src, alternating")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    passed = ["--hands", str(a.hands), "--cold-hands", str(a.cold_hands), "--warm-hands", str(a.warm_hands)]
    if a.compare:
        compare(a.compare, a.rounds, passed)
        return
    figures = run(a.hands, a.cold_hands, a.warm_hands)
    if a.json:
        print(json.dumps(figures, sort_keys=True))
        return
    n = int(figures["decisions"])
    print(f"{n} warm decisions ({a.hands} hands), {a.cold_hands} cold hands")
    for b in BOTS:
        print(f"{b:<8} warm {figures[f'{b}_us']:>8.1f} us/decision (collector {figures[f'{b}_gc_us']:.1f})"
              f"   cold {figures[f'{b}_cold_us']:>8.1f} us/decision")


if __name__ == "__main__":
    main()
