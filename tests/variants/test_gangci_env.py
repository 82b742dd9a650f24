"""``luoyang_gangci_v0`` (issue 9): the PettingZoo env of Gangci, built by the same adapter as
``longgang_v0``; rewards are each seat's chips of the hand, kong payments included (G2)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from caishen.env import aec, longgang_v0, luoyang_gangci_v0  # noqa: E402
from caishen.env.encoding import action_of  # noqa: E402
from caishen.table.results import hand_chips  # noqa: E402
from caishen.variants.luoyang_gangci.rules import DEFAULT  # noqa: E402
from caishen.variants.luoyang_gangci.settlement import statement  # noqa: E402


def test_same_adapter_different_rules() -> None:
    g = luoyang_gangci_v0.raw_env()
    assert isinstance(g, aec.HandEnv) and isinstance(longgang_v0.raw_env(), aec.HandEnv)
    assert g.metadata["name"] == "luoyang_gangci_v0" and g.ruleset is DEFAULT


def test_api_test() -> None:
    api_test(luoyang_gangci_v0.env(), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("seed", range(8))
def test_random_hands_pay_the_statement_g2(seed: int) -> None:
    e = luoyang_gangci_v0.env()
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        mask = e.observe(agent)["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.size > 0
        # a Gangci table has no chow: no chow index is ever legal (G1.3)
        assert not any(action_of(int(i)).kind.name == "CHOW" for i in legal)
        e.step(int(rng.choice(legal)))
        steps += 1
    out = e.unwrapped.game.outcome
    assert out is not None and steps > 0
    net = statement(out, DEFAULT).net
    assert [totals[a] for a in e.possible_agents] == [float(c) for c in net] == [float(c) for c in hand_chips(out, DEFAULT)]
    assert sum(net) == 0
