"""A Gymnasium single-agent view of one hand of any variant: the agent plays one seat, players
(:mod:`caishen.bots`: a built-in bot, ``module:Class`` or a ``caishen.players`` entry point)
play the other three. Registered as ``caishen/Longgang-v0`` and ``caishen/LuoyangGangci-v0``
(``import caishen.env`` registers them; docs/env.md).

Observation: ``{"observation": float32[obs_size], "action_mask": int8[236]}`` as in
``longgang_v0`` (``obs_version="v1"``, or ``"v2"`` with the history planes); action:
``Discrete(236)`` with the fixed index of :mod:`caishen.env.encoding`; :meth:`action_masks`
gives the mask as booleans (sb3-contrib's MaskablePPO calls it). An action that is not legal
now (mask 0) is replaced by a fallback legal action (pass if allowed, else the first legal one)
and reported in ``info["illegal_action"]``; with ``illegal_action="raise"`` it raises instead.

The episode is one hand; the reward, given when it ends, is the agent's chip change for the
hand (:func:`caishen.table.results.hand_chips`: Longgang L24; Luoyang Gangci the hand's G2
kong and win payments, so a drawn Gangci hand pays its kongs). ``seat`` and ``dealer`` may be a
number or ``"random"`` (drawn per hand from the env's generator). Seeding follows Gymnasium:
``reset(seed=s)`` seeds the generator that deals every hand and seeds the bots.

The terminal observation (the one ``step`` returns with ``terminated=True``) has a mask with
only *pass* (index 234) set: never all zeros, so a sampler that draws from the mask of the
last observation before an auto-reset never divides by zero; the action it draws is ignored.

``reset`` always returns a live decision point: the agent has at least one legal action.
When the bots finish a hand before the agent's first move (a bot wins on the dealer's first
discards; about 0.7% of hands for a non-dealer seat), that hand's result is delivered in
``info["skipped_hands"]`` (a tuple of :class:`SkippedHand`: the agent's reward, the winner,
the hand seed; usually empty) and ``info["skipped_reward"]`` (their sum), and the next hand is
dealt, until one reaches the agent. Those rewards belong to no ``step``: an agent that sums its
returns over hands adds them.

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
from caishen.engine.game import PASS, Action, Game, IllegalActionError
from caishen.env.encoding import ACTIONS, NUM_ACTIONS, PASS_INDEX, action_index, mask_into
from caishen.env.observer import Observer, obs_space
from caishen.errors import ArgumentError
from caishen.table.players import Player
from caishen.table.results import hand_chips
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG

MAX_SKIPPED_HANDS = 1000
"""``reset`` gives up (RuntimeError) after this many hands in a row end before the agent moves
(with greedy bots the chance of even ten is about 1e-21)."""


@dataclass(frozen=True, slots=True)
class SkippedHand:
    """A hand the bots finished before the agent's first move (see the module docstring)."""

    reward: float   # the agent's chip change for the hand (L24)
    winner: int     # the winning seat, -1 for a drawn hand
    hand_seed: str  # the hand's 32-byte seed in hex (the hand is over: nothing left to hide)


def seat_option(value: int | str, what: str) -> int | str:
    """A seat or dealer option: 0-3 or ``"random"``."""
    if value == "random" or (isinstance(value, int) and not isinstance(value, bool) and value in range(4)):
        return value
    raise ArgumentError(f"{what} must be 0-3 or 'random', not {value!r}")


def legal_choice(action: Any, legal: Sequence[Action], illegal_action: str, info: dict[str, Any]) -> Action:
    """The action of index ``action`` if it is legal; else (``illegal_action="fallback"``) pass
    if allowed or the first legal action, noted in ``info``; or :class:`IllegalActionError`
    (a ``ValueError``, ``"raise"``). An index outside the action space (not 0-235) is refused
    either way: it is a caller's mistake, not a move the mask ruled out."""
    index = int(action)
    if not 0 <= index < NUM_ACTIONS:
        raise IllegalActionError(f"action index must be 0-{NUM_ACTIONS - 1}, not {index}")
    chosen = ACTIONS[index]
    if chosen not in legal:
        if illegal_action == "raise":
            raise IllegalActionError(f"action {index} is not legal now")
        chosen = PASS if PASS in legal else legal[0]
        info["illegal_action"] = index
        info["played_action"] = action_index(chosen)
    return chosen


def terminal_mask(out: np.ndarray[Any, Any]) -> None:
    """The mask of a finished hand: only *pass* (see the module docstring)."""
    out[:] = 0
    out[PASS_INDEX] = 1


class CaishenSingleEnv(gym.Env[dict[str, Any], Any]):
    """One seat against three players, one hand per episode (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        seat: int | str = 0,
        opponents: Sequence[str] = ("greedy", "greedy", "greedy"),
        ruleset: VariantRules = LONGGANG,
        dealer: int | str = 0,
        illegal_action: str = "fallback",
        render_mode: str | None = None,
        obs_version: str = "v1",
    ) -> None:
        self.seat_option = seat_option(seat, "seat")
        self.dealer_option = seat_option(dealer, "dealer")
        if len(opponents) != 3:
            raise ArgumentError(f"need 3 opponents, got {len(opponents)}")
        if illegal_action not in ("fallback", "raise"):
            raise ArgumentError(f"illegal_action must be 'fallback' or 'raise', not {illegal_action!r}")
        for name in opponents:
            make_bot(name, None, ruleset)  # check the names now
        self.seat = 0 if seat == "random" else int(seat)
        self.dealer = 0 if dealer == "random" else int(dealer)
        self.opponents = tuple(opponents)
        self.ruleset = ruleset
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observer = Observer(obs_version)
        self.obs_version = obs_version
        self.observation_space = obs_space(obs_version)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self.bots: list[Player | None] = []
        self._hand_seed = b""

    # ------------------------------------------------------------ observation

    def _obs(self) -> dict[str, Any]:
        g = self.game
        assert g is not None
        obs = np.empty(self.observer.size, dtype=np.float32)  # fresh arrays each time, filled in place
        self.observer.encode_into(g, self.seat, obs.data)
        mask = np.empty(NUM_ACTIONS, dtype=np.int8)
        if g.is_over:
            terminal_mask(mask)
        else:
            mask_into(g.legal_actions(self.seat), mask.data)
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal actions now, as booleans (what sb3-contrib's MaskablePPO asks for)."""
        g = self.game
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if g is None or g.is_over:
            terminal_mask(mask)
        else:
            mask_into(g.legal_actions(self.seat), mask.data)
        return mask.astype(bool)

    # ------------------------------------------------------------ play

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
            bot = self.bots[s]
            assert bot is not None
            self.observer.step(g, s, bot.act(g.observation(s)))

    def _deal(self) -> None:
        """Deal the next hand from the environment's generator (seat and dealer too, when
        random) and let the bots move until the agent must act or the hand is over."""
        rng = self.np_random
        if self.seat_option == "random":
            self.seat = int(rng.integers(0, 4))
        if self.dealer_option == "random":
            self.dealer = int(rng.integers(0, 4))
        self._hand_seed = bytes(rng.integers(0, 256, size=32, dtype=np.uint8).tolist())
        bot_seed = int(rng.integers(0, 2**63 - 1))
        self.game = Game.from_seed(self._hand_seed, self.ruleset, self.dealer)
        self.observer.reset(self.game)
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
        return self._obs(), {"skipped_hands": tuple(skipped), "skipped_reward": sum((s.reward for s in skipped), 0.0),
                             "seat": self.seat, "dealer": self.dealer}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        g = self.game
        if g is None:
            raise RuntimeError("call reset() before step()")
        if g.is_over:
            raise RuntimeError("the hand is over: call reset()")
        info: dict[str, Any] = {}
        chosen = legal_choice(action, g.legal_actions(self.seat), self.illegal_action, info)
        self.observer.step(g, self.seat, chosen)
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


LonggangSingleEnv = CaishenSingleEnv
"""The name of issue 5 (it plays any variant: pass ``ruleset``)."""
