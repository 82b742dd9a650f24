"""Observations (issue 4 item 3): a seat sees its own tiles and what is laid open, never
another seat's concealed tiles or the order of the wall."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from caishen.engine.game import SEATS, Game, Observation, Phase
from caishen.errors import CaishenError
from caishen.hand import Hand
from caishen.variants.longgang.rules import LONGGANG

# Every field of Observation and what it carries; a new field must be classified here.
TILE_FIELDS = {"indicator", "wilds", "hand", "melds", "flowers", "discards", "last_discard"}
OTHER_FIELDS = {
    "seat", "dealer", "dice", "phase", "current", "to_move", "concealed_counts", "live_tiles",
    "sea_floor_tiles", "dead_wall_tiles", "legal_actions",
}


def obs_tiles(o: Observation) -> Counter[int]:
    c: Counter[int] = Counter()
    c.update(o.hand.concealed)
    c.update(o.hand.flowers)
    for melds in o.melds:
        for m in melds:
            c.update(m.tiles)
    for s, f in enumerate(o.flowers):
        if s != o.seat:  # own flowers are already in o.hand.flowers
            c.update(f)
    for d in o.discards:
        c.update(d)
    return c


def visible(g: Game, seat: int) -> Counter[int]:
    """What ``seat`` may see: its own hand and everything laid open."""
    c: Counter[int] = Counter()
    h = g.hand(seat)
    c.update(h.concealed)
    c.update(h.flowers)
    for s in range(SEATS):
        for m in g.melds(s):
            c.update(m.tiles)
        if s != seat:
            c.update(g.open_flowers(s))
        c.update(g.discards(s))
    return c


def check(g: Game) -> None:
    for seat in range(SEATS):
        o = g.observation(seat)
        names = {f.name for f in dataclasses.fields(o)}
        assert names == TILE_FIELDS | OTHER_FIELDS
        assert obs_tiles(o) == visible(g, seat)
        assert o.hand == g.hand(seat)
        assert o.indicator == g.indicator and o.wilds == g.wilds[seat]
        assert o.legal_actions == g.legal_actions(seat)
        assert o.concealed_counts == tuple(sum(g.counts(s)) for s in range(SEATS))
        # Nothing in the observation is a wall or a hand of another seat.
        for f in OTHER_FIELDS - {"legal_actions"}:  # the seat's own moves, checked above
            v = getattr(o, f)
            assert not isinstance(v, Hand)
            assert not (isinstance(v, tuple) and len(v) > 8)
        for s in range(SEATS):
            if s != seat:
                # each seat's observation holds its own hand: equal only where the hands are
                assert (g.observation(s).hand == o.hand) == (g.hand(s) == g.hand(seat))
        if g.phase is Phase.CLAIM:
            assert o.last_discard == g.discards(g.current)[-1]
        if g.phase in (Phase.CLAIM, Phase.ROB):
            # Who else may claim is hidden: a seat only learns whether it is asked itself.
            assert o.to_move == ((seat,) if seat in g.to_move() else ())
        else:
            assert o.to_move == g.to_move()


def test_1000_hands_observations_show_no_hidden_tile() -> None:
    rng = random.Random(99)
    for i in range(1000):
        g = Game.from_seed(b"obs-%d" % i, LONGGANG, dealer=i % 4)
        check(g)
        step = 0
        every = rng.randrange(5, 15)
        while not g.is_over:
            movers = g.to_move()
            s = rng.choice(movers)
            acts = g.legal_actions(s)
            g.step(s, rng.choice(acts))
            step += 1
            if step % every == 0:
                check(g)
        check(g)


def test_observation_of_other_seats_changes_only_with_public_events() -> None:
    # Two hands with the same seed but a different wall order behind the deal look the same
    # to East until something is drawn: the observation depends only on what East may know.
    g = Game.from_seed(b"same", LONGGANG)
    wall = list(g.wall)
    # Swap two tiles deep in the dead wall (never seen): East's observation is unchanged.
    a, b = g.layout.tail[15], g.layout.tail[16]
    wall[a], wall[b] = wall[b], wall[a]
    g2 = Game(LONGGANG, tuple(wall), g.dice, g.dealer)
    assert g.observation(0) == g2.observation(0)
    # And swapping two tiles between South's and West's hands changes nothing East sees.
    head = g.layout.head
    i, j = head[4], head[8]  # first block of South, first block of West
    wall = list(g.wall)
    wall[i], wall[j] = wall[j], wall[i]
    g3 = Game(LONGGANG, tuple(wall), g.dice, g.dealer)
    o1, o3 = g.observation(0), g3.observation(0)
    if g.open_flowers(1) == g3.open_flowers(1) and g.open_flowers(2) == g3.open_flowers(2):
        assert o1 == o3


@given(st.lists(st.integers(0, 33), max_size=17), st.lists(st.integers(34, 37), unique=True, max_size=4))
def test_trusted_hand_is_the_checked_hand(tiles: list[int], flowers: list[int]) -> None:
    """Issue 14 item 3: ``Hand.trusted`` (no checks, no sort) gives the same value as ``Hand``
    for the engine's own sorted tiles."""
    checked = Hand(tuple(tiles), (), tuple(flowers))
    trusted = Hand.trusted(tuple(sorted(tiles)), (), tuple(sorted(flowers)))
    assert trusted == checked and trusted.packed == checked.packed and hash(trusted) == hash(checked)


def test_observation_built_field_by_field_is_the_dataclass_one() -> None:
    # Game.observation builds through new_observation (no interpreted __init__ on the
    # compiled build): the same value, equal and printed alike, as the dataclass's own.
    g = Game.from_seed(b"new-observation", LONGGANG)
    rng = random.Random(5)
    while not g.is_over:
        for seat in range(SEATS):
            o = g.observation(seat)
            same = Observation(**{f.name: getattr(o, f.name) for f in dataclasses.fields(o)})
            assert o == same and repr(o) == repr(same) and o.to_json() == same.to_json()
        s = rng.choice(g.to_move())
        g.step(s, rng.choice(g.legal_actions(s)))


def test_observation_of_a_seat_outside_0_3_is_refused() -> None:
    g = Game.from_seed(b"demo9", LONGGANG)
    for seat in (-1, -4, 4, 7):
        with pytest.raises(CaishenError, match=rf"no seat {seat} \(seats are 0-3\)") as err:
            g.observation(seat)
        assert err.value.code == "no-seat"
    assert g.observation(3).seat == 3
