"""A Gymnasium single-agent view of a whole match: the agent is one player of
:mod:`caishen.env.match`'s match (4-6 players; seats change hand by hand, L2, L18), players
(:mod:`caishen.bots`) are the others. Registered as ``caishen/LonggangMatch-v0`` and
``caishen/LuoyangGangciMatch-v0``.

One episode is the match, to going broke or the room's hand count. The reward of a ``step`` is
the agent's chip change (the ledger's, L24 / G2) over the hands that ended during that step:
the hand its action ended, and any hands the bots then played to the end before the agent's
next move (while it waits as the substitute 替补 with 5 or 6 players, or when a bot wins before
its first move). Hands that end before the agent's first move of the match are reported by
``reset`` in ``info["skipped_reward"]`` (Gymnasium's reset has no reward). At the end, ``info``
has the standing: ``chips``, ``rank`` (1 = most), ``ended_by``, ``hands``.

Observation, action, ``action_masks()`` and the terminal mask (*pass* only) are those of
:class:`~caishen.env.single.CaishenSingleEnv`, for the agent's seat in the hand in play.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from caishen import fair
from caishen.bots import make_bot
from caishen.engine.game import Game
from caishen.env.encoding import NUM_ACTIONS, mask_into
from caishen.env.match import standing
from caishen.env.observer import Observer, obs_space
from caishen.env.single import legal_choice, terminal_mask
from caishen.errors import ArgumentError
from caishen.table.match import Table
from caishen.table.players import Player
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG


class CaishenMatchSingleEnv(gym.Env[dict[str, Any], Any]):
    """One player against the others over a whole match (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        seat: int | str = 0,
        opponents: Sequence[str] | None = None,
        ruleset: VariantRules = LONGGANG,
        players: int = 4,
        hands: int | None = None,
        illegal_action: str = "fallback",
        obs_version: str = "v1",
    ) -> None:
        if hands is not None:
            ruleset = ruleset.replace(hands_per_match=hands)
        Table(ruleset, players)  # checks the number of players
        if opponents is None:
            opponents = ("greedy",) * (players - 1)
        if len(opponents) != players - 1:
            raise ArgumentError(f"need {players - 1} opponents for {players} players, got {len(opponents)}")
        if not (seat == "random" or (isinstance(seat, int) and 0 <= seat < players)):
            raise ArgumentError(f"seat (the agent's player index) must be 0-{players - 1} or 'random', not {seat!r}")
        if illegal_action not in ("fallback", "raise"):
            raise ArgumentError(f"illegal_action must be 'fallback' or 'raise', not {illegal_action!r}")
        for name in opponents:
            make_bot(name, None, ruleset)
        self.player_option = seat
        self.player = 0 if seat == "random" else int(seat)
        self.opponents = tuple(opponents)
        self.ruleset = ruleset
        self.n_players = players
        self.illegal_action = illegal_action
        self.observer = Observer(obs_version)
        self.observation_space = obs_space(obs_version)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.table = Table(ruleset, players)
        self.game: Game | None = None
        self.bots: list[Player | None] = []
        self.match_seed = b""
        self.hand_index = 0
        self.table_seats: tuple[int, int, int, int] = (0, 1, 2, 3)

    @property
    def seat(self) -> int:
        """The agent's seat in the hand in play (-1 while it waits)."""
        seats = self.table_seats
        return seats.index(self.player) if self.player in seats else -1

    def _obs(self) -> dict[str, Any]:
        g = self.game
        assert g is not None
        obs = np.zeros(self.observer.size, dtype=np.float32)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        seat = self.seat
        if seat >= 0:
            self.observer.encode_into(g, seat, obs.data)
        if self.table.over:
            terminal_mask(mask)
        elif seat >= 0:
            mask_into(g.legal_actions(seat), mask.data)
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal actions now, as booleans (sb3-contrib's MaskablePPO)."""
        mask: np.ndarray[Any, np.dtype[np.int8]] = self._obs()["action_mask"]
        return mask.astype(bool)

    def _deal(self) -> None:
        self.table_seats = self.table.seats
        seed = fair.hand_seed(self.match_seed, self.hand_index)
        self.game = Game(self.ruleset, fair.shuffled_wall(seed, self.ruleset), fair.dice(seed), 0)
        self.observer.reset(self.game)

    def _advance(self) -> float:
        """Let the bots play until the agent must act or the match is over; the agent's chip
        change over the hands that ended meanwhile."""
        reward = 0.0
        while True:
            g = self.game
            assert g is not None
            seat = self.seat
            while not g.is_over:
                movers = g.to_move()
                bot_seats = [s for s in movers if s != seat]
                if not bot_seats:
                    return reward
                s = bot_seats[0]
                bot = self.bots[self.table_seats[s]]
                assert bot is not None
                self.observer.step(g, s, bot.act(g.observation(s)))
            out = g.outcome
            assert out is not None
            before = self.table.ledger.chips[self.player]
            self.table.settle(out)
            reward += float(self.table.ledger.chips[self.player] - before)
            self.hand_index += 1
            if self.table.over:
                return reward
            self._deal()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        if self.player_option == "random":
            self.player = int(rng.integers(0, self.n_players))
        self.match_seed = bytes(rng.integers(0, 256, size=32, dtype=np.uint8).tolist())
        bot_seed = int(rng.integers(0, 2**63 - 1))
        names = list(self.opponents)
        self.bots = [None if p == self.player else make_bot(names.pop(0), random.Random(bot_seed + p), self.ruleset)
                     for p in range(self.n_players)]
        self.table = Table(self.ruleset, self.n_players)
        self.hand_index = 0
        self._deal()
        skipped = self._advance()
        if self.table.over:  # the bots finished the whole match without the agent (never seen)
            raise RuntimeError("the match ended before the agent moved")
        return self._obs(), {"skipped_reward": skipped, "player": self.player}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        g = self.game
        if g is None:
            raise RuntimeError("call reset() before step()")
        if self.table.over:
            raise RuntimeError("the match is over: call reset()")
        seat = self.seat
        info: dict[str, Any] = {}
        self.observer.step(g, seat, legal_choice(action, g.legal_actions(seat), self.illegal_action, info))
        reward = self._advance()
        terminated = self.table.over
        if terminated:
            chips = list(self.table.ledger.chips)
            info.update(chips=chips[self.player], rank=standing(chips)[self.player],
                        ended_by=self.table.ended_by, hands=self.hand_index)
        return self._obs(), reward, terminated, False, info
