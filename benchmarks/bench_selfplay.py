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

``--json`` prints instead one JSON object of speed ratios ours / rlcard, each measured in the
same run, rounds interleaved (short by default: 200 hands, 100 rlcard hands):

* ``selfplay_bare``: the ``caishen engine`` hands/s above against rlcard's ``env.run``;
* ``selfplay_with_observation``: hands/s when the deciding seat's observation
  (``Game.observation``) is encoded into a float32 numpy array
  (:func:`caishen.env.encoding.encode_into`) and its action mask into an int8 one
  (``mask_into``), at every decision, and a random legal action picked from the mask's non-zero
  entries (a win taken), as rlcard's ``env.run`` does with its state and legal actions; against
  ``env.run``. The two arrays are the loop's own, refilled at every decision, as a training
  loop fills its batch; the PettingZoo env below hands out a fresh pair each time;
* ``pettingzoo_env``: env steps/s of the wrapped ``longgang_v0`` AEC env (``observe`` then
  ``step`` with a random masked action) against steps/s of rlcard's ``env.step`` loop.

``--pieces`` prints instead the CPU time (thread time, µs per call, best of 5 passes) of each
piece of an observed decision over the positions of a few seeded random hands:
``Game.observation``, the list encoders with their numpy conversion, and the in-place ones.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from collections.abc import Callable

import numpy as np

from caishen import fair
from caishen.engine.actions import ActionKind
from caishen.engine.game import Game
from caishen.env import longgang_v0
from caishen.env.encoding import (
    NUM_ACTIONS,
    OBS_SIZE,
    action_index,
    action_of,
    encode,
    encode_into,
    mask_into,
    mask_of,
)
from caishen.table.match import selfplay
from caishen.table.play import play
from caishen.table.players import RandomPlayer, player_rng
from caishen.variants.longgang.outcome import score_outcome
from caishen.variants.longgang.rules import LONGGANG


def bench_engine(hands: int, seed: bytes) -> tuple[float, int]:
    players = [RandomPlayer(player_rng(seed, i)) for i in range(4)]
    wins = 0
    start = time.perf_counter()
    for h in range(hands):
        hseed = fair.hand_seed(seed, h)
        game = Game.from_seed(hseed, LONGGANG)
        play(game, players)
        out = game.outcome
        assert out is not None
        if out.winner is not None:
            wins += 1
            score_outcome(out, LONGGANG)  # as the engine did before scoring moved to the table
    return hands / (time.perf_counter() - start), wins


def bench_observed(hands: int, seed: bytes) -> float:
    """Hands/s building the deciding seat's observation vector and action mask every decision."""
    rng = random.Random(seed)
    start = time.perf_counter()
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    obs_view, mask_view = obs.data, mask.data  # memoryviews: encode_into writes through them
    for h in range(hands):
        game = Game.from_seed(fair.hand_seed(seed, h), LONGGANG)
        while not game.is_over:
            seat = next(s for s in game.to_move() if game.legal_actions(s))
            legal = game.legal_actions(seat)
            encode_into(game.observation(seat), obs_view)
            mask_into(legal, mask_view)
            wins = [a for a in legal if a.kind is ActionKind.WIN]
            index = action_index(wins[0]) if wins else rng.choice(mask.nonzero()[0].tolist())
            game.step(seat, action_of(index))
    return hands / (time.perf_counter() - start)


def pieces(hands: int, seed: bytes) -> dict[str, float]:
    """CPU µs per call of each piece of an observed decision (see the module docstring)."""
    rng = random.Random(seed)
    positions = []
    for h in range(hands):
        game = Game.from_seed(fair.hand_seed(seed, h), LONGGANG)
        while not game.is_over:
            seat = next(s for s in game.to_move() if game.legal_actions(s))
            if rng.random() < 0.5:
                positions.append((copy.deepcopy(game), seat))
            game.step(seat, rng.choice(game.legal_actions(seat)))
    obs = [g.observation(s) for g, s in positions]
    vectors = [encode(o) for o in obs]
    masks = [mask_of(o.legal_actions) for o in obs]
    obs_view = np.zeros(OBS_SIZE, dtype=np.float32).data
    mask_view = np.zeros(NUM_ACTIONS, dtype=np.int8).data

    def best(run: Callable[[], object]) -> float:
        times = []
        for _ in range(5):
            start = time.thread_time()
            for _ in range(10):
                run()
            times.append(time.thread_time() - start)
        return round(min(times) / 10 / len(obs) * 1e6, 2)

    return {
        "positions": len(obs),
        "game_observation_us": best(lambda: [g.observation(s) for g, s in positions]),
        "encode_us": best(lambda: [encode(o) for o in obs]),
        "asarray_vector_us": best(lambda: [np.asarray(v, dtype=np.float32) for v in vectors]),
        "encode_into_us": best(lambda: [encode_into(o, obs_view) for o in obs]),
        "mask_of_us": best(lambda: [mask_of(o.legal_actions) for o in obs]),
        "asarray_mask_us": best(lambda: [np.asarray(m, dtype=np.int8) for m in masks]),
        "mask_into_us": best(lambda: [mask_into(o.legal_actions, mask_view) for o in obs]),
        "loop_us": best(lambda: [None for o in obs]),
    }


def bench_pettingzoo(hands: int, seed: int) -> tuple[int, float]:
    """Env steps and seconds of the wrapped PettingZoo env with random masked actions."""
    e = longgang_v0.env()
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    for h in range(hands):
        e.reset(seed=seed * 100_003 + h)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps, time.perf_counter() - start


def bench_rlcard_steps(hands: int, seed: int) -> tuple[int, float]:
    """rlcard's env steps and seconds with random legal actions."""
    import rlcard  # type: ignore[import-untyped]

    env = rlcard.make("mahjong", config={"seed": seed})
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    for _ in range(hands):
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
    return steps, time.perf_counter() - start


def json_figures(hands: int, rl_hands: int, rounds: int, seed: bytes) -> dict[str, float]:
    """The ``--json`` ratios (see the module docstring), rounds interleaved."""
    t_bare = t_obs = t_rl = 0.0
    pz_steps = rl_steps = 0
    pz_time = rl_time = 0.0
    for r in range(rounds):
        n = hands // rounds + (r < hands % rounds)
        m = rl_hands // rounds + (r < rl_hands % rounds)
        rseed = seed + b":%d" % r
        t_bare += n / bench_engine(n, rseed)[0]
        t_obs += n / bench_observed(n, rseed)
        rl = bench_rlcard(m, r)
        if rl is None:
            raise SystemExit("rlcard is not installed (pip install rlcard): no ratios")
        t_rl += m / rl
        steps, seconds = bench_pettingzoo(max(1, m // 2), r)
        pz_steps, pz_time = pz_steps + steps, pz_time + seconds
        steps, seconds = bench_rlcard_steps(m, r)
        rl_steps, rl_time = rl_steps + steps, rl_time + seconds
    rl_hps = rl_hands / t_rl
    return {
        "selfplay_bare": round(hands / t_bare / rl_hps, 2),
        "selfplay_with_observation": round(hands / t_obs / rl_hps, 2),
        "pettingzoo_env": round((pz_steps / pz_time) / (rl_steps / rl_time), 2),
    }


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
        from rlcard.agents import RandomAgent  # type: ignore[import-untyped]
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
    p.add_argument("--hands", type=int, default=None,
                   help="caishen hands to play (default 2000, with --json 200; 100000 works)")
    p.add_argument("--rlcard-hands", type=int, default=None, help="rlcard hands (default: min(hands, 300))")
    p.add_argument("--rounds", type=int, default=4,
                   help="alternate the three measurements in this many rounds (evens out machine load)")
    p.add_argument("--seed", default="bench", help="match seed (default 'bench')")
    p.add_argument("--json", action="store_true", help="print only the JSON object of ratios to rlcard")
    p.add_argument("--pieces", action="store_true",
                   help="print the CPU µs per call of each piece of an observed decision (JSON)")
    args = p.parse_args(argv)
    seed = fair.seed_from_text(args.seed)
    if args.pieces:
        print(json.dumps(pieces(args.hands if args.hands is not None else 12, seed)))
        return 0
    if args.json:
        hands = args.hands if args.hands is not None else 200
        rl = args.rlcard_hands if args.rlcard_hands is not None else min(hands, 100)
        print(json.dumps(json_figures(hands, rl, max(1, min(args.rounds, hands, rl)), seed)))
        return 0
    if args.hands is None:
        args.hands = 2000
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
