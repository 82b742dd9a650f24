"""Issue 29 item 2 in the browser: the table page sends its own randomness (32 bytes from
``crypto.getRandomValues``) once a hand's commitment is out, says "your randomness was mixed
in" with its value (in Chinese and in English), and the record of the hand holds that value.

Run with the browser tests: ``python3 -m pytest -m browser tests/test_fair_page.py``; with
``CAISHEN_SCREENSHOTS=docs/screenshots`` it saves the table's line (``fair-line.png``)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
from helpers_browser import bots_room, next_hand, play_hand  # noqa: E402 - needs Playwright

SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("fairpage") / "centre.sqlite3"
    # a long window: the hand is dealt because the page contributed, not because time ran out
    s = ServerProcess(f"sqlite:///{db}", env={"CAISHEN_PACE_SCALE": "0", "CAISHEN_CONTRIBUTE_SECONDS": "60"}).start()
    yield s
    s.stop()


def test_the_page_contributes_and_says_its_randomness_was_mixed_in(server: ServerProcess, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1000, "height": 800}, locale="zh-CN")
    page = ctx.new_page()
    code = bots_room(page, server.base)
    page.goto(server.base + f"/r/{code}")
    page.wait_for_selector("[data-testid=myhand] .tile")
    line = page.locator("[data-testid=fairline]")
    page.wait_for_function("document.getElementById('fairline').className.includes('pos')")
    mine = page.evaluate(f"localStorage.getItem('caishen.contribution.{code}.0')")
    assert re.fullmatch("[0-9a-f]{64}", mine)
    assert line.inner_text() == f"第1局：你的随机数已混入牌墙：{mine}"
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.locator("#fairline").screenshot(path=str(Path(SHOTS) / "fair-line.png"))
    page.click("button.lang")  # English, at once: the bar's buttons and the lines under the table too
    assert line.inner_text() == f"Hand 1: your randomness was mixed in: {mine}"
    assert page.locator("[data-testid=say]").inner_text() == "Say"
    assert page.locator("[data-testid=vote]").inner_text() == "Vote"
    assert page.locator("[data-testid=keyline]").inner_text().startswith(("Your move key", "This browser cannot sign"))
    page.reload()
    page.wait_for_function("document.getElementById('fairline').className.includes('pos')")
    assert line.inner_text() == f"Hand 1: your randomness was mixed in: {mine}"  # the same value after a reload

    play_hand(page)
    # the score table leaves the bar in reach (it covered it: no vote to dismiss between hands):
    # the vote's panel opens under its button, and the button closes it again
    vote, panel = page.locator("[data-testid=vote]"), page.locator("[data-testid=votepanel]")
    vote.click()
    assert panel.is_visible()
    button_box, panel_box = vote.bounding_box(), panel.bounding_box()
    assert button_box is not None and panel_box is not None
    assert panel_box["y"] >= button_box["y"] + button_box["height"]
    vote.click()
    assert panel.is_hidden()
    # hand 2's window opened as hand 1 ended: the page has sent its value for it already
    page.wait_for_function(f"localStorage.getItem('caishen.contribution.{code}.1') !== null")
    second = page.evaluate(f"localStorage.getItem('caishen.contribution.{code}.1')")
    # every text the line shows from now on: the bots may end hand 2 before the person's
    # first turn, and hand 3's window then follows the "Hand 2" line at once (a browser run
    # waited for that line until its time limit)
    page.evaluate("""() => { const el = document.getElementById('fairline'); window.fairTexts = [];
        new MutationObserver(() => window.fairTexts.push(el.textContent)).observe(el, {childList: true, characterData: true, subtree: true}); }""")
    next_hand(page)
    page.wait_for_function("window.fairTexts.some((x) => x.startsWith('Hand 2: your randomness was mixed in'))",
                           timeout=60000)
    shown = page.evaluate("window.fairTexts.filter((x) => x.startsWith('Hand 2: your randomness was mixed in'))")
    assert set(shown) == {f"Hand 2: your randomness was mixed in: {second}"}
    # the same person in another browser (its own storage): told where the value came from,
    # not that the table holds a value other than its own (a tryout found that alarm)
    other = browser.new_context(viewport={"width": 1000, "height": 800})
    other.add_cookies(ctx.cookies())
    page2 = other.new_page()
    page2.goto(server.base + "/")
    page2.evaluate("localStorage.setItem('caishen.lang', 'en')")
    page2.goto(server.base + f"/r/{code}")
    page2.wait_for_function("document.getElementById('fairline').textContent.startsWith('Hand 2')")
    assert page2.locator("[data-testid=fairline]").inner_text() == (
        f"Hand 2: your randomness came from your page elsewhere (nothing here to compare it with): {second}")
    other.close()
    ctx.close()

    rec = json.loads(httpx.get(server.base + f"/api/matches/{code}/record", timeout=60).text)
    h = rec["hands"][0]
    seat = h["seats"].index(0)
    assert h["contributions"] == [mine if s == seat else "bot" for s in range(4)]
    assert h["timeline"] == ["commit", f"contribute {seat}", "deal", "reveal"]
