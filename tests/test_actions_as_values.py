"""Actions are validated as values (issue 13, item 6): a malformed :class:`Action` passed to
``Game.step`` raises :class:`IllegalActionError` naming the problem and leaves the game exactly
as it was, even where Python would compare it equal to a legal move (``True == 1``,
``3.0 == 3``)."""

from __future__ import annotations

from typing import Any

import pytest

from caishen.engine.actions import DISCARDS, PONGS
from caishen.engine.game import Action, ActionKind, Game, IllegalActionError, Phase
from caishen.variants.longgang.rules import LONGGANG

TWO_M = 1    # kind 1 is 2m: Action(DISCARD, True) == DISCARDS[1] in Python
FOUR_M = 3   # kind 3 is 4m: Action(DISCARD, 3.0) == DISCARDS[3] in Python


def _turn_game() -> tuple[Game, int]:
    """A fresh hand whose first mover may discard both 2m and 4m (so the equality fallback
    would accept ``True`` and ``3.0`` if types were not checked first)."""
    for i in range(500):
        g = Game.from_seed(f"actions-as-values-{i}".encode(), LONGGANG)
        seat = g.to_move()[0]
        legal = g.legal_actions(seat)
        if DISCARDS[TWO_M] in legal and DISCARDS[FOUR_M] in legal:
            return g, seat
    raise AssertionError("no seed in 500 gives a first mover holding 2m and 4m")  # pragma: no cover


def _claim_game() -> tuple[Game, int]:
    """A hand played by first-legal moves until a seat is asked whether to pong a discard."""
    for i in range(200):
        g = Game.from_seed(f"actions-as-values-claim-{i}".encode(), LONGGANG)
        while not g.is_over:
            if g.phase is Phase.CLAIM:
                for s in g.to_move():
                    if any(a.kind is ActionKind.PONG for a in g.legal_actions(s)):
                        return g, s
            s = g.to_move()[0]
            g.step(s, g.legal_actions(s)[0])
    raise AssertionError("no pong offered in 200 hands")  # pragma: no cover


def _snapshot(g: Game) -> tuple[Any, ...]:
    return (
        tuple(g.observation(s) for s in range(4)),
        tuple(g.legal_actions(s) for s in range(4)),
        tuple(g.move_stack),
        g.phase,
        g.to_move(),
    )


# (action, words the message must contain)
CASES: list[tuple[Any, str]] = [
    (Action(99, 3), "not an action kind: int 99"),  # type: ignore[arg-type]
    (Action(ActionKind.DISCARD, 3.0), "tile must be an int, not float 3.0"),  # type: ignore[arg-type]
    (Action(ActionKind.DISCARD, "3"), "tile must be an int, not str '3'"),  # type: ignore[arg-type]
    (Action(ActionKind.PONG, None), "tile must be an int, not NoneType None"),  # type: ignore[arg-type]
    (Action(ActionKind.DISCARD, True), "tile must be an int, not bool True"),
    (Action(ActionKind.DISCARD, 1.0), "tile must be an int, not float 1.0"),  # type: ignore[arg-type]
    (Action(ActionKind.DISCARD, 0, True), "chow_low must be an int, not bool True"),
    (Action(ActionKind.DISCARD, 99), "no tile kind 99"),
    (Action(ActionKind.DISCARD, -2), "no tile kind -2"),
    (Action(ActionKind.DISCARD, TWO_M, 0), "discard takes no chow_low"),
    (Action(ActionKind.WIN, 3), "win takes no tile"),
    (Action(ActionKind.PONG, 3.0), "tile must be an int, not float 3.0"),  # type: ignore[arg-type]
    ("discard 2m", "not an action: 'discard 2m'"),
    (None, "not an action: None"),
    (object(), "not an action: <object>"),
]


@pytest.mark.parametrize(("action", "words"), CASES, ids=[f"{i}-{type(c[0]).__name__}" for i, c in enumerate(CASES)])
@pytest.mark.parametrize("where", ["turn", "claim"])
def test_malformed_action_is_refused_and_changes_nothing(action: Any, words: str, where: str) -> None:
    g, seat = _turn_game() if where == "turn" else _claim_game()
    before = _snapshot(g)
    with pytest.raises(IllegalActionError) as info:
        g.step(seat, action)
    assert words in str(info.value)
    assert info.value.code == "not-an-action"
    assert _snapshot(g) == before


def test_the_values_python_equates_really_are_legal_moves_here() -> None:
    """The table above is a real test: each lookalike equals a legal shared action, so only
    the type check stands between it and the move."""
    g, seat = _turn_game()
    legal = g.legal_actions(seat)
    assert Action(ActionKind.DISCARD, True) == DISCARDS[TWO_M] and DISCARDS[TWO_M] in legal
    assert Action(ActionKind.DISCARD, 3.0) == DISCARDS[FOUR_M] and DISCARDS[FOUR_M] in legal  # type: ignore[arg-type]
    g2, s2 = _claim_game()
    pong = next(a for a in g2.legal_actions(s2) if a.kind is ActionKind.PONG)
    fake = Action(ActionKind.PONG, float(pong.tile))  # type: ignore[arg-type]
    assert fake == PONGS[pong.tile]
    before = _snapshot(g2)
    with pytest.raises(IllegalActionError, match="pong: tile must be an int, not float"):
        g2.step(s2, fake)
    assert _snapshot(g2) == before


def test_a_well_formed_equal_action_still_plays() -> None:
    """A fresh, well-typed Action (not the shared instance) is accepted as before."""
    g, seat = _turn_game()
    g.step(seat, Action(ActionKind.DISCARD, TWO_M))
    assert g.move_stack[-1] == (seat, DISCARDS[TWO_M])
    assert g.move_stack[-1][1] is DISCARDS[TWO_M]
