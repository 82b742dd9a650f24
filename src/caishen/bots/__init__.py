"""Bots 机器人 that play from one seat's observation: ``random``, ``greedy``, ``strong``, and any
player named ``module:Class`` or by a ``caishen.players`` entry point (:mod:`caishen.bots.choose`).

Every bot is a :class:`~caishen.table.players.Player`: ``act(observation) -> action``, one of
``observation.legal_actions``; each always takes a win when one is offered. Standard library only.
"""

from caishen.bots.choose import (
    BOTS,
    ENTRY_POINT_GROUP,
    UnknownPlayerError,
    check_player,
    make_bot,
    player_factory,
    player_names,
)
from caishen.bots.gangci import GangciStrongBot
from caishen.bots.players import GreedyBot, StrongBot
from caishen.bots.shape import shanten_counts
from caishen.bots.view import View, from_observation

__all__ = [
    "BOTS",
    "ENTRY_POINT_GROUP",
    "GangciStrongBot",
    "GreedyBot",
    "StrongBot",
    "UnknownPlayerError",
    "View",
    "check_player",
    "from_observation",
    "make_bot",
    "player_factory",
    "player_names",
    "shanten_counts",
]
