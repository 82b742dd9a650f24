"""Luoyang Gangci win conditions (docs/rules/luoyang-gangci.md G5): every numbered example of
the source, as reconstructed in R1-R8, plus properties of the 次 tests."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from caishen.hand import Hand
from caishen.notation import parse_hand, parse_tile
from caishen.variants.luoyang_gangci.wins import (
    GangciWin,
    an_ci,
    an_ci_kongs,
    own_turn_wins,
    ready_on_ci,
    tian_ci,
    tian_hu,
    xu_ci,
    xu_ci_kongs,
    zha_dan,
    zhi_ci,
)


def hand(text: str) -> Hand:
    return parse_hand(text, None)


def t(text: str) -> int:
    return parse_tile(text)


M4, S7, M5 = t("4m"), t("7s"), t("5m")


def test_outcome_names_and_rule_ids() -> None:
    assert [w.value for w in GangciWin] == ["tian_hu", "tian_ci", "an_ci", "zhi_ci", "xu_ci", "zha_dan"]
    assert [w.rule for w in GangciWin] == ["G5.1", "G5.2", "G5.3", "G5.4", "G5.5", "G5.6"]
    assert [w.chinese for w in GangciWin] == ["天胡", "天次", "暗次", "直次", "续次", "炸弹"]
    assert [w.is_ci for w in GangciWin] == [False, True, True, True, True, False]


# --- G5.1 天胡: "天胡：为庄家专有，起手十四张牌，即构成胡牌结构（普通胡牌的结构）"

def test_G5_1_tian_hu_dealer_first_fourteen_complete() -> None:
    h = hand("123m456p789s111z55z")
    assert tian_hu(h)
    assert own_turn_wins(h, M4, dealer_first=True) == (GangciWin.TIAN_HU, GangciWin.ZHA_DAN)
    assert GangciWin.TIAN_HU not in own_turn_wins(h, M4)  # only the dealer's first 14
    assert not tian_hu(hand("123m456p789s111z56z"))


# --- G5.2 天次: "天次：玩家游戏过程中，拿到三张杠底牌时，即为天次，结算方式同暗次"

def test_G5_2_tian_ci_three_tiles_of_the_ci_kind_whatever_the_rest() -> None:
    h = hand("444m19p19s1234567z")
    assert tian_ci(h, M4)
    assert own_turn_wins(h, M4) == (GangciWin.TIAN_CI,)
    assert not tian_ci(hand("44m19p19s12345677z"), M4)
    assert not tian_ci(hand("19p19s1234567z [444m]"), M4)  # a pong is not 拿到 (U6)


# --- G5.3 暗次, 次牌 肆万

def test_G5_3_1_an_ci_example_1_drawn_fourth_of_a_triplet() -> None:
    """"1.玩家手中牌型为：111,222，贰万三万，33，444；此时，玩家自己起牌，起到1、2或者4的暗杠牌，即为暗次" (R1)"""
    h = hand("111p222p33p444p23m")
    assert ready_on_ci(h, M4)
    for drawn, kong in (("1p", "1p"), ("2p", "2p"), ("4p", "4p")):
        after = h.with_tile(t(drawn))
        assert an_ci_kongs(after, M4) == (t(kong),)
        assert own_turn_wins(after, M4) == (GangciWin.AN_CI,)
    assert not an_ci(h.with_tile(t("3p")), M4)
    assert own_turn_wins(h.with_tile(t("1m")), M4) == (GangciWin.ZHA_DAN,)  # 1万 is a plain self-draw


def test_G5_3_2_an_ci_example_2_kong_held_draw_makes_it_ready() -> None:
    """"2.玩家手中牌型为：，叁万，,33,456；此时，玩家起牌时，起到贰万、伍万时，均为暗次（1为暗杠）" (R2)"""
    h = hand("1111p3m33p456p789p")
    assert not ready_on_ci(h, M4)
    for drawn in ("2m", "5m"):
        assert an_ci_kongs(h.with_tile(t(drawn)), M4) == (t("1p"),)
    for drawn in ("1m", "4m", "6m", "3m"):
        assert not an_ci(h.with_tile(t(drawn)), M4)


def test_G5_3_3_an_ci_example_3_drawing_the_ci_kind_as_a_single_wait() -> None:
    """"3.玩家手中牌型为：5,678；此时，玩家起到肆万时，视为暗次（1为暗杠）" (R3)"""
    h = hand("1111p555p678p222s")
    after = h.with_tile(M4)
    assert an_ci_kongs(after, M4) == (t("1p"),)
    assert not zha_dan(after)
    assert not an_ci(h.with_tile(M5), M4)


def test_G5_3_4_an_ci_example_4_draw_3_or_the_ci_kind() -> None:
    """"4.玩家手中牌型为：，肆万，456；此时，玩家起到3或者肆万，均为暗次" (R4)"""
    h = hand("1111p33p4m456p789p")
    assert an_ci(h.with_tile(t("3p")), M4)
    assert an_ci(h.with_tile(M4), M4)
    assert not an_ci(h.with_tile(t("5m")), M4)


def test_G5_3_an_ci_needs_the_four_concealed() -> None:
    # a concealed kong declared earlier took its replacement then (U2)
    assert not an_ci(hand("3m33p456p789p2m (1111p)"), M4)


# --- G5.4 直次, 次牌 七条

def test_G5_4_1_zhi_ci_example_1() -> None:
    """"1.A玩家牌型为：111、222、333、44、五条六条，此时有玩家打出1、2、3任意一张牌，A玩家即可直接胡牌，称为直次" """
    h = hand("111p222p333p44p56s")
    assert ready_on_ci(h, S7)
    assert [zhi_ci(h, t(d), S7) for d in ("1p", "2p", "3p")] == [True, True, True]
    assert not zhi_ci(h, t("4p"), S7)  # a pair, not a triplet
    assert not zhi_ci(h, t("4s"), S7)  # completes the hand, but no win on a discard (G5.8)


def test_G5_4_2_zhi_ci_example_2() -> None:
    """"2.A玩家牌型为：111、222、333、44、七条，此时有玩家打出1、2、3任意一张牌，A玩家即可直次" (R5)"""
    h = hand("111p222p333p44p77s")
    assert ready_on_ci(h, S7)
    assert [zhi_ci(h, t(d), S7) for d in ("1p", "2p", "3p")] == [True, True, True]


def test_G5_4_3_zhi_ci_example_3() -> None:
    """"3.A玩家牌型为：111、222、345、456、七条，此时有玩家打出1、2任意一张牌，A玩家即可直次。" """
    h = hand("111p222p345p456p7s")
    assert [zhi_ci(h, t(d), S7) for d in ("1p", "2p", "3p", "4p")] == [True, True, False, False]


def test_G5_4_zhi_ci_needs_ready_on_the_ci_tile() -> None:
    assert not zhi_ci(hand("111p222p333p44p58s"), t("1p"), S7)


# --- G5.5 续次, 次牌 七条

def test_G5_5_1_xu_ci_example_1() -> None:
    """"1.A玩家手中牌型为123、456、77、五条六条，并碰了肆万，在随后的游戏过程中，当A手起到第四张肆万时，即为续次成功" (R6)"""
    h = hand("123p456p77p56s [444m]")
    assert ready_on_ci(h, S7)
    assert xu_ci_kongs(h.with_tile(M4), S7) == (M4,)
    assert own_turn_wins(h.with_tile(M4), S7) == (GangciWin.XU_CI,)
    assert own_turn_wins(h.with_tile(t("4s")), S7) == (GangciWin.ZHA_DAN,)


def test_G5_5_2_xu_ci_example_2() -> None:
    """"2.A玩家手中牌型为111、234、456、七条，并碰了五筒，在随后的游戏中，当A玩家手起到第四张五筒时，续次成功。" (R7)"""
    h = hand("111m234m456m7s [555p]")
    assert xu_ci(h.with_tile(t("5p")), S7)
    assert not xu_ci(h.with_tile(t("6p")), S7)


def test_G5_5_xu_ci_fourth_tile_kept_from_earlier() -> None:
    # U8: the pong's fourth tile drawn before and kept, the hand ready now
    assert xu_ci(hand("123p456p77p56s4m [444m]"), S7)


# --- G5.6 炸弹, 次牌 伍万

def test_G5_6_1_zha_dan_example_1() -> None:
    """"1.A玩家手中牌型为，111,234,56,88,999，听4,7，此时玩家手起到4,7任意一张，即可胡牌，视为炸弹。" (R8)"""
    h = hand("111p234p56p88p999p")
    assert not ready_on_ci(h, M5)
    for drawn in ("4p", "7p"):
        assert own_turn_wins(h.with_tile(t(drawn)), M5) == (GangciWin.ZHA_DAN,)
    # the fourth 1p: a complete hand (111 123 456 88 999), and not an 暗次 (not ready on 5万)
    assert own_turn_wins(h.with_tile(t("1p")), M5) == (GangciWin.ZHA_DAN,)
    assert own_turn_wins(h.with_tile(t("9p")), M5) == ()


def test_G5_6_2_zha_dan_example_2_ready_on_the_ci_kind() -> None:
    """"2.A玩家手中牌型为111,234，肆万陆万，88,999，听伍万，此时如在有杠之前，手起到伍万，即可胡牌，视为炸弹。玩家可选择放弃胡牌，等杠次。" (R8)"""
    h = hand("111p234p46m88p999p")
    assert ready_on_ci(h, M5)
    assert own_turn_wins(h.with_tile(M5), M5) == (GangciWin.ZHA_DAN,)
    # declined (G5.9): the fourth 1p or 9p later makes the 暗次
    assert own_turn_wins(h.with_tile(t("1p")), M5) == (GangciWin.AN_CI,)
    assert own_turn_wins(h.with_tile(t("9p")), M5) == (GangciWin.AN_CI,)


# --- properties: a complete hand with a triplet KKK and a tile c taken out is ready on c, and
# the fourth K makes each 次 (G5.3, G5.4, G5.7)

_SETS = st.one_of(
    st.integers(0, 33).map(lambda k: (k, k, k)),
    st.tuples(st.integers(0, 2), st.integers(0, 6)).map(lambda sn: tuple(sn[0] * 9 + sn[1] + i for i in range(3))),
)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 33), st.lists(_SETS, min_size=3, max_size=3), st.integers(0, 33), st.integers(0, 10))
def test_G5_7_triplet_and_taken_tile_make_every_ci(
    k: int, sets: list[tuple[int, ...]], pair: int, which: int
) -> None:
    rest = [x for s in sets for x in s] + [pair, pair]
    tiles = [k, k, k, *rest]
    assume(all(tiles.count(x) <= 4 for x in tiles))
    assume(k not in rest)
    ci = rest[which % len(rest)]
    assume(tiles.count(ci) <= 3)  # the face-up 次牌 is a fourth copy
    full = list(tiles)
    full.remove(ci)
    h13 = Hand(tuple(full))
    assert ready_on_ci(h13, ci)
    assert zhi_ci(h13, k, ci)
    assert an_ci(h13.with_tile(k), ci)
    # a concealed-kong 次 needs the hand after the kong plus the 次牌: a draw that is not K
    # leaves at most the triplet, never four concealed of k
    assert k not in an_ci_kongs(h13, ci)
