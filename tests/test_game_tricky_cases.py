"""Review of the engine's legal actions and flow: tricky situations pinned against the rules
(L9-L11, L17, L18), each on a wall stacked with tests/helpers_wall.py."""

from __future__ import annotations

from caishen.engine.actions import ADDED_KONGS, CHOWS, DISCARDS, PONGS
from caishen.engine.game import PASS, WIN, Action, ActionKind, Game, Phase, WinHow
from caishen.hand import Meld, MeldKind
from caishen.notation import parse_tile
from helpers_wall import stacked_game, tiles

W16 = "3m6m 1p4p7p 2s5s 1z2z3z4z 6z7z 2m 4p 7s"
N16 = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 5m 9p"


def t(x: str) -> int:
    return parse_tile(x)


def D(x: str) -> Action:
    return DISCARDS[t(x)]


def C(x: str, low: str) -> Action:
    return CHOWS[(t(x), t(low))]


def discard_kinds(g: Game, seat: int) -> set[int]:
    return {a.tile for a in g.legal_actions(seat) if a.kind is ActionKind.DISCARD}


def answer(g: Game, **decide: Action) -> None:
    """Answer an open claim or rob window: seats ``s0``..``s3`` named get their action, the
    others pass."""
    while g.phase in (Phase.CLAIM, Phase.ROB):
        s = g.to_move()[0]
        g.step(s, decide.get(f"s{s}", PASS))


def test_L9_chow_of_the_high_tile_forbids_the_low_twin() -> None:
    # Source (五)d: South holds 2m3m4m5m and chows East's 5m as 3m4m5m: neither 5m (the
    # claimed tile) nor 2m (2m3m4m, the same sequence from the hand's 3m4m) may go.
    south = "2m3m4m5m 3p6p9p 1s4s7s 1z2z3z4z 6z7z"
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 5m"
    g = stacked_game([east, south, W16, N16])
    g.step(0, D("5m"))
    assert g.legal_actions(1) == (C("5m", "3m"), PASS)
    answer(g, s1=C("5m", "3m"))
    assert g.melds(1) == (Meld.chow(t("5m"), t("3m")),)
    assert discard_kinds(g, 1) == set(tiles("3p6p9p 1s4s7s 1z2z3z4z 6z7z"))


# A wait on 5m or 1m: 4m6m with a wild 9s and a 1m pair, or 1m1m with 4m 9s 6m.
NORTH_WAIT = "123p 456p 789p 123s 4m6m 9s 1m"
WEST_PONG = "3m6m9m 1p4p7p 2s8s 1z2z3z4z 6z7z 5m5m"
EAST_5M = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 5m"


def _to_added_kong(tail: str) -> Game:
    """West pongs East's 5m and draws the fourth; North waits on 5m/1m. Stops at West's
    added kong of 5m, North asked whether to rob."""
    g = stacked_game([EAST_5M, "", WEST_PONG, NORTH_WAIT], draws="7s 2m 8m 5m", tail=tail)
    g.step(0, D("5m"))
    answer(g, s2=PONGS[t("5m")])
    g.step(2, D("1p"))
    answer(g)
    g.step(3, D("7s"))
    answer(g)
    for seat in (0, 1):
        assert g.current == seat
        g.step(seat, DISCARDS[g._drawn])
        answer(g)
    g.step(2, ADDED_KONGS[t("5m")])
    assert g.phase is Phase.ROB and g.legal_actions(3) == (WIN, PASS)
    return g


def test_L11_passing_a_robbable_kong_is_guoshui_until_own_discard() -> None:
    # North passes robbing West's added 5m (a win), West's replacement is 1m and West lets it
    # go: North's hand would win on it, but 过水 forbids a win on a discard until North's own
    # next discard (L11, source (五)a), so North is not even asked.
    g = _to_added_kong(tail="1m")
    g.step(3, PASS)
    assert g.melds(2) == (Meld.kong(t("5m"), MeldKind.ADDED_KONG),)
    assert g.current == 2 and g.counts(2)[t("1m")] == 1
    g.step(2, D("1m"))
    assert g.phase is Phase.TURN and g.current == 3  # nobody asked: North draws
    assert g.legal_actions(3) != () and WIN not in g.legal_actions(3)


def test_L10_robbed_kong_winner_takes_the_tile_from_the_konger() -> None:
    g = _to_added_kong(tail="1m")
    g.step(3, WIN)
    o = g.outcome
    assert o is not None and o.winner == 3 and o.how is WinHow.ROB_KONG and o.tile == t("5m")
    assert o.from_seat == 2 and o.hands[2].melds == (Meld.pong(t("5m")),)
    assert o.hands[3].concealed.count(t("5m")) == 1 and not o.after_kong


def test_L10_second_seat_wins_when_the_first_passes() -> None:
    # South and West both win on East's 7p; South (first counter-clockwise) passes: West wins.
    east = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 9m 3p 7p"
    g = stacked_game([east, "123m456m789m123p456p 7p", "123s456s789s123p456p 7p", N16])
    g.step(0, D("7p"))
    assert set(g.to_move()) == {1, 2}
    g.step(1, PASS)
    g.step(2, WIN)
    o = g.outcome
    assert o is not None and o.winner == 2 and o.from_seat == 0 and o.earthly
    assert o.next_dealer == 1  # L18: another seat won, the deal passes counter-clockwise


def test_L17_live_tiles_never_negative_after_the_dead_wall_moves_up() -> None:
    # Source 分张前补花补槓 (II)②: East draws a flower just before the river tile with 20 kept
    # back; the dead wall moves up a stack and the sea floor is 3 tiles. No live tile is left:
    # Game.live_tiles says 0 (as the observation does), not -1.
    from test_game_rules import _sea_case, play_quietly_until, quiet_turn

    g = _sea_case(108, True)
    play_quietly_until(g, 2)
    assert g.live_tiles == 2
    quiet_turn(g)  # North discards; East draws the flower, 分张 runs (nobody can win)
    assert g.is_over and g.outcome is not None and g.outcome.draw_reason == "wall"
    assert g.live_tiles == 0 == g.observation(0).live_tiles
    assert g.dead_wall_tiles == 21 == len(g.wall_positions_left())
