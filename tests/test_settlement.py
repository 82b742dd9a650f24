"""Chip settlement and the match ledger (L24-L25, docs/rules/longgang.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.longgang.settlement import (
    Ledger,
    MatchOverError,
    SettlementError,
    Transfer,
    bonus_fu,
    settle,
)

E, S, W, N = 0, 1, 2, 3


def pays(settlement, payer, payee):
    return sum(t.chips for t in settlement.transfers if t.payer == payer and t.payee == payee)


# --- L24.3 bonus tiers -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("tai", "limit", "after", "fu"),
    [
        (0, False, False, 30), (1, False, False, 60), (2, False, False, 90), (3, False, False, 120),
        (4, False, False, 120), (7, False, False, 120), (0, True, False, 120),
        (0, False, True, 50), (1, False, True, 100), (2, False, True, 150), (3, False, True, 200),
        (5, False, True, 200), (2, True, True, 200),
    ],
)
def test_l24_3_bonus_tiers(tai, limit, after, fu):
    assert bonus_fu(tai, limit, LONGGANG, after) == fu


# --- L24.2 / L24.5: the summary's worked example ------------------------------------------

def test_l24_summary_120fu_2tai_non_dealer_wins():
    # summary 筹码计算: "和牌为120胡2台则边家付筹码12+9 … 庄家付12*2+9" (bonus 90 胡 = 9 chips, L24)
    st_ = settle(S, 120, 2, {W: 0, N: 0, E: 0}, dealer=E)
    assert pays(st_, W, S) == 21
    assert pays(st_, N, S) == 21
    assert pays(st_, E, S) == 33
    assert st_.net == (-33, 75, -21, -21)


def test_l24_5_dealer_wins_collects_total_x6_plus_3_bonus():
    # main text 支付籌碼 1: "莊家總贏其總胡數*6+3*跟胡數"
    st_ = settle(E, 150, 2, {S: 0, W: 0, N: 0}, dealer=E)
    assert [pays(st_, s, E) for s in (S, W, N)] == [39, 39, 39]
    assert st_.net[E] == 150 * 6 // 10 + 3 * 9


def test_l24_5_non_dealer_wins_collects_total_x4_plus_3_bonus():
    # main text 支付籌碼 2: "胡牌的閒家總贏其總胡數*4+3*跟胡數"
    st_ = settle(N, 80, 1, {E: 0, S: 0, W: 0}, dealer=E)
    assert st_.net[N] == 80 * 4 // 10 + 3 * 6
    assert pays(st_, E, N) == 22 and pays(st_, S, N) == 14 and pays(st_, W, N) == 14


def test_l24_3_two_tai_capped_pays_two_tai_bonus():
    st_ = settle(S, 300, 2, {E: 0, W: 0, N: 0}, dealer=E)
    assert pays(st_, W, S) == 39 and pays(st_, E, S) == 69


# --- L24.4 differences between losers --------------------------------------------------------

def test_l24_4_losers_pay_differences_dealer_double_no_bonus():
    st_ = settle(S, 40, 0, {E: 30, W: 10, N: 70}, dealer=E)
    assert pays(st_, W, E) == 4          # 30 - 10 = 20 胡, x2 dealer
    assert pays(st_, E, N) == 8          # 70 - 30 = 40 胡, x2 dealer
    assert pays(st_, W, N) == 6          # 70 - 10 = 60 胡
    assert pays(st_, E, S) == 11 and pays(st_, W, S) == 7 and pays(st_, N, S) == 7
    assert sum(st_.net) == 0


def test_l24_4_equal_losers_pay_nothing():
    st_ = settle(W, 20, 0, {E: 10, S: 10, N: 10}, dealer=E)
    assert [t for t in st_.transfers if t.payee != W] == []


# --- L24.6 limit payments -----------------------------------------------------------------

def test_l24_6_limit_72_42():
    st_ = settle(S, 300, 3, {E: 0, W: 0, N: 0}, dealer=E, limit=True)
    assert (pays(st_, E, S), pays(st_, W, S), pays(st_, N, S)) == (72, 42, 42)


def test_l24_6_limit_dealer_wins_72_each():
    st_ = settle(E, 300, 3, {S: 0, W: 0, N: 0}, dealer=E, limit=True)
    assert st_.net[E] == 216


def test_l24_6_limit_after_broke_80_50():
    st_ = settle(S, 300, 3, {E: 0, W: 0, N: 0}, dealer=E, limit=True, after_broke=True)
    assert (pays(st_, E, S), pays(st_, W, S), pays(st_, N, S)) == (80, 50, 50)


def test_l24_6_limit_equals_formula():
    # 300 胡 + 120 bonus: 30 + 12 = 42, dealer 60 + 12 = 72 (and 30 + 20, 60 + 20 after broke)
    a = settle(S, 300, 3, {E: 0, W: 0, N: 0}, dealer=E, limit=True)
    b = settle(S, 300, 3, {E: 0, W: 0, N: 0}, dealer=E, limit=False)
    assert a.net == b.net


def test_l24_6_limit_losers_still_settle_their_differences():
    st_ = settle(S, 300, 3, {E: 0, W: 20, N: 0}, dealer=E, limit=True)
    assert pays(st_, E, W) == 4 and pays(st_, N, W) == 2


# --- wrong inputs --------------------------------------------------------------------------

def test_totals_must_be_multiples_of_ten():
    with pytest.raises(SettlementError, match="multiple of 10") as err:
        settle(S, 145, 2, {E: 0, W: 0, N: 0}, dealer=E)
    assert (err.value.code, err.value.rule) == ("not-whole-chips", "L24.1")


def test_loser_totals_must_name_the_three_losers():
    with pytest.raises(SettlementError, match="loser totals") as err:
        settle(S, 140, 2, {E: 0, W: 0}, dealer=E)
    assert (err.value.code, err.value.rule) == ("loser-totals", "L24.4")
    with pytest.raises(SettlementError, match="seats are 0-3") as err:
        settle(4, 140, 2, {E: 0, W: 0, N: 0}, dealer=E)
    assert (err.value.code, err.value.rule) == ("bad-seat", None)
    with pytest.raises(SettlementError, match="4-6 players") as err:
        Ledger(7)
    assert isinstance(err.value, ValueError) and (err.value.code, err.value.rule) == ("players", "L2")


def test_owed_without_chips_is_what_is_paid():
    # the one implementation: with no chips given nothing is cut (L25 does not apply)
    st_ = settle(S, 140, 2, {E: 30, W: 0, N: 10}, dealer=E)
    assert st_.owed == st_.transfers and sum(st_.net) == 0
    assert [(t.payer, t.payee, t.chips, t.rule) for t in st_.owed] == [
        (W, S, 14 + 9, "L24.2"), (N, S, 14 + 9, "L24.2"), (E, S, 28 + 9, "L24.2"),
        (W, N, 1, "L24.4"), (W, E, 6, "L24.4"), (N, E, 4, "L24.4"),
    ]


# --- L25.3 going broke: the four cases of 斷籌支付規則 ----------------------------------------
# winner W or S, dealer E; winner total 100, 0 tai: non-dealer owes 13, dealer 23.

def test_l25_3_case1_leftover_goes_to_other_losers_in_order():
    # W has 15: pays the winner S 13 first, then 2 of the 5 he owes N.
    st_ = settle(S, 100, 0, {E: 0, W: 0, N: 50}, dealer=E, chips=[100, 100, 15, 100])
    assert st_.broke == frozenset({W})
    assert pays(st_, W, S) == 13 and pays(st_, W, N) == 2
    assert pays(st_, E, N) == 10
    assert st_.net[W] == -15


def test_l25_3_case1_short_of_the_winner_pays_only_the_winner():
    st_ = settle(S, 100, 0, {E: 0, W: 0, N: 50}, dealer=E, chips=[100, 100, 10, 100])
    assert st_.broke == frozenset({W})
    assert pays(st_, W, S) == 10 and pays(st_, W, N) == 0
    assert pays(st_, E, N) == 10   # the others still settle between themselves


def test_l25_2_covered_by_other_losers_is_not_broke():
    # W cannot pay the winner 13 from 5 chips, but E and N pay him 15: "此不謂斷籌"
    st_ = settle(S, 100, 0, {E: 0, W: 50, N: 0}, dealer=E, chips=[100, 100, 5, 100])
    assert st_.broke == frozenset()
    assert st_.net[W] == -13 + 10 + 5


def test_l25_3_case2_north_broke_south_not():
    # N has 5 and owes the winner W 13: broke for sure. S (28 chips) owes W 13, E 10, N 5:
    # paying N would leave him at 0, but nobody pays a broke player, so S is not broke.
    st_ = settle(W, 100, 0, {E: 50, S: 0, N: 50}, dealer=E, chips=[100, 28, 100, 5])
    assert st_.broke == frozenset({N})
    assert pays(st_, N, W) == 5
    assert pays(st_, S, N) == 0 and pays(st_, S, W) == 13 and pays(st_, S, E) == 10
    assert st_.net[S] == -23


def test_l25_3_case3_north_cannot_pay_south_both_broke():
    # N (10 chips) owes W 13, S 5, E 10: broke. S (12 chips) needed N's 5 to pay W 13.
    st_ = settle(W, 100, 0, {E: 50, S: 50, N: 0}, dealer=E, chips=[100, 12, 100, 10])
    assert st_.broke == frozenset({N, S})
    # case 4 then applies: broke players pay only the winner, nothing between losers
    assert pays(st_, N, W) == 10 and pays(st_, S, W) == 12
    assert [t for t in st_.transfers if t.payee != W] == []
    assert st_.net == (-23, -12, 45, -10)


def test_l25_3_case4_two_broke_pay_only_the_winner():
    # S owes W 13, E 10, N 3 and has 8; N owes W 13, E 4 and has 5: both broke for sure.
    st_ = settle(W, 100, 0, {E: 50, S: 0, N: 30}, dealer=E, chips=[100, 8, 100, 5])
    assert st_.broke == frozenset({S, N})
    assert pays(st_, S, W) == 8 and pays(st_, N, W) == 5 and pays(st_, E, W) == 23
    assert [t for t in st_.transfers if t.payee != W] == []
    assert st_.net == (-23, -8, 36, -5)


def test_l25_2_left_with_exactly_zero_is_broke():
    st_ = settle(S, 100, 0, {E: 0, W: 0, N: 0}, dealer=E, chips=[100, 100, 13, 100])
    assert st_.broke == frozenset({W}) and st_.net[W] == -13


# --- L25 ledger ------------------------------------------------------------------------------

def test_l25_1_start_chips_and_fee():
    led = Ledger(4)
    assert led.chips == [95, 95, 95, 95] and led.fees == 20 and led.grand_total == 400


def test_l25_4_rebuy_is_a_loan_from_the_richest():
    led = Ledger(4)
    led.chips = [95, 10, 150, 125]
    st_ = led.record((0, 1, 2, 3), W, 100, 0, {E: 0, S: 0, N: 0}, dealer=E)
    assert st_.broke == frozenset({S})
    assert led.loans[0].lender == 2 and led.loans[0].borrower == 1 and led.loans[0].chips == 50
    assert led.chips[1] == 50 and not led.over and led.after_broke
    # the after-broke bonus applies from the next hand (L24.7)
    st2 = led.record((0, 1, 2, 3), N, 100, 0, {E: 0, S: 0, W: 0}, dealer=E)
    assert pays(st2, S, N) == 15


def test_l25_5_second_broke_ends_four_player_match():
    led = Ledger(4)
    led.chips = [95, 10, 150, 125]
    led.record((0, 1, 2, 3), W, 100, 0, {E: 0, S: 0, N: 0}, dealer=E)
    led.chips[0] += led.chips[3] - 5
    led.chips[3] = 5
    led.record((0, 1, 2, 3), W, 100, 0, {E: 0, S: 0, N: 0}, dealer=E)
    assert led.broke_events == [1, 3] and led.over
    with pytest.raises(MatchOverError):
        led.record_draw()


def test_l25_5_no_rebuy_four_players_ends_at_first_broke():
    led = Ledger(4, LONGGANG.replace(rebuy_on_broke=False))
    led.chips = [95, 10, 150, 125]
    led.record((0, 1, 2, 3), W, 100, 0, {E: 0, S: 0, N: 0}, dealer=E)
    assert led.over and led.loans == []


def test_l25_5_six_players_after_broke_figures_from_start_and_third_broke_ends():
    led = Ledger(6)
    assert led.after_broke and led.broke_to_end == 3
    st_ = led.record((4, 1, 2, 5), W, 100, 0, {E: 0, S: 0, N: 0}, dealer=E)
    assert pays(st_, S, W) == 15


def test_l25_5_hands_per_match_ends():
    led = Ledger(4, LONGGANG.replace(hands_per_match=2))
    led.record_draw()
    led.record((0, 1, 2, 3), E, 20, 0, {S: 0, W: 0, N: 0}, dealer=E)
    assert led.over


# --- property: chips are conserved --------------------------------------------------------

TOTALS = st.integers(0, 30).map(lambda n: n * 10)


@st.composite
def hands(draw, players):
    seats = draw(st.permutations(range(players)))[:4]
    winner = draw(st.integers(0, 3))
    losers = {(winner + i) % 4: draw(TOTALS) for i in (1, 2, 3)}
    return (tuple(seats), winner, draw(st.integers(2, 30)).__mul__(10), draw(st.integers(0, 5)),
            losers, draw(st.integers(0, 3)), draw(st.booleans()))


@st.composite
def matches(draw):
    players = draw(st.integers(4, 6))
    rebuy = draw(st.booleans())
    return players, rebuy, draw(st.lists(hands(players), min_size=1, max_size=30))


@settings(max_examples=300, deadline=None)
@given(matches())
def test_l25_chips_never_appear_or_vanish(match):
    players, rebuy, hand_list = match
    led = Ledger(players, LONGGANG.replace(rebuy_on_broke=rebuy, hands_per_match=100))
    start = led.grand_total
    assert start == 100 * players
    for seats, winner, total, tai, losers, dealer, limit in hand_list:
        if led.over:
            break
        st_ = led.record(seats, winner, min(total, 300), tai, losers, dealer, limit=limit)
        assert sum(st_.net) == 0
        assert led.grand_total == start
        assert all(c >= 0 for c in led.chips)
        # nobody pays more than owed on any pair, and the winner never pays
        owed: dict[tuple[int, int], int] = {}
        for t in st_.owed:
            owed[t.payer, t.payee] = owed.get((t.payer, t.payee), 0) + t.chips
        for t in st_.transfers:
            assert isinstance(t, Transfer) and 0 < t.chips <= owed[t.payer, t.payee]
            assert t.payer != winner
    if not rebuy and players == 4 and led.broke_events:
        assert led.over


def test_l25_4_five_players_rebuy_100_and_second_broke_ends():
    led = Ledger(5)
    assert led.chips == [95] * 5 and led.fees == 25 and led.broke_to_end == 2 and not led.after_broke
    led.chips = [95, 10, 150, 125, 95]
    led.record((0, 1, 2, 3), W, 100, 0, {E: 0, S: 0, N: 0}, dealer=E)
    assert led.loans[0].chips == 100 and led.chips[1] == 100 and not led.over
    led.chips[4] += led.chips[0] - 3
    led.chips[0] = 3
    led.record((4, 1, 2, 0), W, 100, 0, {E: 0, S: 0, N: 0}, dealer=E)
    assert led.broke_events == [1, 0] and led.over and led.grand_total == 500


def test_settlement_table_lists_transfers():
    text = settle(S, 120, 2, {E: 0, W: 0, N: 0}, dealer=E).table()
    assert "E    S        33  L24.2" in text and text.endswith("net: E -33  S +75  W -21  N -21")


def test_pays_for_all_three_moves_every_share_to_the_discarder() -> None:
    """L24.8 包三家: the discarder pays each loser's share of the winner's chips; the losers'
    differences are settled as usual ("遜家間另算")."""
    plain = settle(1, 120, 2, {0: 0, 2: 20, 3: 40}, 0)
    bao = settle(1, 120, 2, {0: 0, 2: 20, 3: 40}, 0, pays_all=3)
    to_winner = sum(t.chips for t in plain.owed if t.payee == 1)
    assert sum(t.chips for t in bao.owed if t.payee == 1 and t.payer == 3) == to_winner
    assert [t for t in bao.owed if t.payee != 1] == [t for t in plain.owed if t.payee != 1]
    assert bao.net[1] == plain.net[1] and sum(bao.net) == 0
    with pytest.raises(SettlementError):
        settle(1, 120, 2, {0: 0, 2: 20, 3: 40}, 0, pays_all=1)


def test_l24_1_each_payment_says_how_its_chips_come_from_the_fu():
    # summary 筹码计算: "和牌为120胡2台则边家付筹码12+9 … 庄家付12*2+9": the payment's own words
    # show the division by the 胡 of a chip (L24.1), the dealer's doubling and the bonus.
    st_ = settle(S, 120, 2, {W: 0, N: 0, E: 30}, dealer=E)
    what = {(t.payer, t.payee): t.what for t in st_.owed}
    assert what[(W, S)] == "total 120 胡 / 10 = 12 + bonus 9 = 21"
    assert what[(E, S)] == "total 120 胡 / 10 = 12 x2 dealer + bonus 9 = 33"
    assert what[(W, E)] == "difference 30 胡 / 10 = 3 x2 dealer = 6"
    assert what[(N, E)] == "difference 30 胡 / 10 = 3 x2 dealer = 6"
