"""Scenario tests of the engine, one per rule (L4-L18) and per restriction of issue 4 item 2,
each on a wall stacked with tests/helpers_wall.py."""

from __future__ import annotations

import pytest

from caishen.engine.actions import (
    ADDED_KONGS,
    CHOWS,
    CONCEALED_KONGS,
    DECLARE_DRAW,
    DISCARDS,
    EXPOSED_KONGS,
    PONGS,
)
from caishen.engine.game import (
    PASS,
    WIN,
    Action,
    ActionKind,
    DrawReason,
    Game,
    IllegalActionError,
    Phase,
    WinHow,
)
from caishen.engine.wall import layout
from caishen.hand import Meld, MeldKind
from caishen.notation import parse_hand, parse_tile
from caishen.variants.longgang.rules import LONGGANG
from helpers_wall import DICE, stacked_game, stacked_wall, tiles

E17 = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 8s"
S16 = "2m5m8m 3p6p9p 1s4s7s 1z2z3z4z 6z7z 2s"
W16 = "3m6m 1p4p7p 2s5s 1z2z3z4z 6z7z 2m 4p 7s"
N16 = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 5m 9p"


def t(x: str) -> int:
    return parse_tile(x)


def D(x: str) -> Action:
    return DISCARDS[t(x)]


def P(x: str) -> Action:
    return PONGS[t(x)]


def C(x: str, low: str) -> Action:
    return CHOWS[(t(x), t(low))]


def counts_of(text: str) -> list[int]:
    c = [0] * 38
    for k in tiles(text):
        c[k] += 1
    return c


def pass_claims(g: Game, **decide: Action) -> None:
    """Answer an open claim or rob window: seats named ``s0``..``s3`` get their action, the
    others pass."""
    while g.phase in (Phase.CLAIM, Phase.ROB):
        movers = g.to_move()
        s = movers[0]
        g.step(s, decide.get(f"s{s}", PASS))


def quiet_turn(g: Game) -> None:
    """Discard the drawn tile if possible (else the first legal discard), pass every claim."""
    assert g.phase is Phase.TURN
    s = g.current
    acts = [a for a in g.legal_actions(s) if a.kind is ActionKind.DISCARD]
    drawn = g._drawn
    pick = DISCARDS[drawn] if DISCARDS[drawn] in acts else acts[0]
    g.step(s, pick)
    pass_claims(g)


# ---------------------------------------------------------------- L4 wall, dice, deal


def test_L4_dice_pick_opener_and_break() -> None:
    # Dealer East rolls 3+4=7: counting counter-clockwise from the dealer (East 1, South 2,
    # West 3, North 4, East 5, South 6, West 7) the opener is West. Sum 7+2+5=14: 14 stacks
    # from the right end of West's wall, i.e. West's stack 3 (0-based from its left).
    lay = layout((3, 4, 2, 5), 0, 136)
    assert lay.opener == 2 and lay.break_count == 14
    assert lay.indicator_pos == 2 * 34 + 3 * 2  # top of West's stack 3
    # Drawing starts with the next stack clockwise (West's stack 2) and walks on to South's wall.
    assert lay.head[:8] == (72, 73, 70, 71, 68, 69, 66, 67)
    # Replacements come from the tail: the indicator's stack (bottom), then West's stack 4.
    assert lay.tail[:3] == (75, 76, 77)
    assert len(lay.head) == len(lay.tail) == 135 and set(lay.head) == set(lay.tail)
    assert lay.indicator_pos not in lay.head


def test_L4_count_past_17_continues_on_the_left_neighbours_wall() -> None:
    # Dealer South rolls 12: opener = South + 11 = East. Sum 24: 17 on East's wall, then
    # 7 more on North's wall (East's left neighbour, whose rightmost stack counts 18).
    lay = layout((6, 6, 6, 6), 1, 136)
    assert lay.opener == 0
    assert lay.indicator_pos == 3 * 34 + (34 - 24) * 2


def test_L4_five_counts_as_six_and_nine_as_eight() -> None:
    # Source 坐庄: the dealer's 5 becomes 6 and 9 becomes 8 (he never opens his own wall), but the
    # stack count uses the dice as thrown.
    lay = layout((2, 3, 1, 1), 0, 136)
    assert lay.opener == 1 and lay.break_count == 7
    assert lay.indicator_pos == 1 * 34 + (17 - 7) * 2
    assert layout((4, 5, 1, 1), 2, 136).opener == (2 + 7) % 4
    assert layout((1, 1, 1, 1), 3, 136).opener == 0  # 2: the seat after the dealer


def test_L4_deal_in_blocks_of_four_then_dealers_17th_and_indicator() -> None:
    wall = stacked_wall([E17, S16, W16, N16], indicator="9s")
    g = Game(LONGGANG, wall, DICE, 0)
    head = g.layout.head
    for s in range(4):
        idx = [16 * r + 4 * s + j for r in range(4) for j in range(4)]
        if s == 0:
            idx.append(64)
        expect = [0] * 38
        for i in idx:
            expect[wall[head[i]]] += 1
        assert list(g.counts(s)) == expect
    assert list(g.counts(0)) == counts_of(E17)
    assert list(g.counts(1)) == counts_of(S16)
    assert g.indicator == t("9s") == wall[g.layout.indicator_pos]
    assert g.wilds[0] == frozenset({t("9s"), t("f1")})
    assert g.wilds[2] == frozenset({t("9s"), t("f3")})
    assert g.phase is Phase.TURN and g.current == 0 and g.to_move() == (0,)
    # The tail stack holds the indicator and one tile: 21 kept back (10幢半). The source's "除去王牌只有
    # 50張牌可摸" counts the dealer's 17th: 1 + 45 live + 4 sea floor.
    assert g.live_tiles == 135 - 65 - 21 - 4 == 45


def test_L4_indicator_is_never_drawn() -> None:
    g = stacked_game([E17, S16, W16, N16])
    pos = g.layout.indicator_pos
    while not g.is_over:
        if g.phase is Phase.TURN:
            quiet_turn(g)
        else:
            g.step(g.to_move()[0], PASS)
        assert pos not in g.wall_positions_left() and g.wall[pos] == t("9s")
    assert g.outcome is not None and sum(h.all_tiles().count(t("9s")) for h in g.outcome.hands) <= 3


def test_L4_from_seed_uses_fair_wall_and_dice() -> None:
    from caishen import fair

    g = Game.from_seed(b"seed", LONGGANG, dealer=2)
    assert g.wall == fair.shuffled_wall(b"seed", LONGGANG)
    assert g.dice == fair.dice(b"seed")
    assert g.dealer == 2 and g.current == 2


def test_L4_bad_wall_and_dice_are_refused() -> None:
    wall = stacked_wall([E17, S16, W16, N16])
    with pytest.raises(ValueError, match="136 tiles"):
        Game(LONGGANG, wall[:-1], DICE)
    with pytest.raises(ValueError, match="holds 5 of 1m"):
        Game(LONGGANG, (0,) + wall[1:] if wall[0] != 0 else (1,) + wall[1:], DICE)
    with pytest.raises(ValueError, match="dice"):
        Game(LONGGANG, wall, (0, 1, 2, 3))


# ---------------------------------------------------------------- L5 flower indicator


def test_L5_flower_indicator_makes_every_other_flower_wild() -> None:
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m f3 f4"
    g = stacked_game([east, S16, W16, N16], indicator="f2")
    assert g.wilds[0] == frozenset({t("f1"), t("f3"), t("f4")})
    # f2 is the indicator (never drawn); it is South's own flower, so it stays in South's set.
    assert g.wilds[1] == frozenset({t("f1"), t("f2"), t("f3"), t("f4")})
    # Wild flowers stay in the hand: nothing laid open, nothing replaced.
    assert g.open_flowers(0) == () and g.counts(0)[t("f3")] == 1 and g.counts(0)[t("f4")] == 1
    assert g.dead_wall_tiles == 21
    assert D("f3") not in g.legal_actions(0)


def test_L5_switch_off_only_own_flower_is_wild() -> None:
    rs = LONGGANG.replace(flower_indicator_wilds=False)
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m f3 f4"
    g = stacked_game([east, S16, W16, N16], indicator="f2", tail="3p 8s", ruleset=rs)
    assert g.wilds[0] == frozenset({t("f1")})
    assert g.open_flowers(0) == (t("f3"), t("f4"))


# ---------------------------------------------------------------- L6 dead wall


def test_L6_dead_wall_is_20_or_21_and_replacements_come_from_the_tail() -> None:
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p f2"
    g = stacked_game([east, S16, W16, N16], tail="8s 7s")
    # The first replacement takes the single beside the indicator: 20 kept back (10幢), the
    # live wall is unchanged.
    assert g.open_flowers(0) == (t("f2"),)
    assert g.counts(0)[t("8s")] == 1 and g.wall[g.layout.tail[0]] == t("8s")
    assert g.layout.tail[0] // 2 == g.layout.indicator_pos // 2  # the indicator's stack
    assert g.dead_wall_tiles == 20
    assert g.live_tiles == 135 - 65 - 1 - 20 - 4 == 45


def test_L6_switch_indicator_splits_tail_off_keeps_20_at_the_start() -> None:
    # The other reading (D20; version 1 records): 20 at the start, 21 after one replacement.
    rs = LONGGANG.replace(indicator_splits_tail=False)
    g = stacked_game([E17, S16, W16, N16], ruleset=rs)
    assert g.dead_wall_tiles == 20 and g.live_tiles == 135 - 65 - 20 - 4 == 46
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p f2"
    g = stacked_game([east, S16, W16, N16], tail="8s", ruleset=rs)
    assert g.dead_wall_tiles == 21 and g.live_tiles == 135 - 65 - 1 - 21 - 4 == 44


def test_L6_two_replacements_keep_21() -> None:
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m f3 f2"
    g = stacked_game([east, S16, W16, N16], tail="8s 7s")
    # The second splits the next stack: 21 kept back again, two fewer live tiles.
    assert g.dead_wall_tiles == 21
    assert g.live_tiles == 135 - 65 - 2 - 21 - 4 == 43


# ---------------------------------------------------------------- L7 flowers


def test_L7_own_flower_stays_wild_guest_flower_is_replaced_repeatedly() -> None:
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m f1 f2"
    g = stacked_game([east, S16, W16, N16], tail="f4 5m")
    assert g.counts(0)[t("f1")] == 1  # 坐花 kept as a wild
    assert g.open_flowers(0) == (t("f2"), t("f4"))  # f4 came as the replacement: replaced again
    assert g.counts(0)[t("5m")] == 1
    assert D("f1") not in g.legal_actions(0)


def test_L7_dealer_replaces_and_discards_first_then_the_others_in_turn() -> None:
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p f4"
    south = "2m5m8m 3p6p9p 1s4s7s 1z2z3z4z 6z7z f3"
    north = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 5m f2"
    g = stacked_game([east, south, W16, north], tail="8s 6m 4p", draws="7m")
    assert g.open_flowers(0) == (t("f4"),) and g.counts(0)[t("8s")] == 1
    # South and North still hold their flowers while the dealer plays.
    assert g.counts(1)[t("f3")] == 1 and g.open_flowers(1) == ()
    assert g.counts(3)[t("f2")] == 1 and g.open_flowers(3) == ()
    g.step(0, D("9m"))
    # After the dealer's discard South then North replace from the tail (6m, 4p).
    assert g.open_flowers(1) == (t("f3"),) and g.counts(1)[t("6m")] == 1
    assert g.open_flowers(3) == (t("f2"),) and g.counts(3)[t("4p")] == 1
    pass_claims(g)
    assert g.current == 1 and g.phase is Phase.TURN
    assert g.counts(1)[t("7m")] == 1 and g.counts(1)[t("f3")] == 0


def test_L7_a_dealt_flower_does_not_cost_an_earthly_win() -> None:
    # West is dealt a flower; its replacement 9p (tail 0) leaves it waiting on 4p/7p.
    west = "123m456m789m123p 5p6p 9p f4"
    g = stacked_game([E17.replace("9m", "4p"), S16, west, N16], tail="9p")
    g.step(0, D("4p"))
    assert g.open_flowers(2) == (t("f4"),)
    assert WIN in g.legal_actions(2)
    g.step(2, WIN)
    o = g.outcome
    assert o is not None and o.winner == 2 and o.earthly and o.tile == t("4p")


def test_L7_flower_drawn_in_play_is_replaced() -> None:
    g = stacked_game([E17, S16, W16, N16], draws="f3", tail="4s")
    g.step(0, D("9m"))
    pass_claims(g)
    assert g.current == 1 and g.open_flowers(1) == (t("f3"),) and g.counts(1)[t("4s")] == 2


# ---------------------------------------------------------------- L8 wilds


def test_L8_wild_is_never_discarded() -> None:
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 9s 8s"
    g = stacked_game([east, S16, W16, N16])
    assert D("9s") not in g.legal_actions(0)
    with pytest.raises(IllegalActionError, match=r"wild .*L8"):
        g.step(0, D("9s"))


def test_L8_bulldozer_wins_at_once_on_the_deal() -> None:
    east = "1m4m7m 2p5p8p 3s 1z2z3z4z 6z7z 9m 9s9s9s"
    g = stacked_game([east, S16, W16, N16])
    assert WIN in g.legal_actions(0)
    g.step(0, WIN)
    o = g.outcome
    assert o is not None and o.winner == 0 and o.how is WinHow.SELF_DRAW and o.heavenly


def test_L8_bulldozer_declared_before_an_earthly_win() -> None:
    # South wins on East's first discard 7p (地胡) but West holds three 正财神 (推土机):
    # the bulldozer comes first (source 胡牌規則 1).
    south = "123m456m789m123p456p 7p"
    west = "3m6m9m 1p4p 2s5s 1z2z3z4z 6z7z 9s9s9s"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 7p"
    g = stacked_game([east, south, west, N16])
    g.step(0, D("7p"))
    assert g.phase is Phase.CLAIM and set(g.to_move()) == {1, 2}
    g.step(1, WIN)
    g.step(2, WIN)
    o = g.outcome
    assert o is not None and o.winner == 2 and o.how is WinHow.BULLDOZER and o.tile is None
    assert o.hands[2].concealed.count(t("9s")) == 3


# ---------------------------------------------------------------- L9 claims


def test_L9_chow_only_from_the_player_on_the_left() -> None:
    # South (after East) and West both hold 3m4m: only South may chow East's 2m.
    south = "3m4m 5m8m 3p6p9p 1s4s7s 1z2z3z4z 6z7z"
    west = "3m4m 6m8m 1p4p7p 2s5s 1z2z3z4z 6z7z 2p"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 2m 3p 8s"
    g = stacked_game([east, south, west, N16])
    g.step(0, D("2m"))
    assert g.to_move() == (1,)
    assert g.legal_actions(1) == (C("2m", "2m"), PASS)
    assert g.legal_actions(2) == ()
    with pytest.raises(IllegalActionError, match="nothing to decide"):
        g.step(2, C("2m", "2m"))


def test_L9_no_discard_of_claimed_tile() -> None:
    south = "2m3m4m5m 3p6p9p 1s4s7s 1z2z3z4z 6z7z"
    g = stacked_game([E17.replace("9m", "2m"), south, W16, N16])
    g.step(0, D("2m"))
    assert C("2m", "2m") in g.legal_actions(1)
    pass_claims(g, s1=C("2m", "2m"))
    assert g.current == 1 and g.phase is Phase.TURN
    acts = g.legal_actions(1)
    assert D("2m") not in acts and D("3p") in acts
    assert all(a.kind is ActionKind.DISCARD for a in acts)
    with pytest.raises(IllegalActionError, match=r"just claimed.*L9"):
        g.step(1, D("2m"))
    assert g.melds(1) == (Meld(MeldKind.CHOW, (t("2m"), t("3m"), t("4m"))),)


def test_L9_no_discard_of_the_chow_twin() -> None:
    # South holds 3m4m5m, chows 2m: 5m would make the same sequence 3m4m5m and is refused.
    south = "2m3m4m5m 3p6p9p 1s4s7s 1z2z3z4z 6z7z"
    g = stacked_game([E17.replace("9m", "2m"), south, W16, N16])
    g.step(0, D("2m"))
    pass_claims(g, s1=C("2m", "2m"))
    assert D("5m") not in g.legal_actions(1)
    with pytest.raises(IllegalActionError, match=r"same sequence.*L9"):
        g.step(1, D("5m"))


def test_L9_pong_from_any_seat_then_play_goes_on_from_the_ponger() -> None:
    west = "3m6m9m 1p4p7p 2s5s 1z2z3z4z 6z7z 9m9m"
    g = stacked_game([E17, S16, west, N16])
    g.step(0, D("9m"))
    pass_claims(g, s2=P("9m"))
    assert g.current == 2 and g.melds(2) == (Meld.pong(t("9m")),)
    assert g.discards(0) == ()  # the claimed tile left East's discards
    g.step(2, D("1p"))
    pass_claims(g)
    assert g.current == 3


def test_L9_exposed_kong_takes_a_replacement_from_the_tail() -> None:
    north = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 9m9m9m 5m"
    g = stacked_game([E17, S16, W16, north], tail="6p")
    g.step(0, D("9m"))
    assert EXPOSED_KONGS[t("9m")] in g.legal_actions(3)
    pass_claims(g, s3=EXPOSED_KONGS[t("9m")])
    assert g.current == 3 and g.melds(3) == (Meld.kong(t("9m"), MeldKind.EXPOSED_KONG),)
    assert g.counts(3)[t("6p")] == 1 and g.dead_wall_tiles == 20
    assert any(a.kind is ActionKind.DISCARD for a in g.legal_actions(3))


def test_L9_concealed_kong_on_the_deal() -> None:
    east = "1m1m1m1m 2p5p8p 3s6s 1z2z3z4z 6z7z 3p 9m"
    g = stacked_game([east, S16, W16, ""], tail="6p")
    assert CONCEALED_KONGS[t("1m")] in g.legal_actions(0)
    g.step(0, CONCEALED_KONGS[t("1m")])
    assert g.melds(0) == (Meld.kong(t("1m"), MeldKind.CONCEALED_KONG),)
    assert g.counts(0)[t("6p")] == 1 and g.current == 0 and g.phase is Phase.TURN


def test_L9_added_kong_and_the_fourth_is_not_discarded() -> None:
    west = "3m6m 1p4p7p 2s5s 1z2z3z4z 6z7z 9m9m 8p"
    g = stacked_game([E17, S16, west, N16], draws="1s 2m 6m 9m", tail="6p")
    g.step(0, D("9m"))
    pass_claims(g, s2=P("9m"))
    g.step(2, D("1p"))
    pass_claims(g)
    for _ in range(3):
        quiet_turn(g)
    assert g.current == 2 and g.counts(2)[t("9m")] == 1
    acts = g.legal_actions(2)
    assert ADDED_KONGS[t("9m")] in acts and D("9m") not in acts  # source 补杠
    with pytest.raises(IllegalActionError, match="kong it instead"):
        g.step(2, D("9m"))
    g.step(2, ADDED_KONGS[t("9m")])
    assert g.melds(2) == (Meld.kong(t("9m"), MeldKind.ADDED_KONG),)
    assert g.counts(2)[t("6p")] == 1 and g.current == 2 and g.phase is Phase.TURN


def test_L9_no_chow_of_own_discard_same_go_round() -> None:
    # Source (五)f: South discarded 3m; in the same go-round it may not chow 3m.
    south = "2m4m5m8m 3p6p9p 1s4s7s 1z2z3z4z 6z 3m"
    north = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 3m 9p"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 3m"
    g = stacked_game([east, south, W16, north], draws="1p 8p 7s")
    g.step(0, D("9m"))
    pass_claims(g)
    g.step(1, D("3m"))
    pass_claims(g)
    quiet_turn(g)  # West
    g.step(3, D("3m"))
    pass_claims(g)
    g.step(0, D("3m"))
    assert not any(a.kind is ActionKind.CHOW for a in g.legal_actions(1))


# ---------------------------------------------------------------- L10 priorities, robbing

WAIT_7P = "123m456m789m123p456p 7p"  # single wait on 7p


def test_L10_win_beats_pong() -> None:
    west = "3m6m 1p4p 2s5s 1z2z3z4z 6z7z 7p7p 9s 8m"
    g = stacked_game([E17.replace("9m", "7p"), WAIT_7P, west, N16.replace("9p", "8p")])
    g.step(0, D("7p"))
    assert set(g.to_move()) == {1, 2}
    g.step(2, P("7p"))
    g.step(1, WIN)
    o = g.outcome
    assert o is not None and o.winner == 1 and o.how is WinHow.DISCARD and o.from_seat == 0
    assert o.tile == t("7p") and o.earthly


def test_L10_pong_beats_chow() -> None:
    south = "2m5m8m 3p6p9p 1s4s7s 1z2z3z4z 6z 5p6p"
    west = "3m6m9m 1p7p 2s5s 1z2z3z4z 6z7z 8m 4p4p"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 4p"
    g = stacked_game([east, south, west, "1m4m7m 2p8p 3s6s 1z2z3z4z 7z 5m 9p 1p 9m"])
    g.step(0, D("4p"))
    g.step(1, C("4p", "4p"))
    g.step(2, P("4p"))
    assert g.current == 2 and g.melds(2) == (Meld.pong(t("4p")),) and g.melds(1) == ()


def test_L10_rob_an_added_kong() -> None:
    west = "3m6m9m 1p4p7p 2s8s 1z2z3z4z 6z7z 5m5m"
    north = "123p 456p 789p 123s 4m6m 9s 1m"  # closed wait on 5m with a wild pair... 9s wild
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 5m"
    g = stacked_game([east, "", west, north], draws="7s 2m 8m 5m", tail="6p")
    g.step(0, D("5m"))
    pass_claims(g, s2=P("5m"))
    g.step(2, D("1p"))
    pass_claims(g)
    g.step(3, D("7s"))  # North draws 7s and lets it go
    pass_claims(g)
    quiet_turn(g)  # East
    quiet_turn(g)  # South
    assert g.current == 2 and ADDED_KONGS[t("5m")] in g.legal_actions(2)
    g.step(2, ADDED_KONGS[t("5m")])
    assert g.phase is Phase.ROB and g.to_move() == (3,) and g.legal_actions(3) == (WIN, PASS)
    g.step(3, WIN)
    o = g.outcome
    assert o is not None and o.winner == 3 and o.how is WinHow.ROB_KONG and o.from_seat == 2
    assert o.hands[2].melds == (Meld.pong(t("5m")),)  # the kong was robbed: a pong stays
    assert t("5m") not in o.hands[2].concealed


def test_L10_rob_passed_kong_completes() -> None:
    west = "3m6m9m 1p4p7p 2s8s 1z2z3z4z 6z7z 5m5m"
    north = "123p 456p 789p 123s 4m6m 9s 1m"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 5m"
    g = stacked_game([east, "", west, north], draws="7s 2m 8m 5m", tail="6p")
    g.step(0, D("5m"))
    pass_claims(g, s2=P("5m"))
    g.step(2, D("1p"))
    pass_claims(g)
    g.step(3, D("7s"))
    pass_claims(g)
    quiet_turn(g)
    quiet_turn(g)
    g.step(2, ADDED_KONGS[t("5m")])
    g.step(3, PASS)
    assert g.current == 2 and g.melds(2) == (Meld.kong(t("5m"), MeldKind.ADDED_KONG),)
    assert g.counts(2)[t("6p")] == 1


def test_L10_no_robbing_a_concealed_kong() -> None:
    west = "3m6m 1p4p7p 2s8s 1z2z3z4z 6z7z 5m5m5m"
    north = "123p 456p 789p 123s 4m6m 9s 1m"
    g = stacked_game([E17, "", west, north], draws="1s 5m", tail="6p")
    g.step(0, D("9m"))
    pass_claims(g)
    quiet_turn(g)  # South
    g.step(2, CONCEALED_KONGS[t("5m")])
    assert g.phase is Phase.TURN and g.current == 2 and g.counts(2)[t("6p")] == 1


# ---------------------------------------------------------------- L11 过水, own discard


def test_L11_pass_on_pong_forbids_that_pong_until_own_draw() -> None:
    west = "3m6m9m 1p4p7p 2s5s 1z2z3z4z 6z7z 8s8s"
    south = "2m5m8m 3p6p9p 1s4s7s 1z2z3z4z 6z7z 8s"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 8s"
    g = stacked_game([east, south, west, N16], draws="1m")
    g.step(0, D("8s"))
    assert P("8s") in g.legal_actions(2)
    pass_claims(g)
    g.step(1, D("8s"))
    assert P("8s") not in g.legal_actions(2)
    with pytest.raises(IllegalActionError):
        g.step(2, P("8s"))


def test_L12_false_win_and_wrong_seat_are_refused_with_a_reason() -> None:
    g = stacked_game([E17, S16, W16, N16])
    with pytest.raises(IllegalActionError, match="诈胡"):
        g.step(0, WIN)
    with pytest.raises(IllegalActionError, match="nothing to decide"):
        g.step(1, D("2m"))
    with pytest.raises(IllegalActionError, match="holds no 5s"):
        g.step(0, D("5s"))
    with pytest.raises(IllegalActionError, match="not an action"):
        g.step(0, "discard 9m")  # type: ignore[arg-type]
    assert g.phase is Phase.TURN and g.current == 0  # nothing changed


# ---------------------------------------------------------------- L13-L16 wins


def test_L13_self_drawn_standard_win() -> None:
    east = "123m456m789m123p456p 7p 1z"
    g = stacked_game([east, S16, W16, N16], draws="9p 5s 1s 7p")
    g.step(0, D("1z"))
    pass_claims(g)
    quiet_turn(g)
    quiet_turn(g)
    quiet_turn(g)
    assert g.current == 0 and g.legal_actions(0)[0] is WIN
    g.step(0, WIN)
    o = g.outcome
    assert o is not None and o.winner == 0 and o.how is WinHow.SELF_DRAW and o.tile == t("7p")
    assert not o.heavenly and o.hands[0].concealed.count(t("7p")) == 2


def test_L14_eight_and_a_half_pairs_wins_on_a_discard() -> None:
    south = "1m1m 2m2m 3p3p 4p4p 5s5s 6s6s 1z1z 2z2z"
    east = "1z 3m6m 1p7p 2s 9p 8s 3s 4m 7m 2p5p8p 6z7z 5m"
    g = stacked_game([east, south, "", ""])
    g.step(0, D("1z"))
    assert WIN in g.legal_actions(1)
    g.step(1, WIN)
    assert g.outcome is not None and g.outcome.hands[1].concealed.count(t("1z")) == 3


def test_L15_heavenly_win_after_a_concealed_kong() -> None:
    east = "1m1m1m1m 123p456p789p 7s8s 3z3z"
    g = stacked_game([east, S16, W16, ""], tail="9s")
    g.step(0, CONCEALED_KONGS[t("1m")])
    assert WIN in g.legal_actions(0)
    g.step(0, WIN)
    o = g.outcome
    assert o is not None and o.heavenly and o.after_kong and o.how is WinHow.SELF_DRAW


def test_L15_earthly_win_only_on_the_dealers_first_discard() -> None:
    g = stacked_game([E17.replace("9m", "7p"), WAIT_7P, W16, N16.replace("9p", "8p")])
    g.step(0, D("7p"))
    g.step(1, WIN)
    assert g.outcome is not None and g.outcome.earthly
    north = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 5m 7p"
    g = stacked_game([E17, WAIT_7P, W16, north], draws="2m 3m 1s")
    g.step(0, D("9m"))
    pass_claims(g)
    quiet_turn(g)
    quiet_turn(g)
    g.step(3, D("7p"))
    g.step(1, WIN)
    assert g.outcome is not None and g.outcome.winner == 1 and not g.outcome.earthly


def test_L16_single_wild_pairs_with_any_tile() -> None:
    south = "123m456m789m123p456p 9s"  # the wild 9s waits on anything (财神单吊)
    g = stacked_game([E17, south, W16, N16])
    g.step(0, D("1z"))
    assert WIN in g.legal_actions(1)
    g.step(1, WIN)
    o = g.outcome
    assert o is not None and o.winner == 1 and o.tile == t("1z")


# ---------------------------------------------------------------- L17 分张


def play_quietly_until(g: Game, live: int) -> None:
    while g.phase is Phase.TURN and g.live_tiles > live:
        quiet_turn(g)


def test_L17_sea_floor_each_seat_takes_one_nobody_discards_then_draw_game() -> None:
    g = stacked_game([E17, S16, W16, N16])
    play_quietly_until(g, 0)
    while g.phase is Phase.TURN:
        quiet_turn(g)
    assert g.is_over and g.outcome is not None and g.outcome.is_draw
    assert g.outcome.draw_reason == "wall" and g.outcome.winner is None
    assert g.outcome.next_dealer == 1
    # 49 tiles were drawn after the deal (45 live + 4 sea floor), the dead wall of 21 is left.
    assert len(g.wall_positions_left()) == 21
    assert [len(g.discards(s)) for s in range(4)] == [12, 12, 11, 11]


def test_L17_sea_floor_self_draw_is_a_win_haidilaoyue() -> None:
    east = "123m456m789m123p456p 7p 1z"
    # Head indices 110-113 are the sea floor; South draws the last live tile (109), so the
    # sea floor goes West, North, East, South: East's is 112.
    g = stacked_game([east, S16, W16, N16], head_at={112: "7p"})
    play_quietly_until(g, 0)
    while g.phase is Phase.TURN:
        quiet_turn(g)
    assert g.phase is Phase.SEA_FLOOR and g.current == 0
    assert g.legal_actions(0) == (WIN, PASS)
    g.step(0, WIN)
    o = g.outcome
    assert o is not None and o.sea_floor and o.how is WinHow.SELF_DRAW and o.tile == t("7p")


def _sea_case(flower_at: int, dealt_flower: bool, **kw: object) -> Game:
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p " + ("f2" if dealt_flower else "8s")
    flower = "f3" if (flower_at - 65 + 1) % 4 == 3 else "f4"  # a guest flower for the drawer
    return stacked_game([east, S16, W16, N16], head_at={flower_at: flower}, **kw)  # type: ignore[arg-type]


def _gained(g: Game, before: list[list[int]]) -> list[list[int]]:
    """Tiles each seat gained since ``before`` (its counts plus flowers laid open)."""
    out = []
    for s in range(4):
        now = list(g.counts(s))
        for k in g.open_flowers(s):
            now[k] += 1
        out.append(sorted(k for k in range(38) for _ in range(max(now[k] - before[s][k], 0))))
    return out


def _snapshot(g: Game) -> list[list[int]]:
    snap = []
    for s in range(4):
        c = list(g.counts(s))
        for k in g.open_flowers(s):
            c[k] += 1
        snap.append(c)
    return snap


def _finish_sea_floor(g: Game) -> None:
    while g.phase is Phase.SEA_FLOOR:
        g.step(g.current, PASS)
    assert g.is_over and g.outcome is not None and g.outcome.draw_reason == "wall"


def test_L17_river_tile_and_last_sea_floor_tile_are_on_the_outer_side() -> None:
    # Source 河底牌 "四張海底牌的前一張（牌海異側）" and (I)② "海底牌處末張(牌海異側)": with 21 kept
    # back the dead wall starts at a whole stack, so the river tile (head 109) and the last
    # sea-floor tile (head 113) are the outer tiles (level 1) of their stacks.
    g = stacked_game([E17, S16, W16, N16])
    head = g.layout.head
    assert g.live_tiles == 45 and g.dead_wall_tiles == 21
    assert head[109] % 2 == 1 and head[113] % 2 == 1
    assert head[110] // 2 == head[111] // 2 and head[112] // 2 == head[113] // 2
    assert head[114] % 2 == 0  # the dead wall starts with a whole stack


def test_L17_case_I_flower_on_the_river_tile_dead_wall_21() -> None:
    # No replacement before: 21 kept back, live 45 (head 65..109). South draws the river tile
    # (head 109), a flower: the tail single (tail 0) replaces it, South discards, then 分张 from
    # West: head 110, 111, 112, 113.
    g = _sea_case(109, False)
    play_quietly_until(g, 1)
    assert g.live_tiles == 1 and g.dead_wall_tiles == 21 and g.current == 0
    quiet_turn(g)
    assert g.phase is Phase.TURN and g.current == 1
    assert g.live_tiles == 0 and g.dead_wall_tiles == 20
    assert g.open_flowers(1) == (t("f4"),) and g.counts(1)[g.wall[g.layout.tail[0]]] >= 1
    before = _snapshot(g)
    quiet_turn(g)
    _finish_sea_floor(g)
    head = g.layout.head
    gained = _gained(g, before)
    for seat, idx in ((2, 110), (3, 111), (0, 112)):
        assert gained[seat] == [g.wall[head[idx]]]
    assert len(g.wall_positions_left()) == 20


def test_L17_case_I_flower_on_the_river_tile_dead_wall_20() -> None:
    # The dealt flower took the tail single: 20 kept back, live still 45 (head 65..109). South
    # draws the river tile (head 109), a flower; with 20 kept back its replacement is the last
    # sea-floor tile (head 113), no discard, and West, North, East take head 110, 111, 112.
    g = _sea_case(109, True)
    play_quietly_until(g, 1)
    assert g.current == 0 and g.dead_wall_tiles == 20
    before = _snapshot(g)
    quiet_turn(g)  # East discards; South draws the river tile ...
    _finish_sea_floor(g)
    head = g.layout.head
    gained = _gained(g, before)
    assert gained[1] == sorted([t("f4"), g.wall[head[113]]])
    assert gained[2] == [g.wall[head[110]]] and gained[3] == [g.wall[head[111]]]
    assert gained[0] == [g.wall[head[112]]]
    assert len(g.wall_positions_left()) == 20 and g.layout.tail[1] in g.wall_positions_left()


def test_L17_case_I_variant_replacement_from_the_tail_without_discard() -> None:
    # sea_floor_kong_no_discard: South's replacement comes from the tail (tail 1), West, North,
    # East take head 110-112, the last sea-floor tile (head 113) stays.
    rs = LONGGANG.replace(sea_floor_kong_no_discard=True)
    g = _sea_case(109, True, ruleset=rs)
    play_quietly_until(g, 1)
    before = _snapshot(g)
    quiet_turn(g)
    _finish_sea_floor(g)
    head = g.layout.head
    gained = _gained(g, before)
    assert gained[1] == sorted([t("f4"), g.wall[g.layout.tail[1]]])
    assert gained[2] == [g.wall[head[110]]] and gained[3] == [g.wall[head[111]]]
    left = set(g.wall_positions_left())
    assert head[113] in left and g.layout.tail[1] not in left and len(left) == 20


def test_L17_case_II_flower_before_the_river_tile_dead_wall_20() -> None:
    # 20 kept back (the dealt flower took the tail single). East draws head 108 (the tile before
    # the river tile), a flower; the dead wall moves up a stack: the replacement is the sea side
    # of the tail stack (tail 1), no discard, and South, West, North share head 109, 110, 111
    # (a sea floor of 3); head 112-113 stay dead.
    g = _sea_case(108, True)
    play_quietly_until(g, 2)
    assert g.current == 3 and g.live_tiles == 2 and g.dead_wall_tiles == 20
    before = _snapshot(g)
    quiet_turn(g)  # North discards; East draws the flower ...
    _finish_sea_floor(g)
    head = g.layout.head
    gained = _gained(g, before)
    assert g.layout.tail[1] % 2 == 0  # 牌海側: the sea side of its stack
    assert gained[0] == sorted([t("f4"), g.wall[g.layout.tail[1]]])
    assert gained[1] == [g.wall[head[109]]]
    assert gained[2] == [g.wall[head[110]]]
    assert head[111] not in g.wall_positions_left()  # North's
    left = set(g.wall_positions_left())
    assert head[112] in left and head[113] in left and len(left) == 21


def test_L17_case_II_flower_before_the_river_tile_dead_wall_21() -> None:
    # 21 kept back: East draws head 108, a flower; the tail single (tail 0) replaces it, East
    # discards, South draws the river tile (head 109), then 分张 from West (head 110-113).
    g = _sea_case(108, False)
    play_quietly_until(g, 2)
    assert g.current == 3 and g.dead_wall_tiles == 21
    quiet_turn(g)
    assert g.current == 0 and g.live_tiles == 1 and g.dead_wall_tiles == 20
    assert t("f4") in g.open_flowers(0)
    quiet_turn(g)  # East discards
    assert g.current == 1 and g.live_tiles == 0 and g._drawn == g.wall[g.layout.head[109]]
    before = _snapshot(g)
    quiet_turn(g)
    _finish_sea_floor(g)
    gained = _gained(g, before)
    head = g.layout.head
    for seat, idx in ((2, 110), (3, 111), (0, 112)):
        assert gained[seat] == [g.wall[head[idx]]]
    assert len(g.wall_positions_left()) == 20


def test_L17_case_I_exposed_kong_on_the_last_discard() -> None:
    # 20 kept back (East's dealt flower took the tail single). South discards the river tile
    # 5s; West kongs it: West's replacement is the last sea-floor tile (head 113), no discard,
    # then North, East, South take head 110, 111, 112 (source (I)②: "下家摸首张").
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p f2"
    west = "1m4m7m 2p5p8p 5s5s5s 1z2z3z4z 6z7z 9p"
    south = "3m6m 1p4p7p 2s8s 1z2z3z4z 6z7z 2m 4p 7s"
    g = stacked_game([east, south, west, N16], head_at={109: "5s"})
    play_quietly_until(g, 1)
    quiet_turn(g)
    assert g.current == 1 and g._drawn == t("5s") and g.live_tiles == 0 and g.dead_wall_tiles == 20
    g.step(1, D("5s"))
    assert EXPOSED_KONGS[t("5s")] in g.legal_actions(2)
    before = _snapshot(g)
    pass_claims(g, s2=EXPOSED_KONGS[t("5s")])
    _finish_sea_floor(g)
    head = g.layout.head
    gained = _gained(g, before)
    assert g.melds(2) == (Meld.kong(t("5s"), MeldKind.EXPOSED_KONG),)
    assert gained[3] == [g.wall[head[110]]] and gained[0] == [g.wall[head[111]]]
    assert gained[1] == [g.wall[head[112]]]
    assert head[113] not in g.wall_positions_left() and len(g.wall_positions_left()) == 20


# ---------------------------------------------------------------- L18 dealer


def test_L18_dealer_keeps_the_deal_only_by_winning() -> None:
    east = "1m4m7m 2p5p8p 3s 1z2z3z4z 6z7z 9m 9s9s9s"
    g = stacked_game([east, S16, W16, N16])
    g.step(0, WIN)
    assert g.outcome is not None and g.outcome.next_dealer == 0
    g = stacked_game([E17.replace("9m", "7p"), WAIT_7P, W16, N16.replace("9p", "8p")], dealer=0)
    g.step(0, D("7p"))
    g.step(1, WIN)
    assert g.outcome is not None and g.outcome.next_dealer == 1
    g = stacked_game([S16, E17, W16, N16], dealer=1)
    assert g.current == 1 and g.counts(1) == tuple(counts_of(E17))


# ---------------------------------------------------------------- L16 / L17 switches


def _single_wild_flow(rs: object) -> Game:
    """South pongs five times and is left holding only the wild 9s (财神单吊)."""
    south = "1m1m 4p4p 7s7s 2z2z 6z6z 9s 3m 6m 8p 2s 5s"
    east = "1m 2m5m8m 3p9p 1s4s 1z3z4z 7z 8m 9m 3p 5p 6s"
    west = "4p 7s 2z 6z 2m5m 1p 3s 8s 1z3z4z 7z 9p 6s 5p"
    g = stacked_game([east, south, west, ""], ruleset=rs)  # type: ignore[arg-type]
    g.step(0, D("1m"))
    pass_claims(g, s1=P("1m"))
    for pong, other in (("4p", "3m"), ("7s", "6m"), ("2z", "8p"), ("6z", "2s")):
        g.step(1, D(other))
        pass_claims(g)
        assert g.current == 2
        g.step(2, D(pong))
        pass_claims(g, s1=P(pong))
    g.step(1, D("5s"))
    pass_claims(g)
    assert g.hand(1).concealed == (t("9s"),) and len(g.melds(1)) == 5
    return g


def test_L16_single_wild_left_wins_on_any_discard() -> None:
    g = _single_wild_flow(LONGGANG)
    g.step(2, D("9p"))
    assert WIN in g.legal_actions(1)


def test_L16_switch_single_wild_may_not_win_on_a_discard() -> None:
    g = _single_wild_flow(LONGGANG.replace(wild_single_wait_any_tile=False))
    g.step(2, D("9p"))
    assert WIN not in g.legal_actions(1)


def test_L17_switch_four_winds_in_the_first_go_round_is_a_draw() -> None:
    rs = LONGGANG.replace(draw_on_four_winds=True)
    for ruleset, over in ((rs, True), (LONGGANG, False)):
        g = stacked_game([E17, S16, W16, N16], ruleset=ruleset)
        g.step(0, D("1z"))
        for s in (1, 2, 3):
            pass_claims(g)
            g.step(s, D("1z"))
        pass_claims(g)
        assert g.is_over is over
        if over:
            assert g.outcome is not None and g.outcome.draw_reason == "four_winds"


def test_L17_switch_fourth_kong_of_several_players_is_a_draw() -> None:
    east = "1m1m1m1m 2p2p2p2p 3s6s 1z2z3z4z 6z7z 9m"
    south = "5m5m5m5m 8p8p8p8p 1s4s7s 1z2z3z 6z 7z"
    rs = LONGGANG.replace(draw_on_four_kongs=True)
    for ruleset, over in ((rs, True), (LONGGANG, False)):
        g = stacked_game([east, south, "", ""], draws="9p", tail="3m 4m 5p 6p", ruleset=ruleset)
        g.step(0, CONCEALED_KONGS[t("1m")])
        g.step(0, CONCEALED_KONGS[t("2p")])
        g.step(0, D("9m"))
        g.step(1, PASS)  # the opening kong round (L9): South keeps its fours for its own turn
        pass_claims(g)
        g.step(1, CONCEALED_KONGS[t("5m")])
        g.step(1, CONCEALED_KONGS[t("8p")])
        g.step(1, D("1s"))
        pass_claims(g)
        assert g.is_over is over
        if over:
            assert g.outcome is not None and g.outcome.draw_reason == "four_kongs"


def test_L15_switch_human_win_flag_in_the_first_go_round() -> None:
    # 人胡 (switch human_win, off in Longgang): North wins on West's first discard.
    north = "123m456m789m123p456p 7p"
    west = "3m6m9m 1p4p 2s5s 1z2z3z4z 6z7z 8m 7p 2p"
    for rs, flag in ((LONGGANG.replace(human_win=True), True), (LONGGANG, False)):
        g = stacked_game([E17, S16, west, north], draws="2m 3m", ruleset=rs)
        g.step(0, D("9m"))
        pass_claims(g)
        quiet_turn(g)  # South
        g.step(2, D("7p"))
        g.step(3, WIN)
        o = g.outcome
        assert o is not None and o.winner == 3 and o.human is flag and not o.earthly


def test_L8_wild_is_never_used_to_pong_or_kong() -> None:
    # West holds one 5m and two wilds 9s: East's 5m can be neither ponged nor konged with them.
    west = "3m6m 1p4p7p 2s5s 1z2z3z4z 6z7z 5m 9s9s"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 5m"
    g = stacked_game([east, S16, west, N16])
    g.step(0, D("5m"))
    assert P("5m") not in g.legal_actions(2) and EXPOSED_KONGS[t("5m")] not in g.legal_actions(2)
    assert 2 not in g.to_move()


def test_L9_opening_kong_round_replacement_four_waits_for_the_next_round() -> None:
    # Source 舍牌: "補槓槓出來的花牌或槓需在其他玩家都槓完一圈的情況下才能再槓". South kongs 5m in the
    # opening round; its replacement (9p) makes a second four, which waits until West has had its
    # turn in the round; South then keeps it (pass) and may kong it in its own turn later.
    south = "5m5m5m5m 9p9p9p 1s4s7s 1z2z3z4z 6z 7z"
    west = "2s2s2s2s 3m6m 1p4p 1z2z3z4z 6z7z 8m 5p"
    g = stacked_game([E17, south, west, ""], tail="9p 3m")
    g.step(0, D("9m"))
    assert g.phase is Phase.TURN and g.to_move() == (1,)
    assert set(g.legal_actions(1)) == {CONCEALED_KONGS[t("5m")], PASS}
    g.step(1, CONCEALED_KONGS[t("5m")])
    assert g.counts(1)[t("9p")] == 4 and g.to_move() == (2,)
    assert set(g.legal_actions(2)) == {CONCEALED_KONGS[t("2s")], PASS}
    with pytest.raises(IllegalActionError, match="L9"):
        g.step(2, D("8m"))
    g.step(2, CONCEALED_KONGS[t("2s")])
    assert g.to_move() == (1,) and set(g.legal_actions(1)) == {CONCEALED_KONGS[t("9p")], PASS}
    g.step(1, PASS)
    pass_claims(g)
    assert g.current == 1 and g.phase is Phase.TURN
    assert CONCEALED_KONGS[t("9p")] in g.legal_actions(1)  # "暗槓…可以往後再補"
    o = g.outcome
    assert o is None and [m.kind for m in g.melds(1)] == [MeldKind.CONCEALED_KONG]


def test_L9_switch_opening_kong_round_off() -> None:
    west = "2s2s2s2s 3m6m 1p4p 1z2z3z4z 6z7z 8m 5p"
    g = stacked_game([E17, "", west, N16], ruleset=LONGGANG.replace(opening_kong_round=False))
    g.step(0, D("9m"))
    assert g.phase is not Phase.TURN or g.current != 2


def test_L9_no_kong_right_after_a_chow() -> None:
    # South holds four 1p and chows East's 2m: no concealed kong before its discard.
    south = "3m4m 1p1p1p1p 1s4s7s 1z2z3z4z 6z7z 9p"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 2m 3p 8s"
    g = stacked_game([east, south, "", N16])
    g.step(0, D("2m"))
    g.step(1, PASS)  # the opening kong round (L9): South keeps its four
    pass_claims(g, s1=C("2m", "2m"))
    assert g.current == 1 and g.melds(1) == (Meld(MeldKind.CHOW, (t("2m"), t("3m"), t("4m"))),)
    acts = g.legal_actions(1)
    assert acts and all(a.kind is ActionKind.DISCARD for a in acts)
    assert CONCEALED_KONGS[t("1p")] not in acts


NINE = "1m9m 1p9p 1s 1z2z3z4z 2m3m4m 5p6p7p 3s4s"  # the dealer's nine kinds of terminals and honours


def test_L17_switch_nine_terminals_declared_draw_and_its_refusals() -> None:
    """九么九和 (switch draw_on_nine_terminals): why 叫和局 is refused, and what it ends in."""
    on = LONGGANG.replace(draw_on_nine_terminals=True)
    g = stacked_game([NINE, S16, W16, N16], ruleset=LONGGANG)
    with pytest.raises(IllegalActionError, match="these rules have no declared draw"):
        g.step(0, DECLARE_DRAW)
    eight = "1m9m 1p9p 1s 1z2z3z 2m3m4m 5p6p7p 3s4s5s"
    g = stacked_game([eight, S16, W16, N16], ruleset=on)
    assert DECLARE_DRAW not in g.legal_actions(0)
    with pytest.raises(IllegalActionError, match="seat 0's hand may not declare the hand drawn"):
        g.step(0, DECLARE_DRAW)
    g = stacked_game([NINE, S16, W16, N16], draws="5m 8p 9s 5s", ruleset=on)
    assert g.legal_actions(0)[-1] is DECLARE_DRAW  # listed after the discards
    g.step(0, D("4s"))
    if g.phase is Phase.CLAIM:
        s = g.to_move()[0]
        with pytest.raises(IllegalActionError, match="only in one's own turn"):
            g.step(s, DECLARE_DRAW)
        pass_claims(g)
    for _ in range(3):
        quiet_turn(g)
    assert g.current == 0 and g.phase is Phase.TURN and DECLARE_DRAW not in g.legal_actions(0)
    with pytest.raises(IllegalActionError, match="only in the first go-round"):
        g.step(0, DECLARE_DRAW)
    g = stacked_game([NINE, S16, W16, N16], ruleset=on)
    g.step(0, DECLARE_DRAW)
    o = g.outcome
    assert o is not None and g.is_over and o.winner is None and o.how is None
    assert (o.draw_reason, o.draw_type, o.declared_by) == (DrawReason.DECLARED, "nine_terminals", 0)
    assert o.next_dealer == 1  # 和局則輪莊 (L18)


def test_L17_nine_terminals_counts_kinds_not_wilds_or_flowers() -> None:
    """The hook alone: kinds count once, melds count, a wild (its own kind too) and flowers do not."""
    on = LONGGANG.replace(draw_on_nine_terminals=True)
    nine = parse_hand("1m9m 1p9p 1s 1z2z3z4z 2m3m4m 5p6p7p 3s4s")
    assert on.draw_declaration(nine, frozenset()) == "nine_terminals"
    assert LONGGANG.draw_declaration(nine, frozenset()) is None  # switch off
    assert on.draw_declaration(nine, frozenset({t("9p")})) is None  # 9p wild: eight kinds
    pairs = parse_hand("1m1m9m9m 1p9p 1s1s1s 1z2z3z4z 2m3m4m 5p6p")  # pairs and a triplet: nine kinds
    assert on.draw_declaration(pairs, frozenset()) == "nine_terminals"
    melded = parse_hand("[4444z] 1m9m 1p9p 1s 1z2z3z 2m3m4m 5p6p7p 3s4s")  # a kong laid down counts
    assert on.draw_declaration(melded, frozenset()) == "nine_terminals"
    flowers = parse_hand("1m9m 1p9p 1s 1z2z3z 2m3m4m 5p6p7p 3s4s5s f12")  # eight kinds and flowers
    assert on.draw_declaration(flowers, frozenset()) is None


def test_a_game_says_where_it_stands_in_one_line() -> None:
    """``repr(game)``: the variant, the phase, who is to move, how many moves, the live tiles."""
    import random  # noqa: PLC0415

    g = Game.from_seed(b"x", LONGGANG)
    assert repr(g) == "<Game longgang: turn, seats to move [0]; 0 moves, 45 live tiles>"
    rng = random.Random(1)
    while not g.is_over:
        seat = g.to_move()[0]
        g.step(seat, rng.choice(g.legal_actions(seat)))
    assert repr(g) == f"<Game longgang: over, drawn; {len(g.move_stack)} moves, 0 live tiles>"
    assert g.outcome is not None and g.outcome.winner is None
