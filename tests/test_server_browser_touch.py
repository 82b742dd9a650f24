"""A touch screen's table (a player on a phone): a tap on a tile picks it (raised), a second tap
on the same tile discards it; a tap on another tile moves the pick. A phone's tiles are some
20 px wide, edge to edge: with one tap to discard, a tap a little off threw a neighbour away
(a new player's review, 2026-12-06). A mouse still discards with one click (every other
browser test plays so)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

from helpers_browser import SIZES, WAIT_MS, bots_room, to_my_discard, watch_errors  # noqa: E402

MINE = ".myhand .tile.can"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(f"sqlite:///{tmp_path_factory.mktemp('touch') / 'centre.sqlite3'}").start()
    yield s
    s.stop()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_on_a_touch_screen_a_tap_picks_a_tile_and_a_second_tap_discards_it(
        server: ServerProcess, browser: object, lang: str) -> None:
    ctx = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True,  # type: ignore[attr-defined]
                              device_scale_factor=2)
    page = ctx.new_page()
    watch_errors(page)
    page.set_default_timeout(WAIT_MS)
    page.goto(server.base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    code = bots_room(page, server.base)
    sent: list[dict[str, object]] = []  # the moves the page sends
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(json.loads(f)) if '"act"' in f else None))
    page.goto(f"{server.base}/r/{code}")
    to_my_discard(page)
    assert page.evaluate("TAP_TWICE") is True
    hint = "点一张牌选中，再点一次打出" if lang == "zh" else "Tap a tile to pick it, tap it again to discard"
    assert hint in page.locator("#actions").inner_text()
    before_hand = page.locator(".myhand .tile").count()
    state = page.evaluate("document.body.dataset.state")
    acts = len(sent)
    page.locator(MINE).first.tap()
    page.wait_for_selector(".myhand .tile.picked", timeout=WAIT_MS)
    first = page.locator(".myhand .tile.picked").get_attribute("data-index")
    page.locator(MINE).last.tap()  # another tile: the pick moves, nothing is sent
    page.wait_for_function("i => document.querySelector('.myhand .tile.picked').dataset.index !== i", arg=first)
    assert page.locator(".myhand .tile.picked").count() == 1
    assert page.evaluate("document.body.dataset.state") == state  # no move made
    assert len(sent) == acts and page.locator(".myhand .tile").count() == before_hand
    picked = page.locator(".myhand .tile.picked")
    tile = picked.get_attribute("data-tile")
    picked.tap()  # the same tile again: discarded
    page.wait_for_function("s => document.body.dataset.state !== s", arg=state)
    assert [m["action"] for m in sent[acts:]] == [f"discard {tile}"]  # that tile, once
    ctx.close()
