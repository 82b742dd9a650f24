"""Gymnasium and PettingZoo conventions (issue 32, item 3): registered ids, ``action_masks()``, a
random seat and dealer per hand, the terminal mask, both variants, PettingZoo's api_test and
seed_test, and the MaskablePPO example of docs/env.md run as it stands."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import caishen.env  # noqa: F401  (registers the ids)
from caishen.engine.actions import ActionKind
from caishen.env.encoding import ACTIONS, PASS_INDEX
from caishen.env.single import CaishenSingleEnv
from caishen.table.results import hand_chips
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI

DOCS = Path(__file__).resolve().parent.parent / "docs" / "env.md"
IDS = ("caishen/Longgang-v0", "caishen/LuoyangGangci-v0")


@pytest.mark.parametrize("env_id", IDS)
def test_registered_ids_make_and_pass_check_env(env_id: str) -> None:
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=4)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == np.bool_ and np.array_equal(mask, obs["action_mask"].astype(bool)) and mask.any()
    assert info["seat"] in range(4) and info["dealer"] in range(4)


def test_random_seat_and_dealer_per_hand_seeded() -> None:
    env = gym.make("caishen/Longgang-v0")
    seen = []
    for i in range(40):
        _, info = env.reset(seed=i)
        seen.append((info["seat"], info["dealer"]))
    assert {s for s, _ in seen} == set(range(4)) and {d for _, d in seen} == set(range(4))
    again = gym.make("caishen/Longgang-v0")
    obs_a, info_a = env.reset(seed=7)
    obs_b, info_b = again.reset(seed=7)
    assert (info_a["seat"], info_a["dealer"]) == (info_b["seat"], info_b["dealer"])
    assert np.array_equal(obs_a["observation"], obs_b["observation"])
    fixed = CaishenSingleEnv(seat=2, dealer=1)
    for i in range(5):
        _, info = fixed.reset(seed=i)
        assert (info["seat"], info["dealer"]) == (2, 1)
        assert fixed.game is not None and fixed.game.dealer == 1
    with pytest.raises(ValueError, match="seat must be 0-3 or 'random', not 4"):
        CaishenSingleEnv(seat=4)


def test_terminal_mask_is_pass_only() -> None:
    env = CaishenSingleEnv(seat="random", dealer="random")
    rng = np.random.default_rng(0)
    for hand in range(3):
        obs, _ = env.reset(seed=hand)
        done = False
        while not done:
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert np.flatnonzero(obs["action_mask"]).tolist() == [PASS_INDEX]
        assert np.flatnonzero(env.action_masks()).tolist() == [PASS_INDEX]


def test_gangci_single_env_pays_the_hands_g2_payments() -> None:
    env = CaishenSingleEnv(seat=1, ruleset=GANGCI, opponents=("strong", "greedy", "random"))
    rng = np.random.default_rng(3)
    for hand in range(4):
        obs, info = env.reset(seed=hand)
        assert info["skipped_reward"] == sum(s.reward for s in info["skipped_hands"])
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            assert not any(ACTIONS[i].kind is ActionKind.CHOW for i in legal)  # no chow in Gangci
            obs, reward, done, _, info = env.step(int(rng.choice(legal)))
        assert env.game is not None and env.game.outcome is not None
        assert reward == float(hand_chips(env.game.outcome, GANGCI)[1])


@pytest.mark.parametrize("name", ["longgang_v0", "luoyang_gangci_v0"])
def test_pettingzoo_api_and_seed_tests_both_variants(name: str) -> None:
    import importlib

    from pettingzoo.test import api_test, seed_test

    mod = importlib.import_module(f"caishen.env.{name}")
    api_test(mod.env(dealer="random"), num_cycles=200, verbose_progress=False)
    seed_test(lambda: mod.env(dealer="random"), num_cycles=200)


def test_aec_random_dealer_and_terminal_mask() -> None:
    from caishen.env import longgang_v0

    e = longgang_v0.env(dealer="random")
    dealers = set()
    rng = np.random.default_rng(1)
    for s in range(12):
        e.reset(seed=s)
        dealers.add(e.unwrapped.dealer)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                assert np.flatnonzero(obs["action_mask"]).tolist() == [PASS_INDEX]
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert dealers == set(range(4))


def test_maskable_ppo_example_of_the_docs_runs() -> None:
    # torch is no test dependency (only the `train` extra's); .ci/run installs it and sb3-contrib
    pytest.importorskip("sb3_contrib", reason="the MaskablePPO example needs sb3-contrib and torch")
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    example = next(b for b in blocks if "MaskablePPO(" in b)
    scope: dict[str, object] = {}
    exec(compile(example, str(DOCS), "exec"), scope)  # noqa: S102 - our own docs' example
    assert isinstance(scope["reward"], float)
    assert scope["done"] is True
