"""A small policy network that plays with numpy alone (docs/env.md, "A learned bot"): the
inference side of ``training/train_policy.py``. Torch, or whatever trains the weights, is never
needed to play.

The network: the v1 observation (595 floats) → ``Linear`` → ReLU → ``Linear`` → ReLU →
``Linear`` → 236 logits (plus a value head used only in training), the illegal actions masked
out, the best legal action played (or one drawn from the softmax with ``sample=True``). The
weights are one ``.npz`` file: ``w0 b0 w1 b1 w2 b2`` (``w`` as ``(in, out)``), float32 (or
float16 on disk: :meth:`Policy.save` with ``half``). A network whose first layer is wider by
:data:`FEATURES` also takes what ``greedy`` weighs (:func:`features_into`: shanten and improving
tiles per discard, shanten gain per claim) after the observation; the player computes them.

:class:`PolicyPlayer` is a :class:`~caishen.table.players.Player`, so it sits wherever a bot
does by the name ``caishen.env.policy:PolicyPlayer`` (simulate, arena, play, the single-seat
env, the game centre), its weights read from ``$CAISHEN_POLICY`` (a path to the ``.npz``).
:class:`LearnedPlayer` is the bot level ``learned``: the network trained here, shipped in
``caishen/data`` (:data:`LEARNED_WEIGHTS`), which beats ``greedy`` in ``caishen arena``
(docs/env.md, "A learned bot"); Longgang only.
"""

from __future__ import annotations

import os
import random
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np

from caishen.bots.players import Evaluator, GreedyBot
from caishen.bots.view import from_observation
from caishen.engine.actions import Action, ActionKind
from caishen.engine.observation import Observation
from caishen.env.encoding import (
    ACTIONS,
    ADDED_KONG_BASE,
    CHOW_BASE,
    NUM_ACTIONS,
    OBS_SIZE,
    action_index,
    encode_into,
    mask_into,
)
from caishen.errors import ArgumentError, CaishenError
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG, Ruleset

POLICY_ENV: Final = "CAISHEN_POLICY"
LAYERS: Final = ("w0", "b0", "w1", "b1", "w2", "b2")
_KINDS: Final = 34
_CLAIMS: Final = ADDED_KONG_BASE - CHOW_BASE  # chow, pong, exposed kong: indices 34-164
FEATURES: Final = 2 * _KINDS + 9 + _CLAIMS
"""Inputs a network may take after the observation: what ``greedy`` weighs (shanten and
improving tiles), per action: whether each discard keeps the least shanten (34), its improving
tiles / 40 (34), the shanten one-hot (-1 .. 7, 9), each claim's shanten gain (131)."""


class Policy:
    """The network's weights and its forward pass in numpy."""

    def __init__(self, weights: dict[str, np.ndarray[Any, Any]]) -> None:
        missing = [k for k in LAYERS if k not in weights]
        if missing:
            raise ArgumentError(f"policy weights lack {', '.join(missing)}")
        self.w = [np.ascontiguousarray(weights[k], dtype=np.float32) for k in LAYERS]
        if self.w[0].shape[0] not in (OBS_SIZE, OBS_SIZE + FEATURES) or self.w[4].shape[1] != NUM_ACTIONS:
            raise ArgumentError(f"policy weights are for {self.w[0].shape[0]} inputs and {self.w[4].shape[1]} actions, "
                             f"not {OBS_SIZE} (observation v1, or + {FEATURES} features) and {NUM_ACTIONS}")
        self.features = self.w[0].shape[0] > OBS_SIZE
        """Whether the network takes :func:`features_into` after the observation."""

    @classmethod
    def load(cls, path: str | Path) -> Policy:
        with np.load(str(path)) as z:
            return cls({k: z[k] for k in z.files})

    def save(self, path: str | Path, half: bool = False) -> None:
        """Write the ``.npz``; ``half``: the weights stored as float16 (half the bytes; loaded
        back as float32, so the forward pass is the same float32 one)."""
        arrays: dict[str, Any] = {k: w.astype(np.float16) if half else w for k, w in zip(LAYERS, self.w, strict=True)}
        np.savez(str(path), **arrays)

    def logits(self, obs: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """Logits for one observation (or a batch of rows)."""
        w0, b0, w1, b1, w2, b2 = self.w
        h = np.maximum(obs @ w0 + b0, 0.0)
        h = np.maximum(h @ w1 + b1, 0.0)
        out: np.ndarray[Any, Any] = h @ w2 + b2
        return out

    def size(self) -> int:
        """Bytes of the weights (float32)."""
        return int(sum(w.nbytes for w in self.w))


LEARNED_WEIGHTS: Final = "learned-longgang.npz"
"""The shipped weights of the bot level ``learned`` (in ``caishen/data``; float16)."""

_LOADED: dict[str, Policy] = {}
_GREEDY: Final = GreedyBot()


def features_into(observation: Observation, ruleset: VariantRules, out: np.ndarray[Any, Any]) -> None:
    """Write the :data:`FEATURES` of ``observation`` into ``out`` (float32, zeroed first)."""
    out[:] = 0.0
    legal = observation.legal_actions
    ev = Evaluator(from_observation(observation, ruleset))
    if any(a.kind is ActionKind.DISCARD for a in legal):
        shanten, keep = ev.discard_shantens()
        counts = ev.shape.counts
        for t in range(_KINDS):
            if counts[t] and keep >> t & 1:
                out[t] = 1.0
                out[_KINDS + t] = ev.discard_outs(t) / 40.0
    else:
        shanten = ev.shanten_of(ev.lo, ev.hi, ev.shape.melds)
        for a in legal:
            if a.kind in (ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG):
                got = _GREEDY.claim_result(ev, a)
                if got is not None:
                    out[2 * _KINDS + 9 + action_index(a) - CHOW_BASE] = (shanten - got) / 2.0
    out[2 * _KINDS + min(max(shanten, -1), 7) + 1] = 1.0


def policy_from_env() -> Policy:
    """The policy ``$CAISHEN_POLICY`` names (loaded once per process)."""
    path = os.environ.get(POLICY_ENV, "")
    if not path:
        raise ArgumentError(f"set ${POLICY_ENV} to a policy's weights (.npz) to play caishen.env.policy:PolicyPlayer")
    policy = _LOADED.get(path)
    if policy is None:
        try:
            policy = _LOADED[path] = Policy.load(path)
        except OSError as exc:
            raise ArgumentError(f"${POLICY_ENV}={path}: {exc}") from None
    return policy


class PolicyPlayer:
    """Plays the policy of ``$CAISHEN_POLICY`` (or ``policy``): the best legal action by its
    logits; a win is always taken, as every bot takes it. ``sample=True`` draws from the
    masked softmax with ``rng`` instead."""

    name = "policy"
    observes = True

    def __init__(self, rng: random.Random | None = None, ruleset: VariantRules | None = None,
                 policy: Policy | None = None, sample: bool = False) -> None:
        self.policy = policy if policy is not None else policy_from_env()
        self.rng = rng or random.Random(0)
        self.sample = sample
        self.ruleset = ruleset if ruleset is not None else LONGGANG
        self._obs = np.zeros(OBS_SIZE + (FEATURES if self.policy.features else 0), dtype=np.float32)
        self._obs_view = self._obs[:OBS_SIZE].data
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions
        for a in legal:
            if a.kind is ActionKind.WIN:
                return a
        if len(legal) == 1:
            return legal[0]
        encode_into(observation, self._obs_view)
        if self.policy.features:
            features_into(observation, self.ruleset, self._obs[OBS_SIZE:])
        mask_into(legal, self._mask.data)
        logits = self.policy.logits(self._obs)
        logits = np.where(self._mask == 1, logits, -np.inf)
        if self.sample:
            p = np.exp(logits - logits.max())
            p /= p.sum()
            index = int(np.searchsorted(np.cumsum(p), self.rng.random() * p.sum()))
            index = min(index, NUM_ACTIONS - 1)
            if not self._mask[index]:
                index = int(np.argmax(logits))
        else:
            index = int(np.argmax(logits))
        return ACTIONS[index]


def learned_policy() -> Policy:
    """The network of the bot level ``learned``, shipped with the package (loaded once)."""
    policy = _LOADED.get(LEARNED_WEIGHTS)
    if policy is None:
        with resources.as_file(resources.files("caishen") / "data" / LEARNED_WEIGHTS) as path:
            policy = _LOADED[LEARNED_WEIGHTS] = Policy.load(path)
    return policy


class LearnedPlayer(PolicyPlayer):
    """The bot level ``learned`` 学习型: :class:`PolicyPlayer` with the shipped network, trained
    here on Longgang's default rules (docs/env.md, "A learned bot"). Longgang only: it has never
    seen another variant's hands, so any other ruleset is refused."""

    name = "learned"

    def __init__(self, rng: random.Random | None = None, ruleset: VariantRules | None = None) -> None:
        if ruleset is not None and not isinstance(ruleset, Ruleset):
            raise CaishenError(f"the learned bot plays Longgang only (trained on its rules), not {ruleset.name!r}",
                               code="learned-longgang-only")
        super().__init__(rng, ruleset, policy=learned_policy())
