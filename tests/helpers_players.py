"""Players of a researcher's own, entered by ``module:Class`` (tests/test_players.py)."""

from __future__ import annotations

import random

from caishen.engine.actions import Action, ActionKind
from caishen.engine.observation import Observation
from caishen.variants.base import VariantRules


class Tsumogiri:
    """Wins when it can, never claims, and otherwise discards the first tile it may: a weak,
    fully predictable player (its choice depends on the legal actions only)."""

    name = "tsumogiri"
    observes = False

    def __init__(self, rng: random.Random | None, ruleset: VariantRules) -> None:
        self.ruleset = ruleset

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions
        for kind in (ActionKind.WIN, ActionKind.PASS, ActionKind.DISCARD):
            for a in legal:
                if a.kind is kind:
                    return a
        return legal[0]


class Bare:
    """A player with only ``act`` (no ``name``, no ``observes``): the registry adds them."""

    def __init__(self, rng: random.Random | None, ruleset: VariantRules) -> None:
        self.seen_full = 0

    def act(self, observation: Observation) -> Action:
        if observation.hand.concealed:
            self.seen_full += 1
        return observation.legal_actions[0]


NOT_CALLABLE = 3
