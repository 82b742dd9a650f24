"""Rulesets as data: presets, TOML overrides, unknown keys refused (issue 2 item 3)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from caishen.cli import main
from caishen.tiles import WHITE
from caishen.variants.longgang.rules import LONGGANG, LUOYANG_GANGCI, RulesetError, get_ruleset, load_ruleset
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


def test_luoyang_preset() -> None:
    r = get_ruleset("luoyang-gangci")
    assert r is LUOYANG_GANGCI
    assert (r.hand_size, r.sets_needed, r.wall_size, r.allow_chow) == (13, 4, 136, False)
    assert WHITE in r.tile_kinds and len(r.tile_kinds) == 34
    assert (r.kong_base, r.bomb_base, r.kong_ci_base) == (100, 200, 600)  # G2


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
        ("hand_size = 14\n", "hand_size must be 13 or 16, not 14"),
        ("bonus_fu = [1, 2]\n", "bonus_fu must be a list of 4 integers"),
        ("base = 'mars'\n", "unknown ruleset 'mars'"),
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
    for name, _, rule, _ in LONGGANG.switches():
        assert name in out
        assert rule in out
    assert main(["rules", "nowhere"]) == 2
    assert "not a preset" in capsys.readouterr().err


def test_rules_command_lists_the_scoring_items(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "longgang", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["switches"]) == {name for name, _, _, _ in LONGGANG.switches()}
    assert data["switches"]["closed_wait_fu"] == 2
    items = data["scoring_items"]
    assert len(items) == len(SCORING_ITEMS) + len(Limit) == 40
    by_key = {row["key"]: row for row in items}
    assert by_key["honour-triplet"] == {
        "key": "honour-triplet", "rule": "L21.1", "chinese": "字刻",
        "english": "pong or kong of Red, Green or the seat wind", "unit": "tai", "value": "1", "counts_for": "both",
    }
    assert by_key["closed-wait"]["value"] == "2 (closed_wait_fu)"
    assert by_key["guest-flower"]["value"] == "4 (flower_fu)"
    assert by_key["bulldozer"] == {
        "key": "bulldozer", "rule": "L22.2", "chinese": "推土机", "english": "three true wilds (bulldozer)",
        "unit": "limit", "value": "300", "counts_for": "winner",
    }
    assert main(["rules", "longgang"]) == 0
    out = capsys.readouterr().out
    assert "Scoring items of longgang" in out and "两财神" in out and "L21.10" in out
    assert main(["rules", "luoyang-gangci", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scoring_items"] == []


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
    assert len(keys) == len(set(keys)) == 27
    for e in SCORING_ITEMS:
        assert re.fullmatch(r"L\d+\.\d+", e.rule) and e.rule in text, e.rule
        assert e.chinese and e.english
