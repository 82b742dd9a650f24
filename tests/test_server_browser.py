"""Browser tests of the game centre: Playwright driving Debian's chromium against a real server.

Run them on their own: ``python3 -m pytest -m browser tests/test_server_browser.py``. With
``CAISHEN_SCREENSHOTS=docs/screenshots`` they also save the lobby (and its house rules on a
phone), a table mid-hand and a score table there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import NINE_TERMINALS_SEED, ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = "/usr/bin/chromium"
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")
Page = playwright_api.Page


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("centre") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def nine_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A centre whose rooms are all dealt from NINE_TERMINALS_SEED: the person's first turn
    holds nine kinds of terminals and honours (九么九和, L17)."""
    db = tmp_path_factory.mktemp("nine") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}", seed=NINE_TERMINALS_SEED).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


def _shot(page: Page, name: str, part: str | None = None) -> None:
    """Save the page's viewport, or the whole of the element ``part`` (a selector)."""
    if SHOTS:
        page.evaluate("document.querySelectorAll('.call, .toast').forEach(e => e.remove())")  # passing effects
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        (page.locator(part) if part else page).screenshot(path=str(Path(SHOTS) / name))


def _state(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.state || ''"))


def _wait_change(page: Page, old: str) -> None:
    page.wait_for_function("old => (document.body.dataset.state || '') !== old", arg=old, timeout=20000)


def _play_one(page: Page) -> bool:
    """Make one legal move by clicking, if this page has one: a win, else pass on a claim,
    else discard the rightmost clickable tile. True when a move was clicked."""
    for sel in (".actions button.win", '.actions button[data-action="pass"]', ".myhand .tile.can >> nth=-1"):
        loc = page.locator(sel)
        if loc.count():
            old = _state(page)
            try:
                loc.first.click(timeout=5000)
            except playwright_api.TimeoutError:
                # The button left with a newer state before the click landed (a bot's win closes
                # the claim we meant to pass): that state is the change we wait for.
                if _state(page) == old:
                    raise
            _wait_change(page, old)
            return True
    return False


def _hand(page: Page) -> list[str]:
    return list(page.eval_on_selector_all("[data-testid=myhand] .tile", "els => els.map(e => e.dataset.tile)"))


def _name(page: Page, name: str) -> None:
    page.fill("#name", name)
    page.click("#nameform button")
    page.wait_for_function("name => document.getElementById('meline').textContent.includes(name)", arg=name)


def _score_shown(page: Page) -> bool:
    return page.locator("[data-testid=score-table]").count() > 0


def _play_until(page: Page, selector: str) -> None:
    """Make moves (and start the next hand when one ends) until ``selector`` is on the page."""
    while not page.locator(selector).count():
        if _score_shown(page):
            page.click("[data-testid=next-hand]")
            page.wait_for_selector("[data-testid=score-table]", state="detached")
            continue
        old = _state(page)
        if not _play_one(page):
            _wait_change(page, old)


def test_three_bots_full_hand_reload_replay_and_verify(server: ServerProcess, browser: object) -> None:
    ctx = browser.new_context(viewport={"width": 1100, "height": 860})  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.goto(server.base + "/")
    _name(page, "Ann <b>&")
    page.click("#rules summary")
    _shot(page, "lobby.png")
    page.select_option("#friends", "0")
    page.fill("#timer", "0")
    page.click("#roomform button[type=submit]")
    page.wait_for_selector("[data-testid=myhand] .tile")
    assert page.locator(".seat.pos-bottom .name").inner_text() == "Ann <b>&"  # shown as text, not HTML
    code = page.url.rsplit("/", 1)[1]

    moves = 0
    reloaded = False
    while not _score_shown(page) or not reloaded:
        if _score_shown(page):  # the bots ended the hand before our third move: play the next one
            page.click("[data-testid=next-hand]")
            page.wait_for_selector("[data-testid=score-table]", state="detached")
            moves = 0
            continue
        old = _state(page)  # read before looking for a move: a state arriving meanwhile is seen
        if not _play_one(page):
            _wait_change(page, old)
            continue
        moves += 1
        if moves == 3 and not _score_shown(page):
            _shot(page, "table.png")
            seat, tiles = page.locator(".seat.pos-bottom .pill.wind").inner_text(), _hand(page)
            page.reload()
            page.wait_for_selector("[data-testid=myhand] .tile")
            assert page.locator(".seat.pos-bottom .pill.wind").inner_text() == seat
            assert _hand(page) == tiles
            reloaded = True
    assert reloaded
    table = page.locator("[data-testid=score-table]")
    assert table.locator(".scoreseat").count() == 4
    _shot(page, "score.png")

    # The public result page: fairness panel, verify, replay viewer.
    page.goto(server.base + f"/m/{code}")
    page.click("[data-testid=verify]")
    page.wait_for_function("document.querySelector('[data-testid=verify-result]').textContent.includes('OK')")
    assert page.locator("[data-testid=verify-result]").get_attribute("class") == "pos"
    # the hand played above, with at least three of our moves in it (the bots may have ended
    # the first hand in two moves, before our turn came)
    page.locator("[data-testid^=replay-]").last.click()
    page.wait_for_selector(".board")
    first = page.locator("[data-testid=stepline]").inner_text()
    assert first.startswith("0/")
    total = int(first.split("/")[1].split()[0])
    for _ in range(3):
        page.click("#next")
    assert page.locator("[data-testid=stepline]").inner_text().startswith("3/")
    page.select_option("#seat", "0")
    page.wait_for_function("document.querySelectorAll('[data-testid=myhand] .tile').length > 0")
    page.fill("#slider", str(total))
    page.dispatch_event("#slider", "input")
    page.wait_for_selector("#endbox [data-testid=score-table]")
    ctx.close()


def test_friend_joins_by_link_and_both_play(server: ServerProcess, browser: object) -> None:
    host = browser.new_context(viewport={"width": 900, "height": 800})  # type: ignore[attr-defined]
    friend = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    a = host.new_page()
    a.goto(server.base + "/")
    _name(a, "Host")
    a.select_option("#friends", "1")
    a.fill("#timer", "0")
    a.click("#rules summary")
    a.uncheck("#sw-allow_chow")  # a house rule the friend is told of before sitting down (L9)
    a.click("#roomform button[type=submit]")
    a.wait_for_selector("text=" + "Waiting for friends…")
    link = a.url
    b = friend.new_page()
    b.goto(link)
    assert b.locator("[data-testid=room-rules]").inner_text().startswith("Longgang 龙港麻将 · Hands 8")
    assert b.locator("ul.rules li").all_inner_texts() == ["L9 Chow 吃 from the player on the left is allowed: no"]
    b.fill("#joinname", "Friend")
    b.click("[data-testid=take-seat]")
    b.wait_for_selector("[data-testid=myhand] .tile")
    a.wait_for_selector("[data-testid=myhand] .tile", timeout=20000)
    assert b.locator(".seat.pos-bottom .name").inner_text() == "Friend"
    moved = {"a": 0, "b": 0}
    while not (_score_shown(a) and _score_shown(b)):
        olds = {"a": _state(a), "b": _state(b)}
        progressed = False
        for key, page in (("a", a), ("b", b)):
            if not _score_shown(page) and _play_one(page):
                moved[key] += 1
                progressed = True
        if not progressed:  # nobody can click: a move is on its way; both pages see every move
            key = "b" if _score_shown(a) else "a"
            _wait_change(b if key == "b" else a, olds[key])
    assert moved["a"] > 0 and moved["b"] > 0
    host.close()
    friend.close()


def test_the_tile_just_drawn_stands_apart_also_after_a_reload(server: ServerProcess, browser: object) -> None:
    """The hand is sorted; the tile just drawn goes apart at its right end, as at a real table,
    and stays there when the page is reloaded. A code that names no room is told in the lobby."""
    ctx = browser.new_context(viewport={"width": 1100, "height": 860})  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.goto(server.base + "/")
    _name(page, "Drew")
    page.fill("#joincode", "nosuchroom12")
    page.click("#joinform button")
    page.wait_for_function("document.querySelector('[data-testid=join-error]').textContent.length > 0")
    assert page.locator("[data-testid=join-error]").inner_text() == "No such room (check the code or link)"
    assert page.url == server.base + "/"
    page.click("#practice")
    page.wait_for_selector("[data-testid=myhand] .tile")
    _play_until(page, "[data-testid=drawn]")  # our turn after a draw from the wall
    shown = _hand(page)
    drawn = page.locator("[data-testid=drawn]").get_attribute("data-tile")
    assert shown[-1] == drawn and page.locator(".myhand .tile").last.get_attribute("data-testid") == "drawn"
    server_order = page.evaluate("VIEW.tiles")  # sorted, the drawn tile among the others
    rest = list(server_order)
    rest.remove(drawn)
    assert shown == [*rest, drawn]
    page.reload()
    page.wait_for_selector("[data-testid=myhand] .tile")
    assert _hand(page) == shown and page.locator("[data-testid=drawn]").get_attribute("data-tile") == drawn
    ctx.close()


def test_a_hovered_tile_stays_lifted_with_the_pointer_below_it(server: ServerProcess, browser: object) -> None:
    """A tile one can discard lifts when hovered. With the pointer on the strip it leaves
    below, it must stay lifted: it used to drop back under the pointer and lift again every
    frame (a flicker, and Playwright found the tile never stable enough to click)."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.goto(server.base + "/")
    _name(page, "Hover")
    page.click("#practice")
    page.wait_for_selector("[data-testid=myhand] .tile")
    _play_until(page, ".myhand .tile.can")  # pass claims until it is our discard
    box = page.locator(".myhand .tile.can").last.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] - 2)
    tops = page.evaluate("""async () => {
        const el = [...document.querySelectorAll('.myhand .tile.can')].pop();
        const tops = [];
        for (let i = 0; i < 20; i++) {
            await new Promise(r => requestAnimationFrame(r));
            tops.push(el.getBoundingClientRect().top);
        }
        return tops;
    }""")
    assert len(set(tops)) == 1 and tops[0] < box["y"] - 4, tops  # lifted (0.4rem), and still
    ctx.close()


def test_a_gangci_room_shows_the_ci_tile_and_the_payments(server: ServerProcess, browser: object) -> None:
    """Issue 9: a Luoyang Gangci room from the lobby; the centre shows the 次牌 (no wilds), and
    the hand's score table lists every G2 payment."""
    ctx = browser.new_context(viewport={"width": 1100, "height": 860}, locale="zh-CN")  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.goto(server.base + "/")
    page.evaluate("localStorage.setItem('caishen.lang', 'zh')")
    page.reload()
    _name(page, "Lu")
    page.select_option("#variant", "luoyang-gangci")
    assert page.locator('#hands option[value="0"]').is_disabled()  # no 断筹 without going broke
    assert page.locator("#sw-ci_base").input_value() == "600"
    page.click("#rules summary")
    page.select_option("#sw-seat_count", "clockwise")  # a switch of words is a choice (G3.1)
    page.select_option("#sw-seat_count", "turn_order")
    _shot(page, "lobby-gangci.png")
    page.select_option("#friends", "0")
    page.fill("#timer", "0")
    page.click("#roomform button[type=submit]")
    page.wait_for_selector("[data-testid=myhand] .tile")
    assert "次牌" in page.locator(".center").inner_text()
    assert page.locator(".center .tile.wild").count() == 0
    shot = False
    while not _score_shown(page):
        old = _state(page)
        if not _play_one(page):
            _wait_change(page, old)
        elif not shot:
            _shot(page, "table-gangci.png")
            shot = True
    table = page.locator("[data-testid=score-table]")
    assert table.locator(".scoreseat").count() == 4
    chips = [int(x.split()[-1]) for x in table.locator(".scoreseat .head span.pos, .scoreseat .head span.neg").all_inner_texts()]
    pays = page.locator("[data-testid=payments] tr")
    assert sum(chips) == 0 and (pays.count() > 1) == any(chips)  # a header row, then one row per payment
    _shot(page, "score-gangci.png")
    ctx.close()


def _lobby(page: Page, base: str, lang: str) -> None:
    page.goto(base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    page.reload()
    page.wait_for_selector("#sw-draw_on_nine_terminals", state="attached")
    page.click("#rules summary")  # open the house rules


def _create(page: Page, nine_terminals: bool) -> None:
    page.set_checked("#sw-draw_on_nine_terminals", nine_terminals)
    page.select_option("#friends", "0")
    page.fill("#timer", "0")
    page.click("#roomform button[type=submit]")


@pytest.mark.parametrize(("lang", "explanation", "button", "draw_line"), [
    ("zh", "九么九和：第一圈轮到自己时，手中有九种或以上么九牌的玩家可以叫和局（有的地方）",
     "叫和局", "流局：九么九和，Jiu叫和局"),
    ("en", "九么九和: in his own turn of the first go-round a player holding nine or more kinds of "
     "terminals and honours may declare the hand drawn (some places)",
     "Declare a draw 叫和局", "Draw (流局): nine terminals and honours 九么九和, declared by Jiu"),
], ids=["zh", "en"])
def test_declare_draw_from_the_lobby_to_the_score_table_l17(
        nine_server: ServerProcess, browser: object, lang: str, explanation: str, button: str, draw_line: str) -> None:
    """九么九和 (L17) on a phone: the switch in the lobby's house rules (rule ID, explanation in
    the page's language); a room with it on offers the person 叫和局 in the first go-round of
    the known deal, and the click ends the hand as a declared draw, named in the score table in
    the page's language. The same deal under the default rules offers no such button."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    page = ctx.new_page()
    _lobby(page, nine_server.base, lang)
    _name(page, "Jiu")
    row = page.locator("label[for=sw-draw_on_nine_terminals]")
    assert row.locator(".rid").inner_text() == "L17"
    assert row.locator(".doc").inner_text() == explanation + "\ndraw_on_nine_terminals · true | false"
    assert page.evaluate("document.documentElement.scrollWidth") == 390  # nothing overflows the phone
    if lang == "zh":
        _shot(page, "lobby-phone.png", "fieldset:has(#sw-draw_on_nine_terminals)")

    _create(page, nine_terminals=False)  # the default rules: the same deal, no declaration
    page.wait_for_selector(".myhand .tile.can")  # the person's first turn: a discard to choose
    assert page.locator('.actions button[data-action="declare_draw"]').count() == 0

    _lobby(page, nine_server.base, lang)
    page.check("#sw-draw_on_nine_terminals")
    page.click("button.lang")  # the other language and back: the switch stays on
    page.click("button.lang")
    assert page.is_checked("#sw-draw_on_nine_terminals")
    _create(page, nine_terminals=True)
    declare = page.locator('.actions button[data-action="declare_draw"]')
    declare.wait_for()
    assert declare.inner_text() == button
    assert page.locator(".myhand .tile.can").count() > 0  # declaring is a choice: a discard would do too
    declare.click()
    table = page.locator("[data-testid=score-table]")
    table.wait_for()
    assert table.locator("[data-testid=draw]").inner_text() == draw_line
    assert table.locator(".scoreseat.winner").count() == 0
    assert table.locator(".scoreseat .head span.pos, .scoreseat .head span.neg").count() == 0  # nobody pays
    ctx.close()
