"""Quick phrases and stickers in the browser (issue 30, "Table manners"): a host on a desktop
page in Chinese and a friend on a phone in English; a sticker the host picks shows beside the
host's seat on the friend's page, and a phrase the friend picks shows, in Chinese, beside the
friend's seat on the host's page. With ``CAISHEN_SCREENSHOTS=docs/screenshots`` the friend's
phone is saved showing the sticker (say.png)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

from helpers_browser import WAIT_MS, lobby_page, seat_friend, take_name  # noqa: E402 - needs playwright

Page = playwright_api.Page
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")

# The words beside the seat whose name is ``name`` (its text, or a sticker's alt), read at
# once: the words stay 4 s, so the wait returns what it saw rather than looking twice.
_SAID = """([name, say]) => {
  for (const seat of document.querySelectorAll('.seat')) {
    const who = seat.querySelector('.name');
    const said = seat.querySelector('[data-testid=said]');
    const img = said ? said.querySelector('img') : null;
    if (img && !(img.complete && img.naturalWidth > 0)) continue;  // drawn, not only put in
    if (who && who.textContent === name && said && said.dataset.say === say) {
      return JSON.stringify({text: said.textContent, img: img ? img.getAttribute('src') : null,
                             loaded: img ? img.complete && img.naturalWidth > 0 : null,
                             bottom: seat.classList.contains('pos-bottom')});
    }
  }
  return false;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("say") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}").start()
    yield s
    s.stop()


def _said(page: Page, name: str, say: str) -> dict[str, object]:
    import json  # noqa: PLC0415

    got = page.wait_for_function(_SAID, arg=[name, say], timeout=WAIT_MS).json_value()
    out: dict[str, object] = json.loads(got)
    return out


def test_a_sticker_and_a_phrase_show_at_the_senders_seat(server: ServerProcess, browser: object) -> None:
    a = lobby_page(browser, server.base, "desktop", "zh")  # type: ignore[arg-type]
    take_name(a, "东家 <i>")
    a.select_option("#friends", "1")
    a.fill("#timer", "0")
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    link = a.url
    b = lobby_page(browser, server.base, "phone", "en")  # type: ignore[arg-type]
    b.goto(link)
    b.fill("#joinname", "Friend")
    b.click("[data-testid=take-seat]")
    b.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)  # the waiting page looks every 2 s

    a.click("[data-testid=say]")
    assert a.locator("[data-testid=saypanel] .phrases button").count() == 7
    assert a.locator("[data-testid=saypanel] button[data-say=hurry]").inner_text() == "快点吧，等得花儿都谢了"
    a.click("[data-testid=saypanel] button[data-say=tea]")
    assert a.locator("[data-testid=saypanel]").is_hidden()
    seen = _said(b, "东家 <i>", "tea")  # the host's name is text, not HTML
    assert seen == {"text": "", "img": "/static/stickers/tea.svg", "loaded": True, "bottom": False}
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        b.screenshot(path=str(Path(SHOTS) / "say.png"))
    assert _said(a, "东家 <i>", "tea")["bottom"] is True  # the sender sees it at their own seat

    b.click("[data-testid=say]")
    assert b.locator("[data-testid=saypanel] button[data-say=thanks]").inner_text() == "Thanks"
    b.click("[data-testid=saypanel] button[data-say=thanks]")
    assert _said(a, "Friend", "thanks") == {"text": "谢谢", "img": None, "loaded": None, "bottom": False}
    if SHOTS:
        a.screenshot(path=str(Path(SHOTS) / "say-desktop.png"))
    for ctx in (a.context, b.context):
        ctx.close()


def test_the_owner_starts_early_with_bots_of_the_level_chosen(server: ServerProcess, browser: object) -> None:
    """Start early (issue 30): the waiting room's owner picks the bots' level beside "Start
    now"; the choice survives the page's redraws while it waits, and the open seats get it."""
    a = lobby_page(browser, server.base, "phone", "en")  # type: ignore[arg-type]
    take_name(a, "Host")
    a.select_option("#friends", "2")
    a.fill("#timer", "0")
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    code = a.url.rsplit("/", 1)[1]
    a.wait_for_selector("[data-testid=start-bot]")
    a.select_option("[data-testid=start-bot]", "random")
    # the waiting room redraws every 2 s: the level chosen stays chosen
    a.wait_for_function("el => !el.isConnected", arg=a.query_selector("[data-testid=start-bot]"), timeout=WAIT_MS)
    assert a.locator("[data-testid=start-bot]").input_value() == "random"
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        a.screenshot(path=str(Path(SHOTS) / "start-early.png"))
    a.click("[data-testid=start-now]")
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    seats = a.request.get(server.base + f"/api/rooms/{code}").json()["seats"]
    assert [s["bot"] for s in seats] == [None, "random", "random", "greedy"]
    a.context.close()


def test_free_text_chat_where_the_room_allows_it_shows_as_text_and_survives_a_reload(
        server: ServerProcess, browser: object) -> None:
    """Free-text chat (a room option, off by default): the host ticks it on a phone in
    English; the friend writes markup on a desktop in Chinese; it shows as the very text,
    beside the friend's seat and in the log, and the log is there again after a reload."""
    a = lobby_page(browser, server.base, "phone", "en")  # type: ignore[arg-type]
    take_name(a, "Host")
    a.select_option("#friends", "1")
    a.fill("#timer", "0")
    a.check("[data-testid=chat]")
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    link = a.url
    b = lobby_page(browser, server.base, "desktop", "zh")  # type: ignore[arg-type]
    seat_friend(a, b, link, "朋友")

    b.click("[data-testid=say]")
    assert b.get_attribute("[data-testid=chat-input]", "placeholder") == "说点什么…"
    b.fill("[data-testid=chat-input]", "<b>胡了</b> 再来！")
    b.click("[data-testid=chat-send]")
    bubble = """(name) => { for (const seat of document.querySelectorAll('.seat')) {
        const who = seat.querySelector('.name'); const said = seat.querySelector('.said.chat');
        if (who && who.textContent === name && said) return JSON.stringify([said.textContent, said.children.length]); }
      return false; }"""
    import json  # noqa: PLC0415

    assert json.loads(a.wait_for_function(bubble, arg="朋友", timeout=WAIT_MS).json_value()) == ["<b>胡了</b> 再来！", 0]
    b.wait_for_selector("[data-testid=chatlog] li", timeout=WAIT_MS)
    assert b.inner_text("[data-testid=chatlog] li") == "朋友: <b>胡了</b> 再来！"
    assert b.locator("[data-testid=chatlog] li b").count() == 1  # the name, bold; the text no markup
    a.wait_for_function("() => document.querySelector('[data-testid=say]').textContent.includes('(1)')",
                        timeout=WAIT_MS)  # the host's panel is closed: one line unread
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        a.click("[data-testid=say]")
        a.wait_for_selector("[data-testid=chatlog] li")
        a.screenshot(path=str(Path(SHOTS) / "chat-phone.png"))
    a.reload()
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    a.wait_for_selector("[data-testid=say]:not([hidden])", timeout=WAIT_MS)
    a.click("[data-testid=say]")
    a.wait_for_selector("[data-testid=chatlog] li", timeout=WAIT_MS)
    assert a.inner_text("[data-testid=chatlog] li") == "朋友: <b>胡了</b> 再来！"
    for ctx in (a.context, b.context):
        ctx.close()
