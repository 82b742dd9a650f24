"""Many tables in one process, stepped together through numpy arrays (docs/env.md, "Batched
self-play"): no env objects, no dicts, no fresh arrays per step.

* :class:`SelfPlayBatch`: four-seat self-play. Each of ``n`` tables has one decision pending;
  ``obs[i]``, ``masks[i]`` are the observation and mask of the seat to move at table ``i``
  (``seats[i]``). :meth:`SelfPlayBatch.step` plays ``actions[i]`` at every table; a table whose
  hand ends reports each seat's chips in ``rewards[i]`` (seat order; zero otherwise) and
  ``dones[i]``, and is dealt its next hand at once (auto-reset), so ``obs[i]`` is then the first
  decision of the new hand.
* :class:`BotBatch`: one agent seat per table against three players (bots, ``module:Class``);
  ``obs[i]``, ``masks[i]`` are the agent's, ``rewards[i]`` its chips when the hand ends,
  ``skipped[i]`` the chips of hands the bots finished before the agent moved after an
  auto-reset (as the single-seat env's ``info["skipped_reward"]``).

The arrays are owned by the batch and refilled in place at every step (copy what you keep).
Table ``i`` is the env of the same kind reset with ``seed + i``: its hands, seats and dealers,
and the bots' randomness, are drawn from ``gymnasium.utils.seeding.np_random(seed + i)`` in the
same order, so the same decisions give the same observations, masks and rewards as
``longgang_v0`` / ``luoyang_gangci_v0`` (reset with ``seed + i``, then ``reset()`` for each next
hand) and as :class:`~caishen.env.single.CaishenSingleEnv` (``tests/test_env_batch.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from caishen.bots import make_bot
from caishen.engine.game import Game, IllegalActionError
from caishen.env.encoding import ACTIONS, NUM_ACTIONS, encode_into, mask_into
from caishen.env.observer import Observer
from caishen.env.single import seat_option
from caishen.errors import ArgumentError
from caishen.table.players import Player
from caishen.table.results import hand_chips
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG


def _hand_seed(rng: np.random.Generator) -> bytes:
    return bytes(rng.integers(0, 256, size=32, dtype=np.uint8).tolist())


class _Tables:
    """What both batches share: ``n`` tables, their generators and observers, the arrays."""

    def __init__(self, n: int, ruleset: VariantRules, obs_version: str, dealer: int | str) -> None:
        if n < 1:
            raise ArgumentError(f"a batch has at least 1 table, not {n}")
        self.n = n
        self.ruleset = ruleset
        self.dealer_option = seat_option(dealer, "dealer")
        self.observers = [Observer(obs_version) for _ in range(n)]
        size = self.observers[0].size
        self.obs = np.zeros((n, size), dtype=np.float32)
        self.masks = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self.dones = np.zeros(n, dtype=bool)
        self._obs_rows = [self.obs[i].data for i in range(n)]  # memoryviews, written in place
        self._mask_rows = [self.masks[i].data for i in range(n)]
        self.rngs: list[np.random.Generator] = [seeding.np_random(None)[0] for _ in range(n)]
        self.games: list[Game] = []
        self.dealers = np.zeros(n, dtype=np.int8)

    def _seed(self, seed: int | None) -> None:
        if seed is not None:
            self.rngs = [seeding.np_random(seed + i)[0] for i in range(self.n)]

    def _checked(self, actions: Sequence[int] | np.ndarray[Any, Any]) -> list[int]:
        """``actions`` as a list, once every table's is known to be legal in ``masks``: a step
        plays all of them or none (an illegal action at table 5 must not leave tables 0-4
        moved on and their new observations unreturned)."""
        acts = np.asarray(actions)
        if acts.shape != (self.n,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.n} action indices, one per table; got shape {acts.shape} of {acts.dtype}")
        bad = (acts < 0) | (acts >= NUM_ACTIONS)
        if not bad.any():
            bad = self.masks[np.arange(self.n), acts] == 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            a = int(acts[i])
            what = f"action {a} is not legal now" if 0 <= a < NUM_ACTIONS else f"action index must be 0-{NUM_ACTIONS - 1}, not {a}"
            raise IllegalActionError(f"table {i}: {what} (nothing was played)")
        out: list[int] = acts.tolist()
        return out

    def _new_game(self, i: int, seed: bytes, dealer: int) -> Game:
        g = Game.from_seed(seed, self.ruleset, dealer)
        self.observers[i].reset(g)
        self.dealers[i] = dealer
        return g


class SelfPlayBatch(_Tables):
    """Four-seat self-play at ``n`` tables (see the module docstring). ``dealer``: a seat or
    ``"random"`` per hand, as ``longgang_v0``'s."""

    def __init__(
        self, n: int, ruleset: VariantRules = LONGGANG, obs_version: str = "v1", dealer: int | str = 0,
    ) -> None:
        super().__init__(n, ruleset, obs_version, dealer)
        self.seats = np.zeros(n, dtype=np.int8)
        self.rewards = np.zeros((n, 4), dtype=np.float32)
        self._seat = [0] * n

    def _deal(self, i: int) -> Game:
        rng = self.rngs[i]
        seed = _hand_seed(rng)
        dealer = int(rng.integers(0, 4)) if self.dealer_option == "random" else int(self.dealer_option)
        return self._new_game(i, seed, dealer)

    def _show(self, i: int, g: Game) -> None:
        seat = g.to_move()[0]
        self._seat[i] = seat
        self.seats[i] = seat
        self.observers[i].encode_into(g, seat, self._obs_rows[i])
        mask_into(g.legal_actions(seat), self._mask_rows[i])

    def reset(self, seed: int | None = None) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """Deal a hand at every table (re-seeding table ``i`` with ``seed + i`` when given);
        the arrays ``obs``, ``masks``, ``seats``."""
        self._seed(seed)
        self.games = [self._deal(i) for i in range(self.n)]
        self.rewards[:] = 0
        self.dones[:] = False
        for i, g in enumerate(self.games):
            self._show(i, g)
        return self.obs, self.masks, self.seats

    def step(self, actions: Sequence[int] | np.ndarray[Any, Any]) -> tuple[
        np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]
    ]:
        """Play ``actions[i]`` (an action index, legal in ``masks[i]``) for the seat to move at
        each table; ``obs``, ``masks``, ``seats``, ``rewards`` (n × 4), ``dones``. An illegal
        action (or not one index per table) raises
        :class:`~caishen.engine.game.IllegalActionError` naming the table, before any table
        moves."""
        acts = self._checked(actions)
        rewards = self.rewards
        dones = self.dones
        rewards[:] = 0
        dones[:] = False
        games = self.games
        observers = self.observers
        seat_of = self._seat
        obs_rows = self._obs_rows
        mask_rows = self._mask_rows
        v1 = observers[0].history is None  # v1: straight to the engine and the encoder (hot loop)
        for i in range(self.n):
            g = games[i]
            if v1:
                g.step(seat_of[i], ACTIONS[acts[i]])
            else:
                observers[i].step(g, seat_of[i], ACTIONS[acts[i]])
            if g.is_over:
                out = g.outcome
                assert out is not None
                rewards[i] = hand_chips(out, self.ruleset)
                dones[i] = True
                g = games[i] = self._deal(i)
            seat = g.to_move()[0]
            seat_of[i] = seat
            if v1:
                encode_into(g.observation(seat), obs_rows[i])
            else:
                observers[i].encode_into(g, seat, obs_rows[i])
            mask_into(g.legal_actions(seat), mask_rows[i])
        self.seats[:] = seat_of
        return self.obs, self.masks, self.seats, rewards, dones


class BotBatch(_Tables):
    """One agent seat per table against three players (see the module docstring); ``seat`` and
    ``dealer`` are seats or ``"random"``, as :class:`~caishen.env.single.CaishenSingleEnv`'s."""

    def __init__(
        self, n: int, opponents: Sequence[str] = ("greedy", "greedy", "greedy"), ruleset: VariantRules = LONGGANG,
        seat: int | str = 0, dealer: int | str = 0, obs_version: str = "v1",
    ) -> None:
        super().__init__(n, ruleset, obs_version, dealer)
        if len(opponents) != 3:
            raise ArgumentError(f"need 3 opponents, got {len(opponents)}")
        for name in opponents:
            make_bot(name, None, ruleset)
        self.opponents = tuple(opponents)
        self.seat_option = seat_option(seat, "seat")
        self.agent_seats = np.zeros(n, dtype=np.int8)
        self.rewards = np.zeros(n, dtype=np.float32)
        self.skipped = np.zeros(n, dtype=np.float32)
        self.bots: list[list[Player | None]] = [[None] * 4 for _ in range(n)]
        self._agent = [0] * n

    def _deal(self, i: int) -> Game:
        """The single-seat env's ``_deal``: the same draws in the same order."""
        rng = self.rngs[i]
        seat = int(rng.integers(0, 4)) if self.seat_option == "random" else int(self.seat_option)
        dealer = int(rng.integers(0, 4)) if self.dealer_option == "random" else int(self.dealer_option)
        seed = _hand_seed(rng)
        bot_seed = int(rng.integers(0, 2**63 - 1))
        g = self._new_game(i, seed, dealer)
        self._agent[i] = seat
        self.agent_seats[i] = seat
        names = list(self.opponents)
        self.bots[i] = [None if s == seat else make_bot(names.pop(0), random.Random(bot_seed + s), self.ruleset)
                        for s in range(4)]
        self._run_bots(i, g)
        return g

    def _run_bots(self, i: int, g: Game) -> None:
        agent = self._agent[i]
        bots = self.bots[i]
        obs = self.observers[i]
        while not g.is_over:
            movers = g.to_move()
            s = -1
            for m in movers:
                if m != agent:
                    s = m
                    break
            if s < 0:
                return
            bot = bots[s]
            assert bot is not None
            obs.step(g, s, bot.act(g.observation(s)))

    def _live(self, i: int) -> Game:
        """Deal until a hand reaches the agent; the chips of hands finished before it moved
        go to ``skipped[i]``."""
        g = self._deal(i)
        while g.is_over:
            out = g.outcome
            assert out is not None
            self.skipped[i] += hand_chips(out, self.ruleset)[self._agent[i]]
            g = self._deal(i)
        return g

    def _show(self, i: int, g: Game) -> None:
        seat = self._agent[i]
        self.observers[i].encode_into(g, seat, self._obs_rows[i])
        mask_into(g.legal_actions(seat), self._mask_rows[i])

    def reset(self, seed: int | None = None) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """Deal at every table until the agent has a decision; ``obs``, ``masks`` (the chips of
        hands skipped on the way are in ``skipped``)."""
        self._seed(seed)
        self.skipped[:] = 0
        self.games = [self._live(i) for i in range(self.n)]
        self.rewards[:] = 0
        self.dones[:] = False
        for i, g in enumerate(self.games):
            self._show(i, g)
        return self.obs, self.masks

    def step(self, actions: Sequence[int] | np.ndarray[Any, Any]) -> tuple[
        np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]
    ]:
        """Play the agent's ``actions[i]`` at each table, then the bots until the agent must act
        again; ``obs``, ``masks``, ``rewards``, ``dones`` (and ``skipped``). Illegal actions are
        refused before any table moves, as :meth:`SelfPlayBatch.step` does."""
        acts = self._checked(actions)
        self.rewards[:] = 0
        self.dones[:] = False
        self.skipped[:] = 0
        for i in range(self.n):
            g = self.games[i]
            self.observers[i].step(g, self._agent[i], ACTIONS[acts[i]])
            self._run_bots(i, g)
            if g.is_over:
                out = g.outcome
                assert out is not None
                self.rewards[i] = hand_chips(out, self.ruleset)[self._agent[i]]
                self.dones[i] = True
                g = self.games[i] = self._live(i)
            self._show(i, g)
        return self.obs, self.masks, self.rewards, self.dones
