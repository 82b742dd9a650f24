"""What one seat receives 视角: the :class:`Observation`, the whole message for a seat.

Bots, the RL environments, the game centre and terminal play all consume the same
observation: the seat's own tiles, everything laid open, counts, and its legal actions. It
never holds another seat's concealed tiles nor the order of the wall.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from caishen.engine.actions import Action
from caishen.hand import Hand, Meld
from caishen.notation import format_meld
from caishen.tiles import tile_name


class Phase(enum.StrEnum):
    """Where the hand is (docs/engine.md, state machine)."""

    TURN = "turn"            # one seat has drawn (or claimed) and must discard, kong or win
    CLAIM = "claim"          # seats decide on a discard: win, kong, pong, chow or pass (L10)
    ROB = "rob"              # seats decide whether to rob an added kong 抢杠 (L10)
    SEA_FLOOR = "sea_floor"  # 分张: each seat takes one sea-floor tile, win or pass (L17)
    OVER = "over"


def _tiles(ks: tuple[int, ...] | list[int]) -> list[str]:
    return [tile_name(k) for k in ks]


def _melds(ms: tuple[Meld, ...]) -> list[str]:
    return [format_meld(m) for m in ms]


@dataclass(slots=True)
class Observation:
    """What one seat may know now, with the moves it may make (``legal_actions``; empty when it
    has nothing to decide). A message: each decision gets a new one, and nothing reads it back,
    so it is not frozen (a frozen dataclass costs several µs more to build, on the hot path of
    self-play). Treat it as read-only."""

    seat: int
    dealer: int
    dice: tuple[int, int, int, int]
    indicator: int | None                  # the turned tile (None: none)
    wilds: frozenset[int]                  # kinds wild for this seat
    phase: Phase
    current: int                           # the seat whose turn it is (or who discarded)
    to_move: tuple[int, ...]               # seats to move that this seat may know of
    hand: Hand                             # own concealed tiles, melds, all own flowers
    melds: tuple[tuple[Meld, ...], ...]    # every seat's declared melds
    flowers: tuple[tuple[int, ...], ...]   # every seat's flowers laid open 客花
    discards: tuple[tuple[int, ...], ...]  # every seat's discards still on the table
    last_discard: int | None               # the discard (or kong tile) being decided on
    concealed_counts: tuple[int, ...]      # tiles each seat holds concealed (flowers held incl.)
    live_tiles: int                        # wall tiles left before the sea floor
    sea_floor_tiles: int                   # sea-floor tiles left (分张)
    dead_wall_tiles: int                   # 王牌 (20 or 21, L6)
    legal_actions: tuple[Action, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The observation as JSON-ready data: tiles in notation (``5p``), melds in notation
        (``[555p]``), actions in their text form (``pong 5p``)."""
        return {
            "seat": self.seat,
            "dealer": self.dealer,
            "dice": list(self.dice),
            "indicator": None if self.indicator is None else tile_name(self.indicator),
            "wilds": _tiles(sorted(self.wilds)),
            "phase": self.phase.value,
            "current": self.current,
            "to_move": list(self.to_move),
            "hand": {
                "concealed": _tiles(self.hand.concealed),
                "melds": _melds(self.hand.melds),
                "flowers": _tiles(self.hand.flowers),
            },
            "melds": [_melds(m) for m in self.melds],
            "flowers": [_tiles(f) for f in self.flowers],
            "discards": [_tiles(d) for d in self.discards],
            "last_discard": None if self.last_discard is None else tile_name(self.last_discard),
            "concealed_counts": list(self.concealed_counts),
            "live_tiles": self.live_tiles,
            "sea_floor_tiles": self.sea_floor_tiles,
            "dead_wall_tiles": self.dead_wall_tiles,
            "legal_actions": [a.text() for a in self.legal_actions],
        }


def new_observation(
    seat: int,
    dealer: int,
    dice: tuple[int, int, int, int],
    indicator: int | None,
    wilds: frozenset[int],
    phase: Phase,
    current: int,
    to_move: tuple[int, ...],
    hand: Hand,
    melds: tuple[tuple[Meld, ...], ...],
    flowers: tuple[tuple[int, ...], ...],
    discards: tuple[tuple[int, ...], ...],
    last_discard: int | None,
    concealed_counts: tuple[int, ...],
    live_tiles: int,
    sea_floor_tiles: int,
    dead_wall_tiles: int,
    legal_actions: tuple[Action, ...],
) -> Observation:
    """``Observation(...)`` with every field given in order, for the engine's hot path: the
    compiled build (mypyc) runs a dataclass's ``__init__`` as interpreted code, and setting
    the fields here instead makes :meth:`Game.observation` about a fifth cheaper."""
    o = Observation.__new__(Observation)  # not object.__new__: mypyc refuses it for its classes
    o.seat = seat
    o.dealer = dealer
    o.dice = dice
    o.indicator = indicator
    o.wilds = wilds
    o.phase = phase
    o.current = current
    o.to_move = to_move
    o.hand = hand
    o.melds = melds
    o.flowers = flowers
    o.discards = discards
    o.last_discard = last_discard
    o.concealed_counts = concealed_counts
    o.live_tiles = live_tiles
    o.sea_floor_tiles = sea_floor_tiles
    o.dead_wall_tiles = dead_wall_tiles
    o.legal_actions = legal_actions
    return o
