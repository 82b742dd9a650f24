"""A match 一局: hand after hand with dealer rotation, seating and chips (L2, L18, L24, L25).

:class:`Table` is the bookkeeping of a match without players: who sits where, the variant's
chip :class:`~caishen.variants.base.Ledger` (Longgang's or Gangci's), when the match ends.
:class:`Match` adds players (anything
with ``act(observation) -> Action``, :class:`~caishen.table.players.Player`: the random player or the bots of
:mod:`caishen.bots`), deals every hand from a committed seed (:mod:`caishen.fair`) and writes a
:class:`~caishen.table.record.MatchRecord`. Replaying a record (:mod:`caishen.table.record`) runs the same
:class:`Table`, so a replay reproduces seating, scores and chips exactly.

Seats: the engine's seat 0 is East, and East is always the dealer (L2); when the deal passes
(L18) the players move one seat on: the old South becomes East, and the old dealer's chair
(now North) is taken by the first waiting player when 5 or 6 play (替补, L2), the old dealer
joining the back of the queue. With 4 players the old dealer simply becomes North. A match
may start from the seat draw 校位定莊 (L2.1, :mod:`caishen.table.seating`), and a ledger may send a
player to wait (a broke player without rebuy, L25.5: :func:`sit_out`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from caishen import fair
from caishen.engine.game import Game, Outcome
from caishen.errors import CaishenError
from caishen.table.play import play
from caishen.table.players import Player, RandomPlayer, player_rng
from caishen.table.record import HandRecord, MatchRecord, Mix, hand_from_game
from caishen.table.results import HandResult, MatchResult
from caishen.table.seating import SeatDraw, draw_seats
from caishen.variants import variant_of
from caishen.variants.base import Ledger, VariantRules

SEATS: Final = 4
#: Why a match ended when its people voted to end it before its last hand (the game centre's
#: 解散房间, docs/server.md "Votes"): the chips stand as after the last finished hand.
DISMISSED: Final = "dismissed"


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


def sit_out(
    seats: tuple[int, int, int, int], waiting: tuple[int, ...], players: tuple[int, ...]
) -> tuple[tuple[int, int, int, int], tuple[int, ...]]:
    """Seating after ``players`` leave their seats: each seated one gives his chair to the first
    waiting player and joins the back of the queue (L25.5, a broke player as 替补)."""
    chairs = list(seats)
    for p in players:
        if p in chairs and waiting:
            chairs[chairs.index(p)] = waiting[0]
            waiting = (*waiting[1:], p)
    return (chairs[0], chairs[1], chairs[2], chairs[3]), waiting


# ---------------------------------------------------------------- the table


class Table:
    """Seating, dealer rotation and chips of a match of ``players`` players (4-6 for Longgang,
    4 for Gangci), without the players themselves. The variant of ``rules`` keeps the chips
    (its :class:`~caishen.variants.base.Ledger`); :meth:`settle` books one finished hand and
    returns its result (the ``result`` of a hand record)."""

    def __init__(self, rules: VariantRules, players: int, seat_draw: SeatDraw | None = None) -> None:
        if not 4 <= players <= 6:
            raise MatchError(f"a match has 4, 5 or 6 players, not {players}")
        self.ruleset = rules
        self.variant = variant_of(rules)
        self.players = players
        self.ledger: Ledger = self.variant.ledger(rules, players)
        # Player i sits in seat i unless a seat draw 校位定莊 placed them (L2).
        self.seats: tuple[int, int, int, int] = (0, 1, 2, 3)
        self.waiting: tuple[int, ...] = tuple(range(SEATS, players))
        if seat_draw is not None:
            if len(seat_draw.tiles) != players:
                raise MatchError(f"a seat draw of {len(seat_draw.tiles)} players for a match of {players}")
            self.seats, self.waiting = seat_draw.seats, seat_draw.waiting
        self.hands_played = 0
        self.dismissed = False  # the people ended the match early (:meth:`dismiss`)

    @property
    def over(self) -> bool:
        return self.dismissed or self.ledger.over

    @property
    def ended_by(self) -> str:
        return DISMISSED if self.dismissed else self.ledger.ended_by

    def dismiss(self) -> None:
        """End the match now, before the ledger would (the people voted so): no hand is settled
        any more and the chips stand as they are (a hand in play is not scored)."""
        if self.over:
            raise MatchError("the match is over")
        self.dismissed = True

    def settle(self, outcome: Outcome) -> HandResult:
        """Book a finished hand: score and chips through the variant's ledger, then the
        seating of the next hand (L2, L18; G8.1)."""
        if self.over:
            raise MatchError("the match is over")
        st = self.ledger.settle(self.seats, outcome)
        result = HandResult(outcome, st.score, st.chips, st.transfers, st.broke, tuple(self.ledger.chips))
        self.hands_played += 1
        self.seats, self.waiting = next_seating(self.seats, self.waiting, st.dealer_keeps)
        self.seats, self.waiting = sit_out(self.seats, self.waiting, st.sit_out)
        return result

    def result(self) -> MatchResult:
        """The match so far: hands played, why it ended, chips per player, fees, broke, loans."""
        lg = self.ledger
        return MatchResult(self.hands_played, self.over, self.ended_by, tuple(lg.chips), lg.fees,
                           tuple(lg.broke_events), lg.loan_list)


# ---------------------------------------------------------------- the match


class Match:
    """A match of 4-6 ``players`` (player ``i`` is ``players[i]``) under ``ruleset``, ending
    when the broke rules say so (L25.5) or after ``ruleset.hands_per_match`` hands when that is
    not 0.

    ``seed``: the match's master seed; hand ``i`` is dealt from
    ``fair.hand_seed(seed, i)``. Without it every hand gets a fresh ``fair.new_seed()``.
    ``seat_draw``: seat the players by the draw 校位定莊 (L2, :mod:`caishen.table.seating`)
    instead of player ``i`` in seat ``i``. ``algorithm``: ``fair.FAIR_1`` deals every hand from
    its seed alone, as caishen did before ``caishen-fair-2`` (to play an old seeded match again).
    Every hand's commitment is known before it is dealt (:attr:`next_commitment`). Hands are
    dealt by ``caishen-fair-2`` (docs/fairness.md): the commitment covers the previous hand's
    record, and the wall mixes in what the players contributed (:meth:`deal`)."""

    def __init__(
        self,
        ruleset: VariantRules,
        players: Sequence[Player],
        *,
        seed: bytes | None = None,
        names: Sequence[str] | None = None,
        seat_draw: bool = False,
        algorithm: str = fair.FAIR_2,
    ) -> None:
        if algorithm not in fair.ALGORITHMS:
            raise MatchError(f"unknown fair algorithm {algorithm!r} (one of {', '.join(fair.ALGORITHMS)})")
        self.algorithm = algorithm
        # 校位定莊 (L2): the seat draw comes from the match seed (a fresh one without it).
        self.seat_draw = draw_seats(seed or fair.new_seed(), len(players)) if seat_draw else None
        self.table = Table(ruleset, len(players), self.seat_draw)
        self.ruleset = ruleset
        self.players = tuple(players)
        if names is None:
            names = [str(getattr(p, "name", type(p).__name__)) for p in players]
        if len(names) != len(players):
            raise MatchError(f"{len(names)} names for {len(players)} players")
        self.names = tuple(names)
        self.seed = seed
        self.room: str | None = None  # a game centre's room code: what its people's moves are signed for
        self.hands: list[HandRecord] = []
        self.results: list[HandResult] = []  # the typed result of each hand in ``hands``
        self._next_seed = self._seed_for(0)
        self._prev = fair.NO_PREV  # digest of the last finished hand
        self._mix = Mix.nothing()

    def _seed_for(self, index: int) -> bytes:
        return fair.new_seed() if self.seed is None else fair.hand_seed(self.seed, index)

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def next_commitment(self) -> str:
        """The commitment of the next hand's seed, published before it is dealt."""
        if self.algorithm == fair.FAIR_1:
            return fair.commitment(self._next_seed)
        return fair.chained_commitment(self._next_seed, self._prev, len(self.hands))

    def deal(self, mix: Mix | None = None) -> Game:
        """Deal the next hand (its players sit by :attr:`seats`) from its committed seed mixed
        with what the players contributed after the commitment was published (``mix``; by
        default nobody: a table of bots)."""
        if self.over:
            raise MatchError("the match is over")
        self._mix = mix if mix is not None else Mix.nothing()
        seed = self._next_seed
        if self.algorithm == fair.FAIR_2:
            seed = fair.wall_seed(seed, self._mix.values, len(self.hands))
        elif mix is not None:
            raise MatchError("caishen-fair-1 mixes in nothing: a hand's wall comes from its seed alone")
        return Game(self.ruleset, fair.shuffled_wall(seed, self.ruleset), fair.dice(seed))

    @property
    def mix(self) -> Mix:
        """What was mixed into the wall of the hand dealt last (:meth:`deal`)."""
        return self._mix

    @property
    def next_index(self) -> int:
        """The index of the hand :meth:`deal` deals next."""
        return len(self.hands)

    @property
    def seats(self) -> tuple[int, int, int, int]:
        """``seats[s]``: the player in seat ``s`` (0 = East = dealer) for the next hand."""
        return self.table.seats

    @property
    def hand_seed(self) -> bytes:
        """The seed of the next hand (revealed in its record once it is played)."""
        return self._next_seed

    def finish(self, game: Game, marks: Sequence[tuple[str | None, str | None]] | None = None) -> HandRecord:
        """Settle a hand dealt by :meth:`deal` and played to its end; its record. ``marks``:
        for every action, its signature and key, or who vouches for it (a game centre's hands,
        :mod:`caishen.table.movesig`)."""
        outcome = game.outcome
        if outcome is None:
            raise MatchError("the hand is not over")
        index = len(self.hands)
        seats = self.table.seats
        result = self.table.settle(outcome)
        fair2 = self.algorithm == fair.FAIR_2
        hand = hand_from_game(index, seats, self._next_seed, game, game.move_stack, result.to_json(),
                              self._prev if fair2 else None, self._mix if fair2 else None, marks)
        self._prev = hand.digest()
        self.hands.append(hand)
        self.results.append(result)
        if not self.over:
            self._next_seed = self._seed_for(index + 1)
        return hand

    def dismiss(self) -> None:
        """End the match before its last hand (:meth:`Table.dismiss`); its record says
        ``ended_by`` ``"dismissed"`` and holds the hands finished so far."""
        self.table.dismiss()

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
            seat_draw=self.seat_draw,
            room=self.room,
        )


def selfplay(
    ruleset: VariantRules, seed: bytes | None, players: int = 4, hands: int | None = None, seat_draw: bool = False
) -> MatchRecord:
    """A match of ``players`` :class:`RandomPlayer` s, seeded when ``seed`` is given (their
    randomness too). ``hands`` overrides ``ruleset.hands_per_match``; ``seat_draw`` seats them
    by the draw 校位定莊 (L2)."""
    if hands is not None:
        ruleset = ruleset.replace(hands_per_match=hands)
    ps = [RandomPlayer(player_rng(seed, i)) for i in range(players)]
    names = [f"random-{i}" for i in range(players)]
    return Match(ruleset, ps, seed=seed, names=names, seat_draw=seat_draw).play()


__all__ = [
    "DISMISSED",
    "Match",
    "MatchError",
    "Player",
    "RandomPlayer",
    "Table",
    "next_seating",
    "player_rng",
    "selfplay",
]
