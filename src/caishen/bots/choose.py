"""Bots by name for a table's rules: :func:`make_bot`."""

from __future__ import annotations

import random
from typing import Final

from caishen.bots.gangci import GangciStrongBot
from caishen.bots.players import GreedyBot, StrongBot
from caishen.table.players import Player, RandomPlayer
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.luoyang_gangci.rules import GangciRules

BOTS: Final = ("random", "greedy", "strong")


def make_bot(name: str, rng: random.Random | None = None, ruleset: VariantRules = LONGGANG) -> Player:
    """A bot by name (``random``, ``greedy``, ``strong``) for ``ruleset``, drawing its own
    randomness from ``rng``; ValueError names the choices. ``greedy`` plays every variant
    (shanten and improving tiles); ``strong`` is the variant's own (Longgang: the value of the
    hand, L19-L24; Gangci: the 次牌, G5)."""
    if name == "random":
        return RandomPlayer(rng)
    if name == "greedy":
        return GreedyBot(rng, ruleset)
    if name == "strong":
        if isinstance(ruleset, Ruleset):
            return StrongBot(rng, ruleset)
        if isinstance(ruleset, GangciRules):
            return GangciStrongBot(rng, ruleset)
        raise ValueError(f"no strong bot for {ruleset.name!r}")
    raise ValueError(f"unknown bot {name!r} (bots: {', '.join(BOTS)})")
