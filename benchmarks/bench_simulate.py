"""Simulation throughput: hands per second for tables of random, greedy and strong bots with
1 and 2 local worker processes, and the Ray backend's overhead against the local backend on
the same run.

    python benchmarks/bench_simulate.py [--hands N] [--skip-ray]

Each table plays N single-hand games (a game = one hand, so every run plays exactly N
hands). The anchor is the ``random`` table with 1 worker, measured in the same run; every
line prints its ratio to it and to the same table with 1 worker. Caches are warmed before
timing. Ray time includes starting a local Ray; a second figure
excludes it (Ray already running).
"""

from __future__ import annotations

import argparse
import time

from caishen.simulate import simulate
from caishen.variants.longgang.rules import LONGGANG

TABLES = {
    "random": ["random"] * 4,
    "greedy": ["greedy"] * 4,
    "strong": ["strong"] * 4,
    "mixed": ["strong", "greedy", "greedy", "random"],
}


def timed(players: list[str], hands: int, workers: int = 1, backend: str = "local") -> tuple[float, int]:
    t = time.perf_counter()
    st = simulate(players, hands, LONGGANG, "bench", workers=workers, backend=backend, single_hand=True)
    return time.perf_counter() - t, st.hands


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--skip-ray", action="store_true")
    args = ap.parse_args()
    n = args.hands
    anchor: float | None = None
    print(f"{'table':<8}{'workers':>8}{'hands':>7}{'seconds':>9}{'hands/s':>9}{'x anchor':>10}{'x 1 worker':>12}")
    for name, players in TABLES.items():
        one = 0.0
        # Warm the bots' shape caches first (forked workers inherit them), so 1 and 2 workers
        # are compared at the same state.
        simulate(players, n if name == "random" else n // 4, LONGGANG, "warm-up", single_hand=True)
        for workers in (1, 2):
            hands = n if name == "random" else n // 4
            secs, played = timed(players, hands, workers)
            rate = played / secs
            if anchor is None:
                anchor = rate
            if workers == 1:
                one = rate
            print(f"{name:<8}{workers:>8}{played:>7}{secs:>9.2f}{rate:>9.1f}{rate / anchor:>10.3f}{rate / one:>12.2f}")
    if args.skip_ray:
        return
    import ray

    players = TABLES["mixed"]
    hands = n // 4
    local, _ = timed(players, hands, 2)
    cold, _ = timed(players, hands, backend="ray")
    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        warm, _ = timed(players, hands, backend="ray")
    finally:
        ray.shutdown()
    print(f"ray vs local (mixed table, {hands} hands, local = 2 workers): local {local:.2f}s, "
          f"ray incl. start {cold:.2f}s ({cold / local:.2f}x), ray already running {warm:.2f}s ({warm / local:.2f}x)")


if __name__ == "__main__":
    main()
