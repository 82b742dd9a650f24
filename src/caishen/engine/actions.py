"""Moves 动作: :class:`Action`, its kinds, and its one text form (``discard 5p``, ``pong 5p``…).

Every action exists once: :meth:`Game.legal_actions <caishen.engine.game.Game.legal_actions>`
hands out the shared instances below, so players compare them by identity. The text form is
the one records, scenario files, the terminal and the game centre use: :meth:`Action.text`
writes it and :meth:`Action.parse` reads it strictly.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Final

from caishen.errors import CaishenError
from caishen.tiles import NUM_KINDS, NUM_SUITED, tile_name


class IllegalActionError(CaishenError):
    """A move that is not allowed now; the message says why and ``rule`` names the rule (L12)."""

    code = "illegal-action"


class ActionTextError(CaishenError):
    """Text that is not an action in the one text form (``discard 5p``, ``chow 4p 3p``, ``win``)."""

    code = "action-text"


class ActionKind(enum.IntEnum):
    """What a move does."""

    DISCARD = 0         # 打牌
    CHOW = 1            # 吃
    PONG = 2            # 碰
    EXPOSED_KONG = 3    # 大明杠
    ADDED_KONG = 4      # 小明杠 / 补杠
    CONCEALED_KONG = 5  # 暗杠
    WIN = 6             # 胡
    PASS = 7            # 过
    DECLARE_DRAW = 8    # 叫和局: declare the hand drawn, where the variant allows it


@dataclass(frozen=True, slots=True)
class Action:
    """A move. ``tile``: the discarded tile, the kind of a pong or kong, the claimed tile of a
    chow; ``-1`` for win, pass and declare_draw. ``chow_low``: the lowest kind of a chow's
    sequence."""

    kind: ActionKind
    tile: int = -1
    chow_low: int = -1

    def __reduce__(self) -> tuple[Any, tuple[int, int, int]]:
        # Unpickle to the shared instance (legal_actions hands those out).
        return (_canonical_action, (int(self.kind), self.tile, self.chow_low))

    def __copy__(self) -> Action:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Action:
        return self

    def __str__(self) -> str:
        return self.text()

    def text(self) -> str:
        """The one text form: ``discard 5p``, ``chow 4p 3p`` (claimed tile, lowest tile of the
        sequence), ``pong 5p``, ``exposed_kong 5p``, ``added_kong 5p``, ``concealed_kong 5p``,
        ``win``, ``pass``, ``declare_draw``."""
        got = _TEXTS.get(self)
        if got is None:
            got = _TEXTS[self] = self._make_text()
        return got

    def _make_text(self) -> str:
        name = self.kind.name.lower()
        if self.kind is ActionKind.CHOW:
            return f"{name} {_name(self.tile)} {_name(self.chow_low)}"
        if self.kind in _NO_TILE:
            return name
        return f"{name} {_name(self.tile)}"

    @staticmethod
    def parse(text: str) -> Action:
        """The shared :class:`Action` of a text (see :meth:`text`); :class:`ActionTextError`
        otherwise."""
        parts = text.split()
        if not parts:
            raise ActionTextError("empty action")
        name, args = parts[0], parts[1:]
        if name in _BY_NAME and not args:
            return _BY_NAME[name]
        if name in _TILE_ACTIONS and len(args) == 1:
            return _TILE_ACTIONS[name][_tile(args[0])]
        if name == "chow" and len(args) == 2:
            key = (_tile(args[0]), _tile(args[1]))
            got = CHOWS.get(key)
            if got is None:
                raise ActionTextError(f"{_short(text)!r} is not a chow (claimed tile, lowest tile)")
            return got
        raise ActionTextError(
            f"{_short(text)!r} is not an action (e.g. 'discard 5p', 'chow 4p 3p', 'pong 5p', 'win', 'pass')")


def _name(k: int) -> str:
    return tile_name(k) if 0 <= k < NUM_KINDS else str(k)


def _short(text: str) -> str:
    """At most 80 characters of user input, for messages."""
    return text if len(text) <= 80 else text[:77] + "..."


_TILE_BY_NAME: Final = {tile_name(k): k for k in range(NUM_KINDS)}


def _tile(text: str) -> int:
    got = _TILE_BY_NAME.get(text)
    if got is None:
        raise ActionTextError(f"{_short(text)!r} is not a tile (e.g. 5p, 7z, f2)")
    return got


# Every action exists once; legal_actions hands out these shared objects.
DISCARDS: Final = tuple(Action(ActionKind.DISCARD, k) for k in range(NUM_KINDS))
PONGS: Final = tuple(Action(ActionKind.PONG, k) for k in range(NUM_KINDS))
EXPOSED_KONGS: Final = tuple(Action(ActionKind.EXPOSED_KONG, k) for k in range(NUM_KINDS))
ADDED_KONGS: Final = tuple(Action(ActionKind.ADDED_KONG, k) for k in range(NUM_KINDS))
CONCEALED_KONGS: Final = tuple(Action(ActionKind.CONCEALED_KONG, k) for k in range(NUM_KINDS))
# The text of each action, made once: records and the game centre write every move's (there
# are a few hundred actions in all).
_TEXTS: Final[dict[Action, str]] = {}

CHOWS: Final = {
    (t, low): Action(ActionKind.CHOW, t, low)
    for low in range(NUM_SUITED) if low % 9 <= 6
    for t in (low, low + 1, low + 2)
}
WIN: Final = Action(ActionKind.WIN)
PASS: Final = Action(ActionKind.PASS)
DECLARE_DRAW: Final = Action(ActionKind.DECLARE_DRAW)
#: The kinds that take no tile (``tile`` and ``chow_low`` stay -1), by their text.
_BY_NAME: Final = {"win": WIN, "pass": PASS, "declare_draw": DECLARE_DRAW}
_NO_TILE: Final = frozenset(a.kind for a in _BY_NAME.values())
_SHARED: Final = {
    (int(a.kind), a.tile, a.chow_low): a
    for a in (*DISCARDS, *PONGS, *EXPOSED_KONGS, *ADDED_KONGS, *CONCEALED_KONGS, *CHOWS.values(),
              WIN, PASS, DECLARE_DRAW)
}
_TILE_ACTIONS: Final = {
    "discard": DISCARDS,
    "pong": PONGS,
    "exposed_kong": EXPOSED_KONGS,
    "added_kong": ADDED_KONGS,
    "concealed_kong": CONCEALED_KONGS,
}


def _canonical_action(kind: int, tile: int, chow_low: int) -> Action:
    """The shared instance of an action (a new one for values no legal action has)."""
    got = _SHARED.get((kind, tile, chow_low))
    return got if got is not None else Action(ActionKind(kind), tile, chow_low)
