"""Rulesets as data: presets, TOML overrides, unknown keys refused (issue 2 item 3)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from caishen.cli import main
from caishen.tiles import WHITE
from caishen.variants.longgang.rules import LONGGANG, RulesetError, load_ruleset
from caishen.variants.longgang.scoring import SCORING_ITEMS, Limit


def test_longgang_defaults_follow_rulings() -> None:
    r = LONGGANG
    assert (r.hand_size, r.sets_needed, r.wall_size) == (16, 5, 136)
    assert WHITE not in r.tile_kinds and len(r.tile_kinds) == 37
    assert r.eight_and_half_pairs is True  # L14
    assert r.human_win is False  # L15
    assert r.eight_and_half_pairs_limit is False  # L22
    assert r.bonus_fu == (30, 60, 90, 120)  # L24
    assert r.limit_chips == (72, 42)  # L24


def test_toml_overrides(tmp_path: Path) -> None:
    f = tmp_path / "house.toml"
    f.write_text('base = "longgang"\neight_and_half_pairs_limit = true\nbonus_fu = [30, 60, 90, 150]\n')
    r = load_ruleset(f)
    assert r.name == "house"
    assert r.eight_and_half_pairs_limit is True
    assert r.bonus_fu == (30, 60, 90, 150)
    assert r.replace(eight_and_half_pairs_limit=False).replace(name="longgang", bonus_fu=(30, 60, 90, 120)) == LONGGANG


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("eight_and_a_half = true\n", "unknown switch 'eight_and_a_half'"),
        ("hand_size = '16'\n", "hand_size must be int, not str"),
        ("hand_size = 14\n", "hand_size = 14 is not one of 13 | 16"),
        ("table_fee = 1000\n", "table_fee = 1000 must be below start_chips = 100"),
        ("fu_per_chip = 0\n", r"fu_per_chip = 0 is out of range 1\.\.1000"),
        ("dead_wall_stacks = 100\n", r"dead_wall_stacks = 100 is out of range 7\.\.12"),
        ("limit_chips = [-1, 42]\n", r"limit_chips = \[-1, 42\] is out of range"),
        ("bonus_fu = [1, 2]\n", "bonus_fu must be a list of 4 integers"),
        ("base = 'mars'\n", "unknown base 'mars'"),
        ("x = \n", "not valid TOML"),
    ],
)
def test_bad_toml_is_refused(tmp_path: Path, body: str, message: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(body)
    with pytest.raises(RulesetError, match=message):
        load_ruleset(f)


def test_rules_command_lists_every_switch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "longgang"]) == 0
    out = capsys.readouterr().out
    for sw in LONGGANG.switches():
        assert sw.name in out
        assert sw.rule in out
    assert main(["rules", "nowhere"]) == 2
    assert "not a preset" in capsys.readouterr().err


def test_rules_command_lists_the_scoring_items(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "longgang", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["switches"]) == {sw.name for sw in LONGGANG.switches()}
    assert data["switches"]["closed_wait_fu"] == {"value": 2, "rule": "L20", "doc": "胡数 for winning on a closed wait 卡张/坎张", "range": [0, 100]}
    items = data["scoring_items"]
    assert len(items) == len(SCORING_ITEMS) + len(Limit) == 59  # issue 10: 4 items, 15 optional limits
    by_key = {row["key"]: row for row in items}
    assert by_key["honour-triplet"] == {
        "key": "honour-triplet", "rule": "L21.1", "chinese": "字刻",
        "english": "pong or kong of Red, Green or the seat wind", "unit": "tai", "value": "1", "applies_to": "both",
    }
    assert by_key["closed-wait"]["value"] == "2 (closed_wait_fu)"
    assert by_key["guest-flower"]["value"] == "4 (flower_fu)"
    assert by_key["bulldozer"] == {
        "key": "bulldozer", "rule": "L22.2", "chinese": "推土机", "english": "three true wilds (bulldozer)",
        "unit": "limit", "value": "300", "applies_to": "winner",
    }
    assert main(["rules", "longgang"]) == 0
    out = capsys.readouterr().out
    assert "Scoring items of longgang" in out and "两财神" in out and "L21.10" in out
    assert main(["rules", "luoyang-gangci", "--json"]) == 0
    gangci = json.loads(capsys.readouterr().out)
    assert set(gangci["switches"]) == {"name", "gang_base", "bomb_base", "ci_base", "seat_count",
                                       "dealer_keeps_deal_on_win", "hands_per_match"}
    zhi_ci = [i for i in gangci["scoring_items"] if i["key"] == "zhi_ci_discarder"]
    assert zhi_ci == [{"key": "zhi_ci_discarder", "rule": "G2.7", "chinese": "直次 点炮者付",
                       "english": "ci on a discard, the discarder", "unit": "chips",
                       "value": "1300 (2 × 600 + 100)", "applies_to": "each payer"}]


def test_scoring_items_follow_the_switches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "house.toml"
    f.write_text('base = "longgang"\nedge_single_wait_fu = true\nclosed_wait_fu = 4\n')
    assert main(["rules", str(f), "--json"]) == 0
    rows = {row["key"]: row["value"] for row in json.loads(capsys.readouterr().out)["scoring_items"]}
    assert rows["closed-wait"] == "4 (closed_wait_fu)"
    assert rows["edge-wait"] == rows["single-wait"] == "4 (closed_wait_fu if edge_single_wait_fu, else 0)"


def test_every_scoring_item_cites_a_rule_of_the_rules_document() -> None:
    text = (Path(__file__).parents[1] / "docs" / "rules" / "longgang.md").read_text(encoding="utf-8")
    keys = [e.key for e in SCORING_ITEMS]
    assert len(keys) == len(set(keys)) == 31  # issue 10: 花未补, 一条龙, 门清, 全求人
    for e in SCORING_ITEMS:
        assert re.fullmatch(r"L\d+\.\d+", e.rule) and e.rule in text, e.rule
        assert e.chinese and e.english
