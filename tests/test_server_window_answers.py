"""The answers given in an open claim window, read back from a session rebuilt from storage
(``core.window_answers``): a table a node takes over inside a window tells them, and the claim
that closes it, as the table that opened the window would have (docs/server.md, "Nodes")."""

from __future__ import annotations

import random

from caishen.engine.actions import ActionKind
from caishen.server import core


def test_window_answers_are_the_answers_since_the_window_opened_each_with_its_step() -> None:
    rng = random.Random(7)
    ruleset = core.build_ruleset("longgang", {}, 24)
    bots = (None, None, None, None)
    names = ("a", "b", "c", "d")
    seed = b"window answers 16"
    session = core.new_session(ruleset, bots, seed, names, seat_draw=True, paced=True)
    expected: list[tuple[core.Move, int]] = []
    finished: list[list[core.Move]] = []  # the moves of each hand played out
    windows = answers_checked = rebuilt = 0  # answers_checked: answers read back in a window still open
    while not session.over:
        if session.hand_over:
            finished.append(list(session.moves))
            session.next_hand()
            expected = []
            continue
        was = core.in_window(session)
        seat = session.waiting_for()[0]
        legal = session.legal_actions(seat)
        # mostly pass on a claim (windows stay open over several answers), sometimes claim
        passes = [a for a in legal if a.kind is ActionKind.PASS]
        action = passes[0] if passes and rng.random() < 0.7 else rng.choice(legal)
        for m in session.act(seat, action):
            if was:
                expected.append((m, core.public_step(session)))
            elif core.opens_window(m):
                expected = []
                windows += 1
        if not core.in_window(session):
            expected = []
        assert core.window_answers(session) == expected
        # every answer in a window has its step: the answers before one move it on for nobody
        assert len({step for _, step in expected}) <= 1, expected
        answers_checked += len(expected)
        if expected and rng.random() < 0.5:  # the table rebuilt from its stored moves here
            stored = [[core.move_row(m) for m in h] for h in [*finished, session.moves]]
            again = core.resume_session(ruleset, bots, seed, names, stored, seat_draw=True, paced=True)
            got = core.window_answers(again)
            assert [(m.seat, m.action.text(), step) for m, step in got] == [
                (m.seat, m.action.text(), step) for m, step in expected]
            rebuilt += 1
    assert windows > 500 and answers_checked > 10 and rebuilt > 5, (windows, answers_checked, rebuilt)
    assert core.window_answers(session) == []  # the match over: no window


def test_the_newest_discard_is_the_last_until_a_set_takes_it() -> None:
    """``TableView.newest_discard`` (the page marks that seat's last river tile, a reload too):
    the last discard's seat, through its claim window (answers given there take nothing until it
    closes) and the turns after it, until a chow, pong or kong takes the tile from the river."""
    rng = random.Random(11)
    ruleset = core.build_ruleset("longgang", {}, 8)
    session = core.new_session(ruleset, (None, None, None, None), b"newest discard", ("a", "b", "c", "d"),
                               seat_draw=True, paced=True)
    newest: int | None = None
    taken = kept = 0
    while not session.over:
        if session.hand_over:
            session.next_hand()
            newest = None
            assert core.newest_discard(session) is None
            continue
        seat = session.waiting_for()[0]
        legal = session.legal_actions(seat)
        passes = [a for a in legal if a.kind is ActionKind.PASS]
        action = passes[0] if passes and rng.random() < 0.5 else rng.choice(legal)
        river = len(session.game.observation(newest).discards[newest]) if newest is not None else 0
        for m in session.act(seat, action):
            if m.action.kind is ActionKind.DISCARD:
                newest = m.seat
        if newest is not None and not session.hand_over and m.action.kind is not ActionKind.DISCARD:
            now = len(session.game.observation(newest).discards[newest])
            if now < river:  # the tile left the river: a set took it
                newest = None
                taken += 1
            else:
                kept += 1
        if not session.hand_over:
            assert core.newest_discard(session) == newest
    assert taken > 20 and kept > 50, (taken, kept)
