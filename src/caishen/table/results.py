"""Typed results of the table layer: :class:`HandResult` and :class:`MatchResult`.

What a finished hand and a match come to (score, chips, who went broke), as values; their
``to_json()`` is the ``result`` part of a match record (``docs/records.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from caishen.engine.outcome import Outcome
from caishen.notation import format_hand
from caishen.tiles import tile_name
from caishen.variants import variant_of
from caishen.variants.base import ScoreSheet, Transfer, VariantRules
from caishen.variants.longgang.outcome import score_outcome
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.settlement import settle

# The flags a record lists, in this order (人胡 is scored, not recorded: records v1 had no such flag).
_RECORD_FLAGS = ("heavenly", "earthly", "after_kong", "sea_floor", "last_live_tile")


def outcome_json(outcome: Outcome) -> dict[str, object]:
    """The engine's outcome as JSON-ready data (winner, how, tile, final hands...; a
    variant's ``win_type`` when it names one, ``draw_type`` and ``declared_by`` for a declared draw)."""
    out: dict[str, object] = {
        "winner": outcome.winner,
        "draw": None if outcome.draw_reason is None else outcome.draw_reason.value,
        "how": None if outcome.how is None else outcome.how.value,
        "tile": None if outcome.tile is None else tile_name(outcome.tile),
        "from": outcome.from_seat,
        "flags": [f for f in _RECORD_FLAGS if getattr(outcome, f)],
        "hands": [format_hand(h) for h in outcome.hands],
    }
    if outcome.win_type is not None:
        out["win_type"] = outcome.win_type
    if outcome.draw_type is not None:  # a declared draw 叫和局: the variant's name, who declared
        out["draw_type"] = outcome.draw_type
        out["declared_by"] = outcome.declared_by
    return out


def hand_chips(outcome: Outcome, ruleset: VariantRules) -> tuple[int, int, int, int]:
    """Each seat's chip change for one finished hand on its own (Longgang L24: no match, so no
    going-broke limits; other variants: their ledger's settlement of the hand, e.g. Gangci's
    kong and win payments, G2): what the RL environments pay as rewards, and the simulator's
    single-hand runs."""
    if not isinstance(ruleset, Ruleset):
        return variant_of(ruleset).ledger(ruleset, 4).settle((0, 1, 2, 3), outcome).chips
    hs = score_outcome(outcome, ruleset)
    if hs is None or outcome.winner is None:
        return (0, 0, 0, 0)
    w = hs.winner
    st = settle(outcome.winner, w.total, w.bonus_tai, hs.loser_totals, outcome.dealer, ruleset,
                limit=w.limit is not None, pays_all=hs.pays_all)
    return st.net


@dataclass(frozen=True, slots=True)
class HandResult:
    """A settled hand: the outcome, its score (``None`` for a draw), each seat's net chips,
    the transfers behind them, players who went broke in it, and every player's chips after."""

    outcome: Outcome
    score: ScoreSheet | None
    chips: tuple[int, int, int, int]
    transfers: tuple[Transfer, ...]
    broke: tuple[int, ...]
    chips_after: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        out = outcome_json(self.outcome)
        out["score"] = None if self.score is None else self.score.to_json()
        out["chips"] = list(self.chips)
        out["transfers"] = [[t.payer, t.payee, t.chips, t.rule] for t in self.transfers]
        out["broke"] = list(self.broke)
        out["chips_after"] = list(self.chips_after)
        return out


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A match so far: hands played, whether and why it ended (``"broke"``, ``"hands"``), each
    player's chips, the table fees, players who went broke (in order) and loans (lender,
    borrower, chips)."""

    hands: int
    over: bool
    ended_by: str
    chips: tuple[int, ...]
    fees: int
    broke: tuple[int, ...]
    loans: tuple[tuple[int, int, int], ...]

    def to_json(self) -> dict[str, object]:
        return {
            "hands": self.hands,
            "over": self.over,
            "ended_by": self.ended_by,
            "chips": list(self.chips),
            "fees": self.fees,
            "broke": list(self.broke),
            "loans": [list(ln) for ln in self.loans],
        }
