"""Votes in the browser (issue 30, "Table manners"; docs/server.md "Votes"): two people at a
friends table, one on a desktop and one on a phone, each page in its own language (both ways
round). The host asks to dismiss the room; the friend's page shows the question with Yes and
No and the seconds left; the friend says no and both pages say the vote failed. The host asks
again (the server is started with no cooldown), the friend says yes, and both pages show the
match over, "dismissed by vote" (投票解散), and so does the result page. With
``CAISHEN_SCREENSHOTS=docs/screenshots`` the open vote is saved on the desktop (vote.png) and
on the phone (vote-phone.png).

The pause too: shown on both pages with the time left and "Resume", until resumed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

from helpers_browser import WAIT_MS, lobby_page, take_name  # noqa: E402 - needs playwright

Page = playwright_api.Page
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")

TEXT = {
    "zh": {"asks": "{0}申请解散房间", "failed": "投票未通过", "yes": "同意", "no": "拒绝",
           "over": "比赛结束", "ended": "投票解散：比赛在打完0局后结束（未打完的一局不计）"},
    "en": {"asks": "{0} asks to dismiss the room", "failed": "The vote failed",
           "yes": "Yes", "no": "No", "over": "Match over",
           "ended": "Dismissed by vote after 0 finished hands (the hand in play is not scored)"},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("votes") / "centre.sqlite3"
    # no cooldown between votes: the second vote follows the first at once
    s = ServerProcess(f"sqlite:///{db}", env={"CAISHEN_VOTE_COOLDOWN_SECONDS": "0"}).start()
    yield s
    s.stop()


def _ask(page: Page) -> None:
    page.click("[data-testid=vote]")
    page.click("[data-testid=votepanel] [data-testid=vote-dismiss]")


def _outcome(page: Page, outcome: str) -> str:
    sel = f"[data-testid=vote-outcome][data-outcome={outcome}]"
    page.wait_for_selector(sel, timeout=WAIT_MS)
    return page.locator(sel).inner_text()


@pytest.mark.parametrize(("host", "friend"), [(("zh", "desktop"), ("en", "phone")), (("en", "phone"), ("zh", "desktop"))],
                         ids=["host-zh-desktop", "host-en-phone"])
def test_a_dismiss_vote_fails_on_a_no_and_passes_on_yes(server: ServerProcess, browser: object,
                                                        host: tuple[str, str], friend: tuple[str, str]) -> None:
    a = lobby_page(browser, server.base, host[1], host[0])  # type: ignore[arg-type]
    take_name(a, "东家")
    a.select_option("#friends", "1")
    a.fill("#timer", "0")
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    code = a.url.rsplit("/", 1)[1]
    b = lobby_page(browser, server.base, friend[1], friend[0])  # type: ignore[arg-type]
    b.goto(a.url)
    b.fill("#joinname", "Friend")
    b.click("[data-testid=take-seat]")
    b.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)  # the waiting page looks every 2 s
    ta, tb = TEXT[host[0]], TEXT[friend[0]]

    # the first vote: the friend says no
    _ask(a)
    b.wait_for_selector("[data-testid=vote-yes]", timeout=WAIT_MS)
    assert b.locator("[data-testid=vote-box] b").inner_text() == tb["asks"].format("东家")
    assert b.locator("[data-testid=vote-yes]").inner_text() == tb["yes"]
    assert b.locator("[data-testid=vote-no]").inner_text() == tb["no"]
    b.wait_for_function("() => /\\d/.test(document.querySelector('[data-testid=vote-timer]').textContent)")
    a.wait_for_selector("[data-testid=vote-timer]", timeout=WAIT_MS)
    assert a.locator("[data-testid=vote-yes]").count() == 0  # the one who asked has said yes
    assert a.locator("[data-testid=vote-box] [data-answer=yes]").count() == 1
    if SHOTS:  # the friend's page, asked: vote.png on the desktop (zh), vote-phone.png on the phone (en)
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        b.screenshot(path=str(Path(SHOTS) / ("vote-phone.png" if friend[1] == "phone" else "vote.png")))
    b.click("[data-testid=vote-no]")
    assert _outcome(a, "failed") == ta["failed"]
    assert _outcome(b, "failed") == tb["failed"]
    assert b.locator("[data-testid=vote-box] [data-answer=no]").count() == 1
    status = a.request.get(server.base + f"/api/rooms/{code}").json()["status"]
    assert status == "playing"
    assert a.locator("[data-testid=match-end]").count() == 0  # (a bot may have won the hand meanwhile: its score may show)

    # the second: yes
    _ask(a)
    b.wait_for_selector("[data-testid=vote-box][data-vote='1'] [data-testid=vote-yes]", timeout=WAIT_MS)
    b.click("[data-testid=vote-yes]")
    # the match is over on both pages: the end of match panel says why (the banner goes with it)
    for page, words in ((a, ta), (b, tb)):
        page.wait_for_selector("[data-testid=match-end]", timeout=WAIT_MS)
        # the match's heading first; the last hand's score follows it if that hand had ended
        # before the vote passed (a bot's win, or the friend's timer: a CI run's did)
        assert page.locator(".overlay h2").first.inner_text() == words["over"]
        assert page.locator("[data-testid=match-end]").inner_text() == words["ended"]
        assert page.locator("[data-testid=vote]").is_hidden()  # nothing left to vote on
        page.wait_for_selector("#votebanner", state="detached", timeout=WAIT_MS)
    if SHOTS and host[1] == "desktop":
        a.screenshot(path=str(Path(SHOTS) / "vote-dismissed.png"))
    assert a.request.get(server.base + f"/api/rooms/{code}").json()["status"] == "over"
    # the result page says so too, in each page's language
    for page, words in ((a, ta), (b, tb)):
        page.goto(server.base + f"/m/{code}")
        page.wait_for_selector("[data-testid=match-end]", timeout=WAIT_MS)
        assert page.locator("[data-testid=match-end]").inner_text() == words["ended"]
    for ctx in (a.context, b.context):
        ctx.close()


def test_a_pause_shows_on_both_pages_until_resumed(server: ServerProcess, browser: object) -> None:
    """A pause vote passed (host in English on a desktop, friend in Chinese on a phone): both
    pages show the pause with the time left and "Resume", the moves' buttons give way to "the
    game is paused"; the friend resumes it and the banner goes from both. With
    ``CAISHEN_SCREENSHOTS`` the phone is saved paused (vote-paused-phone.png)."""
    a = lobby_page(browser, server.base, "desktop", "en")  # type: ignore[arg-type]
    take_name(a, "Host")
    a.select_option("#friends", "1")
    a.fill("#timer", "0")
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    b = lobby_page(browser, server.base, "phone", "zh")  # type: ignore[arg-type]
    b.goto(a.url)
    b.fill("#joinname", "朋友")
    b.click("[data-testid=take-seat]")
    b.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)

    a.click("[data-testid=vote]")
    a.click("[data-testid=votepanel] [data-testid=vote-pause]")
    b.wait_for_selector("[data-testid=vote-yes]", timeout=WAIT_MS)
    assert b.locator("[data-testid=vote-box] b").inner_text() == "Host申请暂停游戏"
    b.click("[data-testid=vote-yes]")
    for page, words in ((a, ("Paused by vote: goes on by itself in ", "Resume", "The game is paused")),
                        (b, ("游戏已暂停（投票），", "继续游戏", "游戏暂停中"))):
        page.wait_for_selector("[data-testid=paused] [data-testid=resume]", timeout=WAIT_MS)
        page.wait_for_function("() => /\\d:\\d\\d/.test(document.querySelector('#votebanner .pausedtext').textContent)")
        assert page.locator("#votebanner .pausedtext").inner_text().startswith(words[0])
        assert page.locator("[data-testid=resume]").inner_text() == words[1]
        assert page.locator("[data-testid=paused-prompt]").inner_text() == words[2]
        assert page.locator(".actions button").count() == 0 and page.locator(".myhand .tile.can").count() == 0
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        b.screenshot(path=str(Path(SHOTS) / "vote-paused-phone.png"))
    b.click("[data-testid=resume]")
    for page in (a, b):
        page.wait_for_selector("[data-testid=paused]", state="detached", timeout=WAIT_MS)
        page.wait_for_selector("[data-testid=paused-prompt]", state="detached", timeout=WAIT_MS)
    a.wait_for_selector(".toast", timeout=WAIT_MS)
    assert "朋友 resumed the game" in a.locator(".toast").all_inner_texts()
    for ctx in (a.context, b.context):
        ctx.close()
