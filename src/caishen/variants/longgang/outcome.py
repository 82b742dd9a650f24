"""Scoring an engine :class:`~caishen.engine.outcome.Outcome` the Longgang way (L19-L23).

The engine says what happened; this module turns a finished hand into the winner's itemised
score and each loser's own count, which the table layer settles in chips (L24).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from caishen.engine.outcome import Outcome, WinHow
from caishen.hand import Hand
from caishen.shapes.analysis import Arrangement, Form
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.scoring import (
    FirstTurn,
    ScoreResult,
    ScoringError,
    WinBy,
    WinContext,
    loser_totals,
    score_arrangement,
    score_hand,
    score_win,
)

SEATS: Final = 4



@dataclass(frozen=True, slots=True)
class HandScore:
    """The scored hands of a won hand: the winner's result and each loser's own count
    (L23); ``loser_totals`` are what settlement uses (0 after 推土机/天胡/地胡, L23)."""

    winner: ScoreResult
    losers: dict[int, ScoreResult | None]
    loser_totals: dict[int, int]


_WIN_BY: Final = {
    WinHow.DISCARD: WinBy.DISCARD,
    WinHow.ROB_KONG: WinBy.ROB_KONG,
}


def _without(hand: Hand, k: int) -> Hand:
    if k in hand.flowers:
        return Hand(hand.concealed, hand.melds, tuple(f for f in hand.flowers if f != k))
    return hand.without_tile(k)


def _loser_score(hand: Hand, seat: int, dealer: int, indicator: int | None, ruleset: Ruleset,
                 unreplaced: tuple[int, ...] = ()) -> ScoreResult | None:
    """A loser's own count (L23). In 分张 (L17) a loser may hold one tile more (the sea-floor
    tile he took and may not discard): the best count without one of his concealed tiles
    is used (our choice where the sources are silent, docs/records.md). A flower without its
    replacement when another wins (taken in 分张) counts nothing (L20.3: "若別家已胡牌，自己
    花牌未補槓，則不計胡數"); a hand left short by a flower still held cannot be counted: None
    (counts 0)."""
    try:
        return score_hand(hand, seat, dealer, indicator, ruleset, unreplaced)
    except ScoringError:
        pass
    best: ScoreResult | None = None
    for k in sorted(set(hand.concealed)):
        try:
            r = score_hand(hand.without_tile(k), seat, dealer, indicator, ruleset, unreplaced)
        except ScoringError:
            continue
        if best is None or r.total > best.total:
            best = r
    return best


def score_outcome(outcome: Outcome, ruleset: Ruleset) -> HandScore | None:
    """Score a finished hand for settlement: ``None`` for a draw 流局 (L17)."""
    w = outcome.winner
    if w is None:
        return None
    indicator = outcome.indicator
    full = outcome.hands[w]
    how = outcome.how
    first = FirstTurn.HEAVENLY if outcome.heavenly else (
        FirstTurn.EARTHLY if outcome.earthly else FirstTurn.NONE
    )
    if how is WinHow.BULLDOZER:
        # 推土机 declared on another's discard (L8): the discard is not taken, the 16 tiles win
        # as they are. Scored as the bulldozer form of the hand held, on a discard.
        ctx = WinContext(-1 if indicator is None else indicator,  # no winning tile: the context needs one
                          WinBy.DISCARD, w, outcome.dealer, indicator, first)
        winner = score_arrangement(full, Arrangement(Form.BULLDOZER, ()), ctx, ruleset)
    else:
        tile = outcome.tile
        assert tile is not None  # only a bulldozer on another's discard has no winning tile
        if how is WinHow.SELF_DRAW:
            by = WinBy.SEA_FLOOR if outcome.sea_floor else (
                WinBy.KONG_REPLACEMENT if outcome.after_kong else WinBy.SELF_DRAW
            )
        else:
            by = _WIN_BY[how] if how is not None else WinBy.DISCARD
        ctx = WinContext(tile, by, w, outcome.dealer, indicator, first)
        winner = score_win(_without(full, tile), ctx, ruleset)
    unreplaced = outcome.unreplaced_flowers or ((),) * SEATS
    losers: dict[int, ScoreResult | None] = {
        s: _loser_score(outcome.hands[s], s, outcome.dealer, indicator, ruleset, unreplaced[s])
        for s in range(SEATS) if s != w
    }
    return HandScore(winner, losers, loser_totals(winner, losers))
