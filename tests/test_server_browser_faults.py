"""The table page while the database is away (issue 26), in Chinese and in English: a move
clicked during the outage is not shown as made, the page says "connection to storage lost,
retrying" in its language, and when the database is back the banner goes and the move can be
made. SQLite, another writer holding the file's lock past the busy timeout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright import sync_api as playwright_api

from helpers_browser import to_my_discard
from helpers_faults import SqliteLock
from helpers_server import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")


@pytest.mark.parametrize(("lang", "text"), [("zh", "与存储的连接中断，正在重试……"),
                                            ("en", "Connection to storage lost, retrying…")])
def test_the_page_says_storage_is_lost_and_resumes(lang: str, text: str, tmp_path: Path,
                                                    browser: playwright_api.Browser) -> None:
    path = tmp_path / "centre.sqlite3"
    server = ServerProcess(f"sqlite:///{path}").start()
    lock = SqliteLock(str(path))
    ctx = browser.new_context(viewport={"width": 1000, "height": 800}, locale="zh-CN" if lang == "zh" else "en-US")
    try:
        page = ctx.new_page()
        page.set_default_timeout(60000)  # a busy machine: bounds, not timings
        page.goto(server.base + "/")
        page.evaluate(f"localStorage.setItem('caishen.lang', '{lang}')")
        page.reload()
        page.wait_for_selector("body[data-ready]")  # the lobby's handlers are in
        page.fill("#name", "Lin")
        page.click("#nameform button")
        page.wait_for_function("document.getElementById('meline').textContent.includes('Lin')", timeout=60000)
        page.click("#practice")
        to_my_discard(page)
        before = page.evaluate("document.body.dataset.state")
        lock.cut()
        page.locator(".myhand .tile.can").last.click()
        banner = page.locator("[data-testid=storage-lost]")
        banner.wait_for(timeout=60000)
        assert banner.inner_text() == text
        assert page.evaluate("document.body.dataset.state") == before  # the move is not shown as made
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / f"storage-lost-{lang}.png"))
        lock.heal()
        banner.wait_for(state="detached", timeout=60000)
        assert page.evaluate("document.body.dataset.state") == before  # back at the last stored move
        page.locator(".myhand .tile.can").last.click()
        page.wait_for_function("old => document.body.dataset.state !== old", arg=before, timeout=60000)
    finally:
        if lock.conn is not None:
            lock.heal()
        ctx.close()
        server.stop()
