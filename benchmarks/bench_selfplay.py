"""Full hands per second with random legal players: caishen against rlcard's mahjong.

Measured in the same run:

* ``caishen engine``: a hand dealt from a committed seed (``caishen.fair``), played to its end
  by four random legal players (a win is always taken), and the winner and losers scored
  (``caishen.match.score_outcome``: the full Longgang rules, wilds, flowers, 分张).
* ``caishen match``: the same inside :class:`caishen.match.Match` with the chip ledger and
  the full JSON-ready record of every action and draw (what ``caishen selfplay`` does).
* ``rlcard``: ``rlcard.make('mahjong')`` with ``rlcard.agents.RandomAgent`` at every seat,
  ``env.run(is_training=False)`` per hand (its simpler 13-tile rules, no scoring).

Prints hands/s of each and the ratios to rlcard (the anchor). Usage::

    python benchmarks/bench_selfplay.py [--hands N] [--rlcard-hands M] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from caishen import fair
from caishen.match import RandomPlayer, play_game, player_rng, score_outcome, selfplay
from caishen.record import RecordingGame
from caishen.rules import LONGGANG


def bench_engine(hands: int, seed: bytes) -> tuple[float, int]:
    players = [RandomPlayer(player_rng(seed, i)) for i in range(4)]
    wins = 0
    start = time.perf_counter()
    for h in range(hands):
        hseed = fair.hand_seed(seed, h)
        game = RecordingGame(LONGGANG, fair.shuffled_wall(hseed, LONGGANG), fair.dice(hseed))
        play_game(game, players)
        out = game.outcome
        assert out is not None
        if score_outcome(out, LONGGANG) is not None:
            wins += 1
    return hands / (time.perf_counter() - start), wins


def bench_match(hands: int, seed: bytes) -> float:
    start = time.perf_counter()
    played = 0
    m = 0
    while played < hands:
        n = min(16, hands - played)
        record = selfplay(LONGGANG, seed + b":%d" % m, 4, n)
        played += len(record.hands)
        m += 1
    return played / (time.perf_counter() - start)


def bench_rlcard(hands: int, seed: int) -> float | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    random.seed(seed)
    start = time.perf_counter()
    for _ in range(hands):
        env.run(is_training=False)
    return hands / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=2000, help="caishen hands to play (default 2000; 100000 works)")
    p.add_argument("--rlcard-hands", type=int, default=None, help="rlcard hands (default: min(hands, 300))")
    p.add_argument("--seed", default="bench", help="match seed (default 'bench')")
    args = p.parse_args(argv)
    seed = fair.seed_from_text(args.seed)
    rl_hands = args.rlcard_hands if args.rlcard_hands is not None else min(args.hands, 300)

    engine, wins = bench_engine(args.hands, seed)
    print(f"caishen engine: {engine:10.1f} full hands/s  ({args.hands} hands, {wins} won, random legal players, scored)")
    match = bench_match(args.hands, seed)
    print(f"caishen match : {match:10.1f} full hands/s  (with chip ledger and full records)")
    rl = bench_rlcard(rl_hands, 0)
    if rl is None:
        print("rlcard        : not installed (pip install rlcard); no ratio")
        return 0
    print(f"rlcard        : {rl:10.1f} full hands/s  ({rl_hands} hands, RandomAgent x4)")
    print(f"ratio engine/rlcard: {engine / rl:.1f}x   match/rlcard: {match / rl:.1f}x   (goal >= 20x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
