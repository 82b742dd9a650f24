"""The RL environments leak nothing and never hand back a finished hand (issue 13, item 7):
no hand seed in ``reset``'s info, ``reset`` always returns a live decision point (hands the
bots finish first are delivered in ``info["skipped_hands"]``), and a seat that is not asked
about a discard or kong cannot tell that a claim or rob window is open."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from caishen.engine.game import Game, Phase
from caishen.env import longgang_v0
from caishen.env.encoding import OBS_BLOCKS, PHASES, encode
from caishen.env.single import LonggangSingleEnv, SkippedHand
from caishen.table.results import hand_chips


def _block(name: str) -> slice:
    start = 0
    for n, size in OBS_BLOCKS:
        if n == name:
            return slice(start, start + size)
        start += size
    raise KeyError(name)  # pragma: no cover


PHASE = _block("phase")
LAST = _block("last_discard")
TURN_ONE_HOT = [1.0 if p is Phase.TURN else 0.0 for p in PHASES]


def _leaks(value: Any, seed: bytes) -> bool:
    """Whether the seed appears anywhere in ``value`` (as bytes, hex or inside a repr)."""
    text = repr(value)
    return seed.hex() in text or seed.hex().upper() in text or repr(seed) in text


# ---------------------------------------------------------------- no seed before the end


def test_single_env_reset_info_has_no_seed_and_the_last_step_gives_it() -> None:
    for seat in range(4):
        env = LonggangSingleEnv(seat=seat)
        for i in range(5):
            _, info = env.reset(seed=100 * seat + i)
            assert set(info) == {"skipped_hands", "skipped_reward", "seat", "dealer"}
            assert not _leaks(info, env._hand_seed)
    env = LonggangSingleEnv(seat=2)
    obs, info = env.reset(seed=5)
    seed = env._hand_seed
    rng = np.random.default_rng(0)
    done = False
    while not done:
        assert not _leaks(info, seed)
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert info["hand_seed"] == seed.hex()  # revealed once the hand is over
    assert len(bytes.fromhex(info["hand_seed"])) == 32


def test_pettingzoo_infos_have_no_seed_until_the_hand_ends() -> None:
    e = longgang_v0.env()
    e.reset(seed=4)
    raw = e.unwrapped
    rng = np.random.default_rng(4)
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            assert info["hand_seed"] == raw.hand_seed.hex()
            e.step(None)
            continue
        assert not _leaks(info, raw.hand_seed)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ---------------------------------------------------------------- reset is always live


def _resets(seat: int, n: int) -> list[SkippedHand]:
    """``n`` resets of one seat: each is a live decision point; the skipped hands seen."""
    env = LonggangSingleEnv(seat=seat)
    skipped: list[SkippedHand] = []
    for i in range(n):
        obs, info = env.reset(seed=seat * 1_000_003 + i)
        g = env.game
        assert g is not None and not g.is_over
        assert seat in g.to_move()
        assert obs["action_mask"].sum() == len(set(g.legal_actions(seat))) > 0
        for s in info["skipped_hands"]:
            assert isinstance(s, SkippedHand)
            assert s.winner in (-1, 0, 1, 2, 3) and s.winner != seat  # the agent never moved
            assert s.reward <= 0 and float(s.reward).is_integer()
            assert len(bytes.fromhex(s.hand_seed)) == 32
        skipped += info["skipped_hands"]
    return skipped


@pytest.mark.parametrize("seat", range(4))
def test_reset_never_returns_a_finished_hand_500(seat: int) -> None:
    skipped = _resets(seat, 500)
    if seat == 0:  # the dealer always moves first
        assert skipped == []


@pytest.mark.slow
@pytest.mark.parametrize("seat", range(4))
def test_reset_never_returns_a_finished_hand_5000(seat: int) -> None:
    skipped = _resets(seat, 5000)
    if seat == 0:
        assert skipped == []
    else:  # about 0.7% of hands end before a non-dealer moves
        assert 5 <= len(skipped) <= 100


class _Recording(LonggangSingleEnv):
    """Keeps every hand it deals, to check what ``reset`` reports about skipped ones."""

    dealt: list[Game]

    def _deal(self) -> None:
        super()._deal()
        assert self.game is not None
        self.dealt.append(self.game)


def test_skipped_hand_is_delivered_with_its_result_and_step_works() -> None:
    """A reset that skipped hands reports each one's real result: the reward is the agent's
    chip change, the winner is the winner, and the seed replays the same hand. The live hand
    after it then plays to the end."""
    env = _Recording(seat=3)
    found = 0
    for i in range(1500):
        env.dealt = []
        obs, info = env.reset(seed=i)
        skipped: tuple[SkippedHand, ...] = info["skipped_hands"]
        assert len(env.dealt) == len(skipped) + 1
        for s, g in zip(skipped, env.dealt, strict=False):
            out = g.outcome
            assert g.is_over and out is not None
            assert s.reward == float(hand_chips(out, env.ruleset)[3])
            assert s.winner == (-1 if out.winner is None else out.winner)
            again = Game.from_seed(bytes.fromhex(s.hand_seed), env.ruleset, env.dealer)
            for seat, action in g.move_stack:
                again.step(seat, action)
            assert again.outcome == out
            assert not any(seat == 3 for seat, _ in g.move_stack)  # the agent never moved
        if skipped:
            found += 1
            rng = np.random.default_rng(i)
            done = False
            while not done:
                obs, reward, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            out = env.dealt[-1].outcome
            assert out is not None and reward == float(hand_chips(out, env.ruleset)[3])
            if found == 3:
                break
    assert found == 3


# ---------------------------------------------------------------- unasked seats see no window


def test_unasked_seat_sees_the_same_phase_with_or_without_a_claim_window() -> None:
    """Over random hands of longgang_v0: during a claim or rob window, every seat with nothing
    to decide observes the turn phase and no tile under decision, exactly what it observes in
    a turn with no window; an asked seat sees the window. Only those two blocks differ from
    the engine's own observation."""
    windows = {Phase.CLAIM: 0, Phase.ROB: 0}
    unasked_phases: set[tuple[float, ...]] = set()
    no_window_phases: set[tuple[float, ...]] = set()
    for hand in range(40):
        e = longgang_v0.env()
        e.reset(seed=hand)
        raw = e.unwrapped
        rng = np.random.default_rng(hand)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            g: Game = raw.game
            for s, other in enumerate(raw.possible_agents):
                v = raw.observe(other)["observation"]
                asked = bool(g.legal_actions(s))
                ph = tuple(float(x) for x in v[PHASE])
                if g.phase in windows and not asked:
                    unasked_phases.add(ph)
                    assert not v[LAST].any()
                    engine = np.asarray(encode(_with_legal(g, s)), dtype=np.float32)
                    differ = np.flatnonzero(engine != v)
                    assert all(PHASE.start <= d < PHASE.stop or LAST.start <= d < LAST.stop for d in differ)
                elif g.phase is Phase.TURN and not asked:
                    no_window_phases.add(ph)
                elif g.phase in windows and asked:
                    assert ph[PHASES.index(g.phase)] == 1.0  # the asked seat knows
            if g.phase in windows:
                windows[g.phase] += 1
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert windows[Phase.CLAIM] > 50
    assert unasked_phases == no_window_phases == {tuple(TURN_ONE_HOT)}


def _with_legal(g: Game, seat: int) -> Any:
    """The engine's observation of ``seat`` as if it were asked (legal actions filled with a
    placeholder), so :func:`encode` shows the raw window: the reference the env differs from
    only in the phase and last-discard blocks."""
    obs = g.observation(seat)
    obs.legal_actions = (g.legal_actions(g.to_move()[0])[0],)
    return obs
