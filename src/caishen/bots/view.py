"""What a bot knows about the table: a :class:`View`, built from one seat's observation
only (bots never see hidden information: other hands, the wall order, the seed).
"""

from __future__ import annotations

from dataclasses import dataclass

from caishen.engine.observation import Observation
from caishen.hand import Hand, Meld
from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER, is_flower
from caishen.variants.base import VariantRules


@dataclass(slots=True)
class View:
    """One seat's knowledge: own hand, the wilds for this seat (财神 and 坐花), and what
    is open on the table (discards, melds and laid-open flowers of every seat). Made for
    every decision and not changed after: not frozen only because a frozen dataclass pays
    a ``setattr`` per field in pure Python."""

    seat: int
    hand: Hand
    wilds: frozenset[int]
    indicator: int | None
    ruleset: VariantRules
    discards: tuple[tuple[int, ...], ...]
    melds: tuple[tuple[Meld, ...], ...]
    flowers: tuple[tuple[int, ...], ...]
    wall_left: int
    dealer: int = 0

    def __reduce__(self) -> tuple[type[View], tuple[object, ...]]:
        # Pickle and copy through the constructor, as Hand and Meld do (one form for both builds).
        return (View, (self.seat, self.hand, self.wilds, self.indicator, self.ruleset, self.discards,
                       self.melds, self.flowers, self.wall_left, self.dealer))

    def unseen(self) -> list[int]:
        """Copies of each non-flower kind this seat has not seen anywhere (34 counts): 4
        less own concealed tiles, every meld, every discard still on the table, and the
        wild indicator (never drawn, L4)."""
        c = [4] * NUM_KINDS  # flowers counted too, then dropped
        for k in self.hand.concealed:
            c[k] -= 1
        for seat_melds in self.melds:
            for m in seat_melds:
                for k in m.tiles:
                    c[k] -= 1
        for pile in self.discards:
            for k in pile:
                c[k] -= 1
        if self.indicator is not None:
            c[self.indicator] -= 1
        del c[NUM_NON_FLOWER:]
        return c if min(c) >= 0 else [max(0, x) for x in c]

    def unseen_flowers(self) -> int:
        """Flowers not yet seen (laid open or held)."""
        seen = set(self.hand.flowers)
        for f in self.flowers:
            seen.update(f)
        if self.indicator is not None and is_flower(self.indicator):
            seen.add(self.indicator)
        return 4 - len(seen) if self.ruleset.has_flowers else 0


def from_observation(observation: Observation, ruleset: VariantRules) -> View:
    """The view of a :class:`caishen.engine.game.Observation` (the only input a bot gets) under
    ``ruleset`` (the table's rules are public)."""
    o = observation
    return View(
        seat=o.seat,
        hand=o.hand,
        wilds=o.wilds,
        indicator=o.indicator,
        ruleset=ruleset,
        discards=o.discards,
        melds=o.melds,
        flowers=o.flowers,
        wall_left=o.live_tiles,
        dealer=o.dealer,
    )
