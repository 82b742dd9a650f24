"""What the browser tests do on a table page: read its state key, wait for it to change, make
one legal move by clicking (Playwright's sync API; the pages of caishen/server/static)."""

from __future__ import annotations

from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

#: The two screens the browser tests play on: a desktop and a 390×844 phone in portrait.
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def lobby_page(browser: Browser, base: str, size: str, lang: str) -> Page:
    """The lobby of the centre at ``base`` in a new context of ``size`` (``SIZES``), in ``lang``
    (``zh`` or ``en``), once every form of it has its handler."""
    page = browser.new_context(viewport=SIZES[size], device_scale_factor=1).new_page()  # type: ignore[arg-type]
    page.goto(base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready]", state="attached")
    return page


def state(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.state || ''"))


def wait_change(page: Page, old: str) -> None:
    page.wait_for_function("old => (document.body.dataset.state || '') !== old", arg=old, timeout=20000)


def play_one(page: Page, wait: bool = True) -> bool:
    """Make one legal move by clicking, if this page has one: a win, else pass on a claim,
    else discard the rightmost clickable tile. True when a move was clicked; with ``wait``,
    once this page shows the next state (with two people at a table, one who passed on a
    claim is sent nothing until the other has decided: then leave ``wait`` off)."""
    for sel in (".actions button.win", '.actions button[data-action="pass"]', ".myhand .tile.can >> nth=-1"):
        loc = page.locator(sel)
        if loc.count():
            old = state(page)
            try:
                loc.first.click(timeout=5000)
            except PlaywrightTimeout:
                # The button left with a newer state before the click landed (a bot's win closes
                # the claim we meant to pass): that state is the change we wait for.
                if state(page) == old:
                    raise
            if wait:
                wait_change(page, old)
            return True
    return False


def bots_room(page: Page, base: str, name: str = "Mei") -> str:
    """On the lobby of the centre at ``base``, take the name ``name`` and make an 8-hand room
    with three bots at the instant pace; its code."""
    page.goto(base + "/")
    page.fill("#name", name)
    page.click("#nameform button")
    page.wait_for_function("name => document.getElementById('meline').textContent.includes(name)", arg=name)
    made = page.evaluate("""() => fetch('/api/rooms', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({friends: 0, turn_seconds: 0, hands: 8, pace: 'instant'})}).then((r) => r.json())""")
    return str(made["code"])


def play_hand(page: Page) -> None:
    """Click moves (:func:`play_one`) until the hand's score table shows."""
    for _ in range(400):
        if page.locator("[data-testid=score-table]").count():
            return
        old = state(page)
        play_one(page, wait=False)
        page.wait_for_function("old => (document.body.dataset.state || '') !== old || "
                               "document.querySelector('[data-testid=score-table]')", arg=old, timeout=20000)
    raise AssertionError("the hand did not end")
