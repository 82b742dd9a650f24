"""Stacked walls for engine tests: a thin re-export of :mod:`caishen.scenario`."""

from caishen.scenario import DICE, stacked_game, stacked_wall, tiles

__all__ = ["DICE", "stacked_game", "stacked_wall", "tiles"]
