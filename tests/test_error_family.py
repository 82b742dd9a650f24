"""Every error a user can cause is a CaishenError (a ValueError) with a ``code`` (caishen.errors,
docs/architecture.md "Core values"): bad notation, a bad seed, a malformed scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from caishen import fair
from caishen.engine.game import Game
from caishen.errors import CaishenError
from caishen.notation import parse_hand, parse_tile
from caishen.scenario import load
from caishen.variants.longgang.rules import LONGGANG


@pytest.mark.parametrize("text", ["123x", "11111m", "{5p4p6p"])
def test_bad_notation_is_a_caishen_error(text: str) -> None:
    with pytest.raises(CaishenError) as err:
        parse_hand(text)
    assert err.value.code == "notation"
    assert str(err.value).startswith("position ")
    with pytest.raises(CaishenError, match="position"):
        parse_tile("0m")


def test_bad_seed_is_a_caishen_error() -> None:
    with pytest.raises(CaishenError, match="a seed must be bytes") as err:
        fair.shuffled_wall("demo", LONGGANG)  # type: ignore[arg-type]
    assert err.value.code == "seed"


def test_bad_scenario_is_a_caishen_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml\n", encoding="utf-8")
    with pytest.raises(CaishenError) as err:
        load(bad)
    assert err.value.code == "scenario"
    assert str(err.value).startswith(str(bad))


def test_a_bad_wall_dice_or_dealer_for_game_is_a_caishen_error() -> None:
    wall = fair.shuffled_wall(b"demo9", LONGGANG)
    for args, code, message in [
        ((wall[:-1], (1, 2, 3, 4), 0), "bad-wall", "a wall must hold 136 tiles, not 135"),
        (((0,) * 136, (1, 2, 3, 4), 0), "bad-wall", "the wall holds 136 of 1m, expected 4"),
        ((wall, (0, 7, 3, 4), 0), "bad-dice", "dice must be four rolls"),
        ((wall, (1, 2, 3, 4), 5), "no-seat", "dealer must be a seat 0-3, not 5"),
    ]:
        with pytest.raises(CaishenError, match=message) as err:
            Game(LONGGANG, *args)  # type: ignore[arg-type]
        assert err.value.code == code
