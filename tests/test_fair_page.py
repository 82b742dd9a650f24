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


EVERY_FAIR_TEXT = """document.addEventListener('DOMContentLoaded', () => {
  const el = document.getElementById('fairline');
  window.fairFromStart = [];
  if (el) new MutationObserver(() => window.fairFromStart.push(el.textContent)).observe(el, {childList: true, characterData: true, subtree: true});
});"""


def _in_english(zh: str) -> str:
    """The fairness line's English for a Chinese one (a hand's value mixed in, or taken)."""
    mixed = re.fullmatch(r"第(\d+)局：你的随机数已混入牌墙：([0-9a-f]{64})", zh)
    if mixed:
        return f"Hand {mixed[1]}: your randomness was mixed in: {mixed[2]}"
    taken = re.fullmatch(r"第(\d+)局：桌上已收到你的随机数 ([0-9a-f]{64})，发牌时混入", zh)
    assert taken, zh
    return f"Hand {taken[1]}: the table has your randomness {taken[2]}; the wall will mix it in"


def test_the_page_contributes_and_says_its_randomness_was_mixed_in(server: ServerProcess, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1000, "height": 800}, locale="zh-CN")
    page = ctx.new_page()
    # every text the line shows, from the page's start: the bots may end hand 1 before the
    # person's first turn, and hand 2's window then follows the "hand 1" line at once (seen in
    # a CI run: the line already said 第2局 when it was read)
    page.add_init_script(EVERY_FAIR_TEXT)
    code = bots_room(page, server.base)
    page.goto(server.base + f"/r/{code}")
    page.wait_for_selector("[data-testid=myhand] .tile")
    page.wait_for_function("window.fairFromStart.some((x) => x.startsWith('第1局：你的随机数已混入牌墙'))")
    mine = page.evaluate(f"localStorage.getItem('caishen.contribution.{code}.0')")
    assert re.fullmatch("[0-9a-f]{64}", mine)
    shown = page.evaluate("window.fairFromStart.filter((x) => x.startsWith('第1局：你的随机数已混入牌墙'))")
    assert set(shown) == {f"第1局：你的随机数已混入牌墙：{mine}"}
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.locator("#fairline").screenshot(path=str(Path(SHOTS) / "fair-line.png"))
    # English, at once: the bar's buttons and the lines under the table too (the line read and
    # the switch pressed in one task, so that no message comes between them)
    before, after = page.evaluate("""() => { const el = document.getElementById('fairline'), was = el.textContent;
        document.querySelector('button.lang').click(); return [was, el.textContent]; }""")
    assert after == _in_english(before)
    assert page.locator("[data-testid=say]").inner_text() == "Say"
    assert page.locator("[data-testid=vote]").inner_text() == "Vote"
    assert page.locator("[data-testid=keyline]").inner_text().startswith(("Your move key", "This browser cannot sign"))
    page.reload()
    # the same value after a reload, for whichever hand the table is at: this page's own
    again = page.wait_for_function(f"""() => {{ const m = /^Hand (\\d+): (?:your randomness was mixed in: |the table has your randomness )([0-9a-f]{{64}})/
        .exec(document.getElementById('fairline').textContent);
        return m && m[2] === localStorage.getItem('caishen.contribution.{code}.' + (Number(m[1]) - 1)) ? m[1] : null; }}""")
    assert int(again.json_value()) >= 1

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
    # (hand 2, or a later one if the bots ended hand 2 before the person's first turn)
    page2.wait_for_function("/^Hand \\d+: your randomness came from/.test(document.getElementById('fairline').textContent)")
    text2 = page2.locator("[data-testid=fairline]").inner_text()
    hand = re.match(r"Hand (\d+)", text2)
    assert hand is not None
    n = int(hand[1])
    value = second if n == 2 else page.evaluate(f"localStorage.getItem('caishen.contribution.{code}.{n - 1}')")
    assert n >= 2 and text2 == f"Hand {n}: your randomness came from your page elsewhere (nothing here to compare it with): {value}"
    other.close()
    ctx.close()

    rec = json.loads(httpx.get(server.base + f"/api/matches/{code}/record", timeout=60).text)
    h = rec["hands"][0]
    seat = h["seats"].index(0)
    assert h["contributions"] == [mine if s == seat else "bot" for s in range(4)]
    assert h["timeline"] == ["commit", f"contribute {seat}", "deal", "reveal"]
