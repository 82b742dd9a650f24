"""The worked hand of docs/rules/longgang.md ("How a hand is played"): every figure the chapter
states is what caishen plays and scores for the first hand of the seeded match ``worked-162``, dealt by caishen-fair-1 (docs/fairness.md)."""

from __future__ import annotations

from caishen import fair
from caishen.bots import make_bot
from caishen.engine.actions import ActionKind
from caishen.notation import format_hand
from caishen.table.match import Match
from caishen.table.play import play
from caishen.table.players import player_rng
from caishen.tiles import tile_name
from caishen.variants.longgang.outcome import HandScore
from caishen.variants.longgang.rules import LONGGANG


def test_the_worked_hand_of_the_rules_document() -> None:
    seed = b"worked-162"
    bots = [make_bot(b, player_rng(seed, i), LONGGANG) for i, b in enumerate(("strong", "greedy", "greedy", "strong"))]
    m = Match(LONGGANG, bots, seed=seed, algorithm=fair.FAIR_1)  # dealt before caishen-fair-2
    g = m.deal()
    assert g.dice[:2] == (1, 5) and g.dice[2:] == (3, 1) and tile_name(g.indicator or 0) == "1p"
    play(g, [bots[p] for p in m.seats])
    claims = [(s, a.text()) for s, a in g.move_stack if a.kind is not ActionKind.DISCARD and a.kind is not ActionKind.PASS]
    assert claims == [(2, "pong 3z"), (0, "concealed_kong 4m"), (3, "chow 5s 4s"), (0, "chow 6s 4s"),
                      (1, "chow 9p 7p"), (3, "win")]
    out = g.outcome
    assert out is not None and out.winner == 3 and out.sea_floor and tile_name(out.tile or 0) == "7m"
    assert format_hand(out.hands[3]) == "123678m34588p678s f13 {5s4s6s}"
    m.finish(g)
    res = m.results[-1]
    assert isinstance(res.score, HandScore)
    w = res.score.winner
    assert (w.fu, w.tai, w.total) == (12, 1, 70)
    assert {s: r.total for s, r in res.score.losers.items() if r is not None} == {0: 30, 1: 10, 2: 20}
    assert res.chips == (-14, -18, -14, 46)
