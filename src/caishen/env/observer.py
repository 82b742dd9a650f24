"""Versioned observations: one :class:`Observer` per table writes a seat's observation vector in
place, in the layout of ``obs_version`` (docs/env.md):

* ``"v1"``: today's 595 floats (:func:`caishen.env.encoding.encode_into`), unchanged;
* ``"v2"``: v1, then the history planes of :mod:`caishen.env.history` (ordered discards with
  claimed and tsumogiri flags, the claims made, the drawn tile, the wall position).

The history is kept by the observer, which sees every move: the env makes moves through
:meth:`Observer.step` instead of ``game.step``.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from gymnasium import spaces

from caishen.engine.actions import Action
from caishen.engine.game import Game
from caishen.env.encoding import NUM_ACTIONS, OBS_HIGH, OBS_SIZE, encode_into
from caishen.env.history import HISTORY_SIZE, History
from caishen.errors import ArgumentError

OBS_VERSIONS: Final = ("v1", "v2")


def obs_size(version: str) -> int:
    """Floats in an observation of ``version``."""
    if version == "v1":
        return OBS_SIZE
    if version == "v2":
        return OBS_SIZE + HISTORY_SIZE
    raise ArgumentError(f"obs_version must be one of {', '.join(OBS_VERSIONS)}, not {version!r}")


def obs_space(version: str) -> spaces.Dict:
    """The observation space of the envs for ``version``."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, OBS_HIGH, (obs_size(version),), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
    })


class Observer:
    """Encodes a seat's observation of one table in the layout of ``version``; for ``v2`` it
    follows the hand through :meth:`reset` and :meth:`step`."""

    def __init__(self, version: str = "v1") -> None:
        self.size = obs_size(version)
        self.version = version
        self.history: History | None = History() if version == "v2" else None

    def reset(self, game: Game) -> None:
        """A new hand starts."""
        if self.history is not None:
            self.history.reset(game)

    def step(self, game: Game, seat: int, action: Action) -> None:
        """Make a move (``game.step``), keeping the history."""
        if self.history is None:
            game.step(seat, action)
        else:
            self.history.step(game, seat, action)

    def encode_into(self, game: Game, seat: int, out: memoryview[Any]) -> None:
        """Write ``seat``'s observation into ``out`` (a float32 buffer of :attr:`size`)."""
        if self.history is None:
            encode_into(game.observation(seat), out)
        else:
            encode_into(game.observation(seat), out[:OBS_SIZE])
            self.history.encode_into(game, seat, out[OBS_SIZE:])
