"""One hand of any caishen variant as a PettingZoo AEC environment: the one adapter behind
``longgang_v0`` and ``luoyang_gangci_v0`` (the whole-match envs of :mod:`caishen.env.match`
build on the same :class:`TableEnv`).

Agents ``player_0`` .. ``player_3`` are the seats East, South, West, North (``player_0``
deals unless ``dealer`` says otherwise: a seat, or ``"random"`` per hand). Each observation is a
dict ``{"observation": float32[obs_size], "action_mask": int8[236]}`` (``obs_version`` ``"v1"``
or ``"v2"``; ``observation_mode="oracle"`` appends the hidden tiles, :mod:`caishen.env.hidden`);
actions are the fixed indices of :mod:`caishen.env.encoding`. While a discard is being decided
on, every seat with a claim acts in turn (the engine holds the choices until all are in, then
resolves them by the variant's priority). An episode is one hand; when it ends every agent is
terminated and gets the chips it won or lost in that hand
(:func:`caishen.table.results.hand_chips`: Longgang's L24 without going-broke limits, Gangci's
kong and win payments G2) as its reward. Seeding follows Gymnasium: ``reset(seed=s)``
re-seeds the environment's generator, from which each hand's 32-byte seed is drawn; when
the hand ends, every agent's ``infos`` carries it as ``"hand_seed"`` (hex).

The mask is all zeros for an agent whose move it is not; once the hand is over it holds only
*pass* (never all zeros: safe for samplers; the step of a terminated agent takes ``None``).
``state()`` is the full-information vector of :mod:`caishen.env.hidden` (for centralised critics).

Only a seat asked about a discard or a kong learns that it is being decided on: ``observe``
for any other seat shows the discarder's (kong-maker's) turn, as when no one can claim (see
:func:`caishen.env.encoding.encode`). Note that ``agent_selection`` is public in the AEC
API: code that reads it for another agent learns who is asked.

Needs the ``rl`` extra: ``pip install 'caishen[rl]'``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from caishen import fair
from caishen.engine.game import Game
from caishen.env.encoding import ACTIONS, NUM_ACTIONS, OBS_HIGH, PASS_INDEX, action_of, encode_into, mask_into
from caishen.env.hidden import HIDDEN_SIZE, STATE_SIZE, hidden_into, state_into
from caishen.env.observer import Observer, obs_size
from caishen.env.single import seat_option
from caishen.errors import ArgumentError
from caishen.table.results import hand_chips
from caishen.variants.base import VariantRules

AGENTS = tuple(f"player_{s}" for s in range(4))
SEAT_OF = {a: s for s, a in enumerate(AGENTS)}
OBSERVATION_MODES = ("normal", "oracle")
#: the legal actions behind a finished hand's mask: *pass* only (``mask_into`` writes it in
#: one compiled call; ``terminal_mask`` of :mod:`caishen.env.single` writes the same mask)
_PASS_ONLY = (ACTIONS[PASS_INDEX],)
#: the 32 bytes of ``Generator.integers(0, 256, size=32, dtype=np.uint8)`` are the little-endian
#: bytes of the generator's next four 64-bit outputs when it holds no 32-bit half of an output
#: (numpy draws a full-range uint8 from 32-bit draws, two per 64-bit output, low half first):
#: ``random_raw(4).tobytes()`` reads them in 5,600 instructions instead of 49,000. Checked in
#: ``tests/test_env.py``; big-endian hosts take the long way.
_RAW_SEED_BYTES = sys.byteorder == "little"
_empty = np.empty
_float32 = np.dtype(np.float32)  # dtype instances: np.empty skips converting a scalar type
_int8 = np.dtype(np.int8)


def wrap(e: Any) -> Any:
    """An environment with PettingZoo's standard checks (illegal actions raise, order
    enforced)."""
    return Checked(e)


class Checked(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` with the assertion of its
    ``AssertOutOfBoundsWrapper`` folded in, one layer instead of two, and ``last`` and ``step``
    going straight to the environment: through the two standard wrappers every attribute read
    of ``last()`` walked two ``__getattr__`` and the env ran at 41% of the plain loop's speed
    (issue 31). The same errors, in the same order; ``step`` and ``agent_iter`` do the standard
    wrapper's order checks themselves and read the environment's attributes directly, not
    through the wrapper's ``__getattr__`` (three such reads per step before)."""

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _CheckedIterable(self, max_iter)

    def last(self, observe: bool = True) -> Any:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        # Once reset (for good), ``last`` has nothing left to check: the environment's own; and
        # ``step`` is the same checks on a helper that holds the environment. Each read of the
        # wrapper's own attributes goes through its ``__getattr__`` hook, several times the cost
        # of a plain one: this saves four such reads and a call per step (issue 31).
        env = self.env
        self.last = env.last  # type: ignore[method-assign]
        self.step = _ResetStep(self, env).step  # type: ignore[method-assign]

    def step(self, action: Any) -> None:
        env = self.env
        if self._has_reset and env.agents:
            if type(action) is int:  # the common case, without Discrete.contains (4 µs)
                assert 0 <= action < NUM_ACTIONS, "action is not in action space"
            else:
                agent = env.agent_selection
                assert action is None and (env.terminations[agent] or env.truncations[agent]) or (
                    action is not None and env.action_space(agent).contains(action)), "action is not in action space"
            # OrderEnforcingWrapper.step, with the environment's agents read directly
            self._has_updated = True
            env.step(action)
        elif not self._has_reset:
            EnvLogger.error_step_before_reset()
        else:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()

    def __str__(self) -> str:
        return str(self.env)


class _ResetStep:
    """:meth:`Checked.step` once the wrapper has been reset: the same checks and errors."""

    __slots__ = ("env", "wrapper")

    def __init__(self, wrapper: Checked, env: Any) -> None:
        self.wrapper = wrapper
        self.env = env

    def step(self, action: Any) -> None:
        env = self.env
        if env.agents:
            if type(action) is int:
                assert 0 <= action < NUM_ACTIONS, "action is not in action space"
            else:
                agent = env.agent_selection
                assert action is None and (env.terminations[agent] or env.truncations[agent]) or (
                    action is not None and env.action_space(agent).contains(action)), "action is not in action space"
            self.wrapper._has_updated = True
            env.step(action)
        else:
            self.wrapper._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()


class _CheckedIterable:
    """``agent_iter`` of :class:`Checked`: PettingZoo's ``AECOrderEnforcingIterable`` (the
    agent in turn while agents remain, at most ``max_iter`` times, asserting that ``step`` or
    ``reset`` came between two agents) reading the environment's attributes directly."""

    def __init__(self, wrapper: Checked, max_iter: int) -> None:
        self.wrapper = wrapper
        self.max_iter = max_iter

    def __iter__(self) -> Iterator[str]:
        return _checked_agents(self.wrapper, self.max_iter)


def _checked_agents(wrapper: Checked, left: int) -> Iterator[str]:
    """The iterator of :class:`_CheckedIterable`: a generator, which resumes for less than a
    ``__next__`` method costs a call (the same agents, checks and errors)."""
    env = wrapper.env
    while env.agents and left > 0:
        left -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        agent = env.agent_selection
        yield agent if type(agent) is str else str(agent)


class TableEnv(AECEnv):  # type: ignore[misc]
    """What every caishen AEC env shares: four agents, observations of ``obs_version`` (plus
    the hidden tiles with ``observation_mode="oracle"``), masks, ``state()``, moves through the
    :class:`~caishen.env.observer.Observer` (which keeps v2's history)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "caishen_table", "is_parallelizable": False}

    def __init__(
        self, ruleset: VariantRules, render_mode: str | None = None, obs_version: str = "v1",
        observation_mode: str = "normal",
    ) -> None:
        super().__init__()
        if observation_mode not in OBSERVATION_MODES:
            raise ArgumentError(f"observation_mode must be normal or oracle, not {observation_mode!r}")
        self.ruleset = ruleset
        self.render_mode = render_mode
        self.obs_version = obs_version
        self.observation_mode = observation_mode
        self.observer = Observer(obs_version)
        self.public_size = obs_size(obs_version)
        self.obs_size = self.public_size + (HIDDEN_SIZE if observation_mode == "oracle" else 0)
        self._plain = self.observer.history is None and observation_mode == "normal"
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, OBS_HIGH, (self.obs_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.state_space = spaces.Box(0.0, OBS_HIGH, (STATE_SIZE,), dtype=np.float32)
        self.np_random, _ = seeding.np_random(None)
        self.game: Game | None = None
        self.hand_seed = b""
        self.wall: tuple[int, ...] = ()
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

    def _start_hand(self, seed: bytes, dealer: int) -> None:
        """Deal a hand from ``seed`` with ``dealer`` dealing."""
        self.hand_seed = seed
        self.wall = fair.shuffled_wall(seed, self.ruleset)
        self.game = Game(self.ruleset, self.wall, fair.dice(seed), dealer)
        self.observer.reset(self.game)

    def observe(self, agent: str) -> dict[str, Any]:
        return self._observe_seat(SEAT_OF[agent], agent == self.agent_selection)

    def _observe_seat(self, seat: int, selected: bool) -> dict[str, Any]:
        """The observation of ``seat``; its mask is all zeros unless ``selected`` (pass only
        once the hand is over)."""
        g = self.game
        assert g is not None
        # Fresh arrays each time (callers keep observations), filled in place.
        obs = _empty(self.obs_size, _float32)
        if self._plain:  # v1, no hidden tiles: the encoder fills the whole array
            encode_into(g.observation(seat), obs.data)
        else:
            self.observer.encode_into(g, seat, obs.data[:self.public_size])
            if self.observation_mode == "oracle":
                hidden_into(g, self.wall, seat, obs.data[self.public_size:])
        mask = _empty(NUM_ACTIONS, _int8)
        if g.is_over:
            mask_into(_PASS_ONLY, mask.data)
        else:
            mask_into(g.legal_actions(seat) if selected else (), mask.data)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Full information (every seat's tiles, the wall: :mod:`caishen.env.hidden`)."""
        assert self.game is not None
        out = np.empty(STATE_SIZE, dtype=np.float32)
        state_into(self.game, self.wall, out.data)
        return out

    def _select(self) -> None:
        assert self.game is not None
        movers = self.game.to_move()
        if movers:
            self.agent_selection = AGENTS[movers[0]]

    def _clear(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}

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


class HandEnv(TableEnv):
    """The unwrapped AEC environment of one hand under ``ruleset`` (see the module docstring);
    each variant's module subclasses it with its name and default rules."""

    metadata = {**TableEnv.metadata, "name": "caishen_hand"}

    def __init__(
        self, ruleset: VariantRules, dealer: int | str = 0, render_mode: str | None = None,
        obs_version: str = "v1", observation_mode: str = "normal",
    ) -> None:
        super().__init__(ruleset, render_mode, obs_version, observation_mode)
        self.dealer_option = seat_option(dealer, "dealer")
        self.dealer = 0 if dealer == "random" else int(dealer)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        bits = self.np_random.bit_generator
        # the same bytes, fast (see _RAW_SEED_BYTES), unless half of a 64-bit output is left over
        # (after an odd number of 32-bit draws: a random dealer's, a caller's own)
        if _RAW_SEED_BYTES and (seed is not None or not bits.state["has_uint32"]):
            hand_seed = bits.random_raw(4).tobytes()
        else:
            hand_seed = bytes(self.np_random.integers(0, 256, size=32, dtype=np.uint8).tolist())
        if self.dealer_option == "random":
            self.dealer = int(self.np_random.integers(0, 4))
        self._start_hand(hand_seed, self.dealer)
        self._clear()
        self._select()

    def last(self, observe: bool = True) -> Any:
        """``AECEnv.last``, observing the agent in turn directly: a v1 observation of a hand in
        play is written here, without the calls of ``observe`` (``_observe_seat`` does the same)."""
        agent = self.agent_selection
        if not observe:
            obs = None
        else:
            g = self.game
            if self._plain and g is not None and not g.is_over:
                seat = SEAT_OF[agent]
                vector = _empty(self.obs_size, _float32)
                encode_into(g.observation(seat), vector.data)
                mask = _empty(NUM_ACTIONS, _int8)
                mask_into(g.legal_actions(seat), mask.data)
                obs = {"observation": vector, "action_mask": mask}
            else:
                obs = self._observe_seat(SEAT_OF[agent], True)
        return obs, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent], self.infos[agent]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        assert g is not None
        # AECEnv's ``_cumulative_rewards[agent] = 0`` is left out: every cumulative reward is 0
        # until the move that ends the hand, which adds the hand's chips after this point.
        index = action if type(action) is int else int(action)
        history = self.observer.history
        if history is None:
            g.step(SEAT_OF[agent], action_of(index))
        else:
            history.step(g, SEAT_OF[agent], action_of(index))
        if g.is_over:
            out = g.outcome
            assert out is not None
            chips = hand_chips(out, self.ruleset)
            self.rewards = {a: float(chips[s]) for s, a in enumerate(AGENTS)}
            for a in AGENTS:
                self.terminations[a] = True
                # The hand is over: its seed (which rebuilds the wall) is safe to give now.
                self.infos[a] = {"winner": -1 if out.winner is None else out.winner, "hand_seed": self.hand_seed.hex()}
            self._accumulate_rewards()
        else:
            # Until the hand ends every reward is 0 (reset and _clear set them so): nothing to
            # rebuild or add up on a move that does not end it.
            movers = g.to_move()
            if movers:
                self.agent_selection = AGENTS[movers[0]]
        if self.render_mode == "human":
            self.render()
