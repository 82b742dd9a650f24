"""Whole matches as one episode (issue 32, item 4): the AEC match envs of both variants pass
api_test and seed_test, pay a reward per hand equal to the ledger's chip change, end at going
broke or the hand count with the final standing; the substitute player of a 5-player match
waits; ``state()`` and the oracle view hold exactly the hidden tiles."""

from __future__ import annotations

import importlib

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import caishen.env  # noqa: F401  (registers the ids)
from caishen.env.encoding import OBS_SIZE, PASS_INDEX
from caishen.env.hidden import HIDDEN_SIZE, STATE_SIZE, K, wall_counts


@pytest.mark.parametrize(("name", "kw"), [
    ("longgang_match_v0", {"players": 4, "hands": 4}),
    ("longgang_match_v0", {"players": 5, "hands": 3}),
    ("luoyang_gangci_match_v0", {"hands": 8}),
])
def test_api_and_seed_tests(name: str, kw: dict[str, int]) -> None:
    from pettingzoo.test import api_test, seed_test

    mod = importlib.import_module(f"caishen.env.{name}")
    api_test(mod.env(**kw), num_cycles=300, verbose_progress=False)
    seed_test(lambda: mod.env(**kw), num_cycles=300)


def _play(e: object, seed: int) -> tuple[dict[str, float], list[dict[str, float]], dict[str, dict[str, object]]]:
    """Random legal play to the end: each agent's total reward, the rewards of each hand, the
    last infos."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)  # type: ignore[attr-defined]
    raw = e.unwrapped  # type: ignore[attr-defined]
    totals = dict.fromkeys(raw.possible_agents, 0.0)
    per_hand: list[dict[str, float]] = []
    last_hand = -1
    infos: dict[str, dict[str, object]] = {}
    for agent in e.agent_iter():  # type: ignore[attr-defined]
        obs, reward, term, trunc, info = e.last()  # type: ignore[attr-defined]
        totals[agent] += reward
        infos[agent] = info
        if raw.hand_index != last_hand and raw.rewards and any(raw.rewards.values()):
            last_hand = raw.hand_index
            per_hand.append(dict(raw.rewards))
        if term or trunc:
            assert np.flatnonzero(obs["action_mask"]).tolist() == [PASS_INDEX]
            e.step(None)  # type: ignore[attr-defined]
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))  # type: ignore[attr-defined]
    return totals, per_hand, infos


def test_a_longgang_match_to_going_broke_with_rewards_per_hand_l25() -> None:
    from caishen.env import longgang_match_v0

    e = longgang_match_v0.env(players=5)
    totals, per_hand, infos = _play(e, 1)
    raw = e.unwrapped
    res = raw.result()
    assert res.over and res.ended_by == "broke" and raw.hand_index == res.hands > 1
    start = [c - int(totals[f"player_{p}"]) for p, c in enumerate(res.chips)]
    assert len(set(start)) == 1  # every player began with the same chips: the rewards are the changes
    assert per_hand  # rewards came hand by hand, not only at the end
    ranks = [infos[f"player_{p}"]["rank"] for p in range(5)]
    assert sorted(ranks)[0] == 1
    for p in range(5):
        assert infos[f"player_{p}"]["chips"] == res.chips[p]
        assert ranks[p] == 1 + sum(c > res.chips[p] for c in res.chips)


def test_the_substitute_waits_in_a_five_player_match_l2() -> None:
    from caishen.env import longgang_match_v0

    e = longgang_match_v0.env(players=5, hands=6)
    e.reset(seed=2)
    raw = e.unwrapped
    waited = set()
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        assert raw.seat_of(agent) >= 0  # a waiting player is never asked to move
        waiting = [a for a in raw.possible_agents if raw.seat_of(a) < 0]
        assert len(waiting) == 1
        w = raw.observe(waiting[0])
        assert not w["observation"].any() and not w["action_mask"].any()
        waited.add(waiting[0])
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(waited) >= 2  # the substitute changes as the deal passes


def test_gangci_match_ends_at_the_hand_count_g8() -> None:
    from caishen.env import luoyang_gangci_match_v0

    e = luoyang_gangci_match_v0.env(hands=8)
    totals, _, infos = _play(e, 5)
    res = e.unwrapped.result()
    assert res.ended_by == "hands" and res.hands == 8
    assert sum(totals.values()) == sum(res.chips) - 4 * (res.chips[0] - int(totals["player_0"]))


def test_state_and_oracle_hold_the_hidden_tiles() -> None:
    from caishen.env import longgang_match_v0

    e = longgang_match_v0.env(hands=2, observation_mode="oracle")
    e.reset(seed=9)
    raw = e.unwrapped
    rng = np.random.default_rng(1)
    checked = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        g = raw.game
        seat = raw.seat_of(agent)
        v = obs["observation"]
        assert v.shape == (OBS_SIZE + HIDDEN_SIZE,)
        hidden = v[OBS_SIZE:]
        for j in range(1, 4):
            assert hidden[(j - 1) * K:j * K].tolist() == list(g.counts((seat + j) % 4))[:K]
        wall = wall_counts(g, raw.wall)
        assert hidden[3 * K:].tolist() == wall
        state = raw.state()
        assert state.shape == (STATE_SIZE,)
        for s in range(4):  # every seat's own concealed tiles
            own = state[s * OBS_SIZE:s * OBS_SIZE + 34]
            assert own.tolist() == list(g.counts(s))[:34]
        # the tiles add up: concealed everywhere + wall + open + discards = the whole set
        assert sum(wall) + sum(sum(g.counts(s)) for s in range(4)) <= len(raw.wall)
        checked += 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 50


@pytest.mark.parametrize("env_id", ["caishen/LonggangMatch-v0", "caishen/LuoyangGangciMatch-v0"])
def test_single_seat_match_ids(env_id: str) -> None:
    env = gym.make(env_id, hands=8)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    raw = env.unwrapped
    start = raw.table.ledger.chips[raw.player] - info["skipped_reward"]
    total = info["skipped_reward"]
    rng = np.random.default_rng(0)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += reward
    assert raw.table.over and info["hands"] == raw.hand_index
    assert total == info["chips"] - start  # every hand's chips came through reset or step
    assert np.flatnonzero(obs["action_mask"]).tolist() == [PASS_INDEX]
