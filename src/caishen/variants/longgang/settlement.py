"""Chip settlement 算筹 of one hand and the chip :class:`Ledger` of a match (L24-L25).

Pure integer arithmetic on totals in 胡 (fu); independent of hand analysis.
Rule IDs refer to ``docs/rules/longgang.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from caishen.errors import CaishenError
from caishen.tiles import SEAT_LETTERS, SEATS
from caishen.variants.base import Transfer
from caishen.variants.longgang.rules import LONGGANG, Ruleset

MIN_PLAYERS: Final = 4  # a match seats 4 and has up to 2 waiting players 替补 (L2)
MAX_PLAYERS: Final = 6
MAX_BONUS_TAI: Final = 3  # the bonus counts the winner's tai up to 3; a limit counts 3 (L24.3)
REBUY_CHIPS: Final = {4: 50, 5: 100, 6: 100}  # lent to the first player to go broke, by players (L25.4)
BROKE_TO_END: Final = {4: 2, 5: 2, 6: 3}  # broke players that end a match, by players (L25.5)


class LonggangError(CaishenError):
    """Base of the Longgang scoring and settlement errors."""

    code = "longgang"


class ScoringError(LonggangError):
    """Input that cannot be scored: wrong tile count, a wild not in play, bad context. Raised by
    :mod:`caishen.variants.longgang.scoring`, defined here: a module mypyc compiles would lose
    the class's ``code``."""

    code = "scoring"


class NotAWinError(ScoringError):
    """The hand with the winning tile is not a complete hand."""

    code = "not-a-win"


class SettlementError(LonggangError):
    """Inputs to a settlement that cannot be right (seat out of range, total not in 10s...)."""

    code = "settlement"


class MatchOverError(LonggangError):
    """A hand recorded after the match has ended."""

    code = "match-over"


@dataclass(frozen=True, slots=True)
class Settlement:
    """The chip transfers of one hand. ``owed`` is what the rules ask for before going broke
    is taken into account; ``transfers`` is what is actually paid; ``net`` per seat sums to 0."""

    winner: int
    dealer: int
    owed: tuple[Transfer, ...]
    transfers: tuple[Transfer, ...]
    net: tuple[int, int, int, int]
    broke: frozenset[int] = frozenset()

    def table(self) -> str:
        """Plain-text list of the transfers."""
        lines = [f"{'from':<5}{'to':<5}{'chips':>6}  rule    what"]
        for t in self.transfers:
            lines.append(
                f"{SEAT_LETTERS[t.payer]:<5}{SEAT_LETTERS[t.payee]:<5}{t.chips:>6}  {t.rule:<7} {t.what}"
            )
        lines.append("net: " + "  ".join(f"{SEAT_LETTERS[s]} {n:+d}" for s, n in enumerate(self.net)))
        if self.broke:
            lines.append("broke (断筹): " + " ".join(SEAT_LETTERS[s] for s in sorted(self.broke)))
        return "\n".join(lines)


def bonus_tai(tai: int, limit: bool) -> int:
    """The tai that set the bonus: at most 3, and 3 for a limit hand (L24.3, L22)."""
    return MAX_BONUS_TAI if limit else max(0, min(tai, MAX_BONUS_TAI))


def bonus_fu(tai: int, limit: bool, ruleset: Ruleset = LONGGANG, after_broke: bool = False) -> int:
    """跟胡数: bonus in 胡 by the winner's tai counted at most 3; a limit counts 3 (L24.3, L22)."""
    tiers = ruleset.bonus_fu_after_broke if after_broke else ruleset.bonus_fu
    return tiers[bonus_tai(tai, limit)]


def _chips(fu: int, ruleset: Ruleset, what: str) -> int:
    if fu < 0 or fu % ruleset.fu_per_chip:
        raise SettlementError(f"{what} must be a non-negative multiple of {ruleset.fu_per_chip} 胡, not {fu}",
                              code="not-whole-chips", rule="L24.1")
    return fu // ruleset.fu_per_chip


def _to_winner(
    winner: int, winner_total: int, tai: int, losers: tuple[int, ...], dealer: int, ruleset: Ruleset,
    limit: bool, after_broke: bool, pays_all: int | None = None,
) -> list[Transfer]:
    """What each loser owes the winner (L24.2, L24.3, L24.5, L24.6); with ``pays_all`` that
    seat pays every loser's share (包三家, L24.8)."""
    base = _chips(winner_total, ruleset, "the winner's total")
    bonus = _chips(bonus_fu(tai, limit, ruleset, after_broke), ruleset, "the bonus")
    limit_chips = ruleset.limit_chips_after_broke if after_broke else ruleset.limit_chips
    out: list[Transfer] = []
    for s in losers:
        dealer_side = dealer in (s, winner)
        if limit:
            amount = limit_chips[0] if dealer_side else limit_chips[1]
            what = f"limit 腊子 ({'dealer' if dealer_side else 'non-dealer'})"
            rule = "L24.6"
        else:
            amount = base * (2 if dealer_side else 1) + bonus
            # the chips from the 胡 (L24.1: a chip is fu_per_chip 胡), then the doubling and the bonus
            what = (f"total {winner_total} 胡 / {ruleset.fu_per_chip} = {base}{' x2 dealer' if dealer_side else ''}"
                    + (f" + bonus {bonus}" if bonus else "") + f" = {amount}")
            rule = "L24.2"
        if pays_all is not None and s != pays_all:
            out.append(Transfer(pays_all, winner, amount, "L24.8", f"包三家 for {SEAT_LETTERS[s]}: {what}"))
        else:
            out.append(Transfer(s, winner, amount, rule, what))
    return out


def _between_losers(
    losers: tuple[int, ...], loser_totals: Mapping[int, int], dealer: int, ruleset: Ruleset
) -> list[Transfer]:
    """What the losers owe each other: the difference of their own totals (L24.4, L24.5)."""
    out: list[Transfer] = []
    for i, a in enumerate(losers):
        for b in losers[i + 1:]:
            ta, tb = loser_totals[a], loser_totals[b]
            _chips(ta, ruleset, f"seat {SEAT_LETTERS[a]}'s total")
            _chips(tb, ruleset, f"seat {SEAT_LETTERS[b]}'s total")
            if ta == tb:
                continue
            payer, payee = (a, b) if ta < tb else (b, a)
            diff = abs(ta - tb)
            double = dealer in (a, b)
            out.append(
                Transfer(
                    payer, payee, diff // ruleset.fu_per_chip * (2 if double else 1), "L24.4",
                    f"difference {diff} 胡 / {ruleset.fu_per_chip} = {diff // ruleset.fu_per_chip}"
                    + (f" x2 dealer = {diff // ruleset.fu_per_chip * 2}" if double else ""),
                )
            )
    return out


def _pay(t: Transfer, bal: list[int], broke: frozenset[int]) -> Transfer:
    """``t`` as paid: a broke payer pays what he has left (L25.3)."""
    amount = min(t.chips, bal[t.payer]) if t.payer in broke else t.chips
    bal[t.payer] -= amount
    return Transfer(t.payer, t.payee, amount, "L25.3" if amount != t.chips else t.rule, t.what)


def _resolve(
    owed: tuple[Transfer, ...], winner: int, chips: Sequence[int], broke: frozenset[int]
) -> list[Transfer]:
    """Payments actually made, given the set of broke losers (L25.3)."""
    bal = list(chips)
    paid = [_pay(t, bal, broke) for t in owed if t.payee == winner]  # the winner is paid first
    if len(broke) >= 2:  # case 4: no chips between losers
        return [t for t in paid if t.chips]
    order = {(winner + i) % len(SEATS): i for i in SEATS}
    between = [t for t in owed if t.payee != winner]
    for t in sorted(between, key=lambda t: (order[t.payee], order[t.payer])):
        if t.payee not in broke:  # nobody pays a broke loser; a broke one pays in turn (case 1)
            paid.append(_pay(t, bal, broke))
    return [t for t in paid if t.chips]


def _finals(paid: Sequence[Transfer], chips: Sequence[int]) -> list[int]:
    bal = list(chips)
    for t in paid:
        bal[t.payer] -= t.chips
        bal[t.payee] += t.chips
    return bal


def settle(
    winner: int,
    winner_total: int,
    winner_tai: int,
    loser_totals: Mapping[int, int],
    dealer: int,
    ruleset: Ruleset = LONGGANG,
    *,
    limit: bool = False,
    after_broke: bool = False,
    chips: Sequence[int] | None = None,
    pays_all: int | None = None,
) -> Settlement:
    """Chip transfers between the four seats for one hand (L24), with the going-broke rules
    (L25.2-L25.3) when ``chips`` (the seats' chips before the hand) is given.

    ``winner_total`` and ``loser_totals`` are the players' totals in 胡 (multiples of 10);
    ``limit`` marks a limit hand (L22), whose payments are 72/42 (L24.6). ``pays_all``: the
    discarder who pays the winner for all three losers (包三家, L24.8); the losers still pay
    each other their differences ("遜家間另算")."""
    if winner not in SEATS or dealer not in SEATS or pays_all not in (None, *SEATS) or pays_all == winner:
        raise SettlementError("seats are 0-3 (E S W N), the one paying for all not the winner", code="bad-seat")
    losers = tuple((winner + i) % len(SEATS) for i in range(1, len(SEATS)))
    if set(loser_totals) != set(losers):
        raise SettlementError(f"loser totals must be given for seats {sorted(losers)}, got {sorted(loser_totals)}",
                              code="loser-totals", rule="L24.4")
    owed = tuple(_to_winner(winner, winner_total, winner_tai, losers, dealer, ruleset, limit, after_broke, pays_all)
                 + _between_losers(losers, loser_totals, dealer, ruleset))
    broke: frozenset[int] = frozenset()
    if chips is None:
        paid = list(owed)
    else:
        if len(chips) != len(SEATS) or any(c < 0 for c in chips):
            raise SettlementError("chips must give four non-negative counts (E S W N)", code="bad-chips")
        while True:
            paid = _resolve(owed, winner, chips, broke)
            fin = _finals(paid, chips)
            short = {s for s in SEATS if s != winner and s not in broke and fin[s] <= 0}
            if not short:
                break
            # broke for sure: still short with own payments to other short losers waived (case 2)
            sure = {
                s for s in short
                if fin[s] + sum(t.chips for t in paid if t.payer == s and t.payee in short) <= 0
            }
            broke = broke | frozenset(sure or short)
    net = _finals(paid, [0] * len(SEATS))
    return Settlement(winner, dealer, owed, tuple(paid), (net[0], net[1], net[2], net[3]), broke)


@dataclass(frozen=True, slots=True)
class Loan:
    """Rebuy chips lent by ``lender`` to ``borrower`` after going broke (L25.4)."""

    lender: int
    borrower: int
    chips: int


@dataclass
class Ledger:
    """Chips of the players of one match (L25). Players are numbered 0..players-1; each hand
    says which player sits in which seat. ``chips`` sum plus ``fees`` never changes."""

    players: int = 4
    ruleset: Ruleset = LONGGANG
    chips: list[int] = field(default_factory=list)
    fees: int = 0
    broke_events: list[int] = field(default_factory=list)
    loans: list[Loan] = field(default_factory=list)
    hands: int = 0
    over: bool = False
    after_broke: bool = False

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise SettlementError(f"a match has {MIN_PLAYERS}-{MAX_PLAYERS} players, not {self.players}",
                                  code="players", rule="L2")
        r = self.ruleset
        self.chips = [r.start_chips - r.table_fee] * self.players
        self.fees = r.table_fee * self.players
        # L24.7: six players use the after-broke figures from the start
        self.after_broke = self.players == MAX_PLAYERS

    @property
    def grand_total(self) -> int:
        """Chips of all players plus the fee pot: constant (start chips x players)."""
        return sum(self.chips) + self.fees

    @property
    def broke_to_end(self) -> int:
        """Broke players that end the match (L25.5)."""
        if self.players == MIN_PLAYERS and not self.ruleset.rebuy_on_broke:
            return 1
        return BROKE_TO_END[self.players]

    def record_draw(self) -> None:
        """A drawn hand 流局: nobody pays (L17)."""
        self._check_open()
        self._count_hand()

    def record(
        self,
        seat_players: Sequence[int],
        winner: int,
        winner_total: int,
        winner_tai: int,
        loser_totals: Mapping[int, int],
        dealer: int = 0,
        *,
        limit: bool = False,
        pays_all: int | None = None,
    ) -> Settlement:
        """Settle one won hand; ``seat_players[s]`` is the player in seat ``s``; ``pays_all``
        the seat paying for all three losers (包三家, L24.8)."""
        self._check_open()
        if len(seat_players) != len(SEATS) or len(set(seat_players)) != len(SEATS) or any(
            not 0 <= p < self.players for p in seat_players
        ):
            raise SettlementError(f"seat_players must name 4 different players of 0-{self.players - 1}",
                                  code="seat-players")
        seat_chips = [self.chips[p] for p in seat_players]
        st = settle(
            winner, winner_total, winner_tai, loser_totals, dealer, self.ruleset,
            limit=limit, after_broke=self.after_broke, chips=seat_chips, pays_all=pays_all,
        )
        for s, n in enumerate(st.net):
            self.chips[seat_players[s]] += n
        # L25.5: a player already broke (替补 playing on with nothing) does not go broke again
        newly = [seat_players[s] for s in sorted(st.broke) if seat_players[s] not in self.broke_events]
        for p in newly:
            self.broke_events.append(p)
        if newly:
            self.after_broke = True  # from the next hand on (L24.7)
            if len(self.broke_events) >= self.broke_to_end:
                self.over = True
            elif self.ruleset.rebuy_on_broke:
                for p in newly:
                    self._rebuy(p)
        self._count_hand()
        return st

    def _rebuy(self, borrower: int) -> None:
        need = REBUY_CHIPS[self.players]
        while need > 0:
            lender = max((p for p in range(self.players) if p != borrower), key=lambda p: (self.chips[p], -p))
            amount = min(need, self.chips[lender])
            if amount <= 0:
                break
            self.chips[lender] -= amount
            self.chips[borrower] += amount
            self.loans.append(Loan(lender, borrower, amount))
            need -= amount

    def _count_hand(self) -> None:
        self.hands += 1
        if self.ruleset.hands_per_match and self.hands >= self.ruleset.hands_per_match:
            self.over = True

    def _check_open(self) -> None:
        if self.over:
            raise MatchOverError("the match is over", rule="L25.5")
