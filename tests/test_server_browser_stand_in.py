"""托管 in the browser (issue 30, "Table manners"): a friend on a phone drops out of a room with a
turn timer; once the friend's time runs out the host's page shows the friend's seat played by
the stand-in, which (the room's default policy) only draws and discards: every move it makes
for that seat, read from the server's database, is a discard or a pass. The friend comes back
on the same phone: the page offers "我回来了" (I'm back) and one click ends 托管 on every page."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

from helpers_browser import (  # noqa: E402
    WAIT_MS,
    lobby_page,
    next_hand,
    play_one,
    score_shown,
    seat_friend,
    state,
    take_name,
)

Page = playwright_api.Page
TURN_SECONDS = 15  # the friend's time to run out; the host clicks well within it


@pytest.fixture(scope="module")
def centre(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Path]]:
    db = tmp_path_factory.mktemp("standin") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}").start()
    yield s, db
    s.stop()


def _stand_in_moves(db: Path, code: str, seat: int) -> list[str]:
    """The moves the server made for ``seat`` (signed "server": the stand-in's)."""
    with sqlite3.connect(db, timeout=30) as conn:
        rows = conn.execute("SELECT action FROM moves WHERE room = ? AND seat = ? AND sig = 'server' ORDER BY hand, seq",
                            (code, seat)).fetchall()
    return [r[0] for r in rows]


def _host_plays_until(page: Page, done: object, what: str) -> None:
    """The host clicks his moves (and starts each next hand) until ``done()`` holds."""
    deadline = time.monotonic() + 300
    while not done():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what}: not within 300 s"
        if score_shown(page):
            next_hand(page)
            continue
        old = state(page)
        if not play_one(page, wait=False):
            try:
                page.wait_for_function("old => (document.body.dataset.state || '') !== old", arg=old, timeout=2000)
            except playwright_api.TimeoutError:
                pass  # nothing new on the host's page: look at done() again


def test_a_friend_who_drops_is_played_for_draws_and_discards_only_until_back(
        centre: tuple[ServerProcess, Path], browser: object) -> None:
    server, db = centre
    a = lobby_page(browser, server.base, "desktop", "en")  # type: ignore[arg-type]
    take_name(a, "Host")
    a.select_option("#friends", "1")
    a.fill("#timer", str(TURN_SECONDS))
    assert a.locator("[data-testid=stand-in]").input_value() == "discard"  # the default
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    link, code = a.url, a.url.rsplit("/", 1)[1]
    b = lobby_page(browser, server.base, "phone", "zh")  # type: ignore[arg-type]
    b.goto(link)
    assert "托管（离线或超时时）: 只摸打" in b.locator("[data-testid=room-rules]").inner_text()
    b.fill("#joinname", "Friend")
    b.click("[data-testid=take-seat]")
    b.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    seat = int(a.evaluate("VIEW.seats.find((s) => s.name === 'Friend').seat"))
    phone = b.context
    b.close()  # the friend drops (the phone keeps its cookie)

    away = f".seat[data-seat='{seat}'] .pill.away"
    _host_plays_until(a, lambda: a.locator(away).count() > 0 and len(_stand_in_moves(db, code, seat)) >= 3,
                      "the stand-in's first moves")
    moves = _stand_in_moves(db, code, seat)
    assert all(m.startswith("discard") or m == "pass" for m in moves), moves  # no claim, kong or win

    # back on the same phone: the page says who plays, and one click takes the seat back
    b = phone.new_page()
    b.goto(link)
    b.wait_for_selector(".actions button:has-text('我回来了')", timeout=WAIT_MS)
    b.click(".actions button:has-text('我回来了')")
    b.wait_for_selector(".actions button:has-text('我回来了')", state="detached", timeout=WAIT_MS)
    # the host's page hears of it with its next state: while a claim of the friend's is being
    # decided it is sent none (docs/server.md, "What the timing tells"), so both play on
    deadline = time.monotonic() + 300
    while a.locator(away).count():
        assert time.monotonic() < deadline, "the host's page still shows the stand-in after 300 s"
        for page in (b, a):
            if score_shown(page):  # each says "next" (the next hand waits for both)
                if page.locator("[data-testid=next-hand]:enabled").count():
                    page.click("[data-testid=next-hand]")
            else:
                play_one(page, wait=False)
        a.wait_for_timeout(200)  # a look at both pages every 0.2 s (polling, not timing a behaviour)
    moves = _stand_in_moves(db, code, seat)
    assert all(m.startswith("discard") or m == "pass" for m in moves), moves
    for ctx in (a.context, phone):
        ctx.close()


def test_a_page_back_after_its_connection_dropped_says_what_the_stand_in_did(
        centre: tuple[ServerProcess, Path], browser: object) -> None:
    """The same page, its connection lost a while (not reloaded): the moves missed are played
    at once, and the page says the stand-in played for the seat (how many moves, when the hand
    is the one the page had), in its language."""
    server, db = centre
    a = lobby_page(browser, server.base, "desktop", "en")  # type: ignore[arg-type]
    take_name(a, "Host2")
    a.select_option("#friends", "1")
    a.fill("#timer", str(TURN_SECONDS))
    a.click("#roomform button[type=submit]")
    a.wait_for_url("**/r/*")
    link, code = a.url, a.url.rsplit("/", 1)[1]
    b = lobby_page(browser, server.base, "phone", "zh")  # type: ignore[arg-type]
    seat_friend(a, b, link, "Friend2")
    seat = int(a.evaluate("VIEW.seats.find((s) => s.name === 'Friend2').seat"))
    b.evaluate("WS.onclose = null; WS.close()")  # the signal goes; the page stays open
    hurried = b.evaluate("PLAY.hurried")
    away = f".seat[data-seat='{seat}'] .pill.away"
    _host_plays_until(a, lambda: a.locator(away).count() > 0 and len(_stand_in_moves(db, code, seat)) >= 2,
                      "the stand-in's first moves")
    b.evaluate("connect()")  # the signal is back
    b.wait_for_function("() => (document.body.dataset.toast || '').includes('托管')", timeout=WAIT_MS)
    said = b.evaluate("document.body.dataset.toast")
    assert said.startswith(("你不在时托管替你走了 ", "你不在时由托管代打；")), said
    assert said.endswith("点“我回来了”或自己出牌即结束托管"), said
    if said.startswith("你不在时托管替你走了 "):
        assert int(said.split(" ")[1]) >= 1
    assert b.evaluate("PLAY.hurried") > hurried and b.evaluate("PLAY.catchingUp") is False
    b.wait_for_selector(".actions button:has-text('我回来了')", timeout=WAIT_MS)
    for ctx in (a.context, b.context):
        ctx.close()
