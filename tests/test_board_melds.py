"""How the table page draws a declared set (static/board.js, offline in Chromium: no server).

A chow is stored with the claimed tile first (the engine's ``Meld.chow``: "9p 7p 8p" for a 9p
taken to 7p 8p); a player reads a chow in order, so the page shows it sorted with the claimed
tile raised (a new player took "9 7 8" for a mistake). Pongs and kongs are drawn as stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser
STATIC = Path(__file__).resolve().parents[1] / "src" / "caishen" / "server" / "static"


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    pg = browser.new_page()
    scripts = "".join(f"<script>{(STATIC / name).read_text(encoding='utf-8')}</script>" for name in ("common.js", "board.js"))
    pg.route("https://caishen.test/**", lambda route: route.fulfill(
        status=200, content_type="text/html", body=f"<!doctype html><meta charset=utf-8><body>{scripts}"))
    pg.goto("https://caishen.test/melds.html")
    yield pg
    pg.close()


DRAWN = """(m) => [...meldEl(m).querySelectorAll('.tile')].map((e) => e.dataset.tile + (e.classList.contains('claimed') ? '*' : ''))"""


@pytest.mark.parametrize(("meld", "shown"), [
    ({"kind": "chow", "tiles": ["9p", "7p", "8p"]}, ["7p", "8p", "9p*"]),
    ({"kind": "chow", "tiles": ["4s", "3s", "5s"]}, ["3s", "4s*", "5s"]),
    ({"kind": "chow", "tiles": ["1m", "2m", "3m"]}, ["1m*", "2m", "3m"]),
    ({"kind": "pong", "tiles": ["4z", "4z", "4z"]}, ["4z", "4z", "4z"]),
    ({"kind": "concealed_kong", "tiles": ["back", "back", "back", "back"]}, ["back"] * 4),
])
def test_a_chow_is_drawn_in_order_with_the_claimed_tile_raised(page: Any, meld: dict[str, Any], shown: list[str]) -> None:
    assert page.evaluate(DRAWN, meld) == shown


HAND = """(text) => [...handEl(text).querySelectorAll('.tile')].map((e) => e.dataset.tile + (e.classList.contains('claimed') ? '*' : ''))"""


def test_a_hand_in_notation_draws_its_chows_in_order_too(page: Any) -> None:
    """The score table's hands and scored sets are notation (docs/notation.md: ``{312p}`` a chow
    of 1-2-3 dots made by claiming the 3): the same order and mark as the table's melds."""
    assert page.evaluate(HAND, "132m {312p} [555z]") == ["1m", "3m", "2m", "1p", "2p", "3p*", "5z", "5z", "5z"]
