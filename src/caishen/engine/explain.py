"""Why a move is illegal 为何不可: the message and rule of an :class:`IllegalActionError` (L12).

Kept apart from the state machine: :meth:`Game.step <caishen.engine.game.Game.step>` calls
:func:`why_illegal` only for a move that is not among the legal actions.
"""

from __future__ import annotations

import re
from typing import Final, Protocol

from caishen.engine.actions import Action, ActionKind, IllegalActionError
from caishen.engine.observation import Phase
from caishen.engine.rules import GameRules
from caishen.engine.seat import SeatState
from caishen.tiles import NUM_KINDS, NUM_SUITED, tile_name

SEATS: Final = 4


class GameState(Protocol):
    """The parts of a :class:`~caishen.engine.game.Game` the reasons read (the game passes
    itself in; this module must not import the game, which imports it)."""

    @property
    def ruleset(self) -> GameRules: ...

    _phase: Phase
    _seats: list[SeatState]
    _claimed: bool
    _forbid: tuple[int, int]
    _options: dict[int, tuple[Action, ...]]
    _discard_tile: int
    _discarder: int
    _rob_tile: int
    _kong_round: list[int]

    def to_move(self) -> tuple[int, ...]: ...
    def _first_go_round(self) -> bool: ...
_RULE: Final = re.compile(r"\b([LG]\d+(?:\.\d+)?)\)")


def why_illegal(game: GameState, seat: int, action: object) -> IllegalActionError:
    """The error for ``action`` by ``seat`` in ``game`` now: why it is illegal, with the rule
    behind it when there is one. Anything that is not a valid :class:`Action` is refused too,
    with what is wrong with it (see :func:`action_problem`)."""
    problem = action_problem(action)
    if problem is not None:
        return IllegalActionError(problem, code="not-an-action")
    assert isinstance(action, Action)  # action_problem checked it
    msg = _reason(game, seat, action)
    found = _RULE.findall(msg)
    return IllegalActionError(msg, rule=found[-1] if found else None)


def action_problem(action: object) -> str | None:
    """What makes ``action`` not a valid :class:`Action` value, or ``None`` if it is one: a
    real :class:`ActionKind` and plain ``int`` tiles in range. ``True``, ``3.0`` and ``"3"``
    are refused even where Python would compare them equal to ``1`` or ``3``. Checked before
    any comparison with the legal actions, and without calling the value's own methods."""
    if not isinstance(action, Action):
        return f"not an action: {_show(action)}"
    kind, tile, low = action.kind, action.tile, action.chow_low
    if type(kind) is not ActionKind:
        return f"not an action kind: {type(kind).__name__} {_show(kind)} (an ActionKind is needed)"
    for field, value in (("tile", tile), ("chow_low", low)):
        if type(value) is not int:
            return f"{kind.name.lower()}: {field} must be an int, not {type(value).__name__} {_show(value)}"
    if kind is ActionKind.WIN or kind is ActionKind.PASS or kind is ActionKind.DECLARE_DRAW:
        if tile != -1 or low != -1:
            return f"{kind.name.lower()} takes no tile (tile and chow_low must be -1, not {tile} and {low})"
        return None
    if not 0 <= tile < NUM_KINDS:
        return f"{kind.name.lower()}: no tile kind {tile} (0-{NUM_KINDS - 1})"
    if kind is ActionKind.CHOW:
        if not 0 <= low < NUM_KINDS:
            return f"chow: no tile kind {low} for chow_low (0-{NUM_KINDS - 1})"
    elif low != -1:
        return f"{kind.name.lower()} takes no chow_low (must be -1, not {low})"
    return None


def _show(value: object) -> str:
    """A short repr of a value from outside, for a message: plain values as they are (at most
    40 characters), anything else by its type only, so no foreign ``__repr__`` runs."""
    if type(value) in _PLAIN:
        r = repr(value)
        return r if len(r) <= 40 else r[:37] + "..."
    return f"<{type(value).__name__}>"


_PLAIN: Final = (int, float, bool, str, bytes, type(None))


def _name(k: int) -> str:
    return tile_name(k) if 0 <= k < NUM_KINDS else str(k)


def _reason(game: GameState, seat: int, a: Action) -> str:
    ph = game._phase
    movers = game.to_move()
    if seat not in range(SEATS):
        return f"no seat {seat!r}"
    if seat not in movers:
        if ph is Phase.CLAIM or ph is Phase.ROB:  # who else is asked stays hidden
            return f"seat {seat} has nothing to decide on this {'discard' if ph is Phase.CLAIM else 'kong'}"
        return f"seat {seat} has nothing to decide now ({ph.value}; to move: {list(movers)})"
    k = a.tile
    if k >= NUM_KINDS:
        return f"no tile kind {k}"
    st = game._seats[seat]
    c = st.cnt
    wild = st.wild
    if ph is Phase.TURN and game._kong_round:
        if a.kind is ActionKind.CONCEALED_KONG and 0 <= k < NUM_KINDS and c[k] == 4:
            return (f"{_name(k)} came from this round's kong replacement: it may be konged in the next "
                    "round or a later own turn (L9)")
        return ("the opening concealed-kong round (after all flowers, South, West, North in turn): "
                "only a concealed kong or pass (L9)")
    if ph is Phase.TURN:
        if a.kind is ActionKind.DISCARD:
            if k < 0 or not c[k]:
                return f"seat {seat} holds no {_name(k)} to discard"
            if wild[k]:
                return f"{tile_name(k)} is wild (财神) and can never be discarded (L8)"
            if game._claimed and k == game._forbid[0]:
                return f"{tile_name(k)} was just claimed and cannot be discarded now (L9)"
            if game._claimed and k == game._forbid[1]:
                return f"{tile_name(k)} would make the same sequence as the chow just made (L9)"
            if game._claimed:
                return (f"{tile_name(k)} matches seat {seat}'s pong: it may not be discarded, and no kong "
                        "in the turn of a chow or pong (L9, 小明杠)")
            return f"{tile_name(k)} matches seat {seat}'s pong: kong it instead (补杠)"
        if a.kind is ActionKind.WIN:
            if game._claimed:
                return "no win right after a chow or pong: discard"
            return f"seat {seat}'s hand is not a winning hand (诈胡, L12)"
        if a.kind is ActionKind.DECLARE_DRAW:
            return _declare_reason(game, seat)
        if a.kind in (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG):
            if game._claimed:
                return "no kong in the turn of a chow or pong (L9)"
            if 0 <= k and wild[k]:
                return f"{_name(k)} is wild (财神) and cannot be part of a kong (L8)"
            if a.kind is ActionKind.ADDED_KONG:
                return f"seat {seat} has no pong of {_name(k)} and that tile in hand (L9)"
            return f"seat {seat} does not hold four {_name(k)} (L9)"
        return f"{a.kind.name.lower()} is not a move in one's own turn"
    if ph is Phase.SEA_FLOOR:
        return "in 分张 only win or pass (L17)"
    opts = game._options.get(seat, ())
    tile = game._discard_tile if ph is Phase.CLAIM else game._rob_tile
    if a.kind is ActionKind.WIN:
        if st.pass_win:
            return f"seat {seat} passed a win and may not win on a discard before its own next discard (过水, L11)"
        if tile == st.last_discard and not st.dudiao:
            return f"seat {seat} discarded {_name(tile)} itself this go-round and may not win on it (L11)"
        return f"{_name(tile)} does not complete seat {seat}'s hand (诈胡, L12)"
    if ph is Phase.ROB:
        return "only win (rob the kong) or pass now (L10)"
    if a.kind is ActionKind.DISCARD:
        return "not your turn to discard"
    if a.tile != tile:
        return f"the discard is {_name(tile)}, not {_name(a.tile)}"
    if wild[tile]:
        return f"{_name(tile)} is wild (财神) and cannot be claimed (L8)"
    if a.kind is ActionKind.PONG:
        if c[tile] < 2:
            return f"seat {seat} does not hold two {_name(tile)} to pong (L9)"
        if st.pong_ban >> tile & 1:
            return f"seat {seat} passed a pong of {_name(tile)} and may not pong it before its own next draw (L11)"
        return "that pong would leave only wilds, which cannot be discarded (L8): win instead"
    if a.kind is ActionKind.EXPOSED_KONG:
        return f"seat {seat} does not hold three {_name(tile)} (L9)"
    if a.kind is ActionKind.CHOW:
        if not game.ruleset.allow_chow:
            return "this ruleset has no chow"
        if seat != (game._discarder + 1) % SEATS:
            return f"chow only from the player on the left: seat {seat} is not next after seat {game._discarder} (L9)"
        if tile == st.last_discard:
            return f"seat {seat} discarded {_name(tile)} this go-round and may not chow it (source (五)f)"
        low = a.chow_low
        if not (0 <= low < NUM_SUITED and low % 9 <= 6 and low <= tile <= low + 2):
            return f"{_name(tile)} is not in a sequence starting at {_name(low)}"
        for x in (low, low + 1, low + 2):
            if x != tile and wild[x]:
                return f"{_name(x)} is wild (财神) and cannot be used in a chow (L8)"
            if x != tile and not c[x]:
                return f"seat {seat} holds no {_name(x)} for that chow (L9)"
        return "that chow would leave no tile that may be discarded (L8, L9): win instead"
    if a.kind is ActionKind.PASS and not opts:
        return "nothing to pass on"
    if a.kind is ActionKind.DECLARE_DRAW:
        return "a draw is declared only in one's own turn"
    return f"{a} is not allowed now"


def _declare_reason(game: GameState, seat: int) -> str:
    """Why ``seat`` may not declare the hand drawn 叫和局 in its turn now."""
    if not game.ruleset.declares_draws:
        return "these rules have no declared draw (叫和局)"
    if game._claimed:
        return "no declared draw right after a chow or pong: discard"
    if not game._first_go_round():
        return "a draw is declared only in the first go-round 首巡, before any chow, pong or exposed kong"
    return f"seat {seat}'s hand may not declare the hand drawn (叫和局)"
