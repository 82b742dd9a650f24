"""RL environments (issue 5): PettingZoo api_test on longgang_v0, Gymnasium check_env on
the single-agent wrapper, the fixed action index, seeding."""

from __future__ import annotations

import numpy as np  # the rl libraries are in the test extras: missing ones fail, never skip
import pytest

from caishen.engine.actions import DECLARE_DRAW
from caishen.engine.game import PASS, WIN, Action, ActionKind, Game, IllegalActionError
from caishen.env.encoding import (
    ACTIONS,
    DECLARE_DRAW_INDEX,
    NUM_ACTIONS,
    OBS_BLOCKS,
    OBS_SIZE,
    PASS_INDEX,
    WIN_INDEX,
    action_index,
    action_of,
    encode,
    mask_of,
)
from caishen.scenario import stacked_game
from caishen.variants.longgang.rules import LONGGANG


def test_action_index_is_fixed_and_round_trips() -> None:
    assert NUM_ACTIONS == 236
    assert len(ACTIONS) == NUM_ACTIONS
    for i, a in enumerate(ACTIONS):
        assert action_index(a) == i
    assert action_index(Action(ActionKind.DISCARD, 5)) == 5
    # chow of 1m claimed as the low tile of 1-2-3m, and 9s claimed as the high of 7-8-9s
    assert action_index(Action(ActionKind.CHOW, 0, 0)) == 34
    assert action_index(Action(ActionKind.CHOW, 26, 24)) == 96
    assert action_index(Action(ActionKind.PONG, 33)) == 130
    assert action_index(Action(ActionKind.EXPOSED_KONG, 0)) == 131
    assert action_index(Action(ActionKind.ADDED_KONG, 0)) == 165
    assert action_index(Action(ActionKind.CONCEALED_KONG, 33)) == 232
    assert action_index(WIN) == WIN_INDEX == 233
    assert action_index(PASS) == PASS_INDEX == 234
    # 叫和局 (issue 10 item 12): one id after pass, so the ids before it did not move
    assert action_index(DECLARE_DRAW) == DECLARE_DRAW_INDEX == 235
    assert action_of(235) is DECLARE_DRAW
    with pytest.raises(ValueError, match="action index must be 0-235, not 236"):
        action_of(236)


def test_observation_vector_and_mask() -> None:
    game = Game.from_seed(b"env-encoding", LONGGANG)
    seat = game.to_move()[0]
    obs = game.observation(seat)
    v = encode(obs)
    assert len(v) == OBS_SIZE == sum(n for _, n in OBS_BLOCKS) == 595
    assert all(0.0 <= x <= 4.0 for x in v)
    assert sum(v[:34]) == len(obs.hand.concealed)
    legal = game.legal_actions(seat)
    mask = mask_of(legal)
    assert sum(mask) == len(set(legal))
    assert all(mask[action_index(a)] == 1 for a in legal)


def test_declare_draw_is_masked_in_when_offered() -> None:
    """九么九和 on (L17): the dealer's nine kinds of terminals and honours put 叫和局 in the mask."""
    east = ["1m9m 1p9p 1s 1z2z3z4z 2m3m4m 5p6p7p 3s4s", "", "", ""]
    game = stacked_game(east, ruleset=LONGGANG.replace(draw_on_nine_terminals=True))
    mask = mask_of(game.legal_actions(0))
    assert mask[DECLARE_DRAW_INDEX] == 1
    assert mask[WIN_INDEX] == mask[PASS_INDEX] == 0
    assert mask_of(stacked_game(east).legal_actions(0))[DECLARE_DRAW_INDEX] == 0


def test_pettingzoo_api_test() -> None:
    from pettingzoo.test import api_test

    from caishen.env import longgang_v0

    api_test(longgang_v0.env(), num_cycles=300, verbose_progress=False)


def test_pettingzoo_seed_gives_same_hand() -> None:
    from caishen.env import longgang_v0

    def first_obs(seed: int) -> list[float]:
        e = longgang_v0.env()
        e.reset(seed=seed)
        return list(e.observe(e.agent_selection)["observation"])

    assert first_obs(7) == first_obs(7)
    assert first_obs(7) != first_obs(8)


@pytest.mark.parametrize("name", ["longgang_v0", "luoyang_gangci_v0"])
def test_pettingzoo_seed_test_one_hand(name: str) -> None:
    import importlib

    from pettingzoo.test import seed_test

    mod = importlib.import_module(f"caishen.env.{name}")
    seed_test(mod.env, num_cycles=300)
    seed_test(lambda: mod.env(dealer="random"), num_cycles=300)


def test_pettingzoo_hand_seed_is_the_generators_integers_draw() -> None:
    """``reset(seed=s)`` reads the hand seed as raw 64-bit outputs (issue 31): the same bytes as
    ``integers(0, 256, size=32, dtype=uint8)`` on the freshly seeded generator, and the same
    stream after it (the next hands, a random dealer)."""
    from gymnasium.utils import seeding

    from caishen.env import longgang_v0

    for dealer in ("random", 0):
        e = longgang_v0.raw_env(dealer=dealer)
        for seed in [*range(40), 2**40 + 3, 10**30]:
            e.reset(seed=seed)
            rng, _ = seeding.np_random(seed)
            expected = []
            for _ in range(4):
                hand_seed = bytes(rng.integers(0, 256, size=32, dtype=np.uint8).tolist())
                expected.append((hand_seed, int(rng.integers(0, 4)) if dealer == "random" else 0))
            got = [(e.hand_seed, e.dealer)]
            for _ in range(3):
                e.reset()
                got.append((e.hand_seed, e.dealer))
            assert got == expected
    # a caller's own 32-bit draw between hands leaves half an output: the long way, same bytes
    e = longgang_v0.raw_env()
    e.reset(seed=5)
    rng, _ = seeding.np_random(5)
    rng.integers(0, 256, size=32, dtype=np.uint8)
    e.np_random.integers(0, 7)
    rng.integers(0, 7)
    e.reset()
    assert e.hand_seed == bytes(rng.integers(0, 256, size=32, dtype=np.uint8).tolist())


def test_pettingzoo_last_is_aecenv_last() -> None:
    """The env's own ``last`` (one call less per step) gives what ``AECEnv.last`` gives, at
    every step of a hand and after it, and the rewards add up as PettingZoo's do."""
    from pettingzoo import AECEnv

    from caishen.env import longgang_v0

    e = longgang_v0.raw_env()
    for seed in range(3):
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in e.agent_iter():
            mine, standard = e.last(), AECEnv.last(e)
            assert mine[1:] == standard[1:]
            assert mine[0].keys() == standard[0].keys()
            for key in mine[0]:
                assert np.array_equal(mine[0][key], standard[0][key])
                assert mine[0][key].dtype == standard[0][key].dtype
            assert e.last(observe=False) == (None, *standard[1:])
            _, _, term, trunc, _ = mine
            if term or trunc:
                assert mine[0]["action_mask"].tolist() == [int(i == PASS_INDEX) for i in range(NUM_ACTIONS)]
                e.step(None)
                continue
            assert all(r == 0 for r in e._cumulative_rewards.values())
            e.step(int(rng.choice(np.flatnonzero(mine[0]["action_mask"]))))


def test_pettingzoo_rewards_are_chips_and_sum_to_zero_l24() -> None:
    from caishen.env import longgang_v0

    e = longgang_v0.env()
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    assert sum(totals.values()) == 0.0
    assert all(float(t).is_integer() for t in totals.values())


def test_gymnasium_check_env() -> None:
    from gymnasium.utils.env_checker import check_env

    from caishen.env.single import LonggangSingleEnv

    check_env(LonggangSingleEnv(), skip_render_check=True)


def test_gymnasium_episode_with_masked_actions() -> None:
    from caishen.env.single import LonggangSingleEnv

    env = LonggangSingleEnv(seat=1, opponents=("greedy", "random", "strong"))
    obs, info = env.reset(seed=11)
    obs2, _ = LonggangSingleEnv(seat=1, opponents=("greedy", "random", "strong")).reset(seed=11)
    assert np.array_equal(obs["observation"], obs2["observation"])
    rng = np.random.default_rng(1)
    done = False
    steps = 0
    reward = 0.0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
        assert "illegal_action" not in info
        steps += 1
    assert steps > 0 and not truncated
    assert float(reward).is_integer()


def test_gymnasium_illegal_action_fallback_and_raise() -> None:
    from caishen.env.single import LonggangSingleEnv

    env = LonggangSingleEnv()
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] == illegal
    strict = LonggangSingleEnv(illegal_action="raise")
    obs, _ = strict.reset(seed=2)
    with pytest.raises(IllegalActionError, match=f"action {illegal} is not legal now"):
        strict.step(illegal)
    # an index outside the action space is the caller's mistake in either mode, never swapped
    for e in (env, strict):
        for index in (-1, NUM_ACTIONS, 999):
            with pytest.raises(IllegalActionError, match=f"action index must be 0-{NUM_ACTIONS - 1}, not {index}$"):
                e.step(index)
