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


def test_tiles_and_hands_that_cannot_be_are_caishen_errors() -> None:
    """The rules core's own values: a number that names no tile, a meld or hand of the wrong
    shape, a fifth copy of a kind (each was a bare ValueError with no ``code``)."""
    from caishen.hand import Hand, Meld, MeldKind  # noqa: PLC0415
    from caishen.shapes.analysis import shanten  # noqa: PLC0415
    from caishen.tiles import kind, tile_name  # noqa: PLC0415

    for call, code, message in [
        (lambda: tile_name(99), "tile", "no tile kind 99"),
        (lambda: kind(0, 10), "tile", "no tile 10 in suit 0"),
        (lambda: Meld(MeldKind.CHOW, (0, 1, 3)), "hand", "a chow must be three consecutive tiles"),
        (lambda: Meld(MeldKind.PONG, (4, 4)), "hand", "a pong must be 3 equal tiles"),
        (lambda: Hand((34,)), "hand", "concealed tiles must be non-flower tile kinds"),
        (lambda: Hand((0,)).without_tile(5), "hand", "the hand holds no concealed tile of kind 5"),
        (lambda: shanten(Hand((0,) * 5), LONGGANG), "hand", "more than 4 tiles"),
    ]:
        with pytest.raises(CaishenError, match=message) as err:
            call()
        assert err.value.code == code


def test_an_environment_option_out_of_range_is_a_caishen_error() -> None:
    from caishen.env.encoding import action_of  # noqa: PLC0415

    with pytest.raises(CaishenError, match="action index must be 0-") as err:
        action_of(10_000)
    assert err.value.code == "argument"


def test_wild_kinds_refuse_a_turned_tile_or_a_wind_that_cannot_be() -> None:
    """``wild_kinds(99, 7)`` gave the set of nothing and a flower no seat holds; a kind that is
    no tile, or a wind position outside 0-3 (L1), is refused."""
    assert LONGGANG.wild_kinds(5, 0) == {5, 34}  # 6m turned: the other 6m are wild, and East's 春 (L7)
    for args, code in [((99, 0), "tile"), ((-1, None), "tile"), ((5, 7), "argument"), ((None, -1), "argument")]:
        with pytest.raises(CaishenError) as err:
            LONGGANG.wild_kinds(*args)
        assert err.value.code == code
