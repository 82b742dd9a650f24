"""What no seat sees, for centralised critics and oracle guiding (docs/env.md, "state and
oracle"): the concealed tiles of every seat and the tiles left in the wall.

* ``HIDDEN_SIZE`` floats for a seat (``observation_mode="oracle"``): the concealed tiles of the
  three other seats per kind (relative order: right, opposite, left; 38 kinds with the flowers
  held), then the tiles left in the wall per kind (38), each count as is (0-4; the wall's up
  to 4 per kind, 1 per flower).
* ``STATE_SIZE`` floats (``state()``): the v1 observation of each seat in seat order (East
  first), each with its own concealed tiles, then the wall per kind as above.
"""

from __future__ import annotations

from typing import Any, Final

from caishen.engine.game import Game
from caishen.env.encoding import OBS_SIZE, encode_into
from caishen.tiles import NUM_KINDS

K: Final = NUM_KINDS  # 38: the 34 kinds and the flowers
HIDDEN_SIZE: Final = 3 * K + K
STATE_SIZE: Final = 4 * OBS_SIZE + K


def wall_counts(game: Game, wall: tuple[int, ...]) -> list[int]:
    """Tiles left in the wall per kind (``wall``: the hand's shuffled wall)."""
    counts = [0] * K
    for i in game.wall_positions_left():
        counts[wall[i]] += 1
    return counts


def hidden_into(game: Game, wall: tuple[int, ...], seat: int, out: memoryview[Any]) -> None:
    """Write ``seat``'s oracle block (the others' concealed tiles, the wall) into ``out``."""
    for i in range(HIDDEN_SIZE):
        out[i] = 0.0
    for j in range(1, 4):
        c = game.counts((seat + j) % 4)
        at = (j - 1) * K
        for k in range(min(K, len(c))):
            if c[k]:
                out[at + k] = float(c[k])
    w = wall_counts(game, wall)
    for k in range(K):
        if w[k]:
            out[3 * K + k] = float(w[k])


def state_into(game: Game, wall: tuple[int, ...], out: memoryview[Any]) -> None:
    """Write the full-information state (every seat's v1 observation, the wall) into ``out``."""
    for s in range(4):
        encode_into(game.observation(s), out[s * OBS_SIZE:(s + 1) * OBS_SIZE])
    w = wall_counts(game, wall)
    for k in range(K):
        out[4 * OBS_SIZE + k] = float(w[k])
