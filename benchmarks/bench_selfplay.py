"""Full hands per second with random legal players: caishen against rlcard's mahjong.

Measured in the same run:

* ``caishen engine``: a hand dealt from a committed seed (``caishen.fair``), played to its end
  by four random legal players (a win is always taken), and the winner and losers scored
  (``caishen.table.match.score_outcome``: the full Longgang rules, wilds, flowers, 分张).
* ``caishen match``: the same inside :class:`caishen.table.match.Match` with the chip ledger and
  the full JSON-ready record of every action and draw (what ``caishen selfplay`` does).
* ``rlcard``: ``rlcard.make('mahjong')`` with ``rlcard.agents.RandomAgent`` at every seat,
  ``env.run(is_training=False)`` per hand (its simpler 13-tile rules, no scoring).

Prints hands/s of each and the ratios to rlcard (the anchor). Usage::

    python benchmarks/bench_selfplay.py [--hands N] [--rlcard-hands M] [--rounds R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from caishen import fair
from caishen.engine.game import Game
from caishen.table.match import RandomPlayer, play_game, player_rng, score_outcome, selfplay
from caishen.variants.longgang.rules import LONGGANG


def bench_engine(hands: int, seed: bytes) -> tuple[float, int]:
    players = [RandomPlayer(player_rng(seed, i)) for i in range(4)]
    wins = 0
    start = time.perf_counter()
    for h in range(hands):
        hseed = fair.hand_seed(seed, h)
        game = Game.from_seed(hseed, LONGGANG)
        play_game(game, players)
        out = game.outcome
        assert out is not None
        if out.winner is not None:
            wins += 1
            if out.scores is None:  # the engine scores wins itself (game.score_outcome)
                score_outcome(out, LONGGANG)
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
    p.add_argument("--rounds", type=int, default=4,
                   help="alternate the three measurements in this many rounds (evens out machine load)")
    p.add_argument("--seed", default="bench", help="match seed (default 'bench')")
    args = p.parse_args(argv)
    seed = fair.seed_from_text(args.seed)
    rl_hands = args.rlcard_hands if args.rlcard_hands is not None else min(args.hands, 300)
    rounds = max(1, min(args.rounds, args.hands, rl_hands))

    t_engine = t_match = t_rl = 0.0
    wins = 0
    have_rl = True
    for r in range(rounds):
        n = args.hands // rounds + (r < args.hands % rounds)
        m = rl_hands // rounds + (r < rl_hands % rounds)
        rate, w = bench_engine(n, seed + b":%d" % r)
        t_engine += n / rate
        wins += w
        t_match += n / bench_match(n, seed + b":%d" % r)
        rl = bench_rlcard(m, r) if have_rl else None
        if rl is None:
            have_rl = False
        else:
            t_rl += m / rl
    engine = args.hands / t_engine
    match = args.hands / t_match
    print(f"caishen engine: {engine:10.1f} full hands/s  ({args.hands} hands, {wins} won, random legal players, scored)")
    print(f"caishen match : {match:10.1f} full hands/s  (with chip ledger and full records)")
    if not have_rl:
        print("rlcard        : not installed (pip install rlcard); no ratio")
        return 0
    rl_rate = rl_hands / t_rl
    print(f"rlcard        : {rl_rate:10.1f} full hands/s  ({rl_hands} hands, RandomAgent x4)")
    print(f"ratio engine/rlcard: {engine / rl_rate:.1f}x   match/rlcard: {match / rl_rate:.1f}x   (goal >= 20x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
