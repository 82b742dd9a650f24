"""The engine's hooks as Luoyang Gangci fills them: the wall (G3, G4), the 次牌 as a face-up
tile without wilds, no chow (G1.3), kongs recorded for payment (G2.2-G2.4, G2.11)."""

from __future__ import annotations

from pathlib import Path

from caishen.engine.actions import ActionKind
from caishen.engine.game import SEATS, Game, Phase
from caishen.engine.wall import stack_of_count
from caishen.hand import MeldKind
from caishen.variants.luoyang_gangci.payments import PaymentItem
from caishen.variants.luoyang_gangci.rules import DEFAULT
from caishen.variants.luoyang_gangci.settlement import statement

WEST = 2


def _pos(side: int, stack: int, level: int) -> int:
    return side * 34 + stack * 2 + level


def test_source_example_wall() -> None:
    """G3.1-G3.2, G4.1: East deals, 5 and 6: sum 11 counts to West; five stacks from West's
    right end are passed, the deal starts at the sixth; the 次牌 is the top of the fifth."""
    lay = DEFAULT.wall_layout((5, 6, 5, 6), 0, 136)
    assert lay.opener == WEST and lay.break_count == 5
    assert stack_of_count(WEST, 5, 17) == (WEST, 12)
    assert lay.indicator_pos == _pos(WEST, 12, 0)
    assert lay.head[:2] == (_pos(WEST, 11, 0), _pos(WEST, 11, 1))
    assert lay.tail[:3] == (_pos(WEST, 12, 1), _pos(WEST, 13, 0), _pos(WEST, 13, 1))  # G4.3, U4
    assert len(lay.head) == len(lay.tail) == 135 and lay.indicator_pos not in lay.head


def test_seat_count_direction() -> None:
    """U1: sum 2 is the dealer's next player in turn order, his other neighbour clockwise."""
    assert DEFAULT.wall_layout((1, 1, 1, 1), 0, 136).opener == 1
    assert DEFAULT.replace(seat_count="clockwise").wall_layout((1, 1, 1, 1), 0, 136).opener == 3
    assert DEFAULT.wall_layout((5, 6, 1, 1), 0, 136).opener == DEFAULT.replace(
        seat_count="clockwise").wall_layout((5, 6, 1, 1), 0, 136).opener == WEST


def test_deal_and_face_up_ci_tile() -> None:
    g = Game.from_seed(b"gangci-engine-deal", DEFAULT, dealer=1)
    assert [sum(g.counts(s)) for s in range(SEATS)] == [13, 14, 13, 13]
    assert g.indicator == g.wall[g.layout.indicator_pos]
    assert g.wilds == (frozenset(),) * SEATS  # G4.2: no wilds
    assert g.observation(0).indicator == g.indicator  # every seat sees the 次牌
    assert g.live_tiles == 135 - 53 and g.dead_wall_tiles == 0


def test_drawn_hands_keep_kong_payments() -> None:
    """G2.11: play hands where every kong offered is made and no win is taken; a drawn hand
    pays exactly its kongs, each as G2.2-G2.4 says."""
    seen = {MeldKind.EXPOSED_KONG: 0, MeldKind.CONCEALED_KONG: 0}
    for i in range(60):
        g = Game.from_seed(b"gangci-kongs-%d" % i, DEFAULT, dealer=i % 4)
        while not g.is_over:
            s = g.to_move()[0]
            acts = g.legal_actions(s)
            kong = [a for a in acts if a.kind in (ActionKind.EXPOSED_KONG, ActionKind.CONCEALED_KONG,
                                                  ActionKind.ADDED_KONG)]
            if kong:
                g.step(s, kong[0])
            elif g.phase is Phase.CLAIM:
                g.step(s, next(a for a in acts if a.kind is ActionKind.PASS))
            else:
                drawn = g.just_drawn
                discards = [a for a in acts if a.kind is ActionKind.DISCARD]
                g.step(s, next((a for a in discards if a.tile == drawn), discards[0]))
        out = g.outcome
        assert out is not None and out.winner is None and not g.wall_positions_left()
        st = statement(out, DEFAULT)
        expected = 0
        for c in out.claims:
            seen[c.kind] = seen.get(c.kind, 0) + 1
            expected += {MeldKind.EXPOSED_KONG: 100, MeldKind.CONCEALED_KONG: 600}.get(c.kind, 0)
        assert sum(p.amount for p in st.payments) == expected
        assert all(p.item in (PaymentItem.EXPOSED_KONG, PaymentItem.CONCEALED_KONG, PaymentItem.ADDED_KONG)
                   for p in st.payments)
        assert sum(st.net) == 0
    assert seen[MeldKind.EXPOSED_KONG] > 0 and seen[MeldKind.CONCEALED_KONG] > 0


def test_engine_and_shapes_name_no_variant() -> None:
    """Issue 9: Gangci plays through hooks; the generic engine and shapes never name a variant."""
    src = Path(__file__).resolve().parents[2] / "src" / "caishen"
    for folder in ("engine", "shapes"):
        for path in sorted((src / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8").lower()
            for name in ("longgang", "gangci", "luoyang", "龙港", "杠次"):
                assert name not in text, f"{path.name} names {name}"
