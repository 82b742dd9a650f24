"""十六不搭 and 十六不靠: sixteen tiles that make no 搭子 and a pair (L22.16), Longgang's one
winning shape outside the analyser's sets and pairs.

Source (appendix B): "十六不搭：手牌沒有任何的搭子，數牌只能有下列的組合:(3門可以相同組合)147 148 149 158
159 169 258 259 269 369再加上字牌東南西北中發白各1張 莊家需在起手就湊到1雀頭 子家須在第一摸牌就湊到雀頭，
此間若出現吃.碰.明槓 則失效". Appendix C, 十六不靠: the suits take 147, 258 and 369, one each.
The shape is 3 tiles of each suit, 7 honours and a pair: 17 tiles. Longgang has no White, so a
wild (财神, 坐花) takes its place; a wild may stand for any missing tile of the shape, the pair's
second tile included. Whether the shape may win (the first draw) is the engine's call, through
:meth:`caishen.variants.longgang.rules.Ruleset.first_draw_win`.
"""

from __future__ import annotations

from enum import StrEnum
from itertools import permutations
from typing import Final

from caishen.hand import Hand
from caishen.tiles import NUM_SUITED

# The suit triples of 十六不搭 as 0-8 number masks: any two tiles three or more apart.
_TRIPLES: Final = tuple(
    (1 << a) | (1 << b) | (1 << c)
    for a, b, c in ((0, 3, 6), (0, 3, 7), (0, 3, 8), (0, 4, 7), (0, 4, 8), (0, 5, 8),
                    (1, 4, 7), (1, 4, 8), (1, 5, 8), (2, 5, 8))
)
# 十六不靠: 147, 258 and 369, each in one suit ("不得錯位").
_KNITTED: Final = ((1 << 0) | (1 << 3) | (1 << 6), (1 << 1) | (1 << 4) | (1 << 7), (1 << 2) | (1 << 5) | (1 << 8))
_SUITS: Final = 3
_PAIR: Final = 2
_PLACES: Final = 3 * _SUITS + 7  # three tiles of each suit and the seven honours, White included


class Unconnected(StrEnum):
    """Which of the two shapes a hand makes: 十六不靠 is the stricter (and so also a 十六不搭)."""

    KNITTED = "knitted"          # 十六不靠
    UNCONNECTED = "unconnected"  # 十六不搭


def natural_counts(hand: Hand, wilds: frozenset[int]) -> tuple[dict[int, int], int]:
    """The concealed natural tiles of ``hand`` by kind, and how many wilds it holds (concealed,
    and wild flowers kept such as the 坐花): the count of a shape filled place by place
    (十六不搭 here, 国士无双 in ``orphans``)."""
    counts: dict[int, int] = {}
    held_wilds = sum(1 for f in hand.flowers if f in wilds)
    for t in hand.concealed:
        if t in wilds:
            held_wilds += 1
        else:
            counts[t] = counts.get(t, 0) + 1
    return counts, held_wilds


def shape(hand: Hand, wilds: frozenset[int], size: int) -> Unconnected | None:
    """The shape ``hand`` (the winning tile included, ``size`` + 1 tiles counting wild flowers)
    makes, 十六不靠 before 十六不搭; ``None`` for neither. No meld may be declared."""
    if hand.melds or size != _PLACES:  # 16-tile hands only (a 13-tile 十三不搭 is another hand)
        return None
    counts, held_wilds = natural_counts(hand, wilds)
    if sum(counts.values()) + held_wilds != size + 1:
        return None  # a flower still to be replaced: the hand is short
    if max(counts.values(), default=0) > _PAIR or sum(1 for n in counts.values() if n == _PAIR) > 1:
        return None
    # 16 places (three per suit, seven honours) and a pair: the wilds fill exactly the places the
    # natural tiles leave (sizes agree), so only the suits' numbers can fail.
    masks = [0] * _SUITS
    for t in counts:
        if t < NUM_SUITED:
            masks[t // 9] |= 1 << (t % 9)
    if any(all(masks[s] & p == masks[s] for s, p in enumerate(order)) for order in permutations(_KNITTED)):
        return Unconnected.KNITTED
    if all(any(m & p == m for p in _TRIPLES) for m in masks):
        return Unconnected.UNCONNECTED
    return None


def first_draw_shape(hand: Hand, wilds: frozenset[int], size: int, unconnected: bool,
                     knitted: bool) -> Unconnected | None:
    """The shape as the switches allow it: 十六不靠 with either switch (it is a 十六不搭 too),
    十六不搭 with ``unconnected`` only."""
    if not unconnected and not knitted:
        return None
    got = shape(hand, wilds, size)
    if got is Unconnected.KNITTED:
        return got if knitted else Unconnected.UNCONNECTED
    return got if unconnected else None
