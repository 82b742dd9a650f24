"""The appendix hands of L22.16-L22.22 (docs/rules/longgang.md): the 十六不搭 / 十六不靠 and
国士无双 shapes with wilds, and the edges of the colour hands the scenario files do not reach."""

from __future__ import annotations

import pytest

from caishen.notation import parse_hand, parse_tile
from caishen.variants.longgang.orphans import thirteen_orphans
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.longgang.scoring import Limit, NotAWinError, WinBy, WinContext, score_win
from caishen.variants.longgang.unconnected import Unconnected, first_draw_shape, shape

S = 1
SOUTH_WILDS = LONGGANG.wild_kinds(parse_tile("5s"), S)  # 5s and South's own flower 夏 (f2)


@pytest.mark.parametrize(("hand", "want"), [
    ("1147m 258p 369s 123467z f2", Unconnected.KNITTED),        # 夏 (wild) in White's place
    ("118m 258p 369s 123467z 5s f2", Unconnected.UNCONNECTED),  # two wilds: White and the 3rd 1-4-8 place
    ("1188m 258p 369s 123467z f2", None),                       # two pairs
    ("1148m 2589p 369s 12346z f2", None),                       # 8p and 9p are a 搭子
    ("11148m 258p 369s 12346z f2", None),                       # three of a kind
    ("27m 258p 369s 1123467z 5s f2", None),                     # 2m and 7m are in no triple of the list
    ("11448m 258p 369s 123467z", None),                         # no wild: 17 tiles need a second pair
])
def test_the_shape_and_its_wilds(hand: str, want: Unconnected | None) -> None:
    assert shape(parse_hand(hand), SOUTH_WILDS, 16) is want


def test_the_shape_needs_no_meld_and_sixteen_tiles() -> None:
    assert shape(parse_hand("1148m 258p 369s 123467z f2"), SOUTH_WILDS, 13) is None
    assert shape(parse_hand("[111m] 48m 258p 369s 12346z f2"), SOUTH_WILDS, 16) is None


def test_the_switches_decide_which_shape_counts() -> None:
    knitted = parse_hand("1147m 258p 369s 123467z f2")
    plain = parse_hand("1148m 258p 369s 123467z f2")
    assert first_draw_shape(knitted, SOUTH_WILDS, 16, True, False) is Unconnected.UNCONNECTED
    assert first_draw_shape(plain, SOUTH_WILDS, 16, False, True) is None
    assert first_draw_shape(plain, SOUTH_WILDS, 16, False, False) is None


def _win(hand: str, tile: str, **switches: bool) -> tuple[int, Limit | None]:
    r = score_win(parse_hand(hand), WinContext(parse_tile(tile), WinBy.SELF_DRAW, S, 0, parse_tile("9s")),
                  LONGGANG.replace(**switches))
    return r.total, r.limit


def test_the_scorer_knows_the_shape_only_with_its_switch() -> None:
    with pytest.raises(NotAWinError):
        _win("1m4m8m 258p 369s 123467z f2", "1m")
    assert _win("1m4m8m 258p 369s 123467z f2", "1m", sixteen_unconnected_limit=True) == (
        300, Limit.SIXTEEN_UNCONNECTED)


def test_million_stones_needs_a_hundred() -> None:
    # 111 222 333 444 567 99m adds up to 66: a 清一色, not 百萬石
    assert _win("111m 222m 333m 444m 567m 9m", "9m", million_stones_limit=True) == (300, Limit.FULL_FLUSH)
    # 999 888 777 666 345 55m adds up to 112
    assert _win("999m 888m 777m 666m 34m 55m", "5m", million_stones_limit=True) == (300, Limit.MILLION_STONES)


def test_red_dots_and_red_spot_need_the_red_pair() -> None:
    # Red as a triplet and a pair of dots or bamboo: not 點點紅 / 紅一點 but a counted limit (混一色,
    # Red triplet, no wild: 3 tai)
    assert _win("567p 567p 333p 999p 777z 1p", "1p", red_dots_limit=True) == (300, Limit.COUNTED)
    assert _win("234s 234s 666s 888s 777z 2s", "2s", red_spot_limit=True) == (300, Limit.COUNTED)
    # a 4p is not one of 點點紅's dots: 混一色 and no wild, 2 tai
    assert _win("345p 567p 111p 999p 333p 7z", "7z", red_dots_limit=True)[1] is None


@pytest.mark.parametrize(("hand", "want"), [
    ("19m 19p 19s 1122334467z f2", True),      # 夏 (wild) in White's place
    ("19m 19p 9s 1122334467z 5s f2", True),    # two wilds: White and 1s
    ("19m 19p 19s 112233446z 5s f2", True),    # two wilds: White and Red
    ("19m 19p 19s 1112334467z f2", False),     # three East, one South
    ("12m 19p 19s 1122334467z f2", False),     # 2m has no place
    ("19m 19p 19s 11223344677z", False),       # no wild: two Red and no White
])
def test_the_thirteen_orphans_shape_and_its_wilds(hand: str, want: bool) -> None:
    assert thirteen_orphans(parse_hand(hand), SOUTH_WILDS, 16) is want


def test_thirteen_orphans_needs_no_meld_and_sixteen_tiles() -> None:
    assert not thirteen_orphans(parse_hand("19m 19p 19s 1122334467z f2"), SOUTH_WILDS, 13)
    assert not thirteen_orphans(parse_hand("[1111m] 9m 19p 19s 1122334467z f2"), SOUTH_WILDS, 16)


def test_the_scorer_knows_thirteen_orphans_only_with_its_switch() -> None:
    with pytest.raises(NotAWinError):
        _win("19m 19p 1s 1122334467z f2", "9s")
    assert _win("19m 19p 1s 1122334467z f2", "9s", thirteen_orphans_limit=True) == (300, Limit.THIRTEEN_ORPHANS)


def test_the_engine_asks_for_thirteen_orphans_only_with_its_switch() -> None:
    hand = parse_hand("19m 19p 19s 1122334467z f2")
    assert not LONGGANG.special_shapes and not LONGGANG.special_win(hand, SOUTH_WILDS)
    on = LONGGANG.replace(thirteen_orphans_limit=True)
    assert on.special_shapes and on.special_win(hand, SOUTH_WILDS)
