"""Batched self-play (issue 32, item 6): ``caishen.env.batch`` against the envs it batches, step
for step: the same decisions give the same observations (v1 and v2), masks and rewards as
``longgang_v0`` / ``luoyang_gangci_v0`` (four seats) and ``CaishenSingleEnv`` (one seat
against bots), over several hands per table (auto-reset included)."""

from __future__ import annotations

import numpy as np
import pytest

from caishen.engine.game import IllegalActionError
from caishen.env import luoyang_gangci_v0
from caishen.env.aec import HandEnv
from caishen.env.batch import BotBatch, SelfPlayBatch
from caishen.env.single import CaishenSingleEnv
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI


@pytest.mark.parametrize(("rules", "version"), [(LONGGANG, "v1"), (LONGGANG, "v2"), (GANGCI, "v2")],
                         ids=["longgang-v1", "longgang-v2", "gangci-v2"])
def test_self_play_batch_is_the_aec_env_step_for_step(rules: object, version: str) -> None:
    n = 3
    batch = SelfPlayBatch(n, rules, obs_version=version, dealer="random")  # type: ignore[arg-type]
    obs, masks, seats = batch.reset(seed=40)
    envs = [HandEnv(rules, dealer="random", obs_version=version) for _ in range(n)]  # type: ignore[arg-type]
    for i, e in enumerate(envs):
        e.reset(seed=40 + i)
    rng = np.random.default_rng(5)
    hands_done = 0
    for _ in range(400):
        for i, e in enumerate(envs):
            agent = e.agent_selection
            assert seats[i] == int(agent[-1])
            o = e.observe(agent)
            assert np.array_equal(obs[i], o["observation"])
            assert np.array_equal(masks[i], o["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(masks[i])) for i in range(n)])
        obs, masks, seats, rewards, dones = batch.step(actions)
        for i, e in enumerate(envs):
            e.step(int(actions[i]))
            if dones[i]:
                assert all(e.terminations.values())
                assert rewards[i].tolist() == [e.rewards[a] for a in e.possible_agents]
                hands_done += 1
                e.reset()  # the next hand of the same stream, as the batch's auto-reset
            else:
                assert not rewards[i].any()
    assert hands_done >= 3


def test_bot_batch_is_the_single_seat_env_step_for_step() -> None:
    n = 3
    kw = dict(opponents=("greedy", "random", "strong"), seat="random", dealer="random", obs_version="v2")
    batch = BotBatch(n, **kw)  # type: ignore[arg-type]
    obs, masks = batch.reset(seed=7)
    envs = [CaishenSingleEnv(**kw) for _ in range(n)]  # type: ignore[arg-type]
    firsts = [e.reset(seed=7 + i) for i, e in enumerate(envs)]
    for i, (o, info) in enumerate(firsts):
        assert np.array_equal(obs[i], o["observation"]) and np.array_equal(masks[i], o["action_mask"])
        assert batch.skipped[i] == info["skipped_reward"]
    rng = np.random.default_rng(3)
    hands_done = 0
    for _ in range(150):
        actions = np.array([rng.choice(np.flatnonzero(masks[i])) for i in range(n)])
        obs, masks, rewards, dones = batch.step(actions)
        for i, e in enumerate(envs):
            o, r, done, _, _ = e.step(int(actions[i]))
            assert dones[i] == done and rewards[i] == r
            if done:
                hands_done += 1
                o, info = e.reset()
                assert batch.skipped[i] == info["skipped_reward"]
            assert np.array_equal(obs[i], o["observation"]) and np.array_equal(masks[i], o["action_mask"])
    assert hands_done >= 3


def test_batch_arrays_are_refilled_in_place_and_illegal_actions_raise() -> None:
    batch = SelfPlayBatch(2, GANGCI)
    obs, masks, _ = batch.reset(seed=1)
    legal = [int(np.flatnonzero(masks[i])[0]) for i in range(2)]
    obs2, masks2, *_ = batch.step(legal)
    assert obs2 is obs and masks2 is masks
    illegal = int(np.flatnonzero(masks[0] == 0)[0])
    with pytest.raises(ValueError):
        batch.step([illegal, int(np.flatnonzero(masks[1])[0])])
    assert luoyang_gangci_v0.raw_env().ruleset == GANGCI


@pytest.mark.parametrize("make", [lambda: SelfPlayBatch(3), lambda: BotBatch(3, opponents=("random",) * 3)],
                         ids=["self-play", "bots"])
def test_batch_step_refuses_a_bad_action_before_any_table_moves(make: object) -> None:
    batch = make()  # type: ignore[operator]
    _, masks, *_ = batch.reset(seed=2)
    legal = [int(np.flatnonzero(masks[i])[0]) for i in range(3)]
    before = [len(g.move_stack) for g in batch.games]
    illegal = int(np.flatnonzero(masks[2] == 0)[0])
    for actions, message in [
        (legal[:2] + [illegal], f"table 2: action {illegal} is not legal now"),
        (legal[:1] + [-1] + legal[2:], "table 1: action index must be 0-235, not -1"),  # not declare_draw
        (legal[:1] + [999] + legal[2:], "table 1: action index must be 0-235, not 999"),
        (legal[:2], "actions must be 3 action indices"),
        (legal + [0], "actions must be 3 action indices"),
    ]:
        with pytest.raises(IllegalActionError, match=message.replace("(", r"\(")):
            batch.step(actions)
        assert [len(g.move_stack) for g in batch.games] == before, actions
    batch.step(np.array(legal))
    assert all(len(g.move_stack) > n for g, n in zip(batch.games, before, strict=True))
