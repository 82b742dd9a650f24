"""The one seam between Gangci and the core's hand-shape analysis (port this file only).

Gangci hands are standard 13-tile hands (4 sets + a pair, no wilds, no special forms, G1);
the core's analyser is told so by the ``luoyang-gangci`` shape ruleset.
"""

from __future__ import annotations

from typing import Final

from caishen.hand import Hand
from caishen.shapes.analysis import ShapeForms, is_win, waits
from caishen.tiles import NUM_KINDS, is_flower

#: The shape ruleset the analyser and the notation parser are told (13 tiles, White, no flowers, G1).
SHAPES: Final = ShapeForms(hand_size=13, tile_kinds=tuple(k for k in range(NUM_KINDS) if not is_flower(k)))
_SHAPES: Final = SHAPES


def complete(hand: Hand) -> bool:
    """Whether ``hand`` (winning tile included) is 4 sets + a pair, declared melds fixed."""
    return is_win(hand, _SHAPES)


def hand_waits(hand: Hand) -> tuple[int, ...]:
    """The kinds that complete ``hand`` (one tile short); a kind held four times is none."""
    return waits(hand, _SHAPES)
