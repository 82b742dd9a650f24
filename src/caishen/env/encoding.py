"""Fixed action index and observation vector of ``caishen.env`` (see ``docs/env.md``).

Standard library only: the environment turns these lists into numpy arrays.

Action index (236 actions, fixed):

========== ===== ===========================================================
index      count action
========== ===== ===========================================================
0-33       34    discard tile kind ``i`` (tiles 0-33, see caishen.tiles)
34-96      63    chow: ``34 + (suit*7 + low_number-1)*3 + (claimed - low)``
97-130     34    pong of kind ``i - 97``
131-164    34    exposed kong 大明杠 of kind ``i - 131``
165-198    34    added kong 小明杠 of kind ``i - 165``
199-232    34    concealed kong 暗杠 of kind ``i - 199``
233        1     win 胡
234        1     pass 过
235        1     declare the hand drawn 叫和局 (only where the variant allows it)
========== ===== ===========================================================
"""

from __future__ import annotations

from typing import Final

from caishen.engine.actions import (
    ADDED_KONGS,
    CHOWS,
    CONCEALED_KONGS,
    DECLARE_DRAW,
    DISCARDS,
    EXPOSED_KONGS,
    PONGS,
)
from caishen.engine.game import PASS, WIN, Action, ActionKind, Observation, Phase
from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER

N = NUM_NON_FLOWER  # 34
CHOW_BASE: Final = 34
PONG_BASE: Final = CHOW_BASE + 63
EXPOSED_KONG_BASE: Final = PONG_BASE + N
ADDED_KONG_BASE: Final = EXPOSED_KONG_BASE + N
CONCEALED_KONG_BASE: Final = ADDED_KONG_BASE + N
WIN_INDEX: Final = CONCEALED_KONG_BASE + N
PASS_INDEX: Final = WIN_INDEX + 1
DECLARE_DRAW_INDEX: Final = PASS_INDEX + 1
NUM_ACTIONS: Final = DECLARE_DRAW_INDEX + 1


def _chow_index(tile: int, low: int) -> int:
    return CHOW_BASE + ((low // 9) * 7 + low % 9) * 3 + (tile - low)


def action_index(a: Action) -> int:
    """The fixed index of an action."""
    k = a.kind
    if k == ActionKind.DISCARD:
        return a.tile
    if k == ActionKind.CHOW:
        return _chow_index(a.tile, a.chow_low)
    if k == ActionKind.PONG:
        return PONG_BASE + a.tile
    if k == ActionKind.EXPOSED_KONG:
        return EXPOSED_KONG_BASE + a.tile
    if k == ActionKind.ADDED_KONG:
        return ADDED_KONG_BASE + a.tile
    if k == ActionKind.CONCEALED_KONG:
        return CONCEALED_KONG_BASE + a.tile
    if k == ActionKind.WIN:
        return WIN_INDEX
    if k == ActionKind.DECLARE_DRAW:
        return DECLARE_DRAW_INDEX
    return PASS_INDEX


def _build_actions() -> tuple[Action, ...]:
    table: list[Action | None] = [None] * NUM_ACTIONS
    for t in range(N):
        table[t] = DISCARDS[t]
        table[PONG_BASE + t] = PONGS[t]
        table[EXPOSED_KONG_BASE + t] = EXPOSED_KONGS[t]
        table[ADDED_KONG_BASE + t] = ADDED_KONGS[t]
        table[CONCEALED_KONG_BASE + t] = CONCEALED_KONGS[t]
    for (tile, low), a in CHOWS.items():
        table[_chow_index(tile, low)] = a
    table[WIN_INDEX] = WIN
    table[PASS_INDEX] = PASS
    table[DECLARE_DRAW_INDEX] = DECLARE_DRAW
    out: list[Action] = []
    for i, entry in enumerate(table):
        if entry is None:  # pragma: no cover - every index is filled
            raise AssertionError(f"action index {i} unfilled")
        out.append(entry)
    return tuple(out)


ACTIONS: Final = _build_actions()
"""``ACTIONS[i]`` is the action with index ``i``."""


def action_of(index: int) -> Action:
    """The action with a given index (ValueError if out of range)."""
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action index must be 0-{NUM_ACTIONS - 1}, not {index}")
    return ACTIONS[index]


def mask_of(legal: tuple[Action, ...] | list[Action]) -> list[int]:
    """0/1 list of length :data:`NUM_ACTIONS`: 1 where the action is legal."""
    m = [0] * NUM_ACTIONS
    for a in legal:
        m[action_index(a)] = 1
    return m


# ---------------------------------------------------------------- observation vector

PHASES: Final = (Phase.TURN, Phase.CLAIM, Phase.ROB, Phase.SEA_FLOOR, Phase.OVER)
_WINDOWS: Final = (Phase.CLAIM, Phase.ROB)  # a discard or kong is being decided on

# (name, length) of each block of the observation vector, in order. Seats in the per-seat
# blocks are relative: 0 = the observer, 1 = next in turn order (right), 2 = opposite, 3 = left.
OBS_BLOCKS: Final = (
    ("own_concealed", N),          # counts 0-4 of each kind held concealed
    ("own_flowers", 4),            # flowers held or laid open by the observer (0/1)
    ("wild", NUM_KINDS),           # kinds wild for the observer (0/1)
    ("indicator", NUM_KINDS),      # the turned wild indicator (one-hot, all 0 if none)
    ("melds", 4 * N),              # tiles in each seat's declared melds per kind (0-4)
    ("concealed_kongs", 4 * N),    # each seat's concealed kongs per kind (0/1)
    ("discards", 4 * N),           # tiles in each seat's discards on the table per kind (0-4)
    ("open_flowers", 4 * 4),       # each seat's flowers laid open 客花 (0/1)
    ("last_discard", N),           # the discard or kong tile being decided on, if asked (one-hot)
    ("current", 4),                # the seat whose turn it is / who discarded (one-hot)
    ("dealer", 4),                 # the dealer (one-hot)
    ("seat_wind", 4),              # the observer's absolute seat E S W N (one-hot)
    ("phase", len(PHASES)),        # phase (one-hot); claim/rob only for a seat asked
    ("concealed_counts", 4),       # tiles each seat holds concealed / 17
    ("live_tiles", 1),             # wall tiles left before the sea floor / 100
    ("sea_floor_tiles", 1),        # sea-floor tiles left / 4
)
OBS_SIZE: Final = sum(n for _, n in OBS_BLOCKS)
OBS_HIGH: Final = 4.0


def encode(obs: Observation) -> list[float]:
    """The observation vector of one seat (length :data:`OBS_SIZE`, values in [0, 4]).

    Only a seat asked about a discard or a kong learns that it is being decided on: for a seat
    with nothing to decide while others may claim or rob, the phase reads as the discarder's
    (or kong-maker's) turn and ``last_discard`` is empty, exactly as when no one can claim. The
    discard itself is public and is already in the ``discards`` block."""
    v: list[float] = []
    unasked = obs.phase in _WINDOWS and not obs.legal_actions  # who may claim is hidden
    phase = Phase.TURN if unasked else obs.phase
    last_discard = None if unasked else obs.last_discard
    me = obs.seat
    rel = [(me + j) % 4 for j in range(4)]
    own = [0.0] * N
    for k in obs.hand.concealed:
        own[k] += 1
    v += own
    fl = [0.0] * 4
    for f in obs.hand.flowers:
        fl[f - N] = 1.0
    v += fl
    v += [1.0 if k in obs.wilds else 0.0 for k in range(NUM_KINDS)]
    ind = [0.0] * NUM_KINDS
    if obs.indicator is not None:
        ind[obs.indicator] = 1.0
    v += ind
    melds = [0.0] * (4 * N)
    ckongs = [0.0] * (4 * N)
    discards = [0.0] * (4 * N)
    oflowers = [0.0] * 16
    for j, s in enumerate(rel):
        for m in obs.melds[s]:
            for k in m.tiles:
                melds[j * N + k] += 1
            if m.kind.is_concealed:
                ckongs[j * N + m.tiles[0]] = 1.0
        for k in obs.discards[s]:
            if k < N:
                discards[j * N + k] += 1
        for f in obs.flowers[s]:
            oflowers[j * 4 + f - N] = 1.0
    v += melds + ckongs + discards + oflowers
    last = [0.0] * N
    if last_discard is not None and last_discard < N:
        last[last_discard] = 1.0
    v += last
    v += [1.0 if obs.current == s else 0.0 for s in rel]
    v += [1.0 if obs.dealer == s else 0.0 for s in rel]
    v += [1.0 if me == s else 0.0 for s in range(4)]
    v += [1.0 if phase == p else 0.0 for p in PHASES]
    v += [min(1.0, obs.concealed_counts[s] / 17) for s in rel]
    v.append(min(1.0, obs.live_tiles / 100))
    v.append(min(1.0, obs.sea_floor_tiles / 4))
    return v
