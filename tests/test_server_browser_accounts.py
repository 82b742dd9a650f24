"""Browser test of accounts (issue 30, item 1), desktop and phone, Chinese and English: a
guest with a match claims an account on the account page, logs out, logs in from a second
browser context and sees the match in "my matches"; the name (with HTML in it) stays text.

Run it on its own: ``python3 -m pytest -m browser tests/test_server_browser_accounts.py``.
With ``CAISHEN_SCREENSHOTS=DIR`` it saves the account page of each size and language there
(docs/screenshots/account.png is the desktop one in Chinese).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")
Page = playwright_api.Page
from helpers_browser import lobby_page  # noqa: E402 - needs playwright

WAIT_MS = 60000  # a bound only: argon2 hashes and a busy machine
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("accounts") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}", env={"CAISHEN_PACE_SCALE": "0"}).start()
    yield s
    s.stop()


def _account_page(page: Page, base: str) -> None:
    page.goto(base + "/account")
    page.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)


def _shot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name), full_page=True)


@pytest.mark.parametrize(("size", "lang"), [("desktop", "zh"), ("desktop", "en"), ("phone", "zh"), ("phone", "en")])
def test_sign_up_log_out_and_log_in_on_a_second_browser_to_see_the_history(
    server: ServerProcess, browser: object, size: str, lang: str,
) -> None:
    name = "<b>Ann</b>&amp;"
    login = f"ann-{size}-{lang}"
    page = lobby_page(browser, server.base, size, lang)  # type: ignore[arg-type]
    page.fill("#name", name)
    page.click("#nameform button")
    page.wait_for_function("name => document.getElementById('meline').textContent.includes(name)", arg=name)
    code = page.evaluate("fetch('/api/practice', {method: 'POST'}).then(r => r.json()).then(r => r.code)")
    page.click("[data-testid=account-link]")
    page.wait_for_selector("body[data-account=guest]", state="attached", timeout=WAIT_MS)
    assert name in page.locator("[data-testid=who]").inner_text()  # the name as typed, as text
    assert page.locator("[data-testid=who] b").count() == 0
    assert not page.locator("#claimname").is_visible()  # a guest has a name already
    _shot(page, f"account-guest-{size}-{lang}.png")
    page.fill("#claimlogin", login)
    page.fill("#claimpassword", PASSWORD)
    page.click("[data-testid=claim]")
    page.wait_for_selector("body[data-account='1']", state="attached", timeout=WAIT_MS)
    page.wait_for_selector("[data-testid=sessions] tr[data-current]", timeout=WAIT_MS)
    assert login in page.locator("[data-testid=who]").inner_text()
    assert page.locator("[data-testid=who] b").count() == 0
    if (size, lang) == ("desktop", "zh"):
        _shot(page, "account.png")
    _shot(page, f"account-{size}-{lang}.png")
    page.click("[data-testid=logout]")
    page.wait_for_selector("body[data-account=none]", state="attached", timeout=WAIT_MS)
    page.goto(server.base + "/")
    page.wait_for_selector("#matches p.muted", timeout=WAIT_MS)  # no matches: nobody here now
    page.context.close()

    other = lobby_page(browser, server.base, size, lang)  # type: ignore[arg-type]
    _account_page(other, server.base)
    other.wait_for_selector("body[data-account=none]", state="attached", timeout=WAIT_MS)
    other.fill("#loginlogin", login)
    other.fill("#loginpassword", "not the password")
    other.click("[data-testid=login]")
    error = other.locator("[data-testid=login-error]")
    error.wait_for(timeout=WAIT_MS)
    other.wait_for_function("() => document.querySelector('[data-testid=login-error]').textContent !== ''",
                            timeout=WAIT_MS)
    assert error.inner_text() == ("登录名或密码错误" if lang == "zh" else "Wrong login name or password")
    other.fill("#loginlogin", login.upper())
    other.fill("#loginpassword", PASSWORD)
    other.click("[data-testid=login]")
    other.wait_for_selector("body[data-account='1']", state="attached", timeout=WAIT_MS)
    other.goto(server.base + "/")
    other.wait_for_selector(f"#matches a[href='/r/{code}']", timeout=WAIT_MS)  # the history, on this browser
    assert other.locator("#meline").inner_text().endswith(name)
    other.context.close()


@pytest.mark.parametrize(("size", "lang"), [("phone", "zh"), ("desktop", "en")])
def test_deleting_the_account_says_so_on_the_page_in_its_language(
    server: ServerProcess, browser: object, size: str, lang: str,
) -> None:
    """The account page used to go to the lobby without a word once the account was deleted:
    it now stays and says what happened, also after a switch of language."""
    login = f"del-{size}-{lang}"
    page = lobby_page(browser, server.base, size, lang)  # type: ignore[arg-type]
    page.fill("#name", "Dee")
    page.click("#nameform button")
    page.wait_for_function("() => document.getElementById('meline').textContent.includes('Dee')")
    _account_page(page, server.base)
    page.wait_for_selector("body[data-account=guest]", state="attached", timeout=WAIT_MS)
    page.fill("#claimlogin", login)
    page.fill("#claimpassword", PASSWORD)
    page.click("[data-testid=claim]")
    page.wait_for_selector("body[data-account='1']", state="attached", timeout=WAIT_MS)
    page.on("dialog", lambda d: d.accept())
    page.fill("#deletepassword", PASSWORD)
    page.click("[data-testid=delete]")
    page.wait_for_selector("body[data-account=none]", state="attached", timeout=WAIT_MS)
    assert page.url.endswith("/account")
    zh = "账户已删除：登录名和密码已不存在，每台设备都已退出。对局仍保留，名字显示为“已删除玩家”。"
    en = ("Your account is deleted: its login and password are gone, and every device is signed out. "
          "Your matches stay, under \u201cdeleted player\u201d.")
    note = page.locator("#whonote")
    assert note.inner_text() == (zh if lang == "zh" else en)
    assert note.is_visible() and page.locator("#logincard").is_visible()
    _shot(page, f"account-deleted-{size}-{lang}.png")
    page.click("#langslot button")  # the other language: said again in it
    page.wait_for_function("want => document.getElementById('whonote').textContent === want",
                           arg=en if lang == "zh" else zh, timeout=WAIT_MS)
    page.context.close()
