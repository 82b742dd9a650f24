"""Train a policy for caishen (issue 32, item 8): behaviour cloning of ``strong``, then PPO
against a pool of earlier policies and the rule bots, as Mahjax's recipe does; export weights
that play with numpy alone (:mod:`caishen.env.policy`); judge them with ``caishen arena``.

The shipped level ``learned`` (``caishen/data/learned-longgang.npz``) is run E of docs/env.md,
"A learned bot" (the runs, their commands and times, and the arena table): cloning ``strong``
with ``--features``, then three ``--dagger-rounds``; it beats ``greedy`` over 80,000 duplicate
hands. ``--smoke`` runs every stage for a few seconds (``tests/test_policy.py``, slow suite).

    pip install torch==2.13.0            # the CPU build; then: pip install 'caishen[train]'
    nice -n 10 python training/train_policy.py --out c.npz --seed 1 --hidden 384 --features \
        --bc-matches 1000 --workers 2 --bc-cache bcf.npz --bc-epochs 6 --eval-deals 100
    CAISHEN_POLICY=c.npz caishen arena caishen.env.policy:PolicyPlayer greedy strong --deals 2000

Stages:

1. **Data**: ``--bc-matches`` matches of four ``strong`` bots (:class:`caishen.table.match.Match`,
   seeded by ``--seed`` and the match's number), every real choice as a row
   (:func:`caishen.env.dataset.rows`, observation v1, with
   :func:`caishen.env.policy.features_into` after it under ``--features``), made by
   ``--workers`` processes, kept in ``--bc-cache``.
2. **Behaviour cloning**: the network (595 [+ 208] → hidden → hidden → 236 logits, and a value
   head) learns ``strong``'s choices by cross-entropy over the legal actions only, and the value
   head the hand's chips / 10; the last 5% of the rows are held out.
3. **PPO** (clipped, GAE, masked logits): ``--tables`` tables of
   :class:`caishen.env.batch.BotBatch`, the agent in a random seat with a random dealer; every
   ``--pool-every`` iterations the current weights join the pool, and each iteration's opponents
   are drawn from the pool and the rule bots (``greedy``, ``strong``). The reward is the hand's
   chips / 10 at its end.
   Skipped with ``--bc-only`` or ``--features``.
3b. **DAgger** (``--dagger-rounds``, with ``--features``): the network plays
   ``--dagger-matches`` matches in every seat; each of its real choices is labelled with
   ``strong``'s; the rows join the cloning data and the network learns them all again.
4. **Export** (``--out``): the weights as ``.npz`` for :class:`caishen.env.policy.Policy`, and
   **evaluation**: ``caishen arena`` of the policy against ``greedy`` over ``--eval-deals``.

Everything is seeded by ``--seed`` (torch, numpy, the deals); torch uses one thread.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from caishen import fair
from caishen.arena import arena
from caishen.bots import make_bot
from caishen.engine.actions import Action, ActionKind
from caishen.engine.game import Game
from caishen.engine.observation import Observation
from caishen.env.batch import BotBatch
from caishen.env.dataset import rows
from caishen.env.encoding import NUM_ACTIONS, OBS_SIZE, WIN_INDEX, action_index, encode_into, mask_into
from caishen.env.policy import FEATURES, POLICY_ENV, Policy, PolicyPlayer, features_into
from caishen.table.match import Match
from caishen.table.players import player_rng
from caishen.variants.longgang.rules import LONGGANG

PLAYER = "caishen.env.policy:PolicyPlayer"


class Net(nn.Module):  # type: ignore[misc]
    """The trunk of :class:`caishen.env.policy.Policy` with a value head for PPO."""

    def __init__(self, hidden: int, inputs: int = OBS_SIZE) -> None:
        super().__init__()
        self.l0 = nn.Linear(inputs, hidden)
        self.l1 = nn.Linear(hidden, hidden)
        self.pi = nn.Linear(hidden, NUM_ACTIONS)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(self.l1(torch.relu(self.l0(obs))))
        logits = self.pi(h).masked_fill(mask == 0, -1e9)
        return logits, self.v(h).squeeze(-1)

    def export(self) -> Policy:
        def arr(t: torch.Tensor) -> np.ndarray[Any, Any]:
            return t.detach().cpu().numpy().astype(np.float32)

        return Policy({"w0": arr(self.l0.weight.T), "b0": arr(self.l0.bias), "w1": arr(self.l1.weight.T),
                       "b1": arr(self.l1.bias), "w2": arr(self.pi.weight.T), "b2": arr(self.pi.bias)})


def _features(records: list[Any]) -> np.ndarray[Any, Any]:
    """:func:`caishen.env.policy.features_into` of every decision of ``records``, in the order
    of :func:`caishen.env.dataset.rows`."""
    out: list[np.ndarray[Any, Any]] = []
    for rec in records:
        for hr in rec.hands:
            game = Game(rec.ruleset, hr.wall, hr.dice, hr.dealer)
            for seat, action in hr.actions:
                f = np.empty(FEATURES, dtype=np.float32)
                features_into(game.observation(seat), rec.ruleset, f)
                out.append(f)
                game.step(seat, action)
    return np.stack(out)


def _bc_chunk(job: tuple[str, int, int, bool]) -> tuple[Any, Any, Any, Any]:
    """``strong``'s decisions in matches ``start .. stop - 1`` of the seed (one worker's share),
    with the :data:`~caishen.env.policy.FEATURES` after each observation when ``features``."""
    seed, start, stop, features = job
    records = []
    for m in range(start, stop):
        mseed = fair.seed_from_text(f"{seed}:bc:{m}")
        players = [make_bot("strong", player_rng(mseed, i), LONGGANG) for i in range(4)]
        records.append(Match(LONGGANG, players, seed=mseed, names=[f"strong-{i}" for i in range(4)]).play())
    data = rows(records, "v1")
    obs = np.concatenate([data.obs, _features(records)], axis=1) if features else data.obs
    # the player takes a win and a lone legal action itself: only real choices are learned
    legal = data.mask.astype(bool)
    keep = (legal.sum(axis=1) > 1) & ~legal[:, WIN_INDEX]
    return (obs[keep].astype(np.float16), data.mask[keep], data.action[keep].astype(np.int16),
            data.reward[keep].astype(np.float32))


def bc_data(matches: int, seed: str, workers: int = 1, cache: str | None = None, features: bool = False,
            ) -> tuple[Any, Any, Any, Any]:
    """``strong``'s decisions in ``matches`` seeded matches of four ``strong`` bots: observation
    (float16: every v1 value is exact in it), mask, action and the hand's chips for the seat.
    The same rows whatever ``workers``; ``cache`` (an ``.npz``) keeps them between runs (a cache
    of fewer matches of the same seed is extended)."""
    have: tuple[Any, ...] = ()
    first = 0
    if cache and Path(cache).exists():
        with np.load(cache) as z:
            if str(z["seed"]) == seed and bool(z["features"]) == features and int(z["matches"]) <= matches:
                have, first = (z["obs"], z["mask"], z["action"], z["reward"]), int(z["matches"])
        if first == matches:
            return have[0], have[1], have[2], have[3]
    step = 25
    # match m is seeded by (seed, m) alone: a cache of the first matches is a prefix of the rows
    jobs = [(seed, m, min(m + step, matches), features) for m in range(first, matches, step)]
    parts = _in_pool(_bc_chunk, jobs, workers)
    if have:
        parts.insert(0, have)
    out = tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
    if cache:
        np.savez(cache, obs=out[0], mask=out[1], action=out[2], reward=out[3], matches=matches, seed=seed,
                 features=features)
    return out[0], out[1], out[2], out[3]


class _Labelled:
    """DAgger's player: plays ``me`` (the policy being trained), and at each of its real choices
    (two or more legal actions, no win) keeps the observation, its features and mask, and what
    ``teacher`` (``strong``) would have played there, as a cloning row."""

    name = "dagger"
    observes = True

    def __init__(self, me: PolicyPlayer, teacher: Any, rows: list[tuple[Any, Any, int]]) -> None:
        self.me, self.teacher, self.rows = me, teacher, rows

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions
        if len(legal) > 1 and not any(a.kind is ActionKind.WIN for a in legal):
            obs = np.zeros(OBS_SIZE + FEATURES, dtype=np.float32)
            encode_into(observation, obs[:OBS_SIZE].data)
            features_into(observation, LONGGANG, obs[OBS_SIZE:])
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask_into(legal, mask.data)
            self.rows.append((obs.astype(np.float16), mask, action_index(self.teacher.act(observation))))
        return self.me.act(observation)


def _dagger_chunk(job: tuple[str, int, int, str]) -> tuple[Any, Any, Any, Any]:
    """Matches ``start .. stop - 1`` of the seed played by the policy at ``path`` in all four
    seats, every real choice labelled with ``strong``'s (rows as :func:`bc_data`'s, with the
    features; the chips are not kept: 0)."""
    seed, start, stop, path = job
    policy = Policy.load(path)
    out: list[tuple[Any, Any, int]] = []
    for m in range(start, stop):
        mseed = fair.seed_from_text(f"{seed}:{m}")
        players = [_Labelled(PolicyPlayer(player_rng(mseed, i), LONGGANG, policy=policy),
                             make_bot("strong", player_rng(mseed, 4 + i), LONGGANG), out) for i in range(4)]
        Match(LONGGANG, players, seed=mseed, names=[f"dagger-{i}" for i in range(4)]).play()
    return (np.stack([r[0] for r in out]), np.stack([r[1] for r in out]),
            np.array([r[2] for r in out], dtype=np.int16), np.zeros(len(out), dtype=np.float32))


def dagger_data(path: str, matches: int, seed: str, workers: int = 1) -> tuple[Any, Any, Any, Any]:
    """DAgger's rows (:func:`_dagger_chunk`) of ``matches`` matches of the policy at ``path``."""
    jobs = [(seed, m, min(m + 25, matches), path) for m in range(0, matches, 25)]
    obs, mask, action, reward = (np.concatenate([p[i] for p in _in_pool(_dagger_chunk, jobs, workers)])
                                 for i in range(4))
    return obs, mask, action, reward


def _in_pool(work: Any, jobs: list[Any], workers: int) -> list[Any]:
    """``work`` of each job, in the jobs' order, in ``workers`` spawned processes (or here)."""
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            return list(pool.map(work, jobs, chunksize=1))
    return [work(j) for j in jobs]


def behaviour_cloning(net: Net, data: tuple[Any, Any, Any, Any], epochs: int, batch: int, lr: float,
                      log: list[dict[str, float]] | None = None) -> float:
    """Cross-entropy on ``strong``'s choices (and the value head on the hand's chips / 10), the
    learning rate decayed to 0 over the epochs (cosine); the last 5% of the rows are held out.
    Returns the held-out accuracy."""
    obs, mask, action, reward = data
    n = len(action)
    held = max(1, n // 20)
    n_train = n - held
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    total = epochs * ((n_train + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 0.5 * (1 + np.cos(np.pi * min(k, total) / total)))
    act_t = torch.as_tensor(action.astype(np.int64))
    rew_t = torch.as_tensor(reward / 10.0)
    gen = torch.Generator().manual_seed(int(torch.initial_seed()))

    def held_out() -> float:
        correct = 0
        with torch.no_grad():
            for i in range(n_train, n, 4096):
                j = min(i + 4096, n)
                logits, _ = net(torch.as_tensor(obs[i:j].astype(np.float32)), torch.as_tensor(mask[i:j]))
                correct += int((logits.argmax(-1) == act_t[i:j]).sum())
        return correct / held

    for epoch in range(epochs):
        perm = torch.randperm(n_train, generator=gen).numpy()
        lsum = 0.0
        for i in range(0, n_train, batch):
            idx = np.sort(perm[i:i + batch])
            logits, value = net(torch.as_tensor(obs[idx].astype(np.float32)), torch.as_tensor(mask[idx]))
            loss = nn.functional.cross_entropy(logits, act_t[idx])
            vloss = ((value - rew_t[idx]) ** 2).mean()
            opt.zero_grad()
            (loss + 0.1 * vloss).backward()
            opt.step()
            sched.step()
            lsum += loss.item() * len(idx)
        acc = held_out()
        if log is not None:
            log.append({"epoch": epoch, "loss": round(lsum / n_train, 4), "held_out_accuracy": round(acc, 4)})
        print(f"bc epoch {epoch}: loss {lsum / n_train:.4f} held-out accuracy {acc:.4f}", file=sys.stderr, flush=True)
    return held_out()


def ppo(net: Net, iters: int, tables: int, steps: int, pool_every: int, seed: int, workdir: Path,
        lr: float = 3e-4, clip: float = 0.2, epochs: int = 4, lam: float = 0.95, entropy: float = 0.01,
        checkpoints: str | None = None) -> list[float]:
    """PPO against the pool (see the module docstring); the mean reward per finished hand of
    each iteration."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    pool: list[str] = []
    history: list[float] = []
    for it in range(iters):
        if it % pool_every == 0:
            path = workdir / f"pool-{it}.npz"
            net.export().save(path)
            pool.append(str(path))
        names = []
        for _ in range(3):
            choice = rng.integers(0, len(pool) + 2)
            names.append(("greedy", "strong")[choice] if choice < 2 else PLAYER)
        if PLAYER in names:
            os.environ[POLICY_ENV] = pool[int(rng.integers(0, len(pool)))]
        batch = BotBatch(tables, tuple(names), LONGGANG, seat="random", dealer="random")
        obs_np, mask_np = batch.reset(seed=seed * 100_003 + it)
        buf: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "act", "logp", "val", "rew", "done")}
        finished: list[float] = []
        for _ in range(steps):
            obs_t = torch.as_tensor(obs_np.copy())
            mask_t = torch.as_tensor(mask_np.copy())
            with torch.no_grad():
                logits, value = net(obs_t, mask_t)
                dist = torch.distributions.Categorical(logits=logits)
                act = dist.sample()
            _, _, rew, done = batch.step(act.numpy())
            buf["obs"].append(obs_t)
            buf["mask"].append(mask_t)
            buf["act"].append(act)
            buf["logp"].append(dist.log_prob(act))
            buf["val"].append(value)
            r = torch.as_tensor(rew.copy() + batch.skipped) / 10.0
            buf["rew"].append(r)
            buf["done"].append(torch.as_tensor(done.copy()))
            finished += [float(x) for x in rew[done]]
            obs_np, mask_np = batch.obs, batch.masks
        with torch.no_grad():
            _, last = net(torch.as_tensor(obs_np.copy()), torch.as_tensor(mask_np.copy()))
        adv = torch.zeros(steps, tables)
        gae = torch.zeros(tables)
        for t in reversed(range(steps)):
            nxt = last if t == steps - 1 else buf["val"][t + 1]
            alive = 1.0 - buf["done"][t].float()
            delta = buf["rew"][t] + alive * nxt - buf["val"][t]
            gae = delta + alive * lam * gae
            adv[t] = gae
        ret = adv + torch.stack(buf["val"])
        o, m, a = torch.cat(buf["obs"]), torch.cat(buf["mask"]), torch.cat(buf["act"])
        lp, A, R = torch.cat(buf["logp"]), adv.reshape(-1), ret.reshape(-1)
        A = (A - A.mean()) / (A.std() + 1e-8)
        n = len(a)
        for _ in range(epochs):
            perm = torch.randperm(n)
            for i in range(0, n, 256):
                idx = perm[i:i + 256]
                logits, v = net(o[idx], m[idx])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = torch.exp(dist.log_prob(a[idx]) - lp[idx])
                pg = -torch.min(ratio * A[idx], torch.clamp(ratio, 1 - clip, 1 + clip) * A[idx]).mean()
                loss = pg + 0.5 * ((v - R[idx]) ** 2).mean() - entropy * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        history.append(float(np.mean(finished)) if finished else 0.0)
        print(f"ppo iter {it}: {len(finished)} hands, {history[-1]:+.2f} chips/hand against {','.join(names)}",
              file=sys.stderr, flush=True)
        if checkpoints and (it + 1) % pool_every == 0:
            net.export().save(f"{checkpoints}-{it + 1}.npz")
    return history


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="weights file to write (.npz)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hidden", type=int, default=256, help="hidden units (256: 0.9 MB of weights)")
    p.add_argument("--bc-matches", type=int, default=400)
    p.add_argument("--bc-epochs", type=int, default=4)
    p.add_argument("--bc-lr", type=float, default=1e-3)
    p.add_argument("--bc-cache", help="keep the cloning data in this .npz between runs (same seed and matches)")
    p.add_argument("--features", action="store_true",
                   help="the network also takes caishen.env.policy.FEATURES (greedy's shanten and improving tiles); "
                        "cloning only (the batched tables give no observations to compute them from)")
    p.add_argument("--bc-only", action="store_true", help="stop after behaviour cloning (write --out)")
    p.add_argument("--dagger-rounds", type=int, default=0,
                   help="with --features: after cloning, this many DAgger rounds (the policy plays, strong labels "
                        "its choices, the network learns the rows added to the cloning data)")
    p.add_argument("--dagger-matches", type=int, default=500, help="matches of the policy per DAgger round")
    p.add_argument("--dagger-epochs", type=int, default=3, help="epochs over all the rows after each DAgger round")
    p.add_argument("--workers", type=int, default=1, help="processes generating the cloning data")
    p.add_argument("--ppo-lr", type=float, default=3e-4)
    p.add_argument("--ppo-entropy", type=float, default=0.01, help="entropy bonus")
    p.add_argument("--init", help="start from these weights (.npz of a full Net, from --save-net) instead of cloning")
    p.add_argument("--save-net", help="write the whole network (value head too) after cloning, for --init")
    p.add_argument("--checkpoints", help="write the policy every --pool-every PPO iterations to PREFIX-ITER.npz")
    p.add_argument("--ppo-iters", type=int, default=300)
    p.add_argument("--tables", type=int, default=32)
    p.add_argument("--steps", type=int, default=128)
    p.add_argument("--pool-every", type=int, default=20)
    p.add_argument("--eval-deals", type=int, default=2000)
    p.add_argument("--smoke", action="store_true", help="every stage for a few seconds (a check, not training)")
    args = p.parse_args(argv)
    if args.dagger_rounds and not args.features:
        p.error("--dagger-rounds needs --features (the DAgger rows carry them)")
    if args.smoke:
        args.hidden, args.bc_matches, args.bc_epochs = 32, 1, 1
        args.ppo_iters, args.tables, args.steps, args.pool_every, args.eval_deals = 2, 4, 8, 1, 2
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    np.random.seed(args.seed)
    report: dict[str, Any] = {"seed": args.seed, "smoke": args.smoke}
    start = time.perf_counter()
    net = Net(args.hidden, OBS_SIZE + (FEATURES if args.features else 0))
    if args.features:
        args.bc_only = True
    if args.init:
        net.load_state_dict(torch.load(args.init))
    else:
        data = bc_data(args.bc_matches, str(args.seed), args.workers, args.bc_cache, args.features)
        report["bc_decisions"] = int(len(data[2]))
        report["bc_data_seconds"] = round(time.perf_counter() - start, 1)
        print(f"bc data: {len(data[2])} decisions in {report['bc_data_seconds']} s", file=sys.stderr, flush=True)
        report["bc_epochs"] = []
        report["bc_accuracy"] = round(behaviour_cloning(net, data, args.bc_epochs, 512, args.bc_lr,
                                                        report["bc_epochs"]), 4)
        if args.features and args.dagger_rounds:
            report["dagger"] = []
            with tempfile.TemporaryDirectory() as work:
                for r in range(args.dagger_rounds):
                    path = str(Path(work) / f"dagger-{r}.npz")
                    net.export().save(path)
                    added = dagger_data(path, args.dagger_matches, f"{args.seed}:dagger{r}", args.workers)
                    # added at the end: the held-out 5% are then the policy's own states
                    d0, d1, d2, d3 = (np.concatenate([d, a.astype(d.dtype)]) for d, a in zip(data, added, strict=True))
                    data = (d0, d1, d2, d3)
                    acc = behaviour_cloning(net, data, args.dagger_epochs, 512, args.bc_lr / 3)
                    report["dagger"].append({"round": r, "rows_added": int(len(added[2])), "rows": int(len(data[2])),
                                             "held_out_accuracy": round(acc, 4),
                                             "seconds": round(time.perf_counter() - start, 1)})
                    net.export().save(f"{Path(args.out).with_suffix('')}-dagger{r}.npz")
                    print(f"dagger round {r}: +{len(added[2])} rows, held-out accuracy {acc:.4f}", file=sys.stderr, flush=True)
        del data
        report["bc_seconds"] = round(time.perf_counter() - start, 1)
        if args.save_net:
            torch.save(net.state_dict(), args.save_net)
    if not args.bc_only:
        with tempfile.TemporaryDirectory() as work:
            report["ppo_reward_per_hand"] = [round(x, 2) for x in
                                             ppo(net, args.ppo_iters, args.tables, args.steps, args.pool_every,
                                                 args.seed, Path(work), lr=args.ppo_lr, entropy=args.ppo_entropy,
                                                 checkpoints=args.checkpoints)]
    policy = net.export()
    policy.save(args.out)
    report["weights_bytes"] = policy.size()
    report["train_seconds"] = round(time.perf_counter() - start, 1)
    os.environ[POLICY_ENV] = str(Path(args.out).resolve())
    result = arena(PLAYER, "greedy", args.eval_deals, LONGGANG, f"eval-{args.seed}").summary(f"eval-{args.seed}", 1.0)
    report["arena_vs_greedy"] = {"hands": result["hands"], "diff": result["diff"]}
    report["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
