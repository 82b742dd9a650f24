"""Which tiles are wild 财神 for a Longgang seat (L4, L5, L7)."""

from __future__ import annotations

from caishen.tiles import FLOWERS, is_flower, seat_flower
from caishen.variants.longgang.rules import Ruleset


def wild_kinds(indicator: int | None, seat: int | None, ruleset: Ruleset) -> frozenset[int]:
    """Kinds that are wild (财神) for one player.

    The indicator's kind (L4: the indicator itself is never drawn, the other copies
    are wild); if the indicator is a flower and ``flower_indicator_wilds``, every other
    flower (花财神, L5); plus the seat's own flower 坐花 if ``own_flower_wild`` (L7).
    """
    out: set[int] = set()
    if indicator is not None:
        if is_flower(indicator):
            if ruleset.flower_indicator_wilds:
                out.update(f for f in FLOWERS if f != indicator)
        else:
            out.add(indicator)
    if seat is not None and ruleset.own_flower_wild and ruleset.has_flowers:
        out.add(seat_flower(seat))
    return frozenset(out)
