"""Fixed action index and observation vector of ``caishen.env`` (see ``docs/env.md``).

Standard library only. :func:`encode` and :func:`mask_of` return lists (the plain reference);
:func:`encode_into` and :func:`mask_into` write the same values into a buffer the caller owns (a
``memoryview`` of a numpy array or an ``array.array``), zeroing it in one copy and setting only
the non-zero entries: what the environments use, several times faster than building and
converting a list per decision.

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

from array import array
from typing import Any, Final

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
from caishen.errors import ArgumentError
from caishen.hand import MeldKind
from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER

N: Final = NUM_NON_FLOWER  # 34
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
    i = _INDEX_OF.get(id(a))
    if i is not None:  # one of the shared instances that legal_actions hands out
        return i
    return _index_of(a)


def _index_of(a: Action) -> int:
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
# By identity: the shared instances live as long as this table, so no other object has their
# id; comparing kinds (an enum of an uncompiled module) costs several times more.
_INDEX_OF: Final = {id(a): i for i, a in enumerate(ACTIONS)}


def action_of(index: int) -> Action:
    """The action with a given index (ValueError if out of range)."""
    if not 0 <= index < NUM_ACTIONS:
        raise ArgumentError(f"action index must be 0-{NUM_ACTIONS - 1}, not {index}")
    return ACTIONS[index]


def mask_of(legal: tuple[Action, ...] | list[Action]) -> list[int]:
    """0/1 list of length :data:`NUM_ACTIONS`: 1 where the action is legal."""
    m = [0] * NUM_ACTIONS
    for a in legal:
        m[action_index(a)] = 1
    return m


_MASK_ZEROS: Final = memoryview(array("b", bytes(NUM_ACTIONS)))


def mask_into(legal: tuple[Action, ...] | list[Action], out: memoryview[Any]) -> None:
    """Write :func:`mask_of` ``legal`` into ``out``: a writable buffer of :data:`NUM_ACTIONS`
    integers, best a ``memoryview`` of an int8 numpy array or ``array("b")`` (zeroed in one copy)."""
    _zero(out, _MASK_ZEROS)
    for a in legal:
        out[action_index(a)] = 1


# ---------------------------------------------------------------- observation vector

PHASES: Final = (Phase.TURN, Phase.CLAIM, Phase.ROB, Phase.SEA_FLOOR, Phase.OVER)
_WINDOWS: Final = (Phase.CLAIM, Phase.ROB)  # a discard or kong is being decided on
_TURN: Final = Phase.TURN
_CLAIM: Final = Phase.CLAIM
_ROB: Final = Phase.ROB
_CONCEALED_KONG: Final = MeldKind.CONCEALED_KONG

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


# Where each block starts: literals, so that the compiled build inlines them (a computed
# constant is a dictionary lookup per use); _check_starts ties them to OBS_BLOCKS at import.
OWN_AT: Final = 0
OWN_FLOWERS_AT: Final = 34
WILD_AT: Final = 38
INDICATOR_AT: Final = 76
MELDS_AT: Final = 114
CONCEALED_KONGS_AT: Final = 250
DISCARDS_AT: Final = 386
OPEN_FLOWERS_AT: Final = 522
LAST_DISCARD_AT: Final = 538
CURRENT_AT: Final = 572
DEALER_AT: Final = 576
SEAT_WIND_AT: Final = 580
PHASE_AT: Final = 584
CONCEALED_COUNTS_AT: Final = 589
LIVE_TILES_AT: Final = 593
SEA_FLOOR_TILES_AT: Final = 594


def _check_starts() -> None:
    starts = (OWN_AT, OWN_FLOWERS_AT, WILD_AT, INDICATOR_AT, MELDS_AT, CONCEALED_KONGS_AT, DISCARDS_AT,
              OPEN_FLOWERS_AT, LAST_DISCARD_AT, CURRENT_AT, DEALER_AT, SEAT_WIND_AT, PHASE_AT,
              CONCEALED_COUNTS_AT, LIVE_TILES_AT, SEA_FLOOR_TILES_AT)
    at = 0
    for (name, n), start in zip(OBS_BLOCKS, starts, strict=True):
        if start != at:  # pragma: no cover - caught by any test run
            raise AssertionError(f"block {name} starts at {at}, not {start}")
        at += n


_check_starts()
_OBS_ZEROS: Final = memoryview(array("f", bytes(4 * OBS_SIZE)))


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


# Boxed once (typed Any: the compiled build keeps them as objects): encode_into writes about
# 55 non-zero entries per observation, and boxing each index and value anew cost as much as
# the writing itself.
_INDEX: Final[tuple[Any, ...]] = tuple(range(OBS_SIZE))
_VALUE: Final[tuple[Any, ...]] = (0.0, 1.0, 2.0, 3.0, 4.0)


def _zero(out: memoryview[Any], zeros: memoryview[Any]) -> None:
    """Zero ``out``: one copy when it has the layout of ``zeros``, else entry by entry."""
    try:
        out[:] = zeros
    except (ValueError, TypeError):  # another format (say float64): slower, still right
        for i in range(len(out)):
            out[i] = 0


def _write_counts(out: memoryview[Any], at: int, tiles: tuple[int, ...], scratch: list[int]) -> None:
    """``out[at + k]`` = how many of ``tiles`` are of kind ``k`` (non-flower kinds only);
    ``scratch`` (one entry per non-flower kind) is all zeros before and after."""
    for k in tiles:
        if k < NUM_NON_FLOWER:
            c = scratch[k]  # not scratch[k] += 1: the compiled build would add boxed objects
            scratch[k] = c + 1
    for k in tiles:
        if k < NUM_NON_FLOWER:
            n = scratch[k]
            if n:
                out[_INDEX[at + k]] = _VALUE[n] if n <= 4 else float(n)
                scratch[k] = 0


def encode_into(obs: Observation, out: memoryview[Any]) -> None:
    """Write :func:`encode` ``obs`` into ``out``, a writable buffer of :data:`OBS_SIZE` floats:
    best a ``memoryview`` of a float32 numpy array or of ``array("f")`` (zeroed in one copy,
    then only the non-zero entries set). The values are exactly :func:`encode`'s, rounded to
    the buffer's type as ``numpy.asarray(encode(obs), dtype=numpy.float32)`` rounds them."""
    _zero(out, _OBS_ZEROS)
    one = _VALUE[1]
    index = _INDEX
    phase = obs.phase
    last_discard = obs.last_discard
    if (phase is _CLAIM or phase is _ROB) and not obs.legal_actions:
        phase = _TURN  # who may claim is hidden (see encode)
        last_discard = None
    me = obs.seat
    scratch = [0] * NUM_NON_FLOWER
    _write_counts(out, OWN_AT, obs.hand.concealed, scratch)
    for f in obs.hand.flowers:
        out[index[OWN_FLOWERS_AT + f - NUM_NON_FLOWER]] = one
    for k in obs.wilds:
        if 0 <= k < NUM_KINDS:
            out[index[WILD_AT + k]] = one
    if obs.indicator is not None:
        out[index[INDICATOR_AT + obs.indicator]] = one
    for j in range(4):
        s = (me + j) % 4
        melds = obs.melds[s]
        if melds:
            tiles: list[int] = []
            for m in melds:
                tiles.extend(m.tiles)
                if m.kind is _CONCEALED_KONG:
                    out[index[CONCEALED_KONGS_AT + j * NUM_NON_FLOWER + m.tiles[0]]] = one
            _write_counts(out, MELDS_AT + j * NUM_NON_FLOWER, tuple(tiles), scratch)
        _write_counts(out, DISCARDS_AT + j * NUM_NON_FLOWER, obs.discards[s], scratch)
        for f in obs.flowers[s]:
            out[index[OPEN_FLOWERS_AT + j * 4 + f - NUM_NON_FLOWER]] = one
        held = obs.concealed_counts[s]
        if held:
            out[index[CONCEALED_COUNTS_AT + j]] = one if held >= 17 else held / 17
    if last_discard is not None and last_discard < NUM_NON_FLOWER:
        out[index[LAST_DISCARD_AT + last_discard]] = one
    if 0 <= obs.current < 4:
        out[index[CURRENT_AT + (obs.current - me) % 4]] = one
    if 0 <= obs.dealer < 4:
        out[index[DEALER_AT + (obs.dealer - me) % 4]] = one
    if 0 <= me < 4:
        out[index[SEAT_WIND_AT + me]] = one
    for i in range(len(PHASES)):
        if PHASES[i] is phase:
            out[index[PHASE_AT + i]] = one
    live = obs.live_tiles
    if live:
        out[index[LIVE_TILES_AT]] = one if live >= 100 else live / 100
    sea = obs.sea_floor_tiles
    if sea:
        out[index[SEA_FLOOR_TILES_AT]] = one if sea >= 4 else sea / 4
