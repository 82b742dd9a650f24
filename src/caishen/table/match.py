"""A match 一局: hand after hand with dealer rotation, seating and chips (L2, L18, L24, L25).

:class:`Table` is the bookkeeping of a match without players: who sits where, the chip
:class:`~caishen.variants.longgang.settlement.Ledger`, when the match ends. :class:`Match` adds players (anything
with ``act(observation, legal_actions) -> Action``, e.g. :class:`RandomPlayer` or the bots of
:mod:`caishen.bots`), deals every hand from a committed seed (:mod:`caishen.fair`) and writes a
:class:`~caishen.table.record.MatchRecord`. Replaying a record (:mod:`caishen.table.record`) runs the same
:class:`Table`, so a replay reproduces seating, scores and chips exactly.

Seats: the engine's seat 0 is East, and East is always the dealer (L2); when the deal passes
(L18) the players move one seat on: the old South becomes East, and the old dealer's chair
(now North) is taken by the first waiting player when 5 or 6 play (替补, L2), the old dealer
joining the back of the queue. With 4 players the old dealer simply becomes North.
"""

from __future__ import annotations

import hmac
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from caishen import fair
from caishen.engine.game import Action, ActionKind, Game, Outcome, WinHow
from caishen.hand import Hand
from caishen.notation import format_hand
from caishen.shapes.analysis import Arrangement, Form
from caishen.table.record import HandRecord, MatchRecord, RecordingGame, action_text, hand_from_game
from caishen.tiles import tile_name
from caishen.variants.longgang.rules import Ruleset
from caishen.variants.longgang.scoring import (
    LOSERS_COUNT_ZERO,
    FirstTurn,
    ScoreResult,
    ScoringError,
    WinBy,
    WinContext,
    score_arrangement,
    score_hand,
    score_win,
)
from caishen.variants.longgang.settlement import Ledger, Settlement

SEATS: Final = 4
PLAYER_LABEL: Final = b"player"


class MatchError(ValueError):
    """Bad match settings (number of players, names) or a move after the match is over."""


class Player(Protocol):
    """Anything that picks one of the legal actions. ``observation`` is the seat's
    :class:`~caishen.engine.game.Observation` (or ``None`` for players whose ``observes`` is False)."""

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action: ...


class RandomPlayer:
    """Random legal player: a win is always taken, otherwise a uniformly random legal action.
    Needs no observation (``observes = False``), so the match does not build one."""

    name = "random"
    observes = False

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._random = rng.random

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        for a in legal_actions:
            if a.kind is ActionKind.WIN:
                return a
        # floor(random() * n): uniform up to 2^-53, and cheaper than randrange on this hot path
        return legal_actions[int(self._random() * len(legal_actions))]


def player_rng(match_seed: bytes | None, player: int) -> random.Random:
    """Random source of player ``player``: from the match seed when given
    (``HMAC-SHA256(match_seed, b"player" + index)``), else from :mod:`secrets`."""
    if match_seed is None:
        return random.Random(secrets.randbits(128))
    d = hmac.digest(match_seed, PLAYER_LABEL + player.to_bytes(4, "big"), "sha256")
    return random.Random(int.from_bytes(d, "big"))


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


# ---------------------------------------------------------------- scoring adapter


@dataclass(frozen=True, slots=True)
class HandScore:
    """The scored hands of a won hand: the winner's result and each loser's own count
    (L23); ``loser_totals`` are what settlement uses (0 after 推土机/天胡/地胡, L23)."""

    winner: ScoreResult
    losers: dict[int, ScoreResult | None]
    loser_totals: dict[int, int]


_WIN_BY: Final = {
    WinHow.DISCARD: WinBy.DISCARD,
    WinHow.ROB_KONG: WinBy.ROB_KONG,
}


def _without(hand: Hand, k: int) -> Hand:
    if k in hand.flowers:
        return Hand(hand.concealed, hand.melds, tuple(f for f in hand.flowers if f != k))
    return hand.without_tile(k)


def _loser_score(hand: Hand, seat: int, dealer: int, indicator: int | None, ruleset: Ruleset) -> ScoreResult | None:
    """A loser's own count (L23). In 分张 (L17) a loser may hold one tile more (the sea-floor
    tile he took and may not discard): the best count without one of his concealed tiles
    is used. A hand left short by a flower taken in 分张 (not replaced) cannot be counted: None
    (counts 0). Both are our choices where the sources are silent (docs/records.md)."""
    try:
        return score_hand(hand, seat, dealer, indicator, ruleset)
    except ScoringError:
        pass
    best: ScoreResult | None = None
    for k in sorted(set(hand.concealed)):
        try:
            r = score_hand(hand.without_tile(k), seat, dealer, indicator, ruleset)
        except ScoringError:
            continue
        if best is None or r.total > best.total:
            best = r
    return best


def score_outcome(outcome: Outcome, ruleset: Ruleset) -> HandScore | None:
    """Score a finished hand for settlement: ``None`` for a draw 流局 (L17)."""
    w = outcome.winner
    if w is None:
        return None
    indicator = outcome.indicator if outcome.indicator >= 0 else None
    full = outcome.hands[w]
    how = outcome.how
    first = FirstTurn.HEAVENLY if outcome.heavenly else (
        FirstTurn.EARTHLY if outcome.earthly else FirstTurn.NONE
    )
    if how is WinHow.BULLDOZER:
        # 推土机 declared on another's discard (L8): the discard is not taken, the 16 tiles win
        # as they are. Scored as the bulldozer form of the hand held, on a discard.
        ctx = WinContext(outcome.indicator, WinBy.DISCARD, w, outcome.dealer, indicator, first)
        winner = score_arrangement(full, Arrangement(Form.BULLDOZER, ()), ctx, ruleset)
    else:
        tile = outcome.tile
        if how is WinHow.SELF_DRAW:
            by = WinBy.SEA_FLOOR if outcome.sea_floor else (
                WinBy.KONG_REPLACEMENT if outcome.after_kong else WinBy.SELF_DRAW
            )
        else:
            by = _WIN_BY[how] if how is not None else WinBy.DISCARD
        ctx = WinContext(tile, by, w, outcome.dealer, indicator, first)
        winner = score_win(_without(full, tile), ctx, ruleset)
    losers: dict[int, ScoreResult | None] = {}
    totals: dict[int, int] = {}
    zero = winner.limit in LOSERS_COUNT_ZERO
    for s in range(SEATS):
        if s == w:
            continue
        r = _loser_score(outcome.hands[s], s, outcome.dealer, indicator, ruleset)
        losers[s] = r
        totals[s] = 0 if zero or r is None else r.total
    return HandScore(winner, losers, totals)


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

    def settle(self, outcome: Outcome) -> dict[str, Any]:
        """Book a finished hand: chips through the ledger (L24, L25), then the seating of the
        next hand (L2, L18). Returns the JSON-ready result of the hand."""
        if self.over:
            raise MatchError("the match is over")
        ruleset = self.ruleset
        result = outcome_dict(outcome)
        # The engine may have scored the win already (Game calls score_outcome): reuse it.
        hs = outcome.scores if isinstance(outcome.scores, HandScore) else score_outcome(outcome, ruleset)
        broke_before = len(self.ledger.broke_events)
        if hs is None or outcome.winner is None:
            self.ledger.record_draw()
            result["score"] = None
            result["chips"] = [0, 0, 0, 0]
            result["transfers"] = []
        else:
            w = hs.winner
            st: Settlement = self.ledger.record(
                self.seats, outcome.winner, w.total, w.bonus_tai, hs.loser_totals, outcome.dealer,
                limit=w.limit is not None,
            )
            result["score"] = {
                "winner": _score_summary(w),
                "losers": {str(s): (None if r is None else _score_summary(r)) for s, r in sorted(hs.losers.items())},
                "loser_totals": {str(s): t for s, t in sorted(hs.loser_totals.items())},
            }
            result["chips"] = list(st.net)
            result["transfers"] = [[t.payer, t.payee, t.chips, t.rule] for t in st.transfers]
        result["broke"] = list(self.ledger.broke_events[broke_before:])
        result["chips_after"] = list(self.ledger.chips)
        self.hands_played += 1
        if self.ledger.over:
            self.ended_by = "broke" if len(self.ledger.broke_events) >= self.ledger.broke_to_end else "hands"
        dealer_keeps = outcome.winner is not None and outcome.winner == outcome.dealer
        self.seats, self.waiting = next_seating(self.seats, self.waiting, dealer_keeps)
        return result

    def result(self) -> dict[str, Any]:
        """The match result: hands played, why it ended, chips per player, fees, broke, loans."""
        lg = self.ledger
        return {
            "hands": self.hands_played,
            "over": lg.over,
            "ended_by": self.ended_by,
            "chips": list(lg.chips),
            "fees": lg.fees,
            "broke": list(lg.broke_events),
            "loans": [[ln.lender, ln.borrower, ln.chips] for ln in lg.loans],
        }


def _score_summary(r: ScoreResult) -> dict[str, Any]:
    return {
        "fu": r.fu,
        "tai": r.tai,
        "total": r.total,
        "bonus_tai": r.bonus_tai,
        "limit": None if r.limit is None else r.limit.value,
    }


def outcome_dict(outcome: Outcome) -> dict[str, Any]:
    """The engine's outcome as JSON-ready data (winner, how, tile, final hands...)."""
    flags = [
        name for name in ("heavenly", "earthly", "after_kong", "sea_floor", "last_live_tile")
        if getattr(outcome, name)
    ]
    return {
        "winner": outcome.winner,
        "draw": getattr(outcome, "draw_reason", None),  # "wall" (L17) or a draw switch
        "how": None if outcome.how is None else outcome.how.value,
        "tile": tile_name(outcome.tile) if outcome.tile >= 0 else None,
        "from": outcome.from_seat,
        "flags": flags,
        "hands": [format_hand(h) for h in outcome.hands],
    }


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

    def play_hand(self) -> HandRecord:
        """Deal and play one hand to its end, settle it, and return its record."""
        if self.over:
            raise MatchError("the match is over")
        index = len(self.hands)
        seed = self._next_seed
        seats = self.table.seats
        game = RecordingGame(self.ruleset, fair.shuffled_wall(seed, self.ruleset), fair.dice(seed))
        actions = play_game(game, [self.players[p] for p in seats])
        outcome = game.outcome
        assert outcome is not None
        result = self.table.settle(outcome)
        hand = hand_from_game(index, seats, seed, game, actions, result)
        self.hands.append(hand)
        if not self.over:
            self._next_seed = self._seed_for(index + 1)
        return hand

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
            result=self.table.result(),
        )


def play_game(game: Game, seat_players: Sequence[Player]) -> list[tuple[int, Action]]:
    """Let the players (one per seat) play ``game`` to its end; every seat that must move gets
    only its own observation and legal actions. Returns the actions made, in order."""
    actions: list[tuple[int, Action]] = []
    observes = [getattr(p, "observes", True) for p in seat_players]
    while not game.is_over:
        for s in game.to_move():
            legal = game.legal_actions(s)
            if not legal:
                continue
            obs = game.observation(s) if observes[s] else None
            a = seat_players[s].act(obs, legal)
            game.step(s, a)
            actions.append((s, a))
            if game.is_over:
                break
    return actions


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
    "HandScore",
    "Match",
    "MatchError",
    "Player",
    "RandomPlayer",
    "Table",
    "action_text",
    "next_seating",
    "outcome_dict",
    "play_game",
    "player_rng",
    "score_outcome",
    "selfplay",
]
