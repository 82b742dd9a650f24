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
from caishen.table import movesig
from caishen.table.match import DISMISSED, Table
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
    # the people's moves (caishen.table.movesig): signed by the seat's key, made by the server
    # (bots, stand-ins), sent unsigned; all 0 for records whose moves are not signed
    signed: int = 0
    by_server: int = 0
    unsigned: int = 0

    def moves_text(self) -> str:
        """What the move signatures showed, for the verifiers' one line ("" when none)."""
        if not (self.signed or self.by_server or self.unsigned):
            return ""
        return (f"; moves: {self.signed} signed by the person's own key, {self.by_server} by the server "
                f"(bots, stand-ins), {self.unsigned} unsigned")


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
    marks = [0, 0, 0]
    prev = fair.NO_PREV
    for hi, hand in enumerate(record.hands):
        if hand.index != hi:
            raise ReplayError(hi, None, "seats", f"hand {hi} is numbered {hand.index}")
        if table.over:
            raise ReplayError(hi, None, "end", "the match was already over before this hand")
        wall, dice = hand.wall, hand.dice
        if fair_mode:  # first: a hand removed or moved is named as that, not as wrong seats
            wall, dice = _fair_parts(hand, ruleset, prev)
            if record.seed is not None and hand.seed != fair.hand_seed(record.seed, hi):
                raise VerifyError(hi, None, "the hand's seed is not the one the match seed gives (L4)",
                                  fair.hand_seed(record.seed, hi).hex(), (hand.seed or b"").hex())
        if tuple(hand.seats) != table.seats:
            raise ReplayError(hi, None, "seats", f"seats should be {list(table.seats)} (L2, L18), record says {list(hand.seats)}")
        if fair_mode and hand.signatures:
            _check_signatures(record.room, hand, marks)
        game = last_game(replay_steps(hand, ruleset, wall, dice, fair_mode))
        assert game.outcome is not None
        result = json.loads(_canon(table.settle(game.outcome).to_json()))
        if _canon(result) != _canon(hand.result):
            raise ReplayError(hi, None, "result", _first_difference(result, hand.result))
        n_actions += len(hand.actions)
        n_draws += len(hand.draws)
        prev = hand.digest()
    if record.result.get("ended_by") == DISMISSED and not table.over:
        # its people ended it early (a game centre's vote): the hands played stand as they are
        table.dismiss()
    result = json.loads(_canon(table.result().to_json()))
    if _canon(result) != _canon(record.result):
        raise ReplayError(None, None, "result", _first_difference(result, record.result))
    return ReplaySummary(len(record.hands), n_actions, n_draws, result, marks[0], marks[1], marks[2])


def _check_signatures(room: str | None, hand: HandRecord, counts: list[int]) -> None:
    """Every person's move of ``hand`` signed by its seat's key over its canonical bytes
    (:func:`movesig.move_message`: room, hand, step, action); ``counts``: signed, by the
    server, unsigned, counted on."""
    if room is None:
        raise VerifyError(hand.index, None, "signed moves without the room they were signed for", "record.room",
                          "nothing")
    texts = [(seat, action.text()) for seat, action in hand.actions]
    for i, ((seat, text), sig, steps) in enumerate(zip(texts, hand.signatures, movesig.accepted(texts), strict=True)):
        if sig == movesig.SERVER:
            counts[1] += 1
        elif sig == movesig.UNSIGNED:
            counts[2] += 1
        else:
            key = hand.signers[seat]
            if key is None or not any(movesig.verify_move(key, sig, movesig.move_message(room, hand.index, at, text))
                                      for at in steps):
                raise VerifyError(hand.index, None, f"actions[{i}] (seat {seat} {text}) is not signed by the seat's own "
                                  "key: a move put in the person's name",
                                  f"a signature by {'no key' if key is None else key[:16] + '...'}", sig[:16] + "...")
            counts[0] += 1


def _fair_parts(hand: HandRecord, ruleset: VariantRules,
                prev: bytes) -> tuple[tuple[int, ...], tuple[int, int, int, int]]:
    """Commitment, wall and dice recomputed from the revealed seed and compared (L4); under
    ``caishen-fair-2`` also the chain (``prev``: the digest of the hand before in this record),
    the order of events and the players' contributions (docs/fairness.md)."""
    if hand.seed is None:
        raise VerifyError(hand.index, None, "seed not revealed", "the hand's seed", "null")
    seed = hand.seed
    if hand.algorithm == fair.FAIR_2:
        if hand.prev != prev:
            raise VerifyError(hand.index, None, "the chain is broken: prev is not the digest of the hand before "
                              "(a hand removed, reordered or replaced)", prev.hex(), hand.prev.hex())
        c = fair.chained_commitment(hand.seed, hand.prev, hand.index)
        if c != hand.commitment:
            raise VerifyError(hand.index, None, "the revealed seed does not match the commitment",
                              f"SHA-256(prev + index + seed) {c}", hand.commitment)
        _check_timeline(hand)
        seed = fair.wall_seed(hand.seed, tuple(x if isinstance(x, bytes) else None for x in hand.contributions),
                              hand.index)
    else:
        c = fair.commitment(hand.seed)
        if c != hand.commitment:
            raise VerifyError(hand.index, None, "the revealed seed does not match the commitment",
                              f"SHA-256 {c}", hand.commitment)
    wall = fair.shuffled_wall(seed, ruleset)
    if wall != hand.wall:
        if len(wall) != len(hand.wall):
            raise VerifyError(hand.index, None, "wall size", f"{len(wall)} tiles", f"{len(hand.wall)} tiles")
        p = next(i for i, (a, b) in enumerate(zip(wall, hand.wall, strict=True)) if a != b)
        raise VerifyError(hand.index, None, f"wall position {p}", tile_name(wall[p]), tile_name(hand.wall[p]))
    dice = fair.dice(seed)
    if dice != hand.dice:
        raise VerifyError(hand.index, None, "dice", str(list(dice)), str(list(hand.dice)))
    return wall, dice


def _check_timeline(hand: HandRecord) -> None:
    """The events of a ``caishen-fair-2`` hand: ``commit`` first; then each contribution (one
    per seat that has one, none for a seat without); ``deal``; ``reveal`` last. A contribution
    after the deal, or after the seed was revealed, could have been chosen knowing the wall."""
    events = hand.timeline
    expected = "commit, contribute S for each contribution, deal, reveal"
    if (events[:1] != ("commit",) or events.count("commit") != 1 or events.count("deal") != 1
            or events.count("reveal") != 1 or events.index("deal") > events.index("reveal")):
        raise VerifyError(hand.index, None, "the order of events", expected, ", ".join(events))
    deal, reveal = events.index("deal"), events.index("reveal")
    for i, e in enumerate(events):
        if e.startswith("contribute") and i > deal:
            when = "after the seed was revealed" if i > reveal else "after the deal"
            raise VerifyError(hand.index, None, f"a contribution arrived {when}", "contributions before the deal",
                              ", ".join(events))
    if events[-1] != "reveal":
        raise VerifyError(hand.index, None, "the order of events", expected, ", ".join(events))
    seats = [int(e.split()[1]) for e in events if e.startswith("contribute")]
    have = [s for s, c in enumerate(hand.contributions) if isinstance(c, bytes)]
    if sorted(seats) != have or len(set(seats)) != len(seats):
        raise VerifyError(hand.index, None, "contributions and their events differ",
                          f"contributions of seats {have}", f"events of seats {seats}")


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


