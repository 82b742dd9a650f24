"""The same-address warning in the browser (issue 30, "Table manners": "when two players of a
room connect from the same IP address, every player is told, and the host can remove a
seat"). The centre runs on this machine, as behind a proxy here: each browser says its address
in ``X-Forwarded-For`` (uvicorn believes it from a loopback peer). The host (desktop, Chinese)
and a friend (phone, English) share an address: both are warned, only the host's banner offers
to remove the friend; the host confirms, the friend's page says so and does not come back, and
a bot plays the seat. With ``CAISHEN_SCREENSHOTS=docs/screenshots``: remove-seat.png."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

from helpers_browser import WAIT_MS, lobby_page  # noqa: E402 - needs playwright

SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")
HOME = {"X-Forwarded-For": "198.51.100.7"}  # a documentation address (RFC 5737)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("sameaddr") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}").start()
    yield s
    s.stop()


def test_the_host_removes_a_friend_at_the_same_address(server: ServerProcess, browser: object) -> None:
    a = lobby_page(browser, server.base, "desktop", "zh", HOME)  # type: ignore[arg-type]
    a.fill("#name", "房主")
    a.click("#nameform button")
    a.select_option("#friends", "1")
    a.fill("#timer", "0")
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    link = a.url
    b = lobby_page(browser, server.base, "phone", "en", HOME)  # type: ignore[arg-type]
    b.goto(link)
    b.fill("#joinname", "Twin <b>")
    b.click("[data-testid=take-seat]")
    b.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)

    # both are warned; only the host may remove, and only the other person
    b.wait_for_selector("[data-testid=same-address]", timeout=WAIT_MS)
    a.wait_for_selector("[data-testid=same-address]", timeout=WAIT_MS)
    assert "房主, Twin <b>" in b.inner_text("[data-testid=same-address]")
    assert b.locator("[data-testid=remove-seat]").count() == 0
    assert a.locator("[data-testid=remove-seat]").count() == 1
    assert a.inner_text("[data-testid=remove-seat]") == "请 Twin <b> 离桌"
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        a.screenshot(path=str(Path(SHOTS) / "remove-seat.png"))
    asked: list[str] = []
    a.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    a.click("[data-testid=remove-seat]")
    # the friend's page goes back to the room's page, which says why, and stays there
    b.wait_for_selector("[data-testid=removed-you]", timeout=WAIT_MS)
    assert b.inner_text("[data-testid=removed-you]") == (
        "The host removed you from this table: a bot plays your seat to the end of the match.")
    assert b.locator("[data-testid=myhand]").count() == 0 or b.locator("[data-testid=myhand] .tile").count() == 0
    assert asked == ["请 Twin <b> 离开本桌？其座位由机器人打到比赛结束，且不能再回来。"]
    a.wait_for_function("() => !document.querySelector('[data-testid=same-address]')", timeout=WAIT_MS)
    assert a.locator("[data-testid=myhand] .tile").count() >= 13  # the host plays on
    if SHOTS:
        b.screenshot(path=str(Path(SHOTS) / "removed-phone.png"))
    for ctx in (a.context, b.context):
        ctx.close()
