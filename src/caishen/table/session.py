"""A match driven one action at a time, for tables where people play (game centre, terminal).

:class:`MatchSession` is :class:`~caishen.table.match.Match` turned inside out: instead of calling
every player for a move, it plays the bots itself and stops whenever a person must decide.
A person's seat is a player without a bot (``None``). The caller shows
:meth:`MatchSession.observation` and :meth:`MatchSession.legal_actions`, then hands the choice
to :meth:`MatchSession.act`, which returns every action applied (the person's and the bots'
that followed), so a server can store them before it tells anyone.

A session can be rebuilt from its settings and the actions of the unfinished hand
(:meth:`MatchSession.resume`): the engine is deterministic from the hand seed and the moves.

A *paced* session (``paced=True``) never moves a bot by itself: the caller asks
:meth:`MatchSession.bot_to_move` and plays the bot's move with :meth:`MatchSession.act` when it
chooses (the game centre spaces bot moves out in time, one event each).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from caishen.engine.actions import Action, ActionKind
from caishen.engine.game import Game
from caishen.engine.observation import Observation
from caishen.table import movesig
from caishen.table.match import Match, MatchError
from caishen.table.play import play
from caishen.table.players import Player
from caishen.table.record import HandRecord, MatchRecord, Mix
from caishen.variants.base import VariantRules

#: The first word of each kind's record text (``Action.text``), by kind.
_WORDS: tuple[str, ...] = tuple(k.name.lower() for k in ActionKind)


@dataclass(frozen=True, slots=True)
class Move:
    """One action applied to the hand in play: the seat (0 = East) and the action; at a game
    centre also who vouches for it (:mod:`caishen.table.movesig`): ``sig`` the person's signature
    (with their public ``key``), ``"server"`` (a bot or stand-in) or ``"unsigned"``."""

    seat: int
    action: Action
    sig: str | None = None
    key: str | None = None


class MatchSession:
    """A match of 4-6 players where ``players[i]`` is a bot, or ``None`` for a person.

    The session starts the first hand at once (``deal=False``: when :meth:`start` is called,
    after the people contributed to its wall). Between hands it waits for :meth:`next_hand`,
    so a client can show the score of the hand just finished."""

    game: Game

    def __init__(
        self,
        ruleset: VariantRules,
        players: Sequence[Player | None],
        *,
        seed: bytes | None = None,
        names: Sequence[str] | None = None,
        seat_draw: bool = False,
        paced: bool = False,
        deal: bool = True,
    ) -> None:
        self.paced = paced
        if names is None:
            names = [("player" if p is None else str(getattr(p, "name", type(p).__name__))) for p in players]
        # The Match keeps seating, chips, seeds and hand records; the session plays its hands.
        self.match = Match(ruleset, [p or _PERSON for p in players], seed=seed, names=names, seat_draw=seat_draw)
        self.bots: tuple[Player | None, ...] = tuple(players)
        self._people = tuple(p is None for p in players)
        self.moves: list[Move] = []
        self._steps_seen: tuple[list[Move], int, movesig.Steps] = (self.moves, 0, movesig.Steps())  # steps()
        self._settled = False
        self.dealt = False
        self._prepare()
        if deal:
            self.start()

    def start(self, mix: Mix | None = None) -> list[Move]:
        """Deal the first hand of a session made with ``deal=False``, mixing in ``mix`` (what the
        people contributed after its commitment was published: docs/fairness.md); returns the
        bots' opening moves."""
        if self.dealt:
            raise MatchError("the first hand is dealt already")
        self.game = self._deal(mix)
        self.dealt = True
        return self._advance()

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
    def commitment(self) -> str:
        """The commitment of the hand in play (or just finished), published before its deal."""
        return self._commitment

    @property
    def seats(self) -> tuple[int, int, int, int]:
        """``seats[s]``: the player index sitting in seat ``s`` in the hand in play."""
        return self._seats

    def is_person(self, player: int) -> bool:
        """Player ``player`` is a person (no bot of its own; a stand-in may play for it)."""
        return self._people[player]

    def default_mix(self) -> Mix:
        """The next hand's mix when nobody contributed: people's seats ``none``, bots' ``bot``."""
        return Mix.nothing(tuple("none" if self._people[p] else "bot" for p in self.match.seats))

    def seat_of(self, player: int) -> int | None:
        """The seat of player ``player`` in the hand in play (``None``: waiting, 替补)."""
        return self._seats.index(player) if player in self._seats else None

    @property
    def hand_over(self) -> bool:
        return self.game.is_over

    @property
    def over(self) -> bool:
        """The match is over (the last hand has been settled, or the match was dismissed)."""
        return self.match.table.dismissed or (self._settled and self.match.over)

    @property
    def dismissed(self) -> bool:
        """The people ended the match early (:meth:`dismiss`)."""
        return self.match.table.dismissed

    def dismiss(self) -> None:
        """End the match now (a game centre's vote, docs/server.md "Votes"): a hand in play
        stops where it is, unscored, and nobody is asked to move any more; the chips stand as
        after the last finished hand. Raises :class:`MatchError` once the match is over."""
        self.match.dismiss()

    @property
    def last_hand(self) -> HandRecord | None:
        """The record of the last finished hand (with its score and chips)."""
        return self.match.hands[-1] if self.match.hands else None

    def waiting_for(self) -> tuple[int, ...]:
        """Seats of people who must act now (empty while the hand is over)."""
        g = self.game
        if self.match.table.dismissed:
            return ()
        return tuple(s for s in g.to_move() if g.legal_actions(s) and self.bots[self._seats[s]] is None)

    def observation(self, seat: int) -> Observation:
        return self.game.observation(seat)

    def steps(self) -> movesig.Steps:
        """The steps of the hand in play's moves (:class:`movesig.Steps`), counted on from the
        last call: moves are only ever appended to a hand's list, and a new hand has a new list."""
        ms = self.moves
        seen = self._steps_seen
        if seen[0] is ms and seen[1] == len(ms):
            return seen[2]
        if seen[0] is not ms or seen[1] > len(ms):
            seen = (ms, 0, movesig.Steps())
        counter = seen[2]
        for m in ms[seen[1]:]:
            counter.add(m.seat, _WORDS[m.action.kind])
        self._steps_seen = (ms, len(ms), counter)
        return counter

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

    def act(self, seat: int, action: Action, sig: str | None = None, key: str | None = None) -> list[Move]:
        """A person's move for ``seat``; then the bots play until a person must act or the hand
        ends. Returns every move applied, in order. Raises ``IllegalActionError`` (nothing
        changes) for a move that is not legal, or :class:`MatchError` for a bot's seat.
        A paced session applies this one move only, a bot's as well (:meth:`bot_to_move`)."""
        if not self.paced and seat in range(4) and self.bots[self._seats[seat]] is not None:
            raise MatchError(f"seat {seat} is played by a bot")
        if self.match.table.dismissed:
            raise MatchError("the match was dismissed")
        self.game.step(seat, action)
        done = [Move(seat, action, sig, key)]
        self.moves.append(done[0])
        done.extend(self._advance())
        return done

    def bot_to_move(self) -> tuple[int, Player] | None:
        """The first seat (in the engine's order) that a bot must move now, with its bot;
        ``None`` when no bot is to move."""
        g = self.game
        if self.match.table.dismissed:
            return None
        for s in g.to_move():
            bot = self.bots[self._seats[s]]
            if bot is not None and g.legal_actions(s):
                return s, bot
        return None

    def next_hand(self, mix: Mix | None = None) -> list[Move]:
        """Deal the next hand once the last one is over, mixing in ``mix`` (default: nobody
        contributed); returns the bots' opening moves."""
        if not self._settled:
            raise MatchError("the hand in play is not over")
        if self.match.over:
            raise MatchError("the match is over")
        self._prepare()
        self.game = self._deal(mix)
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
        paced: bool = False,
        mixes: Sequence[Mix | None] = (),
        room: str | None = None,
    ) -> MatchSession:
        """Rebuild a seeded session from the moves of every hand played so far (the last one
        may be unfinished): the same seats, chips and state as when the moves were made.
        ``mixes[i]``: what was mixed into hand ``i``'s wall (missing or ``None``: nothing)."""
        session = cls.__new__(cls)
        session.paced = True  # replay first: no bot may move on its own
        session.match = Match(ruleset, [_PERSON for _ in players], seed=seed, names=names, seat_draw=seat_draw)
        session.match.room = room
        session.bots = tuple(None for _ in players)  # replay first: no bot may move on its own
        session._people = tuple(p is None for p in players)
        session.moves = []
        session._steps_seen = (session.moves, 0, movesig.Steps())
        session.dealt = True
        for i, moves in enumerate(hands):
            mix = mixes[i] if i < len(mixes) else None
            if i:
                session.next_hand(mix)
            else:
                session._prepare()
                session.game = session._deal(mix)
                session._settled = False
            for m in moves:
                session.act(m.seat, m.action, m.sig, m.key)
        session.bots = tuple(players)
        session.paced = paced
        if not session.game.is_over:
            session._advance()
        return session

    # ------------------------------------------------------------------ internals

    def _prepare(self) -> None:
        """The next hand's seed, commitment and seats: known (and published) before its deal."""
        self._seed = self.match.hand_seed
        self._commitment = self.match.next_commitment
        self._seats = self.match.seats

    def _deal(self, mix: Mix | None = None) -> Game:
        if mix is None:  # nothing mixed in: the record says which seats were people's
            mix = self.default_mix()
        return self.match.deal(mix)

    def _advance(self) -> list[Move]:
        made = [] if self.paced else [Move(s, a) for s, a in play(self.game, [self.bots[p] for p in self._seats])]
        self.moves.extend(made)
        if self.game.is_over and not self._settled:
            marked = any(m.sig is not None for m in self.moves)
            self.match.finish(self.game, [(m.sig, m.key) for m in self.moves] if marked else None)
            self._settled = True
        return made


class _Person:
    """Stands in the Match for a person's seat: the session asks people itself."""

    name = "player"
    observes = False

    def act(self, observation: Observation) -> Action:  # pragma: no cover - never called
        raise MatchError("a person's move comes through MatchSession.act")


_PERSON = _Person()
