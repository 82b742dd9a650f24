"""Rulesets as data: presets, TOML overrides, unknown keys refused (issue 2 item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from caishen.cli import main
from caishen.tiles import WHITE
from caishen.variants.longgang.rules import LONGGANG, RulesetError, load_ruleset


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
        ("fu_per_chip = 0\n", r"fu_per_chip = 0 is out of range 1\.\.1000"),
        ("dead_wall_stacks = 100\n", r"dead_wall_stacks = 100 is out of range 7\.\.12"),
        ("limit_chips = [-1, 42]\n", r"limit_chips = \[-1, 42\] is out of range"),
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
    for sw in LONGGANG.switches():
        assert sw.name in out
        assert sw.rule in out
    assert main(["rules", "nowhere"]) == 2
    assert "not a preset" in capsys.readouterr().err
