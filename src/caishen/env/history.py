"""The history planes of observation ``v2`` (docs/env.md, "Observation v2"): what happened in
the hand, in order, as every player at a real table sees it. Standard library only.

Per seat, relative to the observer (0 = the observer, then right, opposite, left):

* ``discards``: the seat's discards in order, most recent first (slot 0), up to
  :data:`DISCARD_SLOTS`; each slot is the tile (one-hot over 34 kinds), *tsumogiri* (the tile
  was the one the seat had just drawn: a player sees whether a discard comes from the hand or
  from the draw) and *claimed* (another seat took it: chow, pong or kong; it is then no longer
  among v1's discards on the table);
* ``claims``: the seat's melds as they were made, most recent first, up to
  :data:`CLAIM_SLOTS`; each slot is the kind (chow, pong, exposed kong, added kong, concealed
  kong: one-hot over 5), the tile (for a chow the claimed one) and the seat it came from,
  relative to the claiming seat (one-hot: 0 itself, for a concealed or added kong; 1 its
  right, 2 opposite, 3 its left, the only one a chow comes from).

Then, for the observer only: ``drawn``, the tile it has just drawn (one-hot; zero when its turn
began with a claim, or it is not its turn), and ``wall``: the share of the live wall drawn so
far and the discards made in the hand / 100.

A :class:`History` follows one hand: the env makes every move through :meth:`History.step`,
which asks the engine only what the table shows (the tile just drawn, before it is discarded;
the discards and melds on the table after the move).
"""

from __future__ import annotations

from typing import Any, Final

from caishen.engine.actions import Action, ActionKind
from caishen.engine.game import Game, Phase
from caishen.hand import Meld
from caishen.tiles import NUM_NON_FLOWER

N: Final = NUM_NON_FLOWER
DISCARD_SLOTS: Final = 24
CLAIM_SLOTS: Final = 8
DISCARD_SLOT: Final = N + 2             # tile one-hot, tsumogiri, claimed
CLAIM_SLOT: Final = 5 + N + 4           # kind one-hot, tile one-hot, from (relative) one-hot
DISCARDS_AT: Final = 0
CLAIMS_AT: Final = DISCARDS_AT + 4 * DISCARD_SLOTS * DISCARD_SLOT
DRAWN_AT: Final = CLAIMS_AT + 4 * CLAIM_SLOTS * CLAIM_SLOT
WALL_AT: Final = DRAWN_AT + N
HISTORY_SIZE: Final = WALL_AT + 2

HISTORY_BLOCKS: Final = (
    ("discards", 4 * DISCARD_SLOTS * DISCARD_SLOT),
    ("claims", 4 * CLAIM_SLOTS * CLAIM_SLOT),
    ("drawn", N),
    ("wall", 2),
)

_ZEROS: Final = memoryview(bytearray(4 * HISTORY_SIZE)).cast("f")


class History:
    """The public history of one hand (see the module docstring)."""

    def __init__(self) -> None:
        # per seat: [tile, tsumogiri, claimed] lists, oldest first
        self.discards: list[list[list[int]]] = [[], [], [], []]
        # per seat: (kind, tile, from seat absolute), oldest first
        self.claims: list[list[tuple[int, int, int]]] = [[], [], [], []]
        self._melds: list[tuple[Meld, ...]] = [(), (), (), ()]
        self._live0 = 1
        self._made = 0
        self._last = -1  # the seat of the last discard

    def reset(self, game: Game) -> None:
        """A new hand (``game`` as dealt, before any move)."""
        self.discards = [[], [], [], []]
        self.claims = [[], [], [], []]
        self._melds = [game.melds(s) for s in range(4)]
        self._live0 = max(1, game.live_tiles)
        self._made = 0
        self._last = -1

    def step(self, game: Game, seat: int, action: Action) -> None:
        """Make ``seat``'s move on ``game`` and record what the table saw."""
        tsumogiri = 0
        if action.kind is ActionKind.DISCARD:
            drawn = game.just_drawn if game.current == seat else None
            tsumogiri = 1 if drawn == action.tile else 0
        game.step(seat, action)
        if action.kind is ActionKind.DISCARD:
            self.discards[seat].append([action.tile, tsumogiri, 0])
            self._made += 1
            self._last = seat
        # melds made (claims resolve after every asked seat chose: look at the table)
        for s in range(4):
            now = game.melds(s)
            before = self._melds[s]
            if now == before:
                continue
            for i, m in enumerate(now):
                if i < len(before) and before[i] == m:
                    continue
                kind = int(m.kind)
                if kind <= 2:  # chow, pong, exposed kong: on the last discard
                    src = self._claimed_from()
                    self.claims[s].append((kind, m.tiles[0], src))
                else:  # added or concealed kong: from the seat itself
                    self.claims[s].append((kind, m.tiles[0], s))
            self._melds[s] = now

    def _claimed_from(self) -> int:
        """Mark the last discard as claimed (a chow, pong or exposed kong is made only on the
        discard just made); its seat, -1 if none."""
        s = self._last
        if s >= 0 and self.discards[s]:
            self.discards[s][-1][2] = 1
        return s

    def encode_into(self, game: Game, seat: int, out: memoryview[Any]) -> None:
        """Write the history planes for ``seat`` into ``out`` (:data:`HISTORY_SIZE` floats)."""
        try:
            out[:] = _ZEROS
        except (ValueError, TypeError):
            for i in range(len(out)):
                out[i] = 0
        for j in range(4):
            s = (seat + j) % 4
            d = self.discards[s]
            base = DISCARDS_AT + j * DISCARD_SLOTS * DISCARD_SLOT
            n = len(d)
            for slot in range(min(n, DISCARD_SLOTS)):
                tile, tsumo, claimed = d[n - 1 - slot]
                at = base + slot * DISCARD_SLOT
                out[at + tile] = 1.0
                if tsumo:
                    out[at + N] = 1.0
                if claimed:
                    out[at + N + 1] = 1.0
            c = self.claims[s]
            base = CLAIMS_AT + j * CLAIM_SLOTS * CLAIM_SLOT
            n = len(c)
            for slot in range(min(n, CLAIM_SLOTS)):
                kind, tile, src = c[n - 1 - slot]
                at = base + slot * CLAIM_SLOT
                out[at + kind] = 1.0
                out[at + 5 + tile] = 1.0
                if src >= 0:
                    out[at + 5 + N + (src - s) % 4] = 1.0
        if game.phase is Phase.TURN and game.current == seat:
            drawn = game.just_drawn
            if drawn is not None and drawn < N:
                out[DRAWN_AT + drawn] = 1.0
        out[WALL_AT] = min(1.0, max(0.0, 1.0 - game.live_tiles / self._live0))
        out[WALL_AT + 1] = min(1.0, self._made / 100)
