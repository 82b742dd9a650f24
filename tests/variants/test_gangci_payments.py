"""Luoyang Gangci settlement (docs/rules/luoyang-gangci.md G2): the source's figures with
scheme 2, kong payments, the itemised statement, and zero-sum properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caishen.variants.luoyang_gangci.payments import (
    KongKind,
    Payment,
    PaymentItem,
    Statement,
    best_win,
    kong_payments,
    win_payments,
    winner_gain,
)
from caishen.variants.luoyang_gangci.rules import (
    DEFAULT,
    PRESETS,
    SCHEME_2,
    GangciRules,
    RulesError,
    get_rules,
)
from caishen.variants.luoyang_gangci.wins import GangciWin

E, S, W, N = 0, 1, 2, 3


def net(payments: tuple[Payment, ...]) -> tuple[int, int, int, int]:
    return Statement(payments).net


def test_G2_1_bases_and_presets() -> None:
    """"如杠底为100金蛋，一般炸弹底会为200金蛋，杠次底为600金蛋。" and 起底方案2 (1000/2000/6000)"""
    assert (DEFAULT.gang_base, DEFAULT.bomb_base, DEFAULT.ci_base) == (100, 200, 600)
    assert (SCHEME_2.gang_base, SCHEME_2.bomb_base, SCHEME_2.ci_base) == (1000, 2000, 6000)
    assert sorted(PRESETS) == ["luoyang-gangci", "luoyang-gangci-scheme-2"]
    assert get_rules("luoyang-gangci-scheme-2") is SCHEME_2


def test_G2_1_switches_carry_rule_doc_and_allowed_values() -> None:
    sw = {s.name: s for s in DEFAULT.switches()}
    assert list(sw) == ["name", "gang_base", "bomb_base", "ci_base", "seat_count",
                        "dealer_keeps_deal_on_win", "hands_per_match"]
    assert (sw["ci_base"].rule, sw["ci_base"].allowed) == ("G2.1", "2..10000000")
    assert sw["seat_count"].allowed == "turn_order | clockwise"
    assert sw["hands_per_match"].allowed == "8 | 16 | 24"
    assert all(s.doc for s in sw.values())


@pytest.mark.parametrize(("changes", "message"), [
    ({"ci_base": 601}, "ci_base must be even"),
    ({"gang_base": 0}, r"gang_base = 0 is out of range 1\.\.10000000"),
    ({"hands_per_match": 12}, r"hands_per_match = 12 is not one of 8 \| 16 \| 24"),
    ({"seat_count": "left"}, "seat_count = left is not one of"),
    ({"bomb_base": "200"}, "bomb_base must be int"),
    ({"dealer_keeps_deal_on_win": 1}, "must be bool"),
    ({"kong_base": 100}, "unknown switch 'kong_base'"),
])
def test_G2_1_bad_switch_values_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        DEFAULT.replace(**changes)


def test_G2_2_exposed_kong_discarder_pays_once() -> None:
    """"明杠：点杠者给杠者分值，明杠1倍底分" """
    assert net(kong_payments(KongKind.EXPOSED, S, SCHEME_2, fed_by=E)) == (-1000, 1000, 0, 0)


def test_G2_3_concealed_kong_each_pays_twice() -> None:
    """"暗杠：其他三个玩家给杠者相应分值，暗杠2倍底分" """
    assert net(kong_payments(KongKind.CONCEALED, W, DEFAULT)) == (-200, -200, 600, -200)


def test_G2_4_added_kong_ponged_player_pays_once() -> None:
    assert net(kong_payments(KongKind.ADDED, N, DEFAULT, fed_by=S)) == (0, -100, 0, 100)


def test_G2_5_zha_dan_and_tian_hu_each_pays_bomb_base() -> None:
    """"炸弹结算方式：炸弹底"; 天胡 "计算方式同炸弹胡牌" """
    assert net(win_payments(GangciWin.ZHA_DAN, S, SCHEME_2)) == (-2000, 6000, -2000, -2000)
    assert net(win_payments(GangciWin.TIAN_HU, E, DEFAULT)) == (600, -200, -200, -200)


def test_G2_6_an_ci_and_tian_ci_each_pays_ci_plus_gang() -> None:
    """"暗次的结算逻辑：杠次底+杠底以起底方案2为例：即为/人" (6000 + 1000 = 7000 each)"""
    assert net(win_payments(GangciWin.AN_CI, S, SCHEME_2)) == (-7000, 21000, -7000, -7000)
    assert net(win_payments(GangciWin.TIAN_CI, N, DEFAULT)) == (-700, -700, -700, 2100)


def test_G2_7_zhi_ci_scheme_2_13000_and_3000() -> None:
    """"点直次炮的玩家输：杠次底×２＋杠底其它两家输：杠次底×0.5以起底方案2为例：点直次的玩家输：0=13000其它两家输：=3000" """
    pays = win_payments(GangciWin.ZHI_CI, S, SCHEME_2, fed_by=E)
    assert net(pays) == (-13000, 19000, -3000, -3000)
    assert {p.payer: p.formula for p in pays} == {E: "2 × 6000 + 1000", W: "6000 × 0.5", N: "6000 × 0.5"}
    assert {p.payer: p.item for p in pays}[E] is PaymentItem.ZHI_CI_DISCARDER


def test_G2_8_xu_ci_scheme_2_7000_and_6000() -> None:
    """"被续杠玩家：杠次底+杠底其它两家：杠次底以起底方案2为例：被续杠玩家输：其它两家输：6000" """
    assert net(win_payments(GangciWin.XU_CI, S, SCHEME_2, fed_by=W)) == (-6000, 19000, -7000, -6000)


def test_G2_9_statement_kong_then_ci_itemised() -> None:
    pays = kong_payments(KongKind.CONCEALED, S, SCHEME_2) + win_payments(GangciWin.ZHI_CI, S, SCHEME_2, fed_by=E)
    st_ = Statement(pays)
    assert st_.net == (-15000, 25000, -5000, -5000)
    lines = st_.table().splitlines()
    assert lines[1].split()[:2] == ["G2.3", "暗杠"]
    assert lines[-2].split()[:2] == ["G2.7", "直次"]
    assert "13000  2 × 6000 + 1000" in st_.table()
    assert lines[-1] == "net: E -15000  S +25000  W -5000  N -5000"
    assert st_.to_json()["net"] == {"E": -15000, "S": 25000, "W": -5000, "N": -5000}


def test_G2_feeding_seat_checked() -> None:
    with pytest.raises(ValueError, match="needs the other seat"):
        win_payments(GangciWin.ZHI_CI, S, DEFAULT)
    with pytest.raises(ValueError, match="needs the other seat"):
        kong_payments(KongKind.EXPOSED, S, DEFAULT, fed_by=S)
    with pytest.raises(ValueError, match="no feeding seat"):
        win_payments(GangciWin.AN_CI, S, DEFAULT, fed_by=E)


def test_G5_10_best_win_pays_the_winner_most() -> None:
    assert [winner_gain(w, DEFAULT) for w in GangciWin] == [600, 2100, 2100, 1900, 1900, 600]
    assert best_win([GangciWin.ZHA_DAN, GangciWin.AN_CI], DEFAULT) is GangciWin.AN_CI
    assert best_win([GangciWin.ZHA_DAN, GangciWin.TIAN_HU], DEFAULT) is GangciWin.TIAN_HU
    assert best_win([GangciWin.AN_CI, GangciWin.TIAN_CI], DEFAULT) is GangciWin.TIAN_CI
    assert best_win([GangciWin.XU_CI, GangciWin.ZHA_DAN], DEFAULT) is GangciWin.XU_CI
    big_bomb = DEFAULT.replace(bomb_base=5000)
    assert best_win([GangciWin.XU_CI, GangciWin.ZHA_DAN], big_bomb) is GangciWin.ZHA_DAN


_RULES = st.builds(
    GangciRules,
    gang_base=st.integers(1, 10_000),
    bomb_base=st.integers(1, 10_000),
    ci_base=st.integers(1, 5_000).map(lambda x: 2 * x),
)


@settings(max_examples=200, deadline=None)
@given(_RULES, st.sampled_from(list(GangciWin)), st.integers(0, 3), st.integers(1, 3),
       st.lists(st.tuples(st.sampled_from(list(KongKind)), st.integers(0, 3), st.integers(1, 3)), max_size=4))
def test_G2_payments_sum_to_zero(rules: GangciRules, how: GangciWin, winner: int, offset: int,
                                 kongs: list[tuple[KongKind, int, int]]) -> None:
    pays: list[Payment] = []
    for kind, seat, off in kongs:
        fed = None if kind is KongKind.CONCEALED else (seat + off) % 4
        pays.extend(kong_payments(kind, seat, rules, fed_by=fed))
    fed_by = (winner + offset) % 4 if how in (GangciWin.ZHI_CI, GangciWin.XU_CI) else None
    win = win_payments(how, winner, rules, fed_by=fed_by)
    assert len(win) == 3 and {p.payer for p in win} == {0, 1, 2, 3} - {winner}
    assert all(p.payee == winner and p.amount > 0 for p in win)
    assert sum(p.amount for p in win) == winner_gain(how, rules)
    statement = Statement((*pays, *win))
    assert sum(statement.net) == 0
