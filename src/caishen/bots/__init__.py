"""Bots 机器人 that play from one seat's observation: ``random``, ``greedy``, ``strong``.

Every bot implements ``act(observation, legal_actions) -> action`` (:class:`Bot`) and
always takes a win when one is offered. Standard library only.
"""

from caishen.bots.players import BOTS, Bot, GreedyBot, RandomBot, StrongBot, make_bot
from caishen.bots.shape import shanten_counts
from caishen.bots.view import View, from_observation

__all__ = [
    "BOTS",
    "Bot",
    "GreedyBot",
    "RandomBot",
    "StrongBot",
    "View",
    "from_observation",
    "make_bot",
    "shanten_counts",
]
