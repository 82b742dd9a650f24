"""Observation v2 (issue 32, item 5): v1 unchanged in front, then history planes that agree with
the engine at every decision of seeded random hands of both variants: each seat's discards in
order with the claimed and tsumogiri flags, the claims made, the drawn tile, the wall."""

from __future__ import annotations

import numpy as np
import pytest

from caishen.engine.actions import ActionKind
from caishen.engine.game import Game, Phase
from caishen.env import longgang_v0, luoyang_gangci_v0
from caishen.env.encoding import ACTIONS, DISCARDS_AT, OBS_SIZE, encode
from caishen.env.history import (
    CLAIM_SLOT,
    CLAIM_SLOTS,
    CLAIMS_AT,
    DISCARD_SLOT,
    DISCARD_SLOTS,
    DRAWN_AT,
    HISTORY_BLOCKS,
    HISTORY_SIZE,
    WALL_AT,
    N,
)
from caishen.env.observer import Observer, obs_size

CLAIMING = (ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG)


def test_layout() -> None:
    assert obs_size("v1") == OBS_SIZE == 595
    assert HISTORY_SIZE == sum(n for _, n in HISTORY_BLOCKS) == 4 * 24 * 36 + 4 * 8 * 43 + 34 + 2
    assert obs_size("v2") == OBS_SIZE + HISTORY_SIZE
    with pytest.raises(ValueError, match="obs_version must be one of v1, v2, not 'v3'"):
        obs_size("v3")


def _check(game: Game, seat: int, v: np.ndarray, tsumo: list[list[int]]) -> None:
    """``v`` (seat's v2 observation) against the engine; ``tsumo[s]`` the flags expected."""
    assert v[:OBS_SIZE].tolist() == np.asarray(encode(game.observation(seat)), dtype=np.float32).tolist()
    h = v[OBS_SIZE:]
    for j in range(4):
        s = (seat + j) % 4
        slots = h[j * DISCARD_SLOTS * DISCARD_SLOT:(j + 1) * DISCARD_SLOTS * DISCARD_SLOT]
        slots = slots.reshape(DISCARD_SLOTS, DISCARD_SLOT)
        filled = [k for k in range(DISCARD_SLOTS) if slots[k, :N].any()]
        assert filled == list(range(len(filled)))  # most recent first, no gaps
        on_table = np.zeros(N)
        for k in filled:
            assert slots[k, :N].sum() == 1
            if not slots[k, N + 1]:
                on_table += slots[k, :N]
        if len(tsumo[s]) <= DISCARD_SLOTS:
            assert len(filled) == len(tsumo[s])
            # unclaimed discards per kind are v1's discards still on the table
            assert on_table.tolist() == v[DISCARDS_AT + j * N:DISCARDS_AT + (j + 1) * N].tolist()
            assert [int(slots[k, N]) for k in filled] == tsumo[s][::-1]
        claims = h[CLAIMS_AT + j * CLAIM_SLOTS * CLAIM_SLOT:CLAIMS_AT + (j + 1) * CLAIM_SLOTS * CLAIM_SLOT]
        claims = claims.reshape(CLAIM_SLOTS, CLAIM_SLOT)
        melds = game.melds(s)
        made = [k for k in range(CLAIM_SLOTS) if claims[k, :5].any()]
        kinds = [int(np.argmax(claims[k, :5])) for k in made]
        # every meld was made by one claim event; an added kong is a second event on a pong
        assert sorted(kinds) == sorted([int(m.kind) for m in melds] + [1] * sum(int(m.kind) == 3 for m in melds))
        for k in made:
            if kinds[k] <= 2:
                assert claims[k, 5 + N:].sum() == 1 and claims[k, 5 + N] == 0  # from another seat
                if kinds[k] == 0:
                    assert claims[k, 5 + N + 3] == 1  # a chow comes from the left (L10)
            else:
                assert claims[k, 5 + N] == 1  # from itself
    drawn = h[DRAWN_AT:DRAWN_AT + N]
    if game.phase is Phase.TURN and game.current == seat and game.just_drawn is not None and game.just_drawn < N:
        assert drawn.tolist() == [1.0 if k == game.just_drawn else 0.0 for k in range(N)]
    else:
        assert not drawn.any()
    assert 0.0 <= h[WALL_AT] <= 1.0 and 0.0 <= h[WALL_AT + 1] <= 1.0


@pytest.mark.parametrize("mod", [longgang_v0, luoyang_gangci_v0], ids=["longgang", "gangci"])
def test_v2_agrees_with_the_engine_at_every_decision(mod: object) -> None:
    rng = np.random.default_rng(0)
    claims_seen = tsumogiri_seen = 0
    for seed in range(6):
        e = mod.env(obs_version="v2", dealer="random")  # type: ignore[attr-defined]
        e.reset(seed=seed)
        raw = e.unwrapped
        tsumo: list[list[int]] = [[], [], [], []]
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            g = raw.game
            seat = int(agent[-1])
            if term or trunc:
                e.step(None)
                continue
            _check(g, seat, obs["observation"], tsumo)
            for other in raw.possible_agents:  # every seat's view, asked or not
                _check(g, int(other[-1]), raw.observe(other)["observation"], tsumo)
            legal = np.flatnonzero(obs["action_mask"])
            a = int(rng.choice(legal))
            drawn = g.just_drawn if g.current == seat else None
            if drawn is not None and drawn < N and drawn in legal and rng.random() < 0.5:
                a = int(drawn)  # discard the tile just drawn half the time it may
            act = ACTIONS[a]
            if act.kind is ActionKind.DISCARD:
                tsumo[seat].append(1 if drawn == act.tile else 0)
                tsumogiri_seen += drawn == act.tile
            claims_seen += act.kind in CLAIMING
            e.step(a)
    assert claims_seen > 5 and tsumogiri_seen > 20


def test_v2_writes_in_place_into_one_buffer() -> None:
    game = Game.from_seed(b"v2-in-place", longgang_v0.raw_env().ruleset)
    obs = Observer("v2")
    obs.reset(game)
    buf = np.full(obs.size, 7.0, dtype=np.float32)
    rng = np.random.default_rng(2)
    while not game.is_over:
        seat = game.to_move()[0]
        legal = game.legal_actions(seat)
        obs.encode_into(game, seat, buf.data)
        fresh = np.zeros(obs.size, dtype=np.float32)
        obs.encode_into(game, seat, fresh.data)
        assert np.array_equal(buf, fresh)
        obs.step(game, seat, legal[int(rng.integers(len(legal)))])
