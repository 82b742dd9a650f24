"""Exact examples for caishen.shapes.analysis and ``caishen analyze`` (rule IDs in the names)."""

from __future__ import annotations

import io
import json

import pytest

from caishen.cli import main
from caishen.hand import Hand, Meld, MeldKind
from caishen.notation import parse_hand, parse_tile
from caishen.shapes import tables as _tables
from caishen.shapes.analysis import (
    Arrangement,
    Form,
    Group,
    GroupKind,
    arrangements,
    is_win,
    shanten,
    waits,
)
from caishen.tiles import AUTUMN, EAST, RED, SPRING, SUMMER, WINTER, tile_name
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.longgang.wilds import wild_kinds
from ref_analysis import ref_arrangements

R16 = LONGGANG
R13 = LONGGANG.replace(hand_size=13, eight_and_half_pairs=False)
R13_SEVEN = LONGGANG.replace(hand_size=13, eight_and_half_pairs=False, seven_pairs=True)
M1, M2, M3, M4 = 0, 1, 2, 3
P4 = 12


def h(text: str, ruleset: object = R16) -> Hand:
    return parse_hand(text, ruleset)  # type: ignore[arg-type]


def tiles_of(a: Arrangement) -> list[tuple[int, ...]]:
    return [g.tiles for g in a.groups]


# ---------------------------------------------------------------- wild kinds


def test_wild_kinds_indicator_and_own_flower_l4_l7() -> None:
    assert wild_kinds(P4, 0, R16) == frozenset({P4, SPRING})
    assert wild_kinds(P4, None, R16) == frozenset({P4})
    assert wild_kinds(None, 3, R16) == frozenset({WINTER})
    assert wild_kinds(P4, 0, R16.replace(own_flower_wild=False)) == frozenset({P4})


def test_wild_kinds_flower_indicator_makes_other_flowers_wild_l5() -> None:
    assert wild_kinds(SUMMER, 2, R16) == frozenset({SPRING, AUTUMN, WINTER})
    assert wild_kinds(SUMMER, None, R16.replace(flower_indicator_wilds=False)) == frozenset()


# ---------------------------------------------------------------- standard shape


def test_standard_win_and_not_l13() -> None:
    assert is_win(h("11122233344455566m"), R16)
    assert is_win(h("11122233344455567m"), R16)  # 55 + 567
    assert not is_win(h("1112223334445556m7z"), R16)
    assert is_win(h("123m456p789s11z", R13), R13) is False  # 11 tiles: wrong size
    assert is_win(h("123m456p789s123s11z", R13), R13)


def test_honours_form_no_sequences_and_suits_do_not_wrap_l13() -> None:
    assert not is_win(h("123z456m789m123p11s", R13), R13)
    assert not is_win(h("891m456m789p123p11s", R13), R13)
    assert is_win(h("111z456m789m123p11s", R13), R13)


def test_declared_melds_are_fixed_groups_first_l13() -> None:
    hand = h("23m456p11z f1 [111m] {4s3s5s} (2222p)")
    wilds = frozenset({SPRING})
    assert is_win(hand, R16, wilds)
    arr = arrangements(hand, R16, wilds)
    assert [tiles_of(a) for a in arr] == [
        [(0, 0, 0), (20, 21, 22), (10, 10, 10, 10), (0, 1, 2), (12, 13, 14), (27, 27)],
        [(0, 0, 0), (20, 21, 22), (10, 10, 10, 10), (1, 2, 3), (12, 13, 14), (27, 27)],
    ]
    first = arr[0].groups
    assert [g.kind for g in first[:3]] == [GroupKind.TRIPLET, GroupKind.SEQUENCE, GroupKind.KONG]
    assert first[0].meld == Meld.pong(0)
    assert first[2].meld == Meld.kong(10, MeldKind.CONCEALED_KONG)
    assert first[3] == Group(GroupKind.SEQUENCE, (0, 1, 2), ((SPRING, 0),))
    assert arr[1].groups[3] == Group(GroupKind.SEQUENCE, (1, 2, 3), ((SPRING, 3),))


def test_every_arrangement_of_a_plain_hand_l13() -> None:
    arr = arrangements(h("11122233344455566m"), R16)
    assert all(a.form is Form.STANDARD for a in arr)
    assert [tiles_of(a) for a in arr] == [
        [(0, 0, 0), (1, 1, 1), (2, 2), (2, 3, 4), (3, 4, 5), (3, 4, 5)],
        [(0, 0, 0), (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4), (5, 5)],
        [(0, 0, 0), (1, 1, 1), (2, 3, 4), (2, 3, 4), (2, 3, 4), (5, 5)],
        [(0, 0, 0), (1, 2, 3), (1, 2, 3), (1, 2, 3), (4, 4, 4), (5, 5)],
        [(0, 1, 2), (0, 1, 2), (0, 1, 2), (3, 3, 3), (4, 4, 4), (5, 5)],
    ]


def test_four_concealed_equal_tiles_are_a_triplet_plus_one_l19() -> None:
    arr = arrangements(h("1111m23m567p789s11z", R13), R13)
    assert [tiles_of(a) for a in arr] == [[(0, 0, 0), (0, 1, 2), (13, 14, 15), (24, 25, 26), (27, 27)]]
    assert [g.kind for g in arr[0].groups] == [
        GroupKind.TRIPLET, GroupKind.SEQUENCE, GroupKind.SEQUENCE, GroupKind.SEQUENCE, GroupKind.PAIR
    ]


# ---------------------------------------------------------------- wilds


def test_wild_stands_for_a_kind_whose_four_copies_are_in_sight_l8() -> None:
    hand = h("1111m234p567p789s7z", R13)
    wilds = frozenset({RED})
    assert is_win(hand, R13, wilds)
    got = {tuple((g.kind, g.tiles, g.wilds) for g in a.groups[:2]) for a in arrangements(hand, R13, wilds)}
    assert got == {
        ((GroupKind.PAIR, (0, 0), ()), (GroupKind.TRIPLET, (0, 0, 0), ((RED, 0),))),
        ((GroupKind.PAIR, (0, 0), ((RED, 0),)), (GroupKind.TRIPLET, (0, 0, 0), ())),
    }


def test_wild_returns_to_its_own_kind_l8_l16() -> None:
    hand = h("123m456p789s11z777z", R13)
    wilds = frozenset({RED})
    arr = arrangements(hand, R13, wilds)
    own = Group(GroupKind.TRIPLET, (RED, RED, RED), ((RED, RED),) * 3)
    assert sum(1 for a in arr if own in a.groups) == 1
    assert arr[0] == Arrangement(Form.BULLDOZER, ())  # three 正财神 (L8)
    assert set(arr[1:]) == set(ref_arrangements(hand, R13, wilds)[1:])
    # among them the wilds as one set: 33 triplets (no White) + 21 sequences
    plain = {
        Group(GroupKind.SEQUENCE, (0, 1, 2)),
        Group(GroupKind.SEQUENCE, (12, 13, 14)),
        Group(GroupKind.SEQUENCE, (24, 25, 26)),
        Group(GroupKind.PAIR, (EAST, EAST)),
    }
    alone = [a for a in arr[1:] if plain <= set(a.groups)]
    assert len(alone) == 33 + 21


def test_wild_single_wait_waits_on_everything_l3_l16() -> None:
    hand = h("123m456p789s111z7z", R13)
    # East is held 3 times, so the 4th is still a wait; no White in Longgang
    assert waits(hand, R13, frozenset({RED})) == tuple(k for k in R13.tile_kinds if k < 34)
    assert len(waits(hand, R13, frozenset({RED}))) == 33


def test_bulldozer_three_wilds_win_at_any_size_l8() -> None:
    hand = h("1m5m9m1p5p9p1s5s9s1234z 777z")  # 16 tiles, no shape
    wilds = frozenset({RED})
    assert is_win(hand, R16, wilds)
    assert arrangements(hand, R16, wilds) == (Arrangement(Form.BULLDOZER, ()),)
    assert shanten(hand, R16, wilds) == -1
    assert not is_win(hand, R16.replace(bulldozer=False), wilds)
    # own flowers are not 正财神
    two = h("1m5m9m1p5p9p1s5s9s1234z 77z f1")
    assert not is_win(two, R16, wilds | {SPRING})
    assert RED in waits(two, R16, wilds | {SPRING})
    assert shanten(two, R16, wilds | {SPRING}) == 0


# ---------------------------------------------------------------- pairs forms


def test_eight_and_half_pairs_four_equal_as_two_pairs_l14() -> None:
    hand = h("111122334466z11p999s")
    assert is_win(hand, R16)
    arr = arrangements(hand, R16)
    assert len(arr) == 1 and arr[0].form is Form.PAIRS
    assert tiles_of(arr[0]) == [
        (9, 9), (26, 26, 26), (27, 27), (27, 27), (28, 28), (29, 29), (30, 30), (32, 32)
    ]
    assert not is_win(hand, R16.replace(eight_and_half_pairs=False))


def test_eight_and_half_pairs_needs_no_melds_l14() -> None:
    hand = h("11223344z66z11p [999s]")
    assert not is_win(hand, R16)


def test_seven_pairs_only_where_the_ruleset_says_l14() -> None:
    hand = h("1122334466z1199p", R13_SEVEN)
    assert is_win(hand, R13_SEVEN)
    assert not is_win(hand, R13)
    assert waits(h("1122334466z119p", R13_SEVEN), R13_SEVEN) == (17,)


# ---------------------------------------------------------------- waits and shanten


def test_a_kind_held_four_times_is_never_a_wait_l3() -> None:
    hand = h("1111m234p567p789s", R13)
    assert waits(hand, R13) == ()
    assert shanten(hand, R13) == 0  # the shape is ready; only the tile is gone


def test_waits_nine_gates_l3() -> None:
    assert waits(h("1112345678999m", R13), R13) == tuple(range(9))
    assert waits(h("2344445678999m", R13), R13) == (0, 1, 2, 4, 5, 6, 7, 8)  # not 4m


def test_shanten_values() -> None:
    assert shanten(h("11122233344455566m"), R16) == -1
    assert shanten(h("1112223334445556m"), R16) == 0
    assert shanten(h("147m258p369s1234z67z"), R16) == 8  # 7 singles into pairs + 1
    assert shanten(h("147m258p369s1234z67z"), R16, frozenset({0})) == 7


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="complete hand has 17"):
        shanten(h("11122233344455566m1p"), R16)
    with pytest.raises(ValueError, match="4"):
        arrangements(Hand((0,) * 5 + (1, 1, 1, 2, 2, 2, 3, 3, 3), (), ()), R13)


def test_shipped_tables_match_a_fresh_build(monkeypatch: pytest.MonkeyPatch) -> None:
    # a wrong digest makes the loader fall back to building; the result is the shipped data
    monkeypatch.setattr(_tables, "DIGEST", "0" * 64)
    assert _tables._load() == _tables._BLOB


# ---------------------------------------------------------------- CLI


def test_cli_analyze_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "123m456p789s123s1z", "--ruleset", "longgang", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("caishen analyze: error: hand has 13 tiles") and err.count("\n") == 1
    assert main(["analyze", "123m456p789s123p2z [111s]", "--wild", "2z", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"win": False, "waits": [tile_name(k) for k in R16.tile_kinds if k < 34], "shanten": 0, "arrangements": []}


def test_cli_analyze_win_with_wild_and_seat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "23m456p11z f1 [111m] {4s3s5s} (2222p)", "--seat", "E", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["win"] is True and out["waits"] == [] and out["shanten"] == -1
    assert [a["groups"][3] for a in out["arrangements"]] == [
        {"kind": "sequence", "tiles": "123m", "wilds": [["f1", "1m"]], "meld": None},
        {"kind": "sequence", "tiles": "234m", "wilds": [["f1", "4m"]], "meld": None},
    ]
    assert out["arrangements"][0]["groups"][0] == {"kind": "triplet", "tiles": "111m", "wilds": [], "meld": "[111m]"}


def test_cli_analyze_batch_from_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1112345678999m\n\n2344445678999m\n"))
    assert main(["analyze", "-", "--ruleset", "longgang", "--json"]) == 2  # 13 tiles in a 16 ruleset
    capsys.readouterr()
    toml = "hand13.toml"
    monkeypatch.chdir(__import__("tempfile").mkdtemp())
    with open(toml, "w", encoding="utf-8") as f:
        f.write('hand_size = 13\neight_and_half_pairs = false\n')
    monkeypatch.setattr("sys.stdin", io.StringIO("1112345678999m\n\n2344445678999m\n"))
    assert main(["analyze", "-", "--ruleset", toml]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["waits"] for x in lines] == [
        ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"],
        ["1m", "2m", "3m", "5m", "6m", "7m", "8m", "9m"],
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("1112345678999m\n12x\n"))
    assert main(["analyze", "-", "--ruleset", toml]) == 2
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 1
    assert captured.err.startswith("caishen analyze: error: line 2: ")


def test_cli_analyze_rich_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "11122233344455566m"]) == 0
    out = capsys.readouterr().out
    assert "win      yes (standard)" in out
    assert "5 arrangement(s)" in out


def test_l5_l8_bulldozer_of_flower_wilds_with_flower_indicator() -> None:
    """With 冬 turned up, 春 夏 秋 are the 正财神 (L5); holding all three is 推土机 (L8)."""
    wilds = wild_kinds(parse_tile("f4"), 0, LONGGANG)
    assert wilds == frozenset({SPRING, SUMMER, AUTUMN})
    scattered = parse_hand("129m4p57s8s12346z7z f123")
    assert is_win(scattered, LONGGANG, wilds)
    assert arrangements(scattered, LONGGANG, wilds) == (Arrangement(Form.BULLDOZER, ()),)
    assert shanten(scattered, LONGGANG, wilds) == -1
    two = parse_hand("129m4p57s8s12346z7z f12")
    assert not is_win(two.with_tile(parse_tile("1p")), LONGGANG, wilds)
    assert waits(two, LONGGANG, wilds) == (AUTUMN,)
    # with an ordinary indicator the own flower is no 正财神: three wilds of which one is 春
    plain = wild_kinds(parse_tile("5p"), 0, LONGGANG)
    assert not is_win(parse_hand("129m4p57s8s12346z7z55p f1"), LONGGANG, plain)
