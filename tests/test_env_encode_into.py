"""The in-place encoder (issue 14): ``encode_into`` and ``mask_into`` write exactly the vector
and mask of the plain reference ``encode`` and ``mask_of`` (docs/env.md), over every position
of seeded random hands of both variants, over made-up observations (hypothesis), and whatever
the buffer held before."""

from __future__ import annotations

import random
from array import array

import numpy as np  # the rl libraries are in the test extras: missing ones fail, never skip
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caishen.engine.actions import ActionKind
from caishen.engine.game import Game, Observation, Phase
from caishen.engine.rules import GameRules
from caishen.env.encoding import (
    ACTIONS,
    NUM_ACTIONS,
    OBS_SIZE,
    encode,
    encode_into,
    mask_into,
    mask_of,
)
from caishen.hand import Hand, Meld, MeldKind
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI


class Buffers:
    """An observation and a mask buffer, left dirty between uses (stale values must go)."""

    def __init__(self) -> None:
        self.obs = np.full(OBS_SIZE, 9.5, dtype=np.float32)
        self.mask = np.full(NUM_ACTIONS, 7, dtype=np.int8)
        self.obs_view = memoryview(self.obs)
        self.mask_view = memoryview(self.mask)

    def check(self, o: Observation) -> None:
        encode_into(o, self.obs_view)
        assert np.array_equal(self.obs, np.asarray(encode(o), dtype=np.float32))
        mask_into(o.legal_actions, self.mask_view)
        assert np.array_equal(self.mask, np.asarray(mask_of(o.legal_actions), dtype=np.int8))


@pytest.mark.parametrize(("name", "ruleset"), [("longgang", LONGGANG), ("gangci", GANGCI)])
def test_encode_into_is_encode_at_every_position_of_random_hands(name: str, ruleset: GameRules) -> None:
    rng = random.Random(f"encode-into-{name}")
    buffers = Buffers()
    positions = kinds = 0
    seen_phases: set[Phase] = set()
    for i in range(60):
        g = Game.from_seed(b"encode-into-%s-%d" % (name.encode(), i), ruleset, dealer=i % 4)
        while True:
            for seat in range(4):  # the deciding seat and the others (unasked ones too)
                o = g.observation(seat)
                buffers.check(o)
                seen_phases.add(o.phase)
                positions += 1
            if g.is_over:
                break
            s = rng.choice(g.to_move())
            legal = g.legal_actions(s)
            kinds |= sum(1 << int(a.kind) for a in legal)
            g.step(s, rng.choice(legal))
    assert positions > 5000
    assert seen_phases >= {Phase.TURN, Phase.CLAIM, Phase.OVER}
    assert kinds & (1 << int(ActionKind.PONG)) and kinds & (1 << int(ActionKind.WIN))


def test_mask_into_takes_any_equal_action_not_only_the_shared_ones() -> None:
    mask = array("b", bytes(NUM_ACTIONS))
    for i, a in enumerate(ACTIONS):
        copy = type(a)(a.kind, a.tile, a.chow_low)  # equal, not the same object
        assert copy is not a
        mask_into((copy,), memoryview(mask))
        assert mask.tolist() == [int(j == i) for j in range(NUM_ACTIONS)]


def test_encode_into_other_buffers() -> None:
    o = Game.from_seed(b"encode-into-buffers", LONGGANG).observation(0)
    ref = np.asarray(encode(o), dtype=np.float32)
    a = array("f", [3.0] * OBS_SIZE)
    encode_into(o, memoryview(a))
    assert np.array_equal(np.frombuffer(a, dtype=np.float32), ref)
    wide = np.full(OBS_SIZE, 3.0)  # float64: zeroed entry by entry, encode's very floats
    encode_into(o, memoryview(wide))
    assert wide.tolist() == encode(o)


SUITED = st.integers(0, 26)
KIND = st.integers(0, 33)


@st.composite
def melds(draw: st.DrawFn) -> Meld:
    kind = draw(st.sampled_from(list(MeldKind)))
    if kind is MeldKind.CHOW:
        low = draw(SUITED.filter(lambda k: k % 9 <= 6))
        return Meld(kind, (low + 1, low, low + 2))
    k = draw(KIND)
    return Meld(kind, (k,) * (3 if kind is MeldKind.PONG else 4))


FLOWERS = st.lists(st.integers(34, 37), unique=True, max_size=4).map(lambda f: tuple(sorted(f)))


@st.composite
def observations(draw: st.DrawFn) -> Observation:
    """Any observation, positions no game reaches included (large counts, empty walls)."""
    seat = draw(st.integers(0, 3))
    return Observation(
        seat=seat,
        dealer=draw(st.integers(0, 3)),
        dice=(1, 2, 3, 4),
        indicator=draw(st.none() | st.integers(0, 37)),
        wilds=frozenset(draw(st.lists(st.integers(0, 37), max_size=5))),
        phase=draw(st.sampled_from(list(Phase))),
        current=draw(st.integers(0, 3)),
        to_move=(),
        hand=Hand(tuple(sorted(draw(st.lists(KIND, max_size=20)))), (), draw(FLOWERS)),
        melds=tuple(tuple(draw(st.lists(melds(), max_size=5))) for _ in range(4)),
        flowers=tuple(draw(FLOWERS) for _ in range(4)),
        discards=tuple(tuple(draw(st.lists(st.integers(0, 37), max_size=40))) for _ in range(4)),
        last_discard=draw(st.none() | st.integers(0, 37)),
        concealed_counts=tuple(draw(st.lists(st.integers(0, 40), min_size=4, max_size=4))),
        live_tiles=draw(st.integers(0, 150)),
        sea_floor_tiles=draw(st.integers(0, 6)),
        dead_wall_tiles=20,
        legal_actions=tuple(draw(st.lists(st.sampled_from(ACTIONS), max_size=12))),
    )


@settings(max_examples=300, deadline=None)
@given(observations())
def test_encode_into_is_encode_for_any_observation(o: Observation) -> None:
    Buffers().check(o)
