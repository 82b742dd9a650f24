"""Discard advice for a learner 新手提示: the terminal's "good discards" and the game centre's
help, from one place. For a hand that must discard: each sensible discard (those that leave
the fewest steps to ready, 向听), the shanten after it, and how many unseen tiles would then
improve the hand (lower its shanten; when ready, complete it)."""

from __future__ import annotations

from dataclasses import dataclass

from caishen.bots.view import from_observation
from caishen.engine.observation import Observation
from caishen.hand import Hand
from caishen.shapes.analysis import shanten, waits
from caishen.tiles import NUM_NON_FLOWER, is_flower
from caishen.variants.base import VariantRules


@dataclass(frozen=True, slots=True)
class Discard:
    """One sensible discard: ``tile``, the ``shanten`` after it, the kinds that would improve
    the hand then (its waits when ready) and how many of them are unseen."""

    tile: int
    shanten: int
    improving: tuple[int, ...]
    unseen: int


def hand_of(observation: Observation) -> Hand:
    o = observation.hand
    return Hand(o.concealed, o.melds, o.flowers)


def good_discards(observation: Observation, ruleset: VariantRules) -> list[Discard]:
    """The discards that leave the fewest steps to ready, the most unseen improving tiles
    first (ties by tile). Raises ValueError for a hand the analyser does not count."""
    hand = hand_of(observation)
    wilds = observation.wilds
    unseen = from_observation(observation, ruleset).unseen()
    after = [(shanten(hand.without_tile(k), ruleset, wilds), k) for k in sorted(set(hand.concealed))]
    low = min(s for s, _ in after)
    out: list[Discard] = []
    for s, k in after:
        if s != low:
            continue
        rest = hand.without_tile(k)
        if s == 0:
            better = [j for j in waits(rest, ruleset, wilds) if not is_flower(j)]
        else:
            better = [j for j in range(NUM_NON_FLOWER)
                      if unseen[j] and shanten(rest.with_tile(j), ruleset, wilds) < s]
        out.append(Discard(k, s, tuple(better), sum(unseen[j] for j in better)))
    out.sort(key=lambda d: (-d.unseen, d.tile))
    return out
