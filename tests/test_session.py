"""MatchSession: a match played one action at a time gives the same hands as Match."""

import pytest

from caishen.bots import make_bot
from caishen.engine.actions import DISCARDS
from caishen.engine.game import PASS, Action, Game, IllegalActionError
from caishen.table.match import Match, MatchError
from caishen.table.players import player_rng
from caishen.table.session import MatchSession, Move
from caishen.variants.longgang.rules import LONGGANG

RULES = LONGGANG.replace(hands_per_match=3)


def _illegal(legal: tuple) -> Action:
    return next(a for a in (*DISCARDS, PASS) if a not in legal)


def _bots(seed: bytes) -> list:
    return [make_bot(n, player_rng(seed, i)) for i, n in enumerate(("greedy", "random", "greedy", "random"))]


def test_all_bot_session_plays_the_same_hands_as_match() -> None:
    seed = b"session-1"
    want = Match(RULES, _bots(seed), seed=seed, names=list("abcd")).play()
    s = MatchSession(RULES, _bots(seed), seed=seed, names=list("abcd"))
    while not s.over:
        s.next_hand()
    assert s.record().to_json() == want.to_json()


def test_person_seat_waits_and_illegal_moves_change_nothing() -> None:
    seed = b"session-2"
    players = [None, *(_bots(seed)[1:])]
    s = MatchSession(RULES, players, seed=seed, names=list("abcd"))
    person_moves = 0
    while not s.over:
        if s.hand_over:
            s.next_hand()
            continue
        (seat,) = s.waiting_for()
        assert s.seats[seat] == 0
        legal = s.legal_actions(seat)
        before = len(s.moves)
        with pytest.raises(MatchError):  # another seat is a bot's
            s.act((seat + 1) % 4, legal[0])
        with pytest.raises(IllegalActionError):
            s.act(seat, _illegal(legal))
        assert len(s.moves) == before
        done = s.act(seat, legal[-1])
        assert done[0] == Move(seat, legal[-1])
        person_moves += 1
    assert person_moves > 0
    assert len(s.record().hands) == 3


def test_resume_rebuilds_the_same_state() -> None:
    seed = b"session-3"
    players = [None, *(_bots(seed)[1:])]
    s = MatchSession(RULES, players, seed=seed, names=list("abcd"))
    hands: list[list[Move]] = []
    for _ in range(12):
        if s.hand_over:
            hands.append(list(s.moves))
            s.next_hand()
            continue
        (seat,) = s.waiting_for()
        s.act(seat, s.legal_actions(seat)[0])
    hands.append(list(s.moves))
    again = MatchSession.resume(RULES, players, seed=seed, names=list("abcd"), hands=hands)
    assert again.moves == s.moves
    assert again.record().to_json() == s.record().to_json()
    assert again.waiting_for() == s.waiting_for()
    seat = s.waiting_for()[0] if s.waiting_for() else 0
    assert again.observation(seat) == s.observation(seat)


def test_bot_seat_cannot_be_played() -> None:
    seed = b"session-4"
    s = MatchSession(RULES, [None, *(_bots(seed)[1:])], seed=seed)
    with pytest.raises(MatchError):
        s.act(1, s.legal_actions(0)[0] if s.legal_actions(0) else s.legal_actions(1)[0])


def test_drawn_tile_is_the_last_tile_drawn_on_the_seats_turn() -> None:
    seed = b"session-5"
    s = MatchSession(RULES, [None, *(_bots(seed)[1:])], seed=seed)
    seen = 0
    while not s.hand_over and seen < 30:
        (seat,) = s.waiting_for()
        g = s.game
        assert isinstance(g, Game)
        drawn = s.drawn_tile(seat)
        if g.phase.value == "turn":
            # the drawn tile is the last tile taken from the wall by this seat, and it is held
            last_seat, pos = g.draws[-1]
            if drawn is not None:
                assert (last_seat, g.wall[pos]) == (seat, drawn)
                assert drawn in s.observation(seat).hand.concealed
                seen += 1
        else:
            assert drawn is None
        s.act(seat, s.legal_actions(seat)[0])
    assert seen > 0
    assert s.drawn_tile((s.game.current + 1) % 4) is None
