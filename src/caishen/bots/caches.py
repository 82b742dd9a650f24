"""One share for every cache a bot's decisions fill (the game centre's memory, issue 26).

A bot's choice goes through the shape caches (:mod:`caishen.bots.shape`), the shape
analysis' groups and splits (:mod:`caishen.shapes.analysis`), the scoring's groups
(:mod:`caishen.variants.longgang.readings`) and the strong bot's chips of a win
(:mod:`caishen.bots.players`). Each is bounded and cleared when full; at their full limits
they hold, by the estimates beside them, some 80 MB. The game centre keeps them all to one share of their limits
(``ServeOptions.bot_cache_share``): a smaller share holds less and finds fewer answers
ready; the choices are the same at any share (``tests/test_bots.py``).
"""

from __future__ import annotations

from caishen.bots import players, shape
from caishen.shapes import analysis
from caishen.variants.longgang import readings


def set_cache_share(share: float) -> None:
    """Keep every cache a bot fills to ``share`` (over 0, at most 1) of its limit, from now
    on; caches already past their new limit are cleared."""
    shape.set_cache_share(share)  # checks the share first
    analysis.set_cache_share(share)
    readings.set_cache_share(share)
    players.set_win_chips_share(share)
