"""Self-play speed against two anchors, like with like: hands and decisions per second.

Every figure is measured in the same run, in interleaved rounds (``--rounds``), and printed per
hand and per decision (a Longgang hand has about 62 decisions, an rlcard or riichi hand 90-95):

* ``caishen bare``: a hand dealt from a committed seed (``caishen.fair``), played to its end by
  four random legal players (``RandomPlayer``: a win is always taken), the winner and losers
  scored (the full Longgang rules). No observation is built.
* ``caishen observed``: the same hand, and at every decision the deciding seat's observation
  (``Game.observation``) encoded into a float32 array (``encode_into``) and its legal actions into
  an int8 mask (``mask_into``); a win is taken, else a uniform pick among the legal actions.
  The arrays are the loop's own, refilled each time, as a training loop fills its batch.
* ``caishen env's work``: the observed loop doing all the work of our environments without
  their interface, the anchor of the PettingZoo figures: the pick made as the PettingZoo loop
  makes it (a win taken, else a uniform pick among the mask's non-zero indices), the index made
  an action (``action_of``), and each hand's chips counted at its end (``hand_chips``, the
  reward of every env, the batch's too). Against the plain observed loop the env would also be
  charged for its reward and for picking from a mask (about 8 %, issue 31).
* ``caishen PettingZoo``: ``longgang_v0.env()`` (the standard wrappers) with the same pick (a
  win taken, else a uniform pick among ``mask.nonzero()[0]``), and ``caishen raw env``:
  ``longgang_v0.raw_env()`` the same way; each round's env seeded once (``reset(seed=r)``, then
  ``reset()`` for each next hand, as Gymnasium advises: the plain loop seeds no generator per hand).
* ``rlcard loop``: ``rlcard.make('mahjong')`` through a plain ``reset``/``step`` loop, a uniform
  pick among ``state['legal_actions']`` at every step (rlcard declares a win by itself, so the
  pick rule is ours); its state (observation and legal actions) is built at every step.
* ``rlcard game``: rlcard's bare ``Game`` (``init_game``/``step`` with a uniform pick among
  ``Game.get_legal_actions(state)``), no observation, against ``caishen bare``.
* ``rlcard env.run``: ``env.run`` with ``RandomAgent`` at every seat, the figure the project
  compared with before issue 31 (it handicaps rlcard about 1.7x); printed for reference.
* ``pymahjong``: ``pymahjong.MahjongEnv`` (a C++ riichi engine), at every decision the acting
  player's observation (``get_obs``) and valid actions (``get_valid_actions``); a win (ron,
  tsumo) taken, else a uniform pick. Optional (``pip install pymahjong``).

Each line gives the rate over all rounds and the spread (lowest-highest of the rounds); each ratio
the overall value and the spread of the rounds' ratios. The build (compiled or pure Python) and
the time of a plain Python loop of 10^6 additions on this machine are printed beside them.
Usage::

    python benchmarks/bench_selfplay.py [--hands N] [--anchor-hands M] [--rounds R] [--seed S] [--cpu]

``--cpu`` times every loop in CPU time of its thread (``time.thread_time``) instead of wall-clock:
every loop here runs in the calling thread (rlcard, pymahjong's C++ engine too), so on a loaded
host the ratios then compare the work and not the scheduler's share of it.

``--json`` prints one JSON object instead (short by default: 200 caishen hands, 100 anchor hands):
``obs_vs_rlcard_loop_per_decision``, ``obs_vs_rlcard_loop_per_hand``,
``obs_vs_pymahjong_per_decision``, ``obs_vs_pymahjong_per_hand``,
``bare_vs_rlcard_game_per_decision``, ``bare_vs_rlcard_game_per_hand``, ``pettingzoo_over_raw``
(our PettingZoo env's hands/s over the ``caishen env's work`` loop's), ``raw_env_over_raw``,
``pettingzoo_over_observed`` (the same over the plain ``caishen observed`` loop's), the
keys kept from before, computed the fair way: ``selfplay_bare`` (= ``bare_vs_rlcard_game_per_hand``),
``selfplay_with_observation`` (= ``obs_vs_rlcard_loop_per_hand``), ``pettingzoo_env`` (our
PettingZoo env's steps/s over the rlcard loop's), and ``build``, ``loop_ms``, ``spread`` (each
ratio's lowest and highest round); and the batch figures of ``--batch``.

``--batch`` prints only these (no anchor needed): ``batch_decisions_per_s`` (absolute, the median
of the rounds), four-seat self-play through :class:`caishen.env.batch.SelfPlayBatch` (64 tables),
the v1 observation and mask of every decision written into the batch's arrays and a random legal
action drawn from each mask (a win taken); its anchor ``loop_decisions_per_s``, the plain
``caishen observed`` loop (one game at a time, the same work) counted in decisions, measured in
the same rounds; ``batch_vs_loop`` their ratio; ``batch_spread`` / ``loop_spread`` the slowest and
fastest round; ``build`` which build ran (``pure`` or ``compiled``).

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
from dataclasses import dataclass, field

import numpy as np

from caishen import fair
from caishen.engine.game import WIN, Game
from caishen.env import longgang_v0
from caishen.env.batch import SelfPlayBatch
from caishen.env.encoding import (
    NUM_ACTIONS,
    OBS_SIZE,
    WIN_INDEX,
    action_of,
    encode,
    encode_into,
    mask_into,
    mask_of,
)
from caishen.table.play import play
from caishen.table.players import RandomPlayer, player_rng
from caishen.table.results import hand_chips
from caishen.variants.longgang.outcome import score_outcome
from caishen.variants.longgang.rules import LONGGANG
from host import build, loop_ms

#: (hands, decisions, seconds) of one measurement
Run = tuple[int, int, float]
#: what every loop is timed with: wall-clock, or with ``--cpu`` the CPU time of the thread
clock: Callable[[], float] = time.perf_counter


def bench_bare(hands: int, seed: bytes) -> Run:
    """Our engine with random legal players, each hand scored; no observation."""
    players = [RandomPlayer(player_rng(seed, i)) for i in range(4)]
    decisions = 0
    start = clock()
    for h in range(hands):
        game = Game.from_seed(fair.hand_seed(seed, h), LONGGANG)
        decisions += len(play(game, players))
        out = game.outcome
        assert out is not None
        if out.winner is not None:
            score_outcome(out, LONGGANG)
    return hands, decisions, clock() - start


def bench_observed(hands: int, seed: bytes, env_work: bool = False) -> Run:
    """Our engine building the deciding seat's observation vector and action mask every
    decision, a win taken, else a uniform pick among the legal actions. With ``env_work``, the
    work of our environments without their interface, to measure that interface against: the
    pick made among the mask's non-zero indices (as the PettingZoo loop picks), the index made
    an action (``action_of``, as the envs do) and each hand's chips counted (``hand_chips``,
    every env's reward)."""
    choice = random.Random(seed).choice
    decisions = 0
    start = clock()
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    obs_view, mask_view = obs.data, mask.data  # memoryviews: encode_into writes through them
    for h in range(hands):
        game = Game.from_seed(fair.hand_seed(seed, h), LONGGANG)
        while not game.is_over:
            for seat in game.to_move():
                legal = game.legal_actions(seat)
                if legal:
                    break
            encode_into(game.observation(seat), obs_view)
            mask_into(legal, mask_view)
            if env_work:
                index = WIN_INDEX if mask_view[WIN_INDEX] else int(choice(mask.nonzero()[0]))
                game.step(seat, action_of(index))
            else:  # the engine lists a win first
                game.step(seat, legal[0] if legal[0] is WIN else choice(legal))
            decisions += 1
        if env_work:
            out = game.outcome
            assert out is not None
            hand_chips(out, LONGGANG)
    return hands, decisions, clock() - start


def batch_loop(decisions: int, tables: int, seed: int) -> tuple[int, float]:
    """Decisions and seconds of four-seat self-play through :class:`caishen.env.batch.SelfPlayBatch`
    (``tables`` tables, v1 observation and mask of every decision written into the batch's
    arrays), the same work as :func:`bench_observed`: a random legal action from each mask (a
    win taken), new hands dealt as hands end."""
    batch = SelfPlayBatch(tables, LONGGANG)
    rng = np.random.default_rng(seed)
    _, masks, _ = batch.reset(seed=seed)
    done = 0
    start = clock()
    while done < decisions:
        pick = np.argmax(masks * rng.random(masks.shape, dtype=np.float32), axis=1)
        actions = np.where(masks[:, WIN_INDEX] == 1, WIN_INDEX, pick)
        _, masks, _, _, _ = batch.step(actions)
        done += tables
    return done, clock() - start


def batch_figures(hands: int, rounds: int, seed: bytes, tables: int = 64) -> dict[str, object]:
    """``batch_decisions_per_s`` and its anchor, the plain observed loop's decisions/s, in
    interleaved rounds (each the same number of decisions), with the spread of the rounds."""
    batch_rates: list[float] = []
    loop_rates: list[float] = []
    for r in range(rounds):
        _, n, t = bench_observed(max(1, hands // rounds), seed + b":%d" % r)
        loop_rates.append(n / t)
        n, t = batch_loop(n, tables, r)
        batch_rates.append(n / t)
    return {
        "batch_decisions_per_s": round(sorted(batch_rates)[len(batch_rates) // 2]),
        "loop_decisions_per_s": round(sorted(loop_rates)[len(loop_rates) // 2]),
        "batch_vs_loop": round(sum(batch_rates) / sum(loop_rates), 2),
        "batch_spread": [round(min(batch_rates)), round(max(batch_rates))],
        "loop_spread": [round(min(loop_rates)), round(max(loop_rates))],
        "tables": tables,
        "build": build(),
    }


def bench_pettingzoo(hands: int, seed: int, raw: bool = False) -> Run:
    """Our AEC env (wrapped, or ``raw``) with random masked actions: hands, agent steps, seconds."""
    e = longgang_v0.raw_env() if raw else longgang_v0.env()
    rng = random.Random(seed)
    steps = 0
    start = clock()
    for h in range(hands):
        # seeded once, then reset() for each next hand, as Gymnasium and PettingZoo advise: the
        # plain loop re-seeds no generator per hand either (it derives each hand's seed with
        # one HMAC); a numpy generator seeded afresh costs about 70,000 instructions
        if h == 0:
            e.reset(seed=seed)
        else:
            e.reset()
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            # a win is taken, else a uniform pick among the mask's non-zero indices as numpy
            # gives them (``np.flatnonzero`` gives the same indices, so the same picks and hands,
            # through two Python-level wrappers that cost more than a decision's encoding:
            # docs/performance.md, issue 31)
            mask = obs["action_mask"]
            e.step(WIN_INDEX if mask[WIN_INDEX] else int(rng.choice(mask.nonzero()[0])))
            steps += 1
    return hands, steps, clock() - start


def bench_rlcard_loop(hands: int, seed: int) -> Run:
    """rlcard's env through a plain reset/step loop, a uniform pick among the legal actions."""
    import rlcard  # type: ignore[import-untyped]

    env = rlcard.make("mahjong", config={"seed": seed})
    rng = random.Random(seed)
    steps = 0
    start = clock()
    for _ in range(hands):
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
    return hands, steps, clock() - start


def bench_rlcard_game(hands: int, seed: int) -> Run:
    """rlcard's bare Game: no observation, a uniform pick among its legal actions."""
    from rlcard.games.mahjong import Game as RlGame  # type: ignore[import-untyped]

    game = RlGame()
    game.np_random = np.random.RandomState(seed)
    rng = random.Random(seed)
    steps = 0
    start = clock()
    for _ in range(hands):
        state, _ = game.init_game()
        while not game.is_over():
            state, _ = game.step(rng.choice(game.get_legal_actions(state)))
            steps += 1
    return hands, steps, clock() - start


def bench_rlcard_run(hands: int, seed: int) -> Run:
    """rlcard's ``env.run`` with RandomAgent at every seat (the pre-issue-31 anchor)."""
    import rlcard
    from rlcard.agents import RandomAgent  # type: ignore[import-untyped]

    env = rlcard.make("mahjong", config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    np.random.seed(seed)
    steps = 0
    start = clock()
    for _ in range(hands):
        trajectories, _ = env.run(is_training=False)
        steps += sum(len(t) // 2 for t in trajectories)
    return hands, steps, clock() - start


def bench_pymahjong(hands: int, seed: int) -> Run:
    """pymahjong's MahjongEnv: the acting player's observation and valid actions at every
    decision; a win (ron, tsumo) taken, else a uniform pick."""
    import pymahjong  # type: ignore[import-untyped]

    env = pymahjong.MahjongEnv()
    rng = random.Random(seed)
    wins = {env.RON, env.TSUMO}
    steps = 0
    start = clock()
    for h in range(hands):
        # no seed: pymahjong 1.1.2's reset(seed=...) fails ('Table' object has no attribute 'seed')
        env.reset(oya=h % 4, game_wind="east")
        while not env.is_over():
            pid = env.get_curr_player_id()
            env.get_obs(pid)
            valid = env.get_valid_actions().tolist()
            won = [a for a in valid if a in wins]
            env.step(pid, won[0] if won else rng.choice(valid))
            steps += 1
    return hands, steps, clock() - start


def _have(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


@dataclass
class Figure:
    """One measurement summed over the rounds, with each round's rates."""

    name: str
    hands: int = 0
    decisions: int = 0
    seconds: float = 0.0
    rounds: list[Run] = field(default_factory=list)

    def add(self, run: Run) -> None:
        self.rounds.append(run)
        self.hands += run[0]
        self.decisions += run[1]
        self.seconds += run[2]

    @property
    def hps(self) -> float:
        return self.hands / self.seconds

    @property
    def dps(self) -> float:
        return self.decisions / self.seconds

    def spread(self) -> tuple[float, float]:
        rates = [h / s for h, _, s in self.rounds]
        return min(rates), max(rates)


def ratio(ours: Figure, anchor: Figure, per_decision: bool) -> tuple[float, float, float]:
    """Ours over the anchor, overall and the lowest and highest of the rounds' ratios."""
    def rate(run: Run) -> float:
        return (run[1] if per_decision else run[0]) / run[2]
    overall = (ours.dps / anchor.dps) if per_decision else (ours.hps / anchor.hps)
    rounds = [rate(a) / rate(b) for a, b in zip(ours.rounds, anchor.rounds, strict=True)]
    return overall, min(rounds), max(rounds)


def measure(hands: int, anchor_hands: int, rounds: int, seed: bytes, with_run: bool) -> dict[str, Figure]:
    """Every figure, rounds interleaved (the anchors that are not installed are left out)."""
    figs = {n: Figure(n) for n in ("bare", "observed", "env_work", "pettingzoo", "raw_env",
                                    "rlcard_loop", "rlcard_game", "rlcard_run", "pymahjong")}
    have_rl, have_pm = _have("rlcard"), _have("pymahjong")
    for r in range(rounds):
        n = hands // rounds + (r < hands % rounds)
        m = anchor_hands // rounds + (r < anchor_hands % rounds)
        rseed = seed + b":%d" % r
        figs["bare"].add(bench_bare(n, rseed))
        if have_rl:
            figs["rlcard_game"].add(bench_rlcard_game(m, r))
        figs["observed"].add(bench_observed(n, rseed))
        if have_rl:
            figs["rlcard_loop"].add(bench_rlcard_loop(m, r))
        if have_pm:
            figs["pymahjong"].add(bench_pymahjong(m, r))
        figs["env_work"].add(bench_observed(max(1, n // 2), rseed, env_work=True))
        figs["pettingzoo"].add(bench_pettingzoo(max(1, n // 2), r))
        figs["raw_env"].add(bench_pettingzoo(max(1, n // 2), r, raw=True))
        if have_rl and with_run:
            figs["rlcard_run"].add(bench_rlcard_run(m, r))
    return {k: f for k, f in figs.items() if f.rounds}


def json_figures(figs: dict[str, Figure]) -> dict[str, object]:
    """The ``--json`` object (see the module docstring)."""
    out: dict[str, object] = {}
    spread: dict[str, list[float]] = {}

    def put(key: str, value: tuple[float, float, float]) -> None:
        out[key] = round(value[0], 2)
        spread[key] = [round(value[1], 2), round(value[2], 2)]

    obs, bare = figs["observed"], figs["bare"]
    if "rlcard_loop" in figs:
        put("obs_vs_rlcard_loop_per_decision", ratio(obs, figs["rlcard_loop"], True))
        put("obs_vs_rlcard_loop_per_hand", ratio(obs, figs["rlcard_loop"], False))
        put("bare_vs_rlcard_game_per_decision", ratio(bare, figs["rlcard_game"], True))
        put("bare_vs_rlcard_game_per_hand", ratio(bare, figs["rlcard_game"], False))
        put("selfplay_bare", ratio(bare, figs["rlcard_game"], False))
        put("selfplay_with_observation", ratio(obs, figs["rlcard_loop"], False))
        put("pettingzoo_env", ratio(figs["pettingzoo"], figs["rlcard_loop"], True))
    if "pymahjong" in figs:
        put("obs_vs_pymahjong_per_decision", ratio(obs, figs["pymahjong"], True))
        put("obs_vs_pymahjong_per_hand", ratio(obs, figs["pymahjong"], False))
    work = figs["env_work"]
    put("pettingzoo_over_raw", ratio(figs["pettingzoo"], work, False))
    put("raw_env_over_raw", ratio(figs["raw_env"], work, False))
    put("pettingzoo_over_observed", ratio(figs["pettingzoo"], obs, False))
    out["spread"] = spread
    return out


def report(figs: dict[str, Figure]) -> None:
    labels = {
        "bare": "caishen bare", "observed": "caishen observed", "env_work": "caishen env's work",
        "pettingzoo": "caishen PettingZoo", "raw_env": "caishen raw env", "rlcard_loop": "rlcard loop", "rlcard_game": "rlcard game",
        "rlcard_run": "rlcard env.run", "pymahjong": "pymahjong",
    }
    print(f"build: {build()}   plain Python loop of 10^6 additions: {loop_ms()} ms")
    print(f"{'':20} {'hands/s':>9} {'spread':>17} {'decisions/s':>12} {'dec/hand':>9}")
    for key, f in figs.items():
        lo, hi = f.spread()
        print(f"{labels[key]:20} {f.hps:9.1f} {lo:8.1f}-{hi:<8.1f} {f.dps:12.0f} {f.decisions / f.hands:9.1f}")
    pairs = [("observed", "rlcard_loop"), ("bare", "rlcard_game"), ("observed", "pymahjong"),
             ("observed", "rlcard_run")]
    for ours, anchor in pairs:
        if anchor in figs:
            h, d = ratio(figs[ours], figs[anchor], False), ratio(figs[ours], figs[anchor], True)
            print(f"{labels[ours]} / {labels[anchor]}: per hand {h[0]:.1f}x ({h[1]:.1f}-{h[2]:.1f}), "
                  f"per decision {d[0]:.1f}x ({d[1]:.1f}-{d[2]:.1f})")
    for env, anchor in (("pettingzoo", "env_work"), ("raw_env", "env_work"), ("pettingzoo", "observed")):
        h = ratio(figs[env], figs[anchor], False)
        print(f"{labels[env]} / {labels[anchor]}: {h[0]:.2f} ({h[1]:.2f}-{h[2]:.2f}) per hand")
    if "rlcard_loop" not in figs:
        print("rlcard: not installed (pip install rlcard): no rlcard ratios")
    if "pymahjong" not in figs:
        print("pymahjong: not installed (pip install pymahjong): no pymahjong ratios")


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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=None, help="caishen hands (default 1000, with --json 200)")
    p.add_argument("--anchor-hands", type=int, default=None,
                   help="hands of each anchor (default: min(hands, 300), with --json 100)")
    p.add_argument("--rounds", type=int, default=4,
                   help="interleave the measurements in this many rounds (evens out machine load)")
    p.add_argument("--seed", default="bench", help="match seed (default 'bench')")
    p.add_argument("--json", action="store_true", help="print only the JSON object of ratios")
    p.add_argument("--batch", action="store_true",
                   help="print only batch_decisions_per_s and its anchor, the plain observed loop (JSON)")
    p.add_argument("--tables", type=int, default=64, help="tables of the batch (default 64)")
    p.add_argument("--pieces", action="store_true",
                   help="print the CPU µs per call of each piece of an observed decision (JSON)")
    p.add_argument("--cpu", action="store_true",
                   help="time every loop in CPU time of the thread (time.thread_time), not wall-clock: "
                        "on a loaded host the ratios then measure the work, not the scheduler")
    args = p.parse_args(argv)
    global clock
    clock = time.thread_time if args.cpu else time.perf_counter
    seed = fair.seed_from_text(args.seed)
    if args.pieces:
        print(json.dumps(pieces(args.hands if args.hands is not None else 12, seed)))
        return 0
    if args.batch:
        hands = args.hands if args.hands is not None else 200
        print(json.dumps(batch_figures(hands, max(1, min(args.rounds, hands)), seed, args.tables)))
        return 0
    hands = args.hands if args.hands is not None else (200 if args.json else 1000)
    anchor = args.anchor_hands if args.anchor_hands is not None else min(hands, 100 if args.json else 300)
    rounds = max(1, min(args.rounds, hands, anchor))
    figs = measure(hands, anchor, rounds, seed, with_run=not args.json)
    if args.json:
        out = json_figures(figs)
        out.update(batch_figures(hands, rounds, seed, args.tables))
        out["loop_ms"] = loop_ms()
        print(json.dumps(out))
        return 0
    report(figs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
