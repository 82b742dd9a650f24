"""Random legal play: 2,000 full hands, invariants checked after every step (issue 4)."""

from __future__ import annotations

import random

import pytest

from caishen import fair
from caishen.engine.game import PASS, SEATS, ActionKind, Game, IllegalActionError, Phase, WinHow
from caishen.hand import Hand
from caishen.shapes.analysis import is_win
from caishen.table.match import selfplay
from caishen.table.record import iter_hand
from caishen.table.replay import replay
from caishen.tiles import NUM_KINDS
from caishen.variants.longgang.outcome import score_outcome
from caishen.variants.longgang.rules import LONGGANG, Ruleset


def full(ruleset: Ruleset) -> list[int]:
    c = [0] * NUM_KINDS
    for k in fair.tile_set(ruleset):
        c[k] += 1
    return c


def census(g: Game) -> list[int]:
    """Every tile's whereabouts: wall, indicator, hands, melds, flowers laid open, discards."""
    c = [0] * NUM_KINDS
    for pos in g.wall_positions_left():
        c[g.wall[pos]] += 1
    if g.indicator is not None:
        c[g.indicator] += 1
    for s in range(SEATS):
        for k, n in enumerate(g.counts(s)):
            c[k] += n
        for m in g.melds(s):
            for k in m.tiles:
                c[k] += 1
        for k in g.open_flowers(s):
            c[k] += 1
        for k in g.discards(s):
            c[k] += 1
    return c


def size(g: Game, s: int) -> int:
    return sum(g.counts(s)) + 3 * len(g.melds(s))


def check_cheap(g: Game, ruleset: Ruleset) -> None:
    assert census(g) == full(ruleset), "every tile accounted for exactly once"
    n = ruleset.hand_size
    ph = g.phase
    sizes = [size(g, s) for s in range(SEATS)]
    if ph is Phase.TURN and PASS in g.legal_actions(g.current):
        # the opening concealed-kong round (L9): after the dealer's first discard, nobody holds more
        assert sizes == [n] * SEATS and g.current != g.dealer
        assert all(a.kind in (ActionKind.CONCEALED_KONG, ActionKind.PASS) for a in g.legal_actions(g.current))
    elif ph is Phase.TURN:
        assert sizes == [n + 1 if s == g.current else n for s in range(SEATS)]
    elif ph is Phase.CLAIM:
        assert sizes == [n] * SEATS
        assert g.current not in g.to_move()
    elif ph is Phase.ROB:
        assert sizes == [n + 1 if s == g.current else n for s in range(SEATS)]
    elif ph is Phase.SEA_FLOOR:
        assert all(x in (n, n + 1) for x in sizes)
        assert sizes[g.current] == n + 1
    for s in range(SEATS):
        w = g.wilds[s]
        assert not any(k in w for k in g.discards(s)), "a wild was discarded (L8)"
        for m in g.melds(s):
            assert not any(k in w for k in m.tiles), "a wild in a meld (L8)"
    if ph is not Phase.OVER:
        assert g.to_move(), "nobody to move in a live hand"
        for s in g.to_move():
            assert g.legal_actions(s)


def check_expensive(g: Game, ruleset: Ruleset) -> None:
    for s in range(SEATS):  # the engine's unchecked Hand for is_win equals the checked one
        assert g._win_hand(s, -1) == g.hand(s)
        assert g._win_hand(s, 5) == g.hand(s).with_tile(5) or g.hand(s).all_tiles().count(5) >= 4
    # The engine's cheap pre-filter never hides a win (slow reference: is_win on every tile).
    for s in range(SEATS):
        if size(g, s) != ruleset.hand_size:
            continue
        h = g.hand(s)
        for k in ruleset.tile_kinds:
            if k in h.flowers or h.all_tiles().count(k) >= 4:
                continue
            if is_win(h.with_tile(k), ruleset, g.wilds[s]):
                assert g._seats[s].could_win(k, g._bulldozer_need, g._win_size), (s, k)
    if g.phase is Phase.TURN:
        s = g.current
        acts = g.legal_actions(s)
        claimed = bool(g._claimed)
        assert (ActionKind.WIN in {a.kind for a in acts}) == (
            not claimed and is_win(g.hand(s), ruleset, g.wilds[s])
        )
        discards = {a.tile for a in acts if a.kind is ActionKind.DISCARD}
        held = {k for k, c in enumerate(g.counts(s)) if c and k not in g.wilds[s]}
        assert discards <= held


def check_outcome(g: Game, ruleset: Ruleset) -> None:
    o = g.outcome
    assert o is not None
    assert census(g) == full(ruleset)
    if o.winner is None:
        assert score_outcome(o, ruleset) is None
        return
    h = o.hands[o.winner]
    assert is_win(h, ruleset, o.wilds[o.winner])
    # Scores consistent: the winner's result, one per loser, totals in 0..300 in tens (L23).
    sc = score_outcome(o, ruleset)
    assert sc is not None and sc.winner.winner and sc.winner.seat == o.winner
    assert ruleset.base_fu <= sc.winner.total <= ruleset.max_total and sc.winner.total % 10 == 0
    assert (sc.winner.total == ruleset.max_total) or sc.winner.limit is None
    assert sorted(sc.loser_totals) == [s for s in range(SEATS) if s != o.winner]
    assert all(0 <= v <= ruleset.max_total and v % 10 == 0 for v in sc.loser_totals.values())
    if o.how is WinHow.BULLDOZER:
        assert size(g, o.winner) == ruleset.hand_size
    else:
        assert size(g, o.winner) == ruleset.hand_size + 1
        assert o.tile is not None


def play(g: Game, rng: random.Random, ruleset: Ruleset, expensive: bool) -> int:
    steps = 0
    while not g.is_over:
        movers = g.to_move()
        s = movers[0] if len(movers) == 1 else rng.choice(movers)
        acts = g.legal_actions(s)
        g.step(s, rng.choice(acts))
        steps += 1
        check_cheap(g, ruleset)
        if expensive:
            check_expensive(g, ruleset)
    check_outcome(g, ruleset)
    return steps


@pytest.mark.slow
def test_random_play_2000_hands() -> None:
    rng = random.Random(20261129)
    wins = draws = 0
    hows: set[str] = set()
    for i in range(2000):
        seed = b"random-play-%d" % i
        g = Game.from_seed(seed, LONGGANG, dealer=i % 4)
        play(g, rng, LONGGANG, expensive=i < 200)
        o = g.outcome
        assert o is not None
        if o.winner is None:
            draws += 1
        else:
            wins += 1
            assert o.how is not None
            hows.add(o.how.value)
    assert wins + draws == 2000
    assert wins > 0 and draws > 0
    assert {"self_draw", "discard"} <= hows


def test_illegal_actions_are_refused_in_random_states() -> None:
    from caishen.engine.game import Action

    rng = random.Random(7)
    every = [Action(kind, t) for kind in ActionKind for t in range(-1, NUM_KINDS)]
    for i in range(40):
        g = Game.from_seed(b"illegal-%d" % i, LONGGANG)
        while not g.is_over:
            s = g.to_move()[0]
            legal = set(g.legal_actions(s))
            for a in rng.sample(every, 12):
                if a not in legal and a.kind is not ActionKind.CHOW:
                    try:
                        g.step(s, a)
                    except IllegalActionError as e:
                        assert str(e)
                    else:
                        raise AssertionError(f"{a} accepted")
            g.step(s, rng.choice(sorted(legal, key=str)))


def test_hand_value_roundtrip() -> None:
    g = Game.from_seed(b"x", LONGGANG)
    h = g.hand(g.dealer)
    assert isinstance(h, Hand) and h.size == LONGGANG.hand_size + 1


def test_random_play_other_rulesets() -> None:
    # The engine is driven by the ruleset: 13-tile hands with seven pairs, no chow, no wild
    # indicator, no flowers with White, a shorter dead wall.
    variants = [
        LONGGANG.replace(hand_size=13, eight_and_half_pairs=False, seven_pairs=True),
        LONGGANG.replace(allow_chow=False, own_flower_wild=False),
        LONGGANG.replace(wild_indicator=False),
        LONGGANG.replace(has_flowers=False, has_white=True),
        LONGGANG.replace(bulldozer=False, dead_wall_stacks=8),
    ]
    rng = random.Random(3)
    for rs in variants:
        for i in range(40):
            g = Game.from_seed(b"variant-%d" % i, rs, dealer=i % 4)
            play(g, rng, rs, expensive=i < 10)
            if not rs.allow_chow:
                assert all(m.kind.name != "CHOW" for s in range(SEATS) for m in g.melds(s))
            if not rs.has_flowers:
                assert all(g.open_flowers(s) == () for s in range(SEATS))


def test_pickled_and_copied_games_play_on_identically() -> None:
    import copy
    import pickle

    from caishen.engine.actions import DISCARDS
    from caishen.engine.game import WIN

    assert pickle.loads(pickle.dumps(WIN)) is WIN and copy.deepcopy(DISCARDS[3]) is DISCARDS[3]
    for i in range(60):
        outcomes = []
        for mode in ("plain", "pickle", "deepcopy"):
            g = Game.from_seed(b"copy-%d" % i, LONGGANG)
            rng = random.Random(i)
            while not g.is_over:
                if mode != "plain" and g.phase in (Phase.CLAIM, Phase.ROB):
                    g = pickle.loads(pickle.dumps(g)) if mode == "pickle" else copy.deepcopy(g)
                s = g.to_move()[0]
                acts = g.legal_actions(s)
                g.step(s, WIN if WIN in acts else acts[rng.randrange(len(acts))])
            outcomes.append(g.outcome)
        assert outcomes[0] == outcomes[1] == outcomes[2]


@pytest.mark.slow
def test_random_matches_2000_hands_replay_reproduces_every_state_score_and_chip() -> None:
    """2,000 hands of seeded random matches (4, 5 and 6 players) through the match runner:
    chips conserved, each hand's record replays through states that keep every invariant, and
    the replay reproduces every outcome, score and chip transfer (L23-L25)."""
    hands = matches = 0
    while hands < 2000:
        players = 4 + matches % 3
        rec = selfplay(LONGGANG, b"random-match-%d" % matches, players)
        matches += 1
        assert sum(rec.result["chips"]) + rec.result["fees"] == LONGGANG.start_chips * players
        for h in rec.hands:
            assert sum(h.result["chips"]) == 0
            steps = 0
            for g, _ in iter_hand(h, LONGGANG):
                check_cheap(g, LONGGANG)
                steps += 1
            assert steps == len(h.actions) + 1
            hands += 1
        summary = replay(rec)  # raises at the first state, score or chip that differs
        assert summary.hands == len(rec.hands)
        assert summary.result == rec.result
    assert hands >= 2000
