"""Microseconds per decision of each bot (``strong``, ``greedy``, ``random``), cold and warm.

Seeded single hands at a ``strong, greedy, greedy, random`` table (the seats rotate from hand
to hand); only the bots' ``act`` calls are timed, not the engine nor building observations.

Decisions are timed in process CPU time (other load on the machine adds little). The
garbage collector's time inside each bot's timed decisions is also reported (``*_gc_us``,
part of the mean): a full collection walks every object the bots' caches keep, and in which
bot's decision it falls follows the allocations of the whole run, so it can move tens of
microseconds from one bot's mean to another's between two commits that do the same work.

* **cold**: the first ``--cold-hands`` hands of a fresh process (the bots' caches empty);
* **warm**: after ``--warm-hands`` more hands, at least ``--hands`` hands (other seeds) and
  as many more as it takes for every bot's warm figure to time ``--min-seconds`` (2 s) of its
  decisions (a short figure spread 1.6x between runs seconds apart). The random bot decides in
  about 2 µs, so each of its warm decisions is timed as ``--random-repeat`` (64) calls of
  ``act`` on the same observation (the first one's action is played).

Usage::

    python benchmarks/bench_bots.py [--runs R] [--json] [--cache-share F]
    python benchmarks/bench_bots.py --compare OLD_SRC [--rounds R] [--cache-share F]

``--cache-share F`` keeps every cache the bots fill to that share of its limits first, as the
game centre does (``caishen serve --bot-cache-share``, 0.1 there by default; 1 here).

Without ``--json`` it runs ``--runs`` (3) fresh processes and prints each figure's median and
the spread (lowest-highest) of the runs, with the build and the time of a plain Python loop.
``--json`` prints one JSON object of one run: ``strong_us``, ``greedy_us``, ``random_us`` (warm
means), the cold means as ``*_cold_us``, the collector's share of each warm mean as ``*_gc_us``,
the CPU seconds each warm figure timed as ``*_seconds``, and ``build``.
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

from host import build, loop_ms

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


def run(hands: int, cold_hands: int, warm_hands: int, min_seconds: float = 2.0, random_repeat: int = 64,
        max_hands: int = 20_000) -> dict[str, float]:
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
            if times is warm and bot.name == "random":  # ~2 µs: time many calls, play the first
                t = time.process_time_ns()
                a = bot.act(obs)
                for _ in range(random_repeat - 1):
                    bot.act(obs)
                dt = time.process_time_ns() - t
                counts[bot.name] += random_repeat
            else:
                t = time.process_time_ns()
                a = bot.act(obs)
                dt = time.process_time_ns() - t
                if times is warm:
                    counts[bot.name] += 1
            deciding[0] = None
            if times is not None:
                times[bot.name].append(dt)
            return a
        return decide

    cold: dict[str, list[int]] = {b: [] for b in BOTS}
    warm: dict[str, list[int]] = {b: [] for b in BOTS}
    counts: dict[str, int] = {b: 0 for b in BOTS}  # warm act() calls timed
    gc.callbacks.append(collector)
    try:
        play(0, cold_hands, timed(cold))
        play(cold_hands, warm_hands, timed(None))
        first = cold_hands + warm_hands
        played = 0
        need = min_seconds * 1e9
        while played < hands or (min(sum(warm[b]) for b in BOTS) < need and played < max_hands):
            chunk = hands if played < hands else 20
            play(first + played, chunk, timed(warm))
            played += chunk
    finally:
        gc.callbacks.remove(collector)
    out: dict[str, float] = {}
    for b in BOTS:
        out[f"{b}_us"] = round(sum(warm[b]) / counts[b] / 1000, 3)
    for b in BOTS:
        out[f"{b}_cold_us"] = round(statistics.fmean(cold[b]) / 1000, 2)
    for b in BOTS:
        out[f"{b}_gc_us"] = round(in_gc[b] / counts[b] / 1000, 3)
    for b in BOTS:
        out[f"{b}_seconds"] = round(sum(warm[b]) / 1e9, 2)
    out["decisions"] = float(sum(len(v) for v in warm.values()))
    out["hands"] = float(played)
    return out


def repeated(runs: int, args: Sequence[str]) -> None:
    """``runs`` fresh processes of this tree: each figure's median and spread."""
    src = str(Path(__file__).resolve().parent.parent / "src")
    got = [measure_in(os.environ.get("PYTHONPATH") or src, args) for _ in range(runs)]
    print(f"build: {got[0].get('build')}   plain Python loop of 10^6 additions: {loop_ms()} ms   "
          f"{runs} fresh processes")
    for b in BOTS:
        warm = [r[f"{b}_us"] for r in got]
        cold = [r[f"{b}_cold_us"] for r in got]
        secs = [r[f"{b}_seconds"] for r in got]
        print(f"{b:<8} warm {statistics.median(warm):8.2f} us/decision ({min(warm):.2f}-{max(warm):.2f}, "
              f"{min(secs):.1f}-{max(secs):.1f} s timed each)   cold {statistics.median(cold):8.1f} "
              f"({min(cold):.1f}-{max(cold):.1f})")


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
    ap.add_argument("--hands", type=int, default=60, help="warm hands timed at least")
    ap.add_argument("--min-seconds", type=float, default=2.0,
                    help="CPU seconds of decisions each warm figure times at least (default 2)")
    ap.add_argument("--random-repeat", type=int, default=64, help="calls per timed random decision")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes whose spread is printed")
    ap.add_argument("--cold-hands", type=int, default=10)
    ap.add_argument("--warm-hands", type=int, default=20, help="hands played untimed before the warm ones")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compare", metavar="OLD_SRC", help="also measure another checkout's src, alternating")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cache-share", type=float, default=1.0, metavar="F",
                    help="keep the bots' caches to this share of their limits, as the game centre does "
                         "(caishen serve --bot-cache-share, default there 0.1; here 1)")
    a = ap.parse_args()
    passed = ["--hands", str(a.hands), "--cold-hands", str(a.cold_hands), "--warm-hands", str(a.warm_hands),
              "--min-seconds", str(a.min_seconds), "--random-repeat", str(a.random_repeat),
              "--cache-share", str(a.cache_share)]
    if a.compare:
        compare(a.compare, a.rounds, passed)
        return
    if not a.json:
        repeated(a.runs, passed)
        return
    if a.cache_share != 1.0:
        from caishen.bots import caches
        caches.set_cache_share(a.cache_share)
    figures: dict[str, object] = dict(run(a.hands, a.cold_hands, a.warm_hands, a.min_seconds, a.random_repeat))
    figures["build"] = build()
    print(json.dumps(figures, sort_keys=True))


if __name__ == "__main__":
    main()
