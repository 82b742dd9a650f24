"""caishen.shapes.stats and ``caishen stats``: exact single-suit counts, checked against
tests/data/single-suit-13.json and the tables of the main rule source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caishen.cli import main
from caishen.hand import Hand
from caishen.shapes.stats import every_tile_wins_with_kongs, pairs_form_distinct, single_suit_stats
from caishen.variants.longgang.rules import LONGGANG
from ref_analysis import ref_waits

DATA = Path(__file__).parent / "data" / "single-suit-13.json"

# output key -> key of the data file
KEY_MAP = {
    "hands": "hands",
    "tenpai": "tenpai_any_form",
    "tenpai_by_wait_count": "tenpai_any_form_by_wait_count",
    "standard_tenpai": "standard_tenpai",
    "standard_tenpai_by_wait_count": "standard_tenpai_by_wait_count",
    "pairs_form_tenpai": "seven_pairs_tenpai",
    "winning_hands": "winning_14_tile_hands_any_form",
    "standard_winning_hands": "winning_14_tile_hands_standard",
    "pairs_form_winning_hands": "winning_14_tile_hands_seven_pairs",
    "every_tile_wins": "every_tile_wins_13",
}


@pytest.fixture(scope="module")
def stats13() -> dict[str, object]:
    return single_suit_stats(13)


def test_cli_stats_13_json_matches_reference_data_l3_l14(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--tiles", "13", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = json.loads(DATA.read_text(encoding="utf-8"))
    for ours, theirs in KEY_MAP.items():
        assert out[ours] == ref[theirs], ours
    assert out["not_tenpai"] == ref["hands"] - ref["tenpai_any_form"]
    assert pairs_form_distinct(13) == (
        ref["seven_pairs_tenpai_all_pairs_distinct"],
        ref["winning_14_tile_hands_seven_pairs_distinct"],
    )
    assert list(out) == [
        "tiles", "hands", "tenpai", "not_tenpai", "tenpai_by_wait_count", "standard_tenpai",
        "standard_tenpai_by_wait_count", "pairs_form_tenpai", "winning_hands", "standard_winning_hands",
        "pairs_form_winning_hands", "every_tile_wins", "every_tile_wins_by_wait_count",
        "every_tile_wins_with_kongs",
    ]


def test_every_tile_wins_13_as_in_the_source_table(stats13: dict[str, object]) -> None:
    # 標準9型: 7 waits 2 hands, 8 waits 6, 9 waits 1 (九蓮寶燈); 含槓2型: one kong, 8 waits
    assert stats13["every_tile_wins_by_wait_count"] == {"7": 2, "8": 6, "9": 1}
    assert stats13["every_tile_wins_with_kongs"] == {"1": {"8": 2}, "2": {}}
    assert every_tile_wins_with_kongs(13, 1) == {8: ["2223456777[9999]", "[1111]3334567888"]}


def test_stats_16_every_tile_wins_hands_wait_on_every_value_by_reference() -> None:
    data = single_suit_stats(16)
    assert data["hands"] == 162585
    assert data["tenpai"] + data["not_tenpai"] == data["hands"]
    assert sum(data["tenpai_by_wait_count"].values()) == data["tenpai"]
    # source: 清一色纯正九门听 15 hands (九龍飛天 2, 九蓮寶燈 5, 八對半 4, 四暗刻 4); 八面玲瓏 53
    assert data["every_tile_wins_by_wait_count"] == {"6": 10, "7": 55, "8": 53, "9": 15}
    assert data["tenpai_by_wait_count"]["9"] == 15
    assert len(data["every_tile_wins"]) == 133
    for text in data["every_tile_wins"][::7]:  # the slow reference on a sample
        tiles = tuple(int(c) - 1 for c in text)
        holdable = tuple(v for v in range(9) if tiles.count(v) < 4)
        got = ref_waits(Hand(tiles), LONGGANG)
        assert got == holdable


def test_stats_rejects_other_sizes() -> None:
    with pytest.raises(ValueError, match="13 or 16"):
        single_suit_stats(14)


def test_cli_stats_rich_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--tiles", "13"]) == 0
    out = capsys.readouterr().out
    assert "93,600 hands" in out and "47,933" in out and "[1111]3334567888" in out
