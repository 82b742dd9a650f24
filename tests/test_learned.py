"""The bot level ``learned`` 学习型 (issue 32, item 8): the network trained here
(``training/train_policy.py``: cloning ``strong`` with greedy's features, then DAgger), shipped
as float16 weights in ``caishen/data`` and played with numpy alone; found by its name wherever a
bot is (the package's own ``caishen.players`` entry point), Longgang only. How it does against
``greedy`` and ``strong`` is measured with ``caishen arena`` (docs/env.md), not here."""

from __future__ import annotations

import random
from importlib import resources

import numpy as np
import pytest

from caishen.bots import make_bot
from caishen.bots.choose import player_names
from caishen.env.policy import LEARNED_WEIGHTS, LearnedPlayer, learned_policy
from caishen.errors import CaishenError
from caishen.simulate import simulate
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI


def test_the_shipped_weights_are_float16_under_2_mb_and_take_the_features() -> None:
    with resources.as_file(resources.files("caishen") / "data" / LEARNED_WEIGHTS) as path:
        assert path.stat().st_size < 2_000_000
        with np.load(path) as z:
            assert sorted(z.files) == ["b0", "b1", "b2", "w0", "w1", "w2"]
            assert {z[k].dtype for k in z.files} == {np.dtype(np.float16)}
    assert learned_policy().features  # greedy's shanten and improving tiles after the observation


def test_learned_is_a_bot_by_name_and_plays_longgang_legally() -> None:
    assert "learned" in player_names()
    bot = make_bot("learned", random.Random(1), LONGGANG)
    assert isinstance(bot, LearnedPlayer) and bot.name == "learned" and bot.observes
    stats = simulate(["learned", "greedy", "strong", "learned"], 4, LONGGANG, "learned-legal", single_hand=True)
    assert stats.bots["learned"].seat_hands == 8  # two seats, four hands: every move legal, or the engine raises


def test_learned_refuses_another_variant_in_one_clear_error() -> None:
    with pytest.raises(CaishenError) as refused:
        make_bot("learned", None, GANGCI)
    assert refused.value.code == "learned-longgang-only"
    assert "plays Longgang only" in str(refused.value)
