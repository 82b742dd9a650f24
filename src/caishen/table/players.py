"""Players 玩家: the one protocol of everything that chooses moves, and the random player.

Bots, people at the game centre or the terminal, and the RL environments' agents all receive
one :class:`~caishen.engine.observation.Observation` (with its legal actions) and answer with
one of those actions.
"""

from __future__ import annotations

import hmac
import random
import secrets
from typing import Final, Protocol

from caishen.engine.actions import Action, ActionKind
from caishen.engine.observation import Observation

PLAYER_LABEL: Final = b"player"


class Player(Protocol):
    """Anything that picks one of ``observation.legal_actions``. ``observes``: whether it reads
    the rest of the observation; a player that does not (the random player) is handed a
    lighter one holding only its seat, the phase and the legal actions, which is faster."""

    name: str
    observes: bool

    def act(self, observation: Observation) -> Action: ...


class RandomPlayer:
    """Random legal player 随机: a win is always taken, otherwise a uniformly random legal action."""

    name = "random"
    observes = False

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(0)
        self._random = self.rng.random

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions
        for a in legal:
            if a.kind is ActionKind.WIN:
                return a
        # floor(random() * n): uniform up to 2^-53, and cheaper than randrange on this hot path
        return legal[int(self._random() * len(legal))]


def player_rng(match_seed: bytes | None, player: int) -> random.Random:
    """Random source of player ``player``: from the match seed when given
    (``HMAC-SHA256(match_seed, b"player" + index)``), else from :mod:`secrets`."""
    if match_seed is None:
        return random.Random(secrets.randbits(128))
    d = hmac.digest(match_seed, PLAYER_LABEL + player.to_bytes(4, "big"), "sha256")
    return random.Random(int.from_bytes(d, "big"))
