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
from caishen.tiles import GREEN, RED, WINDS, is_honor, seat_wind, wind_of
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.scoring import (
    FirstTurn,
    Limit,
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
_CLEAR_MELDS: Final = 3  # melds shown that make a 四喜/字一色 plain to see 牌色清楚 (L24.8)
_FOUR_WINDS: Final = frozenset({Limit.BIG_FOUR_WINDS, Limit.SMALL_FOUR_WINDS})


@dataclass(frozen=True, slots=True)
class HandScore:
    """The scored hands of a won hand: the winner's result and each loser's own count
    (L23); ``loser_totals`` are what settlement uses (0 after 推土机/天胡/地胡, L23)."""

    winner: ScoreResult
    losers: dict[int, ScoreResult | None]
    loser_totals: dict[int, int]
    pays_all: int | None = None  # the discarder paying for all three losers 包三家 (L24.8)
    pays_all_why: str = ""

    def to_json(self) -> dict[str, object]:
        """The ``score`` of a record's hand result (``docs/records.md``)."""
        return {
            "winner": _score_json(self.winner),
            "losers": {str(s): (None if r is None else _score_json(r)) for s, r in sorted(self.losers.items())},
            "loser_totals": {str(s): t for s, t in sorted(self.loser_totals.items())},
        }

    def table(self) -> str:
        """The winner's itemised score (rule, item, 胡, 台) as plain text."""
        return self.winner.table()


def _score_json(r: ScoreResult) -> dict[str, object]:
    return {
        "fu": r.fu,
        "tai": r.tai,
        "total": r.total,
        "bonus_tai": r.bonus_tai,
        "limit": None if r.limit is None else r.limit.value,
    }


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


def _fed_plain_big_hand(outcome: Outcome, winner: ScoreResult) -> str:
    """(四)F: "當一家四風會齊或字一色牌色清楚時，打風牌或字牌讓其和牌，放炮一家包三家籌碼". Our
    reading of 牌色清楚: the winner shows three or more melds, all of winds (四喜) or all of
    honours (字一色), and the discard won on is a wind (四喜) or an honour (字一色)."""
    assert outcome.winner is not None and outcome.tile is not None
    melds = outcome.hands[outcome.winner].melds
    if len(melds) < _CLEAR_MELDS:
        return ""
    tile = outcome.tile
    if winner.limit in _FOUR_WINDS and tile in WINDS and sum(1 for m in melds if m.tiles[0] in WINDS) >= _CLEAR_MELDS:
        return "(四)F: a wind fed a 四喜 plain to see"
    if winner.limit is Limit.ALL_HONOURS and is_honor(tile) and all(is_honor(m.tiles[0]) for m in melds):
        return "(四)F: an honour fed a 字一色 plain to see"
    return ""


def _late_dragon(outcome: Outcome, ruleset: Ruleset) -> str:
    """(四)a-c: late in the hand (``late_discard_tiles`` live tiles left or fewer, "分張前幾張"),
    a 中 or 發 no copy of which had been seen (discarded or melded, "未碰過" / "發財沒出") is
    won on, while the discarder kept a lone tile the text says to discard first: his seat
    wind (a: "要先打坐風"), or the other dragon when a copy of it had been seen (b, c: "前面已有人
    打過紅中…此時要先打紅中")."""
    tile, d = outcome.tile, outcome.from_seat
    if tile not in (RED, GREEN) or d is None or outcome.live_tiles > ruleset.late_discard_tiles:
        return ""
    seen = [k for river in outcome.discards for k in river]
    seen += [k for h in outcome.hands for m in h.melds for k in m.tiles]  # a concealed kong shows its kind
    if tile in seen:
        return ""
    held = outcome.hands[d].concealed
    wilds = outcome.wilds[d] if outcome.wilds else frozenset()
    own_wind = seat_wind(wind_of(d, outcome.dealer))
    other = GREEN if tile == RED else RED
    if own_wind not in wilds and held.count(own_wind) == 1:
        return "(四)a: a late unseen dragon discarded before a lone seat wind"
    if other not in wilds and held.count(other) == 1 and other in seen:
        return "(四)b-c: a late unseen dragon discarded before a lone dragon already seen"
    return ""


def pays_for_all(outcome: Outcome, winner: ScoreResult, ruleset: Ruleset) -> tuple[int | None, str]:
    """包三家 (L24.8): the seat whose discard pays for all three losers, and why; ``None``
    when the losers pay as usual. Only a win on a discard: robbing a kong is not a discard."""
    if not ruleset.discarder_pays_all or outcome.how is not WinHow.DISCARD or outcome.from_seat is None:
        return None, ""
    why = _fed_plain_big_hand(outcome, winner) or _late_dragon(outcome, ruleset)
    return (outcome.from_seat, why) if why else (None, "")


def score_outcome(outcome: Outcome, ruleset: Ruleset) -> HandScore | None:
    """Score a finished hand for settlement: ``None`` for a draw 流局 (L17)."""
    w = outcome.winner
    if w is None:
        return None
    indicator = outcome.indicator
    full = outcome.hands[w]
    how = outcome.how
    first = FirstTurn.HEAVENLY if outcome.heavenly else (
        FirstTurn.EARTHLY if outcome.earthly else FirstTurn.HUMAN if outcome.human else FirstTurn.NONE
    )  # 人胡 (L15): the engine sets outcome.human only with the human_win switch
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
    payer, why = pays_for_all(outcome, winner, ruleset)
    return HandScore(winner, losers, loser_totals(winner, losers), payer, why)
