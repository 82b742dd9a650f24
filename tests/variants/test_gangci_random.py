"""Random legal play of Luoyang Gangci on the generic engine: invariants after every step
(tile census with the face-up 次牌, hand sizes, legal actions accepted and others refused, the
win types exactly as the variant's win rules say, chips summing to zero with kong payments)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from caishen import fair
from caishen.engine.actions import Action, ActionKind, IllegalActionError
from caishen.engine.game import SEATS, Game, Phase, WinHow
from caishen.hand import MeldKind
from caishen.tiles import NUM_KINDS
from caishen.variants.luoyang_gangci.payments import PaymentItem
from caishen.variants.luoyang_gangci.rules import DEFAULT, SCHEME_2, GangciRules
from caishen.variants.luoyang_gangci.settlement import statement
from caishen.variants.luoyang_gangci.wins import GangciWin, own_turn_wins, zhi_ci

FULL = Counter(fair.tile_set(DEFAULT))
KONG_ITEMS = {PaymentItem.EXPOSED_KONG, PaymentItem.CONCEALED_KONG, PaymentItem.ADDED_KONG}


def census(g: Game) -> Counter[int]:
    """Every tile's whereabouts: wall, the 次牌, hands, melds, discards."""
    c: Counter[int] = Counter(g.wall[p] for p in g.wall_positions_left())
    assert g.indicator is not None
    c[g.indicator] += 1
    for s in range(SEATS):
        c.update({k: n for k, n in enumerate(g.counts(s)) if n})
        for m in g.melds(s):
            c.update(m.tiles)
        c.update(g.discards(s))
    return c


def size(g: Game, s: int) -> int:
    return sum(g.counts(s)) + 3 * len(g.melds(s))


def refused(g: Game, seat: int, action: Action) -> None:
    """An action not offered is refused and changes nothing."""
    before = (len(g.move_stack), g.phase, g.to_move(), g.counts(seat))
    with pytest.raises(IllegalActionError):
        g.step(seat, action)
    assert (len(g.move_stack), g.phase, g.to_move(), g.counts(seat)) == before


def check_step(g: Game, rng: random.Random) -> None:
    assert census(g) == FULL, "every tile accounted for exactly once, the 次牌 included"
    assert g.wilds == (frozenset(),) * SEATS, "the 次牌 makes no wilds (G4.2)"
    ci = g.indicator
    assert ci is not None
    ph = g.phase
    sizes = [size(g, s) for s in range(SEATS)]
    if ph is Phase.TURN:
        s = g.current
        assert sizes == [14 if x == s else 13 for x in range(SEATS)]
        acts = g.legal_actions(s)
        kinds = {a.kind for a in acts}
        assert ActionKind.CHOW not in kinds and ActionKind.PASS not in kinds
        if g.just_drawn is not None or not g.move_stack or g.move_stack[-1][1].kind is not ActionKind.PONG:
            first = s == g.dealer and not any(a.kind is not ActionKind.WIN for _, a in g.move_stack)
            assert (ActionKind.WIN in kinds) == bool(own_turn_wins(g.hand(s), ci, first and not g.melds(s)))
        held = {k for k, n in enumerate(g.counts(s)) if n}
        assert {a.tile for a in acts if a.kind is ActionKind.DISCARD} <= held
        missing = next(k for k in range(NUM_KINDS) if k not in held)
        refused(g, s, Action.parse(f"discard {Action(ActionKind.DISCARD, missing).text().split()[1]}"))
        refused(g, s, Action(ActionKind.PASS))
        if ActionKind.WIN not in kinds:
            refused(g, s, Action(ActionKind.WIN))
        refused(g, (s + 1) % SEATS, acts[0])  # not that seat's turn
    elif ph is Phase.CLAIM:
        assert sizes == [13] * SEATS
        d = g.current
        assert d not in g.to_move()
        tile = g.observation(d).discards[d][-1]
        for s in g.to_move():
            acts = g.legal_actions(s)
            kinds = {a.kind for a in acts}
            assert ActionKind.CHOW not in kinds and ActionKind.PASS in kinds
            assert (ActionKind.WIN in kinds) == zhi_ci(g.hand(s), tile, ci), "直次 is the only discard win (G5.8)"
            if ActionKind.WIN not in kinds:
                refused(g, s, Action(ActionKind.WIN))
        refused(g, d, Action(ActionKind.PASS))
    else:
        assert ph is Phase.OVER, f"no {ph} in Gangci (no robbing, no sea floor)"


def play(g: Game, rng: random.Random, rules: GangciRules) -> str:
    while not g.is_over:
        check_step(g, rng)
        movers = g.to_move()
        s = movers[0] if len(movers) == 1 else rng.choice(movers)
        g.step(s, rng.choice(g.legal_actions(s)))
    out = g.outcome
    assert out is not None and census(g) == FULL
    wall_pos = {p for _, p in g.draws}
    assert g.layout.indicator_pos not in wall_pos, "the 次牌 is never drawn (G4.2)"
    st = statement(out, rules)
    assert sum(st.net) == 0
    kongs = [c for c in out.claims if c.kind.is_kong]
    kong_pays = [p for p in st.payments if p.item in KONG_ITEMS]
    assert len(kong_pays) == sum(3 if c.kind is MeldKind.CONCEALED_KONG else 1 for c in kongs)
    assert all(c.fed_by is not None for c in kongs if c.kind is not MeldKind.CONCEALED_KONG)
    if out.winner is None:
        assert not g.wall_positions_left(), "a drawn hand has drawn all 135 tiles (G7.2, U5)"
        assert st.payments == tuple(kong_pays), "a drawn hand keeps only its kong payments (G2.11)"
        return "draw"
    assert out.win_type in {w.value for w in GangciWin}
    assert (out.how is WinHow.DISCARD) == (out.win_type == GangciWin.ZHI_CI)
    assert size(g, out.winner) == 14
    return out.win_type


def run(n: int, rules: GangciRules) -> Counter[str]:
    rng = random.Random(9)
    ends: Counter[str] = Counter()
    for i in range(n):
        g = Game.from_seed(b"gangci-random-%d" % i, rules, dealer=i % 4)
        ends[play(g, rng, rules)] += 1
    return ends


def test_random_play_200_hands() -> None:
    ends = run(200, DEFAULT)
    assert sum(ends.values()) == 200 and ends["draw"] > 0


@pytest.mark.slow
def test_random_play_2000_hands() -> None:
    ends = run(2000, SCHEME_2)
    assert sum(ends.values()) == 2000
    assert ends["draw"] > 0 and ends["zha_dan"] > 0
