"""What the browser tests do on a table page: read its state key, wait for it to change, make
one legal move by clicking (Playwright's sync API; the pages of caishen/server/static)."""

from __future__ import annotations

import time

from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

#: The two screens the browser tests play on: a desktop and a 390×844 phone in portrait.
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

#: The bound on a wait for the next state (ms). A bot's move at the instant pace takes
#: milliseconds; on a busy machine (two cores shared with a CI run) much longer: the bound only
#: ends a test that would wait for ever.
WAIT_MS = 60000
#: The bound on one click of a button or tile that is on the page (ms): Playwright waits for it
#: to be visible, stable and not covered (a toast, the flash of a claim's word) meanwhile.
CLICK_MS = 15000
#: What :func:`play_one` clicks, in this order: a win, else a pass on a claim, else the rightmost
#: tile that may be discarded.
MOVES = (".actions button.win", '.actions button[data-action="pass"]', ".myhand .tile.can >> nth=-1")


def lobby_page(browser: Browser, base: str, size: str, lang: str, headers: dict[str, str] | None = None) -> Page:
    """The lobby of the centre at ``base`` in a new context of ``size`` (``SIZES``), in ``lang``
    (``zh`` or ``en``), once every form of it has its handler; ``headers`` go with every
    request of the context (an ``X-Forwarded-For``, as a proxy on this machine would send)."""
    page = browser.new_context(viewport=SIZES[size], device_scale_factor=1,  # type: ignore[arg-type]
                               extra_http_headers=headers).new_page()
    watch_errors(page)
    page.goto(base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready]", state="attached")
    return page


# A practice table at the instant pace, opened as the lobby's button would. The page's script
# does not return the fetch: Playwright would wait for the promise, and the navigation it
# ends with could destroy the page's context before the answer came back (a flake seen in CI).
PRACTICE_INSTANT = """() => { fetch('/api/practice?pace=instant', {method: 'POST'}).then((r) => r.json())
    .then((r) => { location.href = '/r/' + r.code; }); }"""


def seat_friend(host: Page, friend: Page, link: str, name: str) -> None:
    """The friend's page opens the room's ``link`` and takes a seat as ``name``; both pages
    then show their hands (the room's first hand is dealt)."""
    friend.goto(link)
    friend.fill("#joinname", name)
    friend.click("[data-testid=take-seat]")
    friend.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)
    host.wait_for_selector("[data-testid=myhand] .tile", timeout=WAIT_MS)


def take_name(page: Page, name: str) -> None:
    """On the lobby: take the name ``name``, and wait until the page says it is ours."""
    page.fill("#name", name)
    page.click("#nameform button")
    page.wait_for_function("name => document.getElementById('meline').textContent.includes(name)", arg=name)


def state(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.state || ''"))


#: The errors each watched page reported (:func:`watch_errors`), by ``id(page)``.
_ERRORS: dict[int, list[str]] = {}

#: What a table page holds when a wait for it ends in vain: the state it shows, what the view
#: asks of it, a move it sent and awaits, the queue of messages not yet shown, its connection.
_STUCK = """() => { try { return JSON.stringify({path: location.pathname, state: document.body.dataset.state,
    view: VIEW && {hand: VIEW.hand, step: VIEW.step, phase: VIEW.phase, current: VIEW.current, me: VIEW.me,
                   choices: (VIEW.choices || []).map((c) => c.kind), hand_end: !!VIEW.hand_end, over: !!VIEW.match_over},
    answered, sentNext, seen, queued: PLAY.queue.length, busy: PLAY.busy, ws: WS && WS.readyState, paused: VOTES.paused(),
    next: Array.from(document.querySelectorAll('[data-testid=next-hand]')).map((b) => (b.disabled ? 'disabled' : 'enabled')),
    moves: Array.from(document.querySelectorAll('.actions button')).map((b) => b.dataset.action || b.className)});
  } catch (e) { return 'not a table page: ' + e; } }"""


def watch_errors(page: Page) -> None:
    """Keep what ``page`` reports as errors (uncaught exceptions, console errors), for the
    message of a wait that fails (:func:`stuck`)."""
    errors = _ERRORS.setdefault(id(page), [])
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)


def stuck(page: Page) -> str:
    """Why a wait on ``page`` may have ended in vain: what the page holds and the errors it
    reported (the last 10)."""
    try:
        held = str(page.evaluate(_STUCK))
    except Exception as exc:  # noqa: BLE001 - a page gone or navigating: say so
        held = f"(the page could not be read: {exc})"
    return f"{held}; errors: {_ERRORS.get(id(page), [])[-10:]}"


def wait_change(page: Page, old: str) -> None:
    """Wait until the page shows a state other than ``old``; a wait in vain fails with what the
    page holds (:func:`stuck`)."""
    try:
        page.wait_for_function("old => (document.body.dataset.state || '') !== old", arg=old, timeout=WAIT_MS)
    except PlaywrightTimeout:
        raise AssertionError(f"the page stayed at state {old!r} for {WAIT_MS} ms: {stuck(page)}") from None


def score_shown(page: Page) -> bool:
    return page.locator("[data-testid=score-table]").count() > 0


def next_hand(page: Page) -> None:
    """On a page showing a hand's score table: press "Next hand" and wait for the next hand
    (with nobody else to wait for). The page sends "next" only on an open connection: a click
    while it reconnects leaves the button as it was, for another click (static/table.js)."""
    button = "[data-testid=next-hand]"
    hand = page.evaluate("VIEW.hand")
    page.click(button)
    # the next hand may end before its first move reaches us (the bots win): its score table is
    # then a new one, not this one, and it is the caller's to count and to press on
    gone = "h => VIEW.hand !== h || !document.querySelector('[data-testid=score-table]')"
    for _ in range(WAIT_MS // 5000):
        try:
            page.wait_for_function(gone, arg=hand, timeout=5000)
            return
        except PlaywrightTimeout:
            if page.evaluate("VIEW.hand") == hand and page.locator(button + ":enabled").count():
                page.click(button)  # not sent (once sent it stays disabled)
    raise AssertionError(f"the next hand did not start: {stuck(page)}")


def move_when_asked(page: Page, hands: int = 5) -> None:
    """Make one move (:func:`play_one`) as soon as this page is asked for one; a hand that
    ends first (a bot may win, or the hand be drawn, before the person's first turn) is
    followed by the next, for at most ``hands`` hands. A room with one person: nothing
    else moves while he is asked."""
    for _ in range(hands):
        for _attempt in range(400):  # a bound: a hand has fewer than 400 states
            if score_shown(page):
                break
            old = state(page)
            if play_one(page):
                return
            try:
                page.wait_for_function("old => (document.body.dataset.state || '') !== old || "
                                       "document.querySelector('[data-testid=score-table]')", arg=old, timeout=WAIT_MS)
            except PlaywrightTimeout:
                raise AssertionError(f"the page stayed at state {old!r}: {stuck(page)}") from None
        else:
            raise AssertionError("the hand did not end")
        next_hand(page)
    raise AssertionError(f"not asked for a move in {hands} hands")


def play_one(page: Page, wait: bool = True) -> bool:
    """Make one legal move by clicking, if this page has one: a win, else pass on a claim,
    else discard the rightmost clickable tile. True when a move was clicked; with ``wait``,
    once this page shows the next state (with two people at a table, one who passed on a
    claim is sent nothing until the other has decided: then leave ``wait`` off)."""
    old = state(page)  # read before looking for a move: a state that comes meanwhile is a change
    for sel in MOVES:
        loc = page.locator(sel)
        if loc.count():
            try:
                loc.first.click(timeout=CLICK_MS)
            except PlaywrightTimeout:
                # The button left with a newer state before the click landed (a bot's win closes
                # the claim we meant to pass): nothing was clicked, and that state is the change.
                if state(page) == old:
                    raise
                return False
            if wait:
                wait_change(page, old)
            return True
    return False


def bots_room(page: Page, base: str, name: str = "Mei") -> str:
    """On the lobby of the centre at ``base``, take the name ``name`` and make an 8-hand room
    with three bots at the instant pace; its code."""
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready]", state="attached")  # the lobby's forms have their handlers
    page.fill("#name", name)
    page.click("#nameform button")
    page.wait_for_function("name => document.getElementById('meline').textContent.includes(name)", arg=name)
    made = page.evaluate("""() => fetch('/api/rooms', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({friends: 0, turn_seconds: 0, hands: 8, pace: 'instant'})}).then((r) => r.json())""")
    return str(made["code"])


def play_hand(page: Page) -> int:
    """Click moves (:func:`play_one`) until the hand's score table shows; how many were made."""
    moves = 0
    for _ in range(400):
        if score_shown(page):
            return moves
        old = state(page)
        moves += play_one(page, wait=False)
        page.wait_for_function("old => (document.body.dataset.state || '') !== old || "
                               "document.querySelector('[data-testid=score-table]')", arg=old, timeout=WAIT_MS)
    raise AssertionError("the hand did not end")


def to_my_discard(page: Page) -> None:
    """Pass on claims (and start the next hand if the bots end one) until this seat is asked
    to discard: the table then waits for us alone."""
    mine, claim, score = ".myhand .tile.can", '.actions button[data-action="pass"]', "[data-testid=next-hand]"
    for _ in range(200):  # a bound: a hand has fewer than 200 claim windows
        page.wait_for_selector(f"{mine}, {claim}, {score}", timeout=WAIT_MS)
        if page.locator(mine).count():
            return
        old = page.evaluate("document.body.dataset.state")
        button = page.locator(claim if page.locator(claim).count() else score).first
        try:
            button.click(timeout=CLICK_MS)  # a bound for a busy machine
        except PlaywrightTimeout:
            if page.evaluate("document.body.dataset.state") == old:  # not gone with a newer state
                raise
        page.wait_for_function("old => document.body.dataset.state !== old", arg=old, timeout=WAIT_MS)
    raise AssertionError("never asked to discard")


def wait_any_change(pages: list[tuple[Page, str]], bound: float = WAIT_MS / 1000) -> None:
    """Wait, at most ``bound`` seconds, until one of the pages shows a state other than its old one
    (none given: nothing to wait for, e.g. the hand ended on every page meanwhile)."""
    end = time.monotonic() + bound
    if not pages:
        return
    while time.monotonic() < end:
        for page, old in pages:
            try:
                page.wait_for_function("old => (document.body.dataset.state || '') !== old", arg=old, timeout=200)
                return
            except PlaywrightTimeout:
                continue
    raise AssertionError(f"no page changed its state within {bound} s: " + "; ".join(stuck(p) for p, _ in pages))


def hand_tiles(page: Page) -> list[str]:
    """The tiles of the seat's concealed hand as the page shows them, left to right."""
    return list(page.eval_on_selector_all("[data-testid=myhand] .tile", "els => els.map(e => e.dataset.tile)"))


def waits_for_my_discard(page: Page) -> bool:
    """True when the page asks this seat to discard and nobody else is asked anything (no
    claim is open): the state stands still until this seat moves."""
    return bool(page.evaluate(
        "typeof VIEW !== 'undefined' && VIEW !== null && VIEW.hand_end === null"
        " && VIEW.choices.some(c => c.kind === 'discard')"
        " && document.querySelectorAll('.myhand .tile.can').length > 0"))


def play_hand_together(pages: list[Page]) -> list[int]:
    """People at one table, each on a page: click each one's moves (:func:`play_one`, without
    waiting: while one decides on a claim the others are sent nothing) until every page shows
    the hand's score table; how many moves each made."""
    moved = [0] * len(pages)
    for _ in range(2000):  # a bound: a hand has fewer states than this for all its pages
        if all(score_shown(p) for p in pages):
            return moved
        olds = [state(p) for p in pages]
        progressed = False
        for i, page in enumerate(pages):
            if not score_shown(page) and play_one(page, wait=False):
                moved[i] += 1
                progressed = True
        if not progressed:  # nobody can click: a move is on its way to one page or another
            wait_any_change([(p, o) for p, o in zip(pages, olds, strict=True) if not score_shown(p)])
    raise AssertionError("the hand did not end")
