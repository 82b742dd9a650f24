"""Which tiles are wild 财神 for a Longgang seat (L4, L5, L7)."""

from __future__ import annotations

from caishen.variants.longgang.rules import Ruleset


def wild_kinds(indicator: int | None, wind: int | None, ruleset: Ruleset) -> frozenset[int]:
    """Kinds that are wild (财神) for the player at wind position ``wind`` (0 East = the
    dealer): :meth:`Ruleset.wild_kinds`."""
    return ruleset.wild_kinds(indicator, wind)
