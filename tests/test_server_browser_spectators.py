"""Spectators in the browser (观战, issue 30 item 3): a person plays a room with spectators on;
someone else opens the room's link and presses "Watch". The spectator's page shows the
"spectating" badge, the table with no hand of its own and no button to act; the player's page
lists the spectator by name (as text: a name with markup shows as typed). Both languages, on a
desktop and on a phone, each side once. With ``CAISHEN_SCREENSHOTS=docs/screenshots`` the
spectator's pages are saved (spectator.png on the desktop, spectator-phone.png on the phone)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import ServerProcess, tiles_in

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

from helpers_browser import WAIT_MS, lobby_page, next_hand, play_one, score_shown, state, take_name  # noqa: E402 - needs playwright

Page = playwright_api.Page
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")
WATCHER = "Wen <b>观</b>"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("watch") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}").start()
    yield s
    s.stop()


def _playing(browser: object, base: str, at: tuple[str, str], pace: str) -> tuple[Page, str]:
    """Ann's page at her table in a room with spectators on (three bots, no timer, ``pace``),
    in a browser of ``at`` (size, language); the room's code."""
    a = lobby_page(browser, base, *at)  # type: ignore[arg-type]
    take_name(a, "Ann")
    made = a.evaluate("""pace => fetch('/api/rooms', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({friends: 0, turn_seconds: 0, pace, spectators: true})}).then((r) => r.json())""", pace)
    code = str(made["code"])
    a.goto(f"{base}/r/{code}")
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    return a, code


@pytest.mark.parametrize(("player_at", "watcher_at"), [(("desktop", "zh"), ("phone", "en")),
                                                       (("phone", "en"), ("desktop", "zh"))])
def test_a_spectator_sees_the_table_without_a_hand_and_is_listed(
        server: ServerProcess, browser: object, player_at: tuple[str, str], watcher_at: tuple[str, str]) -> None:
    a, code = _playing(browser, server.base, player_at, "normal")

    w = lobby_page(browser, server.base, *watcher_at)  # type: ignore[arg-type]
    take_name(w, WATCHER)
    w.goto(f"{server.base}/r/{code}")
    w.click("[data-testid=watch]")
    badge = w.wait_for_selector("[data-testid=spectating]", timeout=WAIT_MS)
    assert badge is not None and badge.inner_text() == ("观战中" if watcher_at[1] == "zh" else "Spectating")
    # the player's page lists the spectator, by name as text
    listed = a.wait_for_selector("[data-testid=watchers]:not([hidden])", timeout=WAIT_MS)
    assert listed is not None
    want = ("观战：" if player_at[1] == "zh" else "Watching: ") + WATCHER
    assert listed.text_content() == want and a.locator("[data-testid=watchers] b").count() == 0
    # the player plays on until the spectator's page (one move behind) shows a few discards
    for _ in range(400):  # a bound: a hand has fewer than 400 states
        if score_shown(a) or w.locator(".river .tile").count() >= 6:
            break
        old = state(a)
        play_one(a, wait=False)
        a.wait_for_function("old => (document.body.dataset.state || '') !== old || "
                            "document.querySelector('[data-testid=score-table]')", arg=old, timeout=WAIT_MS)
    w.wait_for_selector(".seat", timeout=WAIT_MS)
    assert w.locator("[data-testid=myhand]").count() == 0  # no hand of its own
    assert w.locator(".actions button").count() == 0  # nothing to act with
    assert w.locator("[data-testid=spectating-note]").count() == 1 or score_shown(w)
    assert w.locator("[data-testid=watchers]").text_content() == (
        ("观战：" if watcher_at[1] == "zh" else "Watching: ") + WATCHER)
    assert w.evaluate("document.body.dataset.state").split(":")[4] in ("0", "end")  # no choice ever
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        name = "spectator-phone.png" if watcher_at[0] == "phone" else "spectator.png"
        w.screenshot(path=str(Path(SHOTS) / name))
    w.context.close()
    a.wait_for_selector("[data-testid=watchers][hidden]", state="attached", timeout=WAIT_MS)  # gone: unlisted
    a.context.close()


_PUBLIC_KEYS = frozenset({"discards", "melds", "flowers", "indicator", "last_discard"})


def test_a_spectators_whole_websocket_traffic_over_a_hand_names_no_hidden_tile(
        server: ServerProcess, browser: object) -> None:
    """Acceptance (issue 30): the spectator page's every WebSocket frame, read by the browser
    over a whole hand the player plays: no state during play has a hand, a drawn tile, a wild,
    a choice or a clock, and no tile is named anywhere but in the discards, the open melds (a
    concealed kong shows backs), the flowers laid out and the indicator. (The server's test
    checks the same traffic against a replay of the record, tile by tile.)"""
    import json  # noqa: PLC0415

    a, code = _playing(browser, server.base, ("desktop", "en"), "fast")
    w = lobby_page(browser, server.base, "phone", "zh")  # type: ignore[arg-type]
    take_name(w, "Wen")
    frames: list[str] = []
    w.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    w.goto(f"{server.base}/r/{code}")
    w.click("[data-testid=watch]")
    w.wait_for_selector("[data-testid=spectating]", timeout=WAIT_MS)
    for _hand in range(6):  # a bound; one hand is enough unless a bot ends it early
        for _ in range(400):  # a bound: a hand has fewer than 400 states
            if score_shown(a):
                break
            old = state(a)
            play_one(a, wait=False)
            a.wait_for_function("old => (document.body.dataset.state || '') !== old || "
                                "document.querySelector('[data-testid=score-table]')", arg=old, timeout=WAIT_MS)
        assert score_shown(a)
        w.wait_for_function("h => (document.body.dataset.state || '').startsWith(h + ':') && "
                            "document.body.dataset.state.endsWith(':end')",
                            arg=a.evaluate("VIEW.hand"), timeout=WAIT_MS)  # the hand's end reached the spectator too
        states = [m for m in map(json.loads, frames) if m.get("type") == "state"]
        playing = [m for m in states if m["hand_end"] is None]
        # a state a spectator's page has not read yet gives way to the next one (the outbox keeps
        # the newest): how many a hand gives depends on how fast the page reads; five in all
        if len(playing) >= 5:
            break
        next_hand(a)
    assert len(playing) >= 5 and any(m["hand_end"] is not None for m in states)
    assert any(sv["discards"] for m in playing for sv in m["seats"])  # it did see the game
    for m in playing:
        assert m["me"] is None and m["tiles"] == [] and m["drawn"] is None and m["all_tiles"] is None
        assert m["choices"] == [] and m["wilds"] == [] and m["deadline_ms"] is None and m["help"] is None
        assert all(isinstance(sv["concealed"], int) for sv in m["seats"])
        assert not tiles_in(m, _PUBLIC_KEYS), m
    assert {m.get("type") for m in map(json.loads, frames)} <= {"state", "watchers", "pong"}
    for ctx in (a.context, w.context):
        ctx.close()


def test_someone_with_no_name_picks_one_beside_watch_and_watches(server: ServerProcess, browser: object) -> None:
    """A friend who opens the link in a new browser has no name yet: the room's card asks for
    one beside "Watch" (spectators are named to the table). Before, "Watch" connected, was
    refused, and two messages showed on top of each other (one the server's own words, "pick
    a name first (POST /api/me)"), then the same button came back with nowhere to type a name."""
    a, code = _playing(browser, server.base, ("desktop", "en"), "normal")

    w = lobby_page(browser, server.base, "phone", "zh")  # type: ignore[arg-type]
    w.goto(f"{server.base}/r/{code}")  # no name taken in this browser
    w.wait_for_selector("#watchname", timeout=WAIT_MS)
    w.fill("#watchname", "Nia")
    w.click("[data-testid=watch]")
    badge = w.wait_for_selector("[data-testid=spectating]", timeout=WAIT_MS)
    assert badge is not None and badge.inner_text() == "观战中"
    listed = a.wait_for_selector("[data-testid=watchers]:not([hidden])", timeout=WAIT_MS)
    assert listed is not None and listed.text_content() == "Watching: Nia"
    assert w.locator(".toast").count() == 0  # nothing refused, nothing to say
    w.context.close()
    a.context.close()


def test_a_friend_who_opened_the_link_before_the_start_is_offered_watch_once_it_starts(
        server: ServerProcess, browser: object) -> None:
    """A friend opens the room's link while it waits (an open seat, "take a seat"), and the host
    starts with bots: the friend's card changes by itself, with no reload, to the match under
    way with "Watch" (it kept the open seat and its button for good, and a tap said "no open
    seat left": a phone review, 2026-12-06). The name typed for the seat is kept for "Watch"."""
    a = lobby_page(browser, server.base, "desktop", "en")  # type: ignore[arg-type]
    take_name(a, "Ann")
    made = a.evaluate("""() => fetch('/api/rooms', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({friends: 1, turn_seconds: 0, spectators: true})}).then((r) => r.json())""")
    code = str(made["code"])
    a.goto(f"{server.base}/r/{code}")
    w = lobby_page(browser, server.base, "phone", "zh")  # type: ignore[arg-type]
    w.goto(f"{server.base}/r/{code}")
    w.wait_for_selector("[data-testid=take-seat]", timeout=WAIT_MS)
    w.fill("#joinname", "小陈")  # typed for the seat, not sent: kept for "Watch"
    a.click("[data-testid=start-now]", timeout=WAIT_MS)
    w.wait_for_selector("[data-testid=watch]", timeout=WAIT_MS)
    assert w.locator("[data-testid=take-seat]").count() == 0
    assert w.input_value("#watchname") == "小陈"
    w.click("[data-testid=watch]")
    w.wait_for_selector("[data-testid=spectating]", timeout=WAIT_MS)
    listed = a.wait_for_selector("[data-testid=watchers]:not([hidden])", timeout=WAIT_MS)
    assert listed is not None and listed.text_content() == "Watching: 小陈"
    w.context.close()
    a.context.close()
