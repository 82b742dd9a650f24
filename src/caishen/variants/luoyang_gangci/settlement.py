"""A played Gangci hand's payments (G2): the engine's :class:`~caishen.engine.outcome.Outcome`
in, a :class:`~caishen.variants.luoyang_gangci.payments.Statement` out.

Every kong made during the hand is paid when made (G2.2-G2.4) and stands whatever the end
(G2.11); the win adds its payment (G2.5-G2.8). The 次's own kong is not among the outcome's
claims (the engine records a ``win``, not a kong), so it is never paid twice (G2.9).
"""

from __future__ import annotations

from collections.abc import Sequence

from caishen.engine.outcome import Outcome
from caishen.errors import CaishenError
from caishen.hand import MeldKind
from caishen.variants.base import HandSettlement, Transfer
from caishen.variants.luoyang_gangci.payments import (
    Bases,
    KongKind,
    Payment,
    Statement,
    kong_payments,
    win_payments,
)
from caishen.variants.luoyang_gangci.rules import GangciRules
from caishen.variants.luoyang_gangci.wins import GangciWin, xu_ci_kongs

SEATS = 4

_KONGS = {
    MeldKind.EXPOSED_KONG: KongKind.EXPOSED,
    MeldKind.CONCEALED_KONG: KongKind.CONCEALED,
    MeldKind.ADDED_KONG: KongKind.ADDED,
}


def statement(out: Outcome, rules: Bases) -> Statement:
    """The hand's payments in order: its kongs, then the win (none for a drawn hand)."""
    pays: list[Payment] = []
    for c in out.claims:
        kind = _KONGS.get(c.kind)
        if kind is not None:
            pays.extend(kong_payments(kind, c.seat, rules, c.fed_by))
    if out.winner is not None:
        if out.win_type is None:
            raise ValueError("a Gangci win must name its type")
        how = GangciWin(out.win_type)
        fed_by: int | None = None
        if how is GangciWin.ZHI_CI:
            fed_by = out.from_seat
        elif how is GangciWin.XU_CI:
            fed_by = _ponged_by(out)
        pays.extend(win_payments(how, out.winner, rules, fed_by))
    return Statement(tuple(pays))


def _ponged_by(out: Outcome) -> int:
    """续次 (G2.8): the seat whose discard the winner ponged, of the pong the 续次 completes."""
    assert out.winner is not None and out.indicator is not None
    kinds = xu_ci_kongs(out.hands[out.winner], out.indicator)
    for c in out.claims:
        if c.seat == out.winner and c.kind is MeldKind.PONG and c.tile in kinds and c.fed_by is not None:
            return c.fed_by
    raise ValueError("a 续次 without the pong it completes")


class GangciError(CaishenError):
    """A Gangci match that cannot be: it seats exactly four players (G1)."""

    code = "gangci"


class GangciLedger:
    """Chips of a four-player Gangci match (G2, G8): every hand's statement is paid in full
    (there is no going broke in the source), and the match ends after ``hands_per_match``."""

    def __init__(self, rules: GangciRules, players: int) -> None:
        if players != SEATS:
            raise GangciError(f"a Luoyang Gangci match has 4 players, not {players}", rule="G1")
        self.rules = rules
        self.chips = [0] * players
        self.fees = 0
        self.broke_events: list[int] = []
        self.loan_list: tuple[tuple[int, int, int], ...] = ()
        self.hands = 0
        self.ended_by = ""

    @property
    def over(self) -> bool:
        return self.hands >= self.rules.hands_per_match

    def restore(self, chips: Sequence[int], hands: int, broke: Sequence[int]) -> None:
        """A match in progress: chips by player and hands played (nobody goes broke in Gangci)."""
        self.chips = list(chips)
        self.hands = hands

    def settle(self, seats: tuple[int, int, int, int], outcome: Outcome) -> HandSettlement:
        """Pay the hand's kongs and win (G2.2-G2.11); the dealer keeps the deal on a win when
        ``dealer_keeps_deal_on_win`` (G8.1), and passes it after a draw."""
        if self.over:
            raise GangciError("the match is over", rule="G8.2")
        st = statement(outcome, self.rules)
        net = st.net
        for s, n in enumerate(net):
            self.chips[seats[s]] += n
        self.hands += 1
        if self.over:
            self.ended_by = "hands"
        transfers = tuple(Transfer(p.payer, p.payee, p.amount, p.rule, f"{p.item.chinese} {p.item.english}")
                          for p in st.payments)
        keeps = self.rules.dealer_keeps_deal_on_win and outcome.winner == outcome.dealer
        return HandSettlement(st, net, transfers, (), keeps)
