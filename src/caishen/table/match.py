"""A match 一局: hand after hand with dealer rotation, seating and chips (L2, L18, L24, L25).

:class:`Table` is the bookkeeping of a match without players: who sits where, the chip
:class:`~caishen.variants.longgang.settlement.Ledger`, when the match ends. :class:`Match` adds players (anything
with ``act(observation) -> Action``, :class:`~caishen.table.players.Player`: the random player or the bots of
:mod:`caishen.bots`), deals every hand from a committed seed (:mod:`caishen.fair`) and writes a
:class:`~caishen.table.record.MatchRecord`. Replaying a record (:mod:`caishen.table.record`) runs the same
:class:`Table`, so a replay reproduces seating, scores and chips exactly.

Seats: the engine's seat 0 is East, and East is always the dealer (L2); when the deal passes
(L18) the players move one seat on: the old South becomes East, and the old dealer's chair
(now North) is taken by the first waiting player when 5 or 6 play (替补, L2), the old dealer
joining the back of the queue. With 4 players the old dealer simply becomes North.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from caishen import fair
from caishen.engine.game import Game, Outcome
from caishen.errors import CaishenError
from caishen.table.play import play
from caishen.table.players import Player, RandomPlayer, player_rng
from caishen.table.record import HandRecord, MatchRecord, hand_from_game
from caishen.table.results import HandResult, MatchResult
from caishen.variants.longgang.outcome import score_outcome
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.settlement import Ledger, Settlement, Transfer

SEATS: Final = 4


class MatchError(CaishenError):
    """Bad match settings (number of players, names) or a move after the match is over."""

    code = "match"


# ---------------------------------------------------------------- seating (L2, L18)


def next_seating(
    seats: tuple[int, int, int, int], waiting: tuple[int, ...], dealer_keeps: bool
) -> tuple[tuple[int, int, int, int], tuple[int, ...]]:
    """Seating for the next hand. ``seats[s]`` is the player in seat ``s`` (0 = East = dealer).
    The dealer keeps the deal only by winning (L18); otherwise South becomes East and the old
    dealer's chair, now North, goes to the first waiting player (L2), if any."""
    if dealer_keeps:
        return seats, waiting
    old_dealer = seats[0]
    if waiting:
        return (seats[1], seats[2], seats[3], waiting[0]), (*waiting[1:], old_dealer)
    return (seats[1], seats[2], seats[3], old_dealer), waiting


# ---------------------------------------------------------------- the table


class Table:
    """Seating, dealer rotation and chips of a match of ``players`` (4-6) players, without
    the players themselves. :meth:`settle` books one finished hand and returns its result
    (the ``result`` of a hand record)."""

    def __init__(self, ruleset: Ruleset, players: int) -> None:
        if not 4 <= players <= 6:
            raise MatchError(f"a match has 4, 5 or 6 players, not {players}")
        self.ruleset = ruleset
        self.players = players
        self.ledger = Ledger(players, ruleset)
        self.seats: tuple[int, int, int, int] = (0, 1, 2, 3)
        self.waiting: tuple[int, ...] = tuple(range(SEATS, players))
        self.hands_played = 0
        self.ended_by = ""

    @property
    def over(self) -> bool:
        return self.ledger.over

    def settle(self, outcome: Outcome) -> HandResult:
        """Book a finished hand: chips through the ledger (L24, L25), then the seating of the
        next hand (L2, L18)."""
        if self.over:
            raise MatchError("the match is over")
        hs = score_outcome(outcome, self.ruleset)
        broke_before = len(self.ledger.broke_events)
        if hs is None or outcome.winner is None:
            self.ledger.record_draw()
            chips: tuple[int, int, int, int] = (0, 0, 0, 0)
            transfers: tuple[Transfer, ...] = ()
        else:
            w = hs.winner
            st: Settlement = self.ledger.record(
                self.seats, outcome.winner, w.total, w.bonus_tai, hs.loser_totals, outcome.dealer,
                limit=w.limit is not None, pays_all=hs.pays_all,
            )
            chips = (st.net[0], st.net[1], st.net[2], st.net[3])
            transfers = tuple(st.transfers)
        result = HandResult(outcome, hs, chips, transfers, tuple(self.ledger.broke_events[broke_before:]),
                            tuple(self.ledger.chips))
        self.hands_played += 1
        if self.ledger.over:
            self.ended_by = "broke" if len(self.ledger.broke_events) >= self.ledger.broke_to_end else "hands"
        dealer_keeps = outcome.winner is not None and outcome.winner == outcome.dealer
        self.seats, self.waiting = next_seating(self.seats, self.waiting, dealer_keeps)
        return result

    def result(self) -> MatchResult:
        """The match so far: hands played, why it ended, chips per player, fees, broke, loans."""
        lg = self.ledger
        return MatchResult(self.hands_played, lg.over, self.ended_by, tuple(lg.chips), lg.fees,
                           tuple(lg.broke_events), tuple((ln.lender, ln.borrower, ln.chips) for ln in lg.loans))


# ---------------------------------------------------------------- the match


class Match:
    """A match of 4-6 ``players`` (player ``i`` is ``players[i]``) under ``ruleset``, ending
    after ``ruleset.hands_per_match`` hands or when the broke rules say so (L25).

    ``seed``: the match's master seed; hand ``i`` is dealt from
    ``fair.hand_seed(seed, i)``. Without it every hand gets a fresh ``fair.new_seed()``.
    Every hand's commitment is known before its first move (:attr:`next_commitment`)."""

    def __init__(
        self,
        ruleset: Ruleset,
        players: Sequence[Player],
        *,
        seed: bytes | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        self.table = Table(ruleset, len(players))
        self.ruleset = ruleset
        self.players = tuple(players)
        if names is None:
            names = [str(getattr(p, "name", type(p).__name__)) for p in players]
        if len(names) != len(players):
            raise MatchError(f"{len(names)} names for {len(players)} players")
        self.names = tuple(names)
        self.seed = seed
        self.hands: list[HandRecord] = []
        self.results: list[HandResult] = []  # the typed result of each hand in ``hands``
        self._next_seed = self._seed_for(0)

    def _seed_for(self, index: int) -> bytes:
        return fair.new_seed() if self.seed is None else fair.hand_seed(self.seed, index)

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def next_commitment(self) -> str:
        """The commitment of the next hand's seed, published before it is dealt."""
        return fair.commitment(self._next_seed)

    def deal(self) -> Game:
        """Deal the next hand from its committed seed (its players sit by :attr:`seats`)."""
        if self.over:
            raise MatchError("the match is over")
        seed = self._next_seed
        return Game(self.ruleset, fair.shuffled_wall(seed, self.ruleset), fair.dice(seed))

    @property
    def seats(self) -> tuple[int, int, int, int]:
        """``seats[s]``: the player in seat ``s`` (0 = East = dealer) for the next hand."""
        return self.table.seats

    @property
    def hand_seed(self) -> bytes:
        """The seed of the next hand (revealed in its record once it is played)."""
        return self._next_seed

    def finish(self, game: Game) -> HandRecord:
        """Settle a hand dealt by :meth:`deal` and played to its end; its record."""
        outcome = game.outcome
        if outcome is None:
            raise MatchError("the hand is not over")
        index = len(self.hands)
        seats = self.table.seats
        result = self.table.settle(outcome)
        hand = hand_from_game(index, seats, self._next_seed, game, game.move_stack, result.to_json())
        self.hands.append(hand)
        self.results.append(result)
        if not self.over:
            self._next_seed = self._seed_for(index + 1)
        return hand

    def play_hand(self) -> HandRecord:
        """Deal and play one hand to its end, settle it, and return its record."""
        game = self.deal()
        play(game, [self.players[p] for p in self.table.seats])
        return self.finish(game)

    def play(self) -> MatchRecord:
        """Play hands until the match is over; the record of the whole match."""
        while not self.over:
            self.play_hand()
        return self.record()

    def record(self) -> MatchRecord:
        """The record of the hands played so far."""
        return MatchRecord(
            ruleset=self.ruleset,
            players=self.names,
            seed=self.seed,
            hands=tuple(self.hands),
            result=self.table.result().to_json(),
        )


def selfplay(
    ruleset: Ruleset, seed: bytes | None, players: int = 4, hands: int | None = None
) -> MatchRecord:
    """A match of ``players`` :class:`RandomPlayer` s, seeded when ``seed`` is given (their
    randomness too). ``hands`` overrides ``ruleset.hands_per_match``."""
    if hands is not None:
        ruleset = ruleset.replace(hands_per_match=hands)
    ps = [RandomPlayer(player_rng(seed, i)) for i in range(players)]
    names = [f"random-{i}" for i in range(players)]
    return Match(ruleset, ps, seed=seed, names=names).play()


__all__ = [
    "Match",
    "MatchError",
    "Player",
    "RandomPlayer",
    "Table",
    "next_seating",
    "player_rng",
    "selfplay",
]
