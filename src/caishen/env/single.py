"""A Gymnasium single-agent view of one Longgang hand: the agent plays one seat, bots
(:mod:`caishen.bots`) play the other three.

Observation: ``{"observation": float32[OBS_SIZE], "action_mask": int8[235]}`` as in
``longgang_v0``; action: ``Discrete(235)`` with the fixed index of
:mod:`caishen.env.encoding`. An action that is not legal now (mask 0) is replaced by a
fallback legal action (pass if allowed, else the first legal one) and reported in
``info["illegal_action"]``; with ``illegal_action="raise"`` it raises instead. The
episode is one hand; the reward, given when it ends, is the agent's chip change for the
hand (L24). Seeding follows Gymnasium: ``reset(seed=s)`` seeds the generator that deals
every hand and the bots.

``reset`` always returns a live decision point: the agent has at least one legal action.
When the bots finish a hand before the agent's first move (a bot wins on the dealer's first
discards; about 0.7% of hands for a non-dealer seat), that hand's result is delivered in
``info["skipped_hands"]`` and the next hand is dealt, until one reaches the agent.
``info["skipped_hands"]`` is always present: a tuple of :class:`SkippedHand` (the agent's
reward, the winner, the hand seed), usually empty. Those rewards belong to no ``step``: an
agent that sums its returns over hands adds them.

Nothing in ``info`` lets the agent rebuild the wall: the hand seed (from which the wall and
every hand follow) is given only once the hand is over, in the last ``step``'s
``info["hand_seed"]`` (hex) and in each :class:`SkippedHand`.

Needs the ``rl`` extra: ``pip install 'caishen[rl]'``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from caishen.bots import make_bot
from caishen.engine.game import PASS, Game
from caishen.env.encoding import (
    ACTIONS,
    NUM_ACTIONS,
    OBS_HIGH,
    OBS_SIZE,
    action_index,
    encode_into,
    mask_into,
)
from caishen.simulate import hand_chips
from caishen.variants.longgang.rules import LONGGANG, Ruleset

MAX_SKIPPED_HANDS = 1000
"""``reset`` gives up (RuntimeError) after this many hands in a row end before the agent moves
(with greedy bots the chance of even ten is about 1e-21)."""


@dataclass(frozen=True, slots=True)
class SkippedHand:
    """A hand the bots finished before the agent's first move (see the module docstring)."""

    reward: float   # the agent's chip change for the hand (L24)
    winner: int     # the winning seat, -1 for a drawn hand
    hand_seed: str  # the hand's 32-byte seed in hex (the hand is over: nothing left to hide)


class LonggangSingleEnv(gym.Env[dict[str, Any], Any]):
    """One seat against three bots (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        seat: int = 0,
        opponents: Sequence[str] = ("greedy", "greedy", "greedy"),
        ruleset: Ruleset = LONGGANG,
        dealer: int = 0,
        illegal_action: str = "fallback",
        render_mode: str | None = None,
    ) -> None:
        if seat not in range(4):
            raise ValueError(f"seat must be 0-3, not {seat}")
        if len(opponents) != 3:
            raise ValueError(f"need 3 opponents, got {len(opponents)}")
        if illegal_action not in ("fallback", "raise"):
            raise ValueError(f"illegal_action must be 'fallback' or 'raise', not {illegal_action!r}")
        for name in opponents:
            make_bot(name)  # check the names now
        self.seat = seat
        self.opponents = tuple(opponents)
        self.ruleset = ruleset
        self.dealer = dealer
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self.bots: list[Any] = []
        self._hand_seed = b""

    def _obs(self) -> dict[str, Any]:
        assert self.game is not None
        legal = self.game.legal_actions(self.seat) if not self.game.is_over else ()
        obs = np.empty(OBS_SIZE, dtype=np.float32)  # fresh arrays each time, filled in place
        encode_into(self.game.observation(self.seat), obs.data)
        mask = np.empty(NUM_ACTIONS, dtype=np.int8)
        mask_into(legal, mask.data)
        return {"observation": obs, "action_mask": mask}

    def _run_bots(self) -> None:
        """Let the bots move until the agent must act or the hand is over."""
        g = self.game
        assert g is not None
        while not g.is_over:
            movers = g.to_move()
            bot_seats = [s for s in movers if s != self.seat]
            if not bot_seats:
                return
            s = bot_seats[0]
            g.step(s, self.bots[s].act(g.observation(s)))

    def _deal(self) -> None:
        """Deal the next hand from the environment's generator and let the bots move until the
        agent must act or the hand is over."""
        self._hand_seed = bytes(self.np_random.integers(0, 256, size=32, dtype=np.uint8).tolist())
        bot_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.game = Game.from_seed(self._hand_seed, self.ruleset, self.dealer)
        names = list(self.opponents)
        self.bots = []
        for s in range(4):
            if s == self.seat:
                self.bots.append(None)
            else:
                self.bots.append(make_bot(names.pop(0), random.Random(bot_seed + s), self.ruleset))
        self._run_bots()

    def _result(self) -> tuple[float, int]:
        """The agent's reward and the winner (-1: none) of the finished hand."""
        assert self.game is not None
        out = self.game.outcome
        assert out is not None
        return float(hand_chips(out, self.ruleset)[self.seat]), -1 if out.winner is None else out.winner

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        skipped: list[SkippedHand] = []
        self._deal()
        assert self.game is not None
        while self.game.is_over:  # the bots ended it before the agent moved: next hand
            if len(skipped) >= MAX_SKIPPED_HANDS:
                raise RuntimeError(f"{MAX_SKIPPED_HANDS} hands in a row ended before seat {self.seat} moved")
            reward, winner = self._result()
            skipped.append(SkippedHand(reward, winner, self._hand_seed.hex()))
            self._deal()
        return self._obs(), {"skipped_hands": tuple(skipped)}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        g = self.game
        if g is None:
            raise RuntimeError("call reset() before step()")
        if g.is_over:
            raise RuntimeError("the hand is over: call reset()")
        legal = g.legal_actions(self.seat)
        index = int(action)
        info: dict[str, Any] = {}
        chosen = ACTIONS[index] if 0 <= index < NUM_ACTIONS else None
        if chosen is None or chosen not in legal:
            if self.illegal_action == "raise":
                raise ValueError(f"action {index} is not legal now")
            chosen = PASS if PASS in legal else legal[0]
            info["illegal_action"] = index
            info["played_action"] = action_index(chosen)
        g.step(self.seat, chosen)
        self._run_bots()
        reward = 0.0
        terminated = g.is_over
        if terminated:
            reward, info["winner"] = self._result()
            info["hand_seed"] = self._hand_seed.hex()  # the hand is over: safe to reveal
        return self._obs(), reward, terminated, False, info

    def render(self) -> str | None:
        if self.game is None:
            return None
        from caishen.notation import format_hand

        return format_hand(self.game.hand(self.seat))
