"""国士无双 (十三么) in its 16-tile form (L22.22): a pair of each wind, one each of Red, Green
and White, and one each of 1 and 9 of the three suits, 17 tiles with no meld.

Source (appendix N): "國士無雙(十三么)：東東南南西西北北 中發白19萬19餅19條". Longgang has no
White, so a wild (财神, 坐花) takes its place (D28, as for 十六不搭, D26); a wild may stand for
any other tile of the shape too. Whether the shape may win is the engine's call, through
:meth:`caishen.variants.longgang.rules.Ruleset.special_win`.
"""

from __future__ import annotations

from typing import Final

from caishen.hand import Hand
from caishen.tiles import GREEN, RED, WHITE, WINDS
from caishen.variants.longgang.unconnected import natural_counts

_PAIR: Final = 2
# The shape's places: kind -> copies (two of each wind, one of each other kind).
_PLACES: Final[dict[int, int]] = {
    **{w: _PAIR for w in WINDS},
    GREEN: 1, RED: 1, WHITE: 1,
    **{s * 9 + n: 1 for s in range(3) for n in (0, 8)},
}
_SIZE: Final = sum(_PLACES.values())  # 17: a 16-tile hand and the winning tile


def thirteen_orphans(hand: Hand, wilds: frozenset[int], size: int) -> bool:
    """Whether ``hand`` (the winning tile included, ``size`` + 1 tiles counting wild flowers)
    is a 国士无双: every natural tile in a place of its own, the wilds in the rest."""
    if hand.melds or size + 1 != _SIZE:  # 16-tile hands only; a concealed kong is a meld
        return False
    counts, held_wilds = natural_counts(hand, wilds)
    if sum(counts.values()) + held_wilds != _SIZE:
        return False  # a flower still to be replaced: the hand is short
    # 17 places and 17 tiles: the wilds fill exactly the places the natural tiles leave.
    return all(n <= _PLACES.get(k, 0) for k, n in counts.items())
