"""A match driven one action at a time, for tables where people play (game centre, terminal).

:class:`MatchSession` is :class:`~caishen.table.match.Match` turned inside out: instead of calling
every player for a move, it plays the bots itself and stops whenever a person must decide.
A person's seat is a player without a bot (``None``). The caller shows
:meth:`MatchSession.observation` and :meth:`MatchSession.legal_actions`, then hands the choice
to :meth:`MatchSession.act`, which returns every action applied (the person's and the bots'
that followed), so a server can store them before it tells anyone.

A session can be rebuilt from its settings and the actions of the unfinished hand
(:meth:`MatchSession.resume`): the engine is deterministic from the hand seed and the moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from caishen.engine.actions import Action
from caishen.engine.game import Game
from caishen.engine.observation import Observation
from caishen.table.match import Match, MatchError
from caishen.table.play import play
from caishen.table.players import Player
from caishen.table.record import HandRecord, MatchRecord
from caishen.variants.base import VariantRules


@dataclass(frozen=True, slots=True)
class Move:
    """One action applied to the hand in play: the seat (0 = East) and the action."""

    seat: int
    action: Action


class MatchSession:
    """A match of 4-6 players where ``players[i]`` is a bot, or ``None`` for a person.

    The session starts the first hand at once. Between hands it waits for
    :meth:`next_hand`, so a client can show the score of the hand just finished."""

    def __init__(
        self,
        ruleset: VariantRules,
        players: Sequence[Player | None],
        *,
        seed: bytes | None = None,
        names: Sequence[str] | None = None,
        seat_draw: bool = False,
    ) -> None:
        if names is None:
            names = [("player" if p is None else str(getattr(p, "name", type(p).__name__))) for p in players]
        # The Match keeps seating, chips, seeds and hand records; the session plays its hands.
        self.match = Match(ruleset, [p or _PERSON for p in players], seed=seed, names=names, seat_draw=seat_draw)
        self.bots: tuple[Player | None, ...] = tuple(players)
        self.game: Game = self._deal()
        self.moves: list[Move] = []
        self._settled = False
        self._advance()

    # ------------------------------------------------------------------ state

    @property
    def ruleset(self) -> VariantRules:
        return self.match.ruleset

    @property
    def hand_index(self) -> int:
        """Index of the hand in play (or just finished) within the match."""
        return len(self.match.hands) - (1 if self._settled else 0)

    @property
    def hand_seed(self) -> bytes:
        return self._seed

    @property
    def seats(self) -> tuple[int, int, int, int]:
        """``seats[s]``: the player index sitting in seat ``s`` in the hand in play."""
        return self._seats

    def seat_of(self, player: int) -> int | None:
        """The seat of player ``player`` in the hand in play (``None``: waiting, 替补)."""
        return self._seats.index(player) if player in self._seats else None

    @property
    def hand_over(self) -> bool:
        return self.game.is_over

    @property
    def over(self) -> bool:
        """The match is over (the last hand has been settled)."""
        return self._settled and self.match.over

    @property
    def last_hand(self) -> HandRecord | None:
        """The record of the last finished hand (with its score and chips)."""
        return self.match.hands[-1] if self.match.hands else None

    def waiting_for(self) -> tuple[int, ...]:
        """Seats of people who must act now (empty while the hand is over)."""
        g = self.game
        return tuple(s for s in g.to_move() if g.legal_actions(s) and self.bots[self._seats[s]] is None)

    def observation(self, seat: int) -> Observation:
        return self.game.observation(seat)

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        return self.game.legal_actions(seat)

    def record(self) -> MatchRecord:
        """The record of the hands finished so far."""
        return self.match.record()

    def drawn_tile(self, seat: int) -> int | None:
        """The tile ``seat`` just drew (or its replacement tile after a kong or flower), while its
        turn began with that draw; ``None`` after a chow or pong, or when it is not its turn.
        A client sets this tile apart in the hand it shows (the seat's own knowledge)."""
        g = self.game
        return g.just_drawn if g.current == seat else None

    # ------------------------------------------------------------------ acting

    def act(self, seat: int, action: Action) -> list[Move]:
        """A person's move for ``seat``; then the bots play until a person must act or the hand
        ends. Returns every move applied, in order. Raises ``IllegalActionError`` (nothing
        changes) for a move that is not legal, or :class:`MatchError` for a bot's seat."""
        if seat in range(4) and self.bots[self._seats[seat]] is not None:
            raise MatchError(f"seat {seat} is played by a bot")
        self.game.step(seat, action)
        done = [Move(seat, action)]
        self.moves.append(done[0])
        done.extend(self._advance())
        return done

    def next_hand(self) -> list[Move]:
        """Deal the next hand once the last one is over; returns the bots' opening moves."""
        if not self._settled:
            raise MatchError("the hand in play is not over")
        if self.match.over:
            raise MatchError("the match is over")
        self.game = self._deal()
        self.moves = []
        self._settled = False
        return self._advance()

    # ------------------------------------------------------------------ rebuilding

    @classmethod
    def resume(
        cls,
        ruleset: VariantRules,
        players: Sequence[Player | None],
        *,
        seed: bytes,
        names: Sequence[str],
        hands: Sequence[Sequence[Move]],
        seat_draw: bool = False,
    ) -> MatchSession:
        """Rebuild a seeded session from the moves of every hand played so far (the last one
        may be unfinished): the same seats, chips and state as when the moves were made."""
        session = cls.__new__(cls)
        session.match = Match(ruleset, [_PERSON for _ in players], seed=seed, names=names, seat_draw=seat_draw)
        session.bots = tuple(None for _ in players)  # replay first: no bot may move on its own
        session.moves = []
        for i, moves in enumerate(hands):
            if i:
                session.next_hand()
            else:
                session.game = session._deal()
                session._settled = False
            for m in moves:
                session.act(m.seat, m.action)
        session.bots = tuple(players)
        if not session.game.is_over:
            session._advance()
        return session

    # ------------------------------------------------------------------ internals

    def _deal(self) -> Game:
        self._seed = self.match.hand_seed
        self._seats = self.match.seats
        return self.match.deal()

    def _advance(self) -> list[Move]:
        made = [Move(s, a) for s, a in play(self.game, [self.bots[p] for p in self._seats])]
        self.moves.extend(made)
        if self.game.is_over and not self._settled:
            self.match.finish(self.game)
            self._settled = True
        return made


class _Person:
    """Stands in the Match for a person's seat: the session asks people itself."""

    name = "player"
    observes = False

    def act(self, observation: Observation) -> Action:  # pragma: no cover - never called
        raise MatchError("a person's move comes through MatchSession.act")


_PERSON = _Person()
