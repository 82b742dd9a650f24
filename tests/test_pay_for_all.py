"""包三家 (L24.8): when the discarder pays for all three losers (issue 10, item 10)."""

from __future__ import annotations

import dataclasses

from caishen.engine.outcome import Outcome, WinHow
from caishen.notation import parse_hand
from caishen.tiles import GREEN, RED
from caishen.variants.longgang.outcome import pays_for_all, score_outcome
from caishen.variants.longgang.rules import LONGGANG

FILLER = "1m4m7m 2p5p8p 3s6s 1z2z 9m 3p 8s 5s"  # 16 tiles that win nothing


def _outcome(winner_hand: str, tile: int, discarder_hand: str, *, discards: tuple[tuple[int, ...], ...] = ((),) * 4,
             live: int = 4) -> Outcome:
    """South wins on West's ``tile``; East and North hold filler."""
    hands = (parse_hand(FILLER), parse_hand(winner_hand), parse_hand(discarder_hand), parse_hand(FILLER))
    return Outcome(winner=1, how=WinHow.DISCARD, tile=tile, from_seat=2, dealer=0, indicator=None, hands=hands,
                   wilds=(frozenset(),) * 4, discards=discards, live_tiles=live)


WIN_ON_RED = "123m456m789m123p456p 7z7z"      # South, with the 中 won on
WEST_LONE_WIND = "3m6m9m 1p4p 2s5s 3z 6z 8m 7p 2p 1s 4s 8s"  # West after discarding 中: lone West wind
WEST_LONE_GREEN = "3m6m9m 1p4p 2s5s 4z 6z 8m 7p 2p 1s 4s 8s"  # lone 發, no lone West


def _who(out: Outcome) -> int | None:
    hs = score_outcome(out, LONGGANG)
    assert hs is not None
    return hs.pays_all


def test_a_late_unseen_dragon_before_a_lone_seat_wind_pays_for_all() -> None:
    assert _who(_outcome(WIN_ON_RED, RED, WEST_LONE_WIND)) == 2


def test_not_late_or_already_seen_or_switched_off_pays_as_usual() -> None:
    assert _who(_outcome(WIN_ON_RED, RED, WEST_LONE_WIND, live=9)) is None
    seen = ((), (), (), (RED,))
    assert _who(_outcome(WIN_ON_RED, RED, WEST_LONE_WIND, discards=seen)) is None
    out = _outcome(WIN_ON_RED, RED, WEST_LONE_WIND)
    hs = score_outcome(out, LONGGANG.replace(discarder_pays_all=False))
    assert hs is not None and hs.pays_all is None
    hs = score_outcome(out, LONGGANG.replace(late_discard_tiles=0))
    assert hs is not None and hs.pays_all is None


def test_b_c_discarding_the_unseen_dragon_before_the_seen_one() -> None:
    """(四)b, c: 中 had been discarded, 發 not; West keeps a lone 中 and discards 發."""
    win_on_green = "123m456m789m123p456p 6z6z"
    west = "3m6m9m 1p4p 2s5s 4z 7z 8m 7p 2p 1s 4s 8s"
    seen_red = ((RED,), (), (), ())
    assert _who(_outcome(win_on_green, GREEN, west, discards=seen_red)) == 2
    assert _who(_outcome(win_on_green, GREEN, west)) is None  # 中 not seen: no rule says 中 first
    assert _who(_outcome(win_on_green, GREEN, WEST_LONE_GREEN.replace("6z", "7z7z"), discards=seen_red)) is None


def test_f_a_plain_four_winds_fed_by_a_wind() -> None:
    south = "[111z] [222z] [333z] 5p5p 123m 4z4z4z"
    out = _outcome(south, 30, WEST_LONE_GREEN)  # 4z, North wind
    hs = score_outcome(out, LONGGANG)
    assert hs is not None and hs.winner.limit is not None
    assert pays_for_all(out, hs.winner, LONGGANG)[0] == 2
    # robbing a kong is not a discard
    robbed = dataclasses.replace(out, how=WinHow.ROB_KONG)
    hs = score_outcome(robbed, LONGGANG)
    assert hs is not None and hs.pays_all is None
