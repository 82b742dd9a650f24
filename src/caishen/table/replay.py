"""Replaying and verifying match records 复盘与验证: every move, draw, score and chip.

:func:`replay` plays every hand of a record again on its recorded wall and compares all it
finds with the record; :func:`verify` does the same on walls recomputed from the revealed seeds
(``docs/fairness.md``). Both run the table layer (:class:`~caishen.table.match.Table`), so a
replay reproduces seating, scores and chips exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from caishen import fair
from caishen.table.match import Table
from caishen.table.record import HandRecord, MatchRecord, ReplayError, VerifyError, last_game, replay_steps
from caishen.table.seating import draw_seats
from caishen.tiles import tile_name
from caishen.variants.base import VariantRules

__all__ = ["ReplaySummary", "replay", "verify"]


def _canon(x: Any) -> str:
    """JSON text that tells ``true`` from ``1`` and ``3.0`` from ``3`` (Python's ``==`` does not)."""
    return json.dumps(x, sort_keys=True, ensure_ascii=False)


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if _canon(a.get(k)) != _canon(b.get(k)):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if _canon(x) != _canon(y):
                return _first_difference(x, y, f"{path}[{i}]")
    got, said = json.dumps(a, ensure_ascii=False), json.dumps(b, ensure_ascii=False)
    if len(said) > 80:
        said = said[:77] + "..."
    return f"{path or 'result'}: replay gives {got}, record says {said}"


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    """What a full replay (or verification) checked."""

    hands: int
    actions: int
    draws: int
    result: dict[str, Any]


def _run(record: MatchRecord, fair_mode: bool) -> ReplaySummary:
    ruleset = record.ruleset
    draw = record.seat_draw
    if fair_mode and draw is not None and record.seed is not None:
        expected = draw_seats(record.seed, len(record.players))
        if expected != draw:
            raise VerifyError(0, None, "the seat draw is not the one the match seed gives (L2)",
                              json.dumps(expected.to_json(), ensure_ascii=False), json.dumps(draw.to_json(), ensure_ascii=False))
    table = Table(ruleset, len(record.players), draw)
    n_actions = n_draws = 0
    for hi, hand in enumerate(record.hands):
        if hand.index != hi:
            raise ReplayError(hi, None, "seats", f"hand {hi} is numbered {hand.index}")
        if table.over:
            raise ReplayError(hi, None, "end", "the match was already over before this hand")
        if tuple(hand.seats) != table.seats:
            raise ReplayError(hi, None, "seats", f"seats should be {list(table.seats)} (L2, L18), record says {list(hand.seats)}")
        wall, dice = hand.wall, hand.dice
        if fair_mode:
            wall, dice = _fair_parts(hand, ruleset)
            if record.seed is not None and hand.seed != fair.hand_seed(record.seed, hi):
                raise VerifyError(hi, None, "the hand's seed is not the one the match seed gives (L4)",
                                  fair.hand_seed(record.seed, hi).hex(), (hand.seed or b"").hex())
        game = last_game(replay_steps(hand, ruleset, wall, dice, fair_mode))
        assert game.outcome is not None
        result = json.loads(_canon(table.settle(game.outcome).to_json()))
        if _canon(result) != _canon(hand.result):
            raise ReplayError(hi, None, "result", _first_difference(result, hand.result))
        n_actions += len(hand.actions)
        n_draws += len(hand.draws)
    result = json.loads(_canon(table.result().to_json()))
    if _canon(result) != _canon(record.result):
        raise ReplayError(None, None, "result", _first_difference(result, record.result))
    return ReplaySummary(len(record.hands), n_actions, n_draws, result)


def _fair_parts(hand: HandRecord, ruleset: VariantRules) -> tuple[tuple[int, ...], tuple[int, int, int, int]]:
    """Commitment, wall and dice recomputed from the revealed seed and compared (L4)."""
    if hand.seed is None:
        raise VerifyError(hand.index, None, "seed not revealed", "the hand's seed", "null")
    c = fair.commitment(hand.seed)
    if c != hand.commitment:
        raise VerifyError(hand.index, None, "the revealed seed does not match the commitment", f"SHA-256 {c}", hand.commitment)
    wall = fair.shuffled_wall(hand.seed, ruleset)
    if wall != hand.wall:
        if len(wall) != len(hand.wall):
            raise VerifyError(hand.index, None, "wall size", f"{len(wall)} tiles", f"{len(hand.wall)} tiles")
        p = next(i for i, (a, b) in enumerate(zip(wall, hand.wall, strict=True)) if a != b)
        raise VerifyError(hand.index, None, f"wall position {p}", tile_name(wall[p]), tile_name(hand.wall[p]))
    dice = fair.dice(hand.seed)
    if dice != hand.dice:
        raise VerifyError(hand.index, None, "dice", str(list(dice)), str(list(hand.dice)))
    return wall, dice


def replay(record: MatchRecord) -> ReplaySummary:
    """Replay every hand on its recorded wall and check every draw, every hand's result
    (outcome, scores, chips), the seating and the match result against the record. Raises
    :class:`ReplayError` at the first difference."""
    return _run(record, False)


def verify(record: MatchRecord) -> ReplaySummary:
    """Check a record's fairness: for every hand the revealed seed matches the commitment, the
    wall and dice are the ones derived from it (:mod:`caishen.fair`), and every draw the
    engine makes when the actions are replayed on that wall is the recorded one; then the
    results as in :func:`replay`. Raises :class:`VerifyError` at the first mismatch."""
    return _run(record, True)


