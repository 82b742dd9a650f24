"""A table page whose connection drops comes back without a reload (issue 28 item 6): its new
connection says the last hand and step it had (``?since=H:S``), it is told the moves it
missed as events (it plays them), and it ends at the same state as a page that stayed.

One person with the table open in two windows: the desktop plays on while the phone's
connection is down."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright import sync_api as playwright_api

from helpers_browser import WAIT_MS, bots_room, to_my_discard
from helpers_server import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

MINE = ".myhand .tile.can"


def _state(page: playwright_api.Page) -> str:
    return str(page.evaluate("document.body.dataset.state || ''"))


def test_a_dropped_page_is_told_what_it_missed_and_catches_up(tmp_path: Path,
                                                               browser: playwright_api.Browser) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path / 'centre.sqlite3'}").start()
    desk_ctx = browser.new_context(viewport={"width": 1000, "height": 800}, locale="en-US")
    phone_ctx = None
    try:
        desk = desk_ctx.new_page()
        desk.set_default_timeout(WAIT_MS)  # a busy machine: bounds, not timings
        code = bots_room(desk, server.base)
        desk.goto(f"{server.base}/r/{code}")
        to_my_discard(desk)
        # the same person's phone opens the table too, and is asked the same
        phone_ctx = browser.new_context(storage_state=desk_ctx.storage_state(), viewport={"width": 390, "height": 844},
                                        locale="en-US")
        phone = phone_ctx.new_page()
        phone.set_default_timeout(WAIT_MS)
        sockets: list[str] = []
        phone.on("websocket", lambda ws: sockets.append(ws.url))
        phone.goto(f"{server.base}/r/{code}")
        phone.wait_for_function("s => document.body.dataset.state === s", arg=_state(desk), timeout=WAIT_MS)
        # the phone's connection goes down, and stays down while the desktop plays on
        phone.evaluate("WS.onclose = null; WS.close()")
        heard = phone.evaluate("PLAY.arrived.length")
        hurried = phone.evaluate("PLAY.hurried")
        old = _state(desk)
        desk.locator(MINE).last.click()
        desk.wait_for_function("old => document.body.dataset.state !== old", arg=old, timeout=WAIT_MS)
        to_my_discard(desk)
        now = _state(desk)
        assert phone.evaluate("PLAY.arrived.length") == heard  # nothing reached the phone meanwhile
        # back (as after a lost signal): the moves it missed come first, then the present state
        phone.evaluate("connect()")
        phone.wait_for_function("s => document.body.dataset.state === s", arg=now, timeout=WAIT_MS)
        assert len(sockets) == 2 and "since=" not in sockets[0]
        hand, step = old.split(":")[:2]
        assert sockets[1].endswith(f"&since={hand}:{step}")  # the last state the phone had
        assert phone.evaluate("PLAY.arrived.length") > heard  # at least the desktop's discard, as an event
        # ... each played at once, without its animation (one by one they took 5-10 s of a
        # turn on a phone), and the page is no longer catching up
        assert phone.evaluate("PLAY.hurried") - hurried == phone.evaluate("PLAY.arrived.length") - heard
        assert phone.evaluate("PLAY.catchingUp") is False
        assert not phone.evaluate("document.body.dataset.toast || ''")  # not away: no word of a stand-in
        assert phone.locator(MINE).count() > 0  # and the phone may move
    finally:
        if phone_ctx is not None:
            phone_ctx.close()
        desk_ctx.close()
        server.stop()
