"""One hand of any caishen variant as a PettingZoo AEC environment: the one adapter behind
``longgang_v0`` and ``luoyang_gangci_v0``.

Agents ``player_0`` .. ``player_3`` are the seats East, South, West, North (``player_0``
deals). Each observation is a dict ``{"observation": float32[OBS_SIZE], "action_mask":
int8[235]}``; actions are the fixed indices of :mod:`caishen.env.encoding`. While a
discard is being decided on, every seat with a claim acts in turn (the engine holds the
choices until all are in, then resolves them by the variant's priority). An episode is one
hand; when it ends every agent is terminated and gets the chips it won or lost in that hand
(:func:`caishen.simulate.hand_chips`: Longgang's L24 without going-broke limits, Gangci's
kong and win payments G2) as its reward. Seeding follows Gymnasium: ``reset(seed=s)``
re-seeds the environment's generator, from which each hand's 32-byte seed is drawn; when
the hand ends, every agent's ``infos`` carries it as ``"hand_seed"`` (hex).

Only a seat asked about a discard or a kong learns that it is being decided on: ``observe``
for any other seat shows the discarder's (kong-maker's) turn, as when no one can claim (see
:func:`caishen.env.encoding.encode`). Note that ``agent_selection`` is public in the AEC
API: code that reads it for another agent learns who is asked.

Needs the ``rl`` extra: ``pip install 'caishen[rl]'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from caishen.engine.game import Game
from caishen.env.encoding import NUM_ACTIONS, OBS_HIGH, OBS_SIZE, action_of, encode_into, mask_into
from caishen.simulate import hand_chips
from caishen.variants.base import VariantRules

AGENTS = tuple(f"player_{s}" for s in range(4))


def wrap(e: Any) -> Any:
    """An environment with PettingZoo's standard checks (illegal actions raise, order
    enforced)."""
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class HandEnv(AECEnv):  # type: ignore[misc]
    """The unwrapped AEC environment of one hand under ``ruleset`` (see the module docstring);
    each variant's module subclasses it with its name and default rules."""

    metadata = {"render_modes": ["human", "ansi"], "name": "caishen_hand", "is_parallelizable": False}

    def __init__(self, ruleset: VariantRules, dealer: int = 0, render_mode: str | None = None) -> None:
        super().__init__()
        self.ruleset = ruleset
        self.dealer = dealer
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.np_random, _ = seeding.np_random(None)
        self.game: Game | None = None
        self.hand_seed = b""
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        assert self.game is not None
        seat = AGENTS.index(agent)
        # Fresh arrays each time (callers keep observations), filled in place.
        obs = np.empty(OBS_SIZE, dtype=np.float32)
        encode_into(self.game.observation(seat), obs.data)
        mask = np.empty(NUM_ACTIONS, dtype=np.int8)
        mask_into(self.game.legal_actions(seat) if agent == self.agent_selection else (), mask.data)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.hand_seed = bytes(self.np_random.integers(0, 256, size=32, dtype=np.uint8).tolist())
        self.game = Game.from_seed(self.hand_seed, self.ruleset, self.dealer)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._select()

    def _select(self) -> None:
        assert self.game is not None
        movers = self.game.to_move()
        if movers:
            self.agent_selection = AGENTS[movers[0]]

    def step(self, action: Any) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        assert self.game is not None
        seat = AGENTS.index(self.agent_selection)
        self._cumulative_rewards[self.agent_selection] = 0.0
        self.game.step(seat, action_of(int(action)))
        self.rewards = {a: 0.0 for a in AGENTS}
        if self.game.is_over:
            out = self.game.outcome
            assert out is not None
            chips = hand_chips(out, self.ruleset)
            for s, a in enumerate(AGENTS):
                self.rewards[a] = float(chips[s])
                self.terminations[a] = True
                # The hand is over: its seed (which rebuilds the wall) is safe to give now.
                self.infos[a] = {"winner": -1 if out.winner is None else out.winner, "hand_seed": self.hand_seed.hex()}
        else:
            self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.game is None:
            return None
        from caishen.notation import format_hand

        lines = []
        for s in range(4):
            lines.append(f"{'ESWN'[s]}: {format_hand(self.game.hand(s))}")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
