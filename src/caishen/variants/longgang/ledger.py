"""A Longgang match's chips as the table layer's :class:`~caishen.variants.base.Ledger`:
each finished hand is scored (L19-L23) and settled in chips (L24-L25)."""

from __future__ import annotations

from collections.abc import Sequence

from caishen.engine.outcome import Outcome
from caishen.variants.base import HandSettlement
from caishen.variants.longgang.outcome import score_outcome
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.settlement import Ledger


class LonggangLedger:
    """Scores every hand and books it in a :class:`~caishen.variants.longgang.settlement.Ledger`."""

    def __init__(self, ruleset: Ruleset, players: int) -> None:
        self.ruleset = ruleset
        self.book = Ledger(players, ruleset)
        self.ended_by = ""

    @property
    def over(self) -> bool:
        return self.book.over

    @property
    def chips(self) -> list[int]:
        return self.book.chips

    @property
    def fees(self) -> int:
        return self.book.fees

    @property
    def broke_events(self) -> list[int]:
        return self.book.broke_events

    @property
    def loan_list(self) -> tuple[tuple[int, int, int], ...]:
        return tuple((ln.lender, ln.borrower, ln.chips) for ln in self.book.loans)

    def restore(self, chips: Sequence[int], hands: int, broke: Sequence[int]) -> None:
        """A match in progress: chips by player, hands played, players broke (L24.7: after a
        player went broke the after-broke figures apply)."""
        book = self.book
        book.chips = list(chips)
        book.hands = hands
        book.broke_events = list(broke)
        book.after_broke = book.after_broke or bool(broke)
        book.over = (bool(self.ruleset.hands_per_match) and hands >= self.ruleset.hands_per_match) or (
            len(book.broke_events) >= book.broke_to_end)

    def settle(self, seats: tuple[int, int, int, int], outcome: Outcome) -> HandSettlement:
        """Score and settle one finished hand; the dealer keeps the deal only by winning (L18)."""
        hs = score_outcome(outcome, self.ruleset)
        book = self.book
        broke_before = len(book.broke_events)
        if hs is None or outcome.winner is None:
            book.record_draw()
            chips: tuple[int, int, int, int] = (0, 0, 0, 0)
            settled = HandSettlement(None, chips, (), (), False)
        else:
            w = hs.winner
            st = book.record(seats, outcome.winner, w.total, w.bonus_tai, hs.loser_totals, outcome.dealer,
                             limit=w.limit is not None, pays_all=hs.pays_all)
            chips = (st.net[0], st.net[1], st.net[2], st.net[3])
            newly = tuple(book.broke_events[broke_before:])
            # L25.5: without rebuy a broke player of 5 or 6 sits out as 替补 ("斷籌家可作替補")
            out = newly if not self.ruleset.rebuy_on_broke and not book.over else ()
            settled = HandSettlement(hs, chips, tuple(st.transfers), newly, outcome.winner == outcome.dealer, out)
        if book.over:
            self.ended_by = "broke" if len(book.broke_events) >= book.broke_to_end else "hands"
        return settled
