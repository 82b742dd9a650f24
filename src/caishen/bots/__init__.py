"""Bots 机器人 that play from one seat's observation: ``random``, ``greedy``, ``strong``.

Every bot is a :class:`~caishen.table.players.Player`: ``act(observation) -> action``, one of
``observation.legal_actions``; each always takes a win when one is offered. Standard library only.
"""

from caishen.bots.choose import BOTS, make_bot
from caishen.bots.gangci import GangciStrongBot
from caishen.bots.players import GreedyBot, StrongBot
from caishen.bots.shape import shanten_counts
from caishen.bots.view import View, from_observation

__all__ = [
    "BOTS",
    "GangciStrongBot",
    "GreedyBot",
    "StrongBot",
    "View",
    "from_observation",
    "make_bot",
    "shanten_counts",
]
