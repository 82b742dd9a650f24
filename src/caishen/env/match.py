"""A whole match 一局 as one PettingZoo AEC episode: ``longgang_match_v0`` and
``luoyang_gangci_match_v0`` (docs/env.md, "Whole matches").

Agents are the *players* ``player_0`` .. ``player_{n-1}`` (4-6 for Longgang, 4 for Gangci), not
the seats: the match's :class:`~caishen.table.match.Table` seats them hand by hand (player ``i``
in seat ``i`` first, East deals; when the deal passes the players move one seat on, and with 5
or 6 players the first waiting one takes the old dealer's chair, 替补, L2, L18; a broke player
without rebuy waits, L25.5). The episode runs hand after hand until the match is over: a player
goes broke (L25.5) or the room's hand count (``ruleset.hands_per_match``, or ``hands=``) is
played. Hand ``h`` is dealt from ``fair.hand_seed(match seed, h)`` as a
:class:`~caishen.table.match.Match` deals it, the match seed drawn from the env's generator
(``reset(seed=s)``).

**Rewards per hand.** When a hand ends every player's reward is the change of its chips in the
match's ledger (L24, with the table fee where the rules take one, and Gangci's G2 payments;
a waiting player gets 0), delivered at that step like any AEC reward. The agents stay alive
between hands; all are terminated when the match is over, and then each ``infos[agent]`` holds
the final standing: ``chips`` (the player's total), ``rank`` (1 = most chips; ties share the
better rank), ``ended_by``; ``env.unwrapped.result()`` is the table's
:class:`~caishen.table.results.MatchResult`.

A waiting player (5 or 6 players) is never selected; its observation is all zeros with an
all-zero mask (*pass* only once the match is over, as every agent's). Observations, ``obs_version``, ``observation_mode="oracle"`` and ``state()`` are
those of the one-hand envs (:class:`~caishen.env.aec.TableEnv`), for the player's seat in the
hand in play.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from caishen import fair
from caishen.env.aec import TableEnv
from caishen.env.encoding import NUM_ACTIONS, OBS_HIGH, action_of
from caishen.env.single import terminal_mask
from caishen.errors import ArgumentError
from caishen.table.match import Table
from caishen.table.results import MatchResult
from caishen.variants.base import VariantRules


def standing(chips: list[int]) -> list[int]:
    """Each player's rank by chips (1 = most; equal chips share the better rank)."""
    return [1 + sum(1 for c in chips if c > mine) for mine in chips]


class MatchEnv(TableEnv):
    """The unwrapped AEC environment of a whole match (see the module docstring)."""

    metadata = {**TableEnv.metadata, "name": "caishen_match"}

    def __init__(
        self, ruleset: VariantRules, players: int = 4, hands: int | None = None,
        render_mode: str | None = None, obs_version: str = "v1", observation_mode: str = "normal",
    ) -> None:
        if hands is not None:
            if hands < 1:
                raise ArgumentError(f"hands must be at least 1, not {hands}")
            ruleset = ruleset.replace(hands_per_match=hands)
        super().__init__(ruleset, render_mode, obs_version, observation_mode)
        Table(ruleset, players)  # checks the number of players for the variant now
        self.n_players = players
        agents = [f"player_{p}" for p in range(players)]
        self.possible_agents = list(agents)
        self.agents = list(agents)
        space = spaces.Dict({
            "observation": spaces.Box(0.0, OBS_HIGH, (self.obs_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: space for a in agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in agents}
        self.table = Table(ruleset, players)
        self.match_seed = b""
        self.hand_index = 0
        self.seats: tuple[int, int, int, int] = (0, 1, 2, 3)
        self._clear()

    def _clear(self) -> None:
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.infos = {a: {} for a in agents}

    def _deal(self) -> None:
        self.seats = self.table.seats
        self._start_hand(fair.hand_seed(self.match_seed, self.hand_index), 0)  # East deals (L2)

    def _select(self) -> None:
        assert self.game is not None
        movers = self.game.to_move()
        if movers:
            self.agent_selection = self.possible_agents[self.seats[movers[0]]]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.match_seed = bytes(self.np_random.integers(0, 256, size=32, dtype=np.uint8).tolist())
        self.table = Table(self.ruleset, self.n_players)
        self.hand_index = 0
        self._clear()
        self._deal()
        self._select()

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` in the hand in play, -1 while it waits."""
        p = self.possible_agents.index(agent)
        return self.seats.index(p) if p in self.seats else -1

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.seat_of(agent)
        if seat < 0:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            if self.table.over:
                terminal_mask(mask)
            return {"observation": np.zeros(self.obs_size, dtype=np.float32), "action_mask": mask}
        return self._observe_seat(seat, agent == self.agent_selection)

    def result(self) -> MatchResult:
        """The match so far (chips per player, why it ended...)."""
        return self.table.result()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        assert g is not None
        self._cumulative_rewards[agent] = 0.0
        self.observer.step(g, self.seats.index(self.possible_agents.index(agent)), action_of(int(action)))
        self.rewards = {a: 0.0 for a in self.possible_agents}
        if g.is_over:
            out = g.outcome
            assert out is not None
            before = list(self.table.ledger.chips)
            self.table.settle(out)
            after = self.table.ledger.chips
            for p, a in enumerate(self.possible_agents):
                self.rewards[a] = float(after[p] - before[p])
                self.infos[a] = {"hand": self.hand_index, "winner": -1 if out.winner is None else self.seats[out.winner],
                                 "hand_seed": self.hand_seed.hex()}
            self.hand_index += 1
            if self.table.over:
                ranks = standing(list(after))
                for p, a in enumerate(self.possible_agents):
                    self.terminations[a] = True
                    self.infos[a].update(chips=after[p], rank=ranks[p], ended_by=self.table.ended_by,
                                         hands=self.hand_index)
            else:
                self._deal()
                self._select()
        else:
            self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()
