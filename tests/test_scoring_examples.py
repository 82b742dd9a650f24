"""Worked examples of the rule sources, each with its figures (docs/rules/longgang.md).

Sources: M = seeds/longgang-rules.zh-hant.txt (main text), S = seeds/longgang-summary.zh-hans.txt.
"""

from __future__ import annotations

import pytest

from caishen.notation import parse_hand, parse_tile
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.longgang.scoring import (
    FirstTurn,
    Limit,
    WinBy,
    WinContext,
    score_hand,
    score_win,
    settle_scores,
)
from caishen.variants.longgang.settlement import settle

E, S, W, N = 0, 1, 2, 3


def win(hand, tile, by="discard", seat=E, dealer=E, wild="9s", first="none", ruleset=LONGGANG):
    ctx = WinContext(parse_tile(tile), WinBy(by), seat, dealer, None if wild is None else parse_tile(wild),
                     FirstTurn(first))
    return score_win(parse_hand(hand), ctx, ruleset)


def lose(hand, seat, dealer=E, wild="9s", ruleset=LONGGANG):
    return score_hand(parse_hand(hand), seat, dealer, None if wild is None else parse_tile(wild), ruleset)


def fu_items(r):
    return {(i.rule, i.value) for i in r.items if i.unit == "fu"}


def test_m_self_drawn_closed_wait_is_4():
    # M 行牌方式 1: "如六、八萬，自摸7萬可計4胡"
    r = win("234m 68m 345p 567s 234s 99p", "7m", "self-draw")
    assert fu_items(r) == {("L20.5", 2), ("L20.4", 2)}
    assert r.fu == 4


def test_m_self_drawn_edge_is_2():
    # M 行牌方式 1: "六、七萬自摸五萬或八萬的可計2胡" (and a true edge, 12 waiting 3)
    assert win("234m 67m 345p 567s 234s 99p", "8m", "self-draw").fu == 2
    assert win("12m 345p 567s 234s 678p 99p", "3m", "self-draw").fu == 2


def test_m_two_red_plus_self_drawn_red_is_10():
    # M 行牌方式 1: "兩個紅中再自摸紅中可計10胡" (concealed pong 8 + self-draw 2, L20.8)
    r = win("77z 123p 456p 789p 234s 55m", "7z", "self-draw", seat=S)
    assert fu_items(r) == {("L20.8", 8), ("L20.4", 2)}
    assert r.fu == 10


def test_m_discarded_closed_wait_is_2():
    # M 行牌方式 3: "六、八萬，吃7萬胡牌可計2胡數"
    assert win("234m 68m 345p 567s 234s 99p", "7m").fu == 2


def test_m_single_wait_on_red_counts_only_the_pair():
    # M 行牌方式 1 / (四) d: "單吊紅中胡牌的，不計4胡，只計紅中雀頭2胡"
    r = win("7z 234m 345p 567s 234s 678s", "7z", "self-draw")
    assert r.fu == 2 and ("L20.4", 2) not in fu_items(r)
    newer = LONGGANG.replace(single_honor_pair_self_draw_fu=True)  # "現習慣上來法也有計4胡的"
    assert win("7z 234m 345p 567s 234s 678s", "7z", "self-draw", ruleset=newer).fu == 4


def test_m_160_minimum_three_tai_winner():
    # M 計算方式 4 A: 胡家三台最少是160胡: 混一色 + 坐花 + 雙財神, 0 胡 -> 20 x 8 = 160 (dealer, discard)
    r = win("123345677899m 5p5p 4z f1", "1m", wild="5p")
    assert (r.fu, r.tai, r.total) == (0, 3, 160)
    assert {i.rule for i in r.items if i.unit == "tai"} == {"L21.2", "L21.4", "L21.6"}


def test_m_160_example_as_printed_scores_more():
    # The printed hand "123 2財4 345 6財8 789 南花" has a better arrangement (L13): 南 + 财神 + 坐花
    # as a concealed pong (8 胡) -> (8 + 20) x 8 = 224 -> 230. See docs/rules/longgang.md D6.
    r = win("123m 24m 345m 68m 78m 2z f1 4p4p", "9m", wild="4p")
    assert (r.fu, r.tai, r.total) == (8, 3, 230)


def test_m_70_minimum_three_tai_loser():
    # M 計算方式 4 B: 秋 is the wild (花财神); dealer holds 3 chows, 春 (坐花) 紅中 夏 南 123
    r = lose("{1m2m3m} {1s2s3s} {1p2p3p} 7z 2z 123m f12", E, wild="f3")
    assert (r.fu, r.tai, r.total) == (8, 3, 70)


def test_summary_16fu_2tai_is_150_not_110():
    # S: "和家台面计算16胡2台则（16+20）*4=104=110胡" -- 36 x 4 = 144 -> 150 (RULINGS L23)
    r = win("[6666z] 234m 678p 345s 567s 8p", "8p")
    assert (r.fu, r.tai, r.raw, r.total) == (16, 2, 144, 150)


def test_summary_loser_8fu_0tai_is_10():
    r = lose("111m 24m 68m 13p 57p 9p 24s 68s", S)
    assert (r.fu, r.tai, r.total) == (8, 0, 10)


def test_summary_loser_12fu_1tai_is_30():
    r = lose("[777z] 999p 24m 68m 13s 57s 9s 1z", S, wild="5p")
    assert (r.fu, r.tai, r.raw, r.total) == (12, 1, 24, 30)


def test_m_38_base_with_3_tai_is_300():
    # M 計算方式 (二) 2: "基礎胡數38胡3台滿300胡" -- 18 胡: 对对胡 + 混一色 + 无财神 is a counted limit
    r = win("[555m] [777m] 333m 888m 444z 2m", "2m")
    assert (r.fu, r.tai) == (20, 3) and r.total == 300 and r.limit is Limit.COUNTED


def test_m_selling_wilds_loser_example():
    # M 財神用法 f: "手中剩四張牌：坐花，兩個財神，紅中 -> 紅中刻8胡 … 計2台"
    r = lose("{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 7z 4p4p f1", E, wild="4p")
    assert (r.fu, r.tai, r.total) == (8, 2, 40)


def test_m_wild_with_single_not_for_loser_example():
    # M 財神用法 g: "手中剩四張牌：三、四萬、紅中、坐花，計0台0胡" (West's own flower is 秋 f3)
    r = lose("{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 7z 34m f3", W, wild="4p")
    assert (r.fu, r.tai, r.total) == (0, 0, 0)


def test_m_pong_red_then_red_with_two_wilds_is_3_tai():
    # M 財神用法 e: "如手牌已碰紅中，再胡紅中配兩財神，計3台"
    r = win("[777z] 234m 678p 345s 88s 5p5p", "7z", wild="5p")
    assert r.tai == 3 and (r.fu, r.total) == (8, 230)


def test_m_four_red_with_two_wilds_is_3_tai():
    # M 財神用法 e: "或手中有四個紅中配雙財神也計3台"
    r = win("7777z 234m 678p 345s 8s 5p5p", "8s", wild="5p")
    assert (r.fu, r.tai, r.total) == (16, 3, 290)


def test_m_limit_payments_72_42_and_80_50():
    # M 計算方式 4/6: "臘子時莊家輸贏為72子(斷籌後為80子)，閒家間為42子(斷籌後為50子)"
    r = win("5p5p5p 234m 678p 345s 567s 8p", "9m", "self-draw", seat=S, wild="5p")
    assert r.limit is Limit.BULLDOZER and r.total == 300
    losers = {s: lose("111m 24m 68m 13p 57p 9p 24s 68s", s, wild="5p") for s in (E, W, N)}
    st = settle_scores(r, losers, dealer=E)
    assert st.net == (-72, 156, -42, -42)    # losers count 0 after 推土机 (L23.9)
    st2 = settle_scores(r, losers, dealer=E, after_broke=True)
    assert st2.net == (-80, 180, -50, -50)


@pytest.mark.parametrize(("tai", "normal", "after"), [(0, 30, 50), (1, 60, 100), (2, 90, 150), (3, 120, 200), (4, 120, 200)])
def test_m_bonus_tiers(tai, normal, after):
    # M 計算方式 (三) 跟胡數: "無台跟30（50）胡，1台跟60（100）胡，2台跟90（150）胡，3台跟120（200）胡"
    a = settle(S, 100, tai, {E: 0, W: 0, N: 0}, dealer=N)
    b = settle(S, 100, tai, {E: 0, W: 0, N: 0}, dealer=N, after_broke=True)
    assert a.net[E] == -(10 + normal // 10)
    assert b.net[E] == -(10 + after // 10)


def test_summary_chips_example_120fu_2tai():
    # S 筹码计算: "和牌为120胡2台则边家付筹码12+9 … 庄家付12*2+9"
    st = settle(S, 120, 2, {E: 0, W: 0, N: 0}, dealer=E)
    assert st.net == (-33, 75, -21, -21)


def test_summary_closed_wait_1_3_bamboo():
    # S 胡数计算 二: "手拿1、3条，自摸2条则算4胡，吃胡2条则2胡"
    assert win("13s 234m 345p 567s 678m 99p", "2s", "self-draw").fu == 4
    assert win("13s 234m 345p 567s 678m 99p", "2s").fu == 2


@pytest.mark.parametrize(
    ("hand", "tile", "wild", "fu", "tai", "total"),
    [
        # M 特殊牌型 9: "混一色1台（無財神2台，1財神1台，坐花2台，二財神2台）" (East, face fu 8: 北 pong)
        ("123m 456m 78m 234m 444z 55m", "9m", "9s", 8, 2, 120),    # 無財神 2 台
        ("123m 456m 78m 234m 444z 5m 5p", "9m", "5p", 8, 1, 60),   # 1 財神 1 台
        ("123m 456m 78m 234m 444z 5m f1", "9m", "5p", 8, 2, 120),  # 坐花 2 台
        ("123m 456m 78m 234m 444z 5p5p", "9m", "5p", 8, 2, 120),   # 二財神 2 台
        # M 特殊牌型 14: "對對胡…1台（無財神2台，1財神1台，坐花2台，二財神2台）" (face fu 2+2+4+4+8 = 20)
        ("[555m] [777p] 333s 888s 444z 2m", "2m", "9s", 20, 2, 160),    # 無財神 2 台
        ("[555m] [777p] 33s 5p 888s 444z 2m", "2m", "5p", 20, 1, 80),   # 1 財神 1 台
        ("[555m] [777p] 33s 888s 444z 2m f1", "2m", "5p", 20, 2, 160),  # 坐花 2 台
        ("[555m] [777p] 3s 5p5p 888s 444z 2m", "2m", "5p", 20, 2, 160), # 二財神 2 台
    ],
)
def test_m_half_flush_and_all_triplets_tai_with_and_without_wilds(hand, tile, wild, fu, tai, total):
    r = win(hand, tile, wild=wild)
    assert (r.fu, r.tai, r.total) == (fu, tai, total)


def test_m_four_flowers_loser_and_winner():
    # M 特殊牌型 5: "坐花胡牌的，又槓了其他三個花牌的可計2台…沒胡牌的也算2台"
    assert win("234m 678p 345s 567s 8p 55m f1234", "8p").tai == 2
    assert lose("{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 55m 8s f1234", E).tai == 2


def test_record_scores_in_a_ledger_after_bulldozer():
    from caishen.variants.longgang.scoring import record_scores
    from caishen.variants.longgang.settlement import Ledger

    led = Ledger(5)
    r = win("5p5p5p 234m 678p 345s 567s 8p", "9m", "self-draw", seat=S, wild="5p")
    losers = {s: lose("111m 24m 68m 13p 57p 9p 24s 68s", s, wild="5p") for s in (E, W, N)}
    st = record_scores(led, (4, 0, 1, 2), r, losers, dealer=E)
    assert st.net == (-72, 156, -42, -42)
    assert led.chips == [95 + 156, 95 - 42, 95 - 42, 95, 95 - 72] and led.grand_total == 500
