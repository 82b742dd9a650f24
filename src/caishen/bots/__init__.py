"""Bots 机器人 that play from one seat's observation: ``random``, ``greedy``, ``strong``.

Every bot is a :class:`~caishen.table.players.Player`: ``act(observation) -> action``, one of
``observation.legal_actions``; each always takes a win when one is offered. Standard library only.
"""

from caishen.bots.players import BOTS, GreedyBot, StrongBot, make_bot
from caishen.bots.shape import shanten_counts
from caishen.bots.view import View, from_observation

__all__ = [
    "BOTS",
    "GreedyBot",
    "StrongBot",
    "View",
    "from_observation",
    "make_bot",
    "shanten_counts",
]
