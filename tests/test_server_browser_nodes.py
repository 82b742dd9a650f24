"""The browser tests on a three-node deployment (issue 28: "The browser tests pass against a
three-node deployment too: a full hand, reload, and friends on different nodes").

HAProxy from ``deploy/haproxy.cfg`` in front of three ``caishen serve --redis`` nodes on one
PostgreSQL schema (tests/helpers_balancer.py). Two friends open their pages on two different
nodes (a page's WebSocket goes to the node that served the page, so at least one of them is
joined to the table's owner through Redis); the host reloads in the middle of the hand
through the balancer and finds the same hand; both play the hand to its score table by
clicks, and its record verifies.

Skipped without haproxy, PostgreSQL or Redis at 127.0.0.1; marked ``browser`` and ``redis``."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from helpers_balancer import BalancedNodes, balanced_nodes, services_or_skip

pytestmark = [pytest.mark.browser, pytest.mark.redis, pytest.mark.timeout(900)]
playwright_api = pytest.importorskip("playwright.sync_api")
Page = playwright_api.Page
from helpers_browser import (  # noqa: E402 - needs playwright
    hand_tiles,
    lobby_page,
    play_hand_together,
    play_one,
    score_shown,
    state,
    take_name,
    wait_any_change,
    waits_for_my_discard,
)

BOUND = 90.0  # seconds: an HTTP answer from the deployment on a busy two-core machine


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BalancedNodes]:
    services_or_skip()
    with balanced_nodes(tmp_path_factory.mktemp("nodes"), 3) as dep:
        yield dep


def _friends_room(page: Page) -> str:
    """On a lobby page with a name taken: a room for the person and one friend (two bots), no
    turn timer, made as the lobby's form makes it; its code."""
    made = page.evaluate("""() => fetch('/api/rooms', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({friends: 1, turn_seconds: 0, hands: 8})}).then((r) => r.json())""")
    return str(made["code"])


def _until_my_discard(me: Page, others: list[Page]) -> bool:
    """Click everyone's moves but ``me``'s discards until ``me`` is asked to discard and nobody
    else is asked anything (the state stands still until ``me`` moves): True; False if the hand
    ends first."""
    for _ in range(2000):  # a bound: a hand has fewer states than this for all its pages
        if score_shown(me):
            return False
        if waits_for_my_discard(me):
            return True
        pages = [me, *others]
        olds = [state(p) for p in pages]
        progressed = False
        for page in pages:
            if page is me and waits_for_my_discard(me):
                break
            if not score_shown(page) and play_one(page, wait=False):
                progressed = True
        if not progressed:
            wait_any_change([(p, o) for p, o in zip(pages, olds, strict=True) if not score_shown(p)])
    raise AssertionError("the hand did not end")


def test_friends_on_two_nodes_play_a_hand_and_a_reload_through_the_balancer_finds_it(
        deployment: BalancedNodes, browser: object) -> None:
    dep = deployment
    first, second = dep.nodes[0], dep.nodes[1]
    host = lobby_page(browser, first.base, "desktop", "en")  # type: ignore[arg-type]
    take_name(host, "Ann")
    code = _friends_room(host)
    host.goto(f"{first.base}/r/{code}")
    friend = lobby_page(browser, second.base, "phone", "zh")  # type: ignore[arg-type]
    friend.goto(f"{second.base}/r/{code}")
    friend.fill("#joinname", "Bo")
    friend.click("[data-testid=take-seat]")
    for page in (friend, host):  # (the host's waiting page looks every 2 s)
        page.wait_for_selector("[data-testid=myhand] .tile", timeout=60000)
    assert host.locator(".seat.pos-bottom .name").inner_text() == "Ann"
    assert friend.locator(".seat.pos-bottom .name").inner_text() == "Bo"
    owner = dep.owner(code)
    assert owner is not None  # one node runs the table; the other page is joined to it through Redis
    assert (host.url.split("/r/")[0], friend.url.split("/r/")[0]) == (first.base, second.base)

    # The host's page is reloaded through the balancer while the table waits for the host's
    # discard: the balancer may send it to any node, and it shows the same hand.
    reloaded = False
    for _hand_no in range(5):  # a bound: a hand the bots end before the host's turn is followed by the next
        if _until_my_discard(host, [friend]):
            # (the seat by its index and the tiles by their codes: the page served through the
            # balancer is another origin, whose stored language may differ)
            seat, tiles = host.evaluate("VIEW.me"), hand_tiles(host)
            host.goto(f"{dep.base}/r/{code}")
            host.wait_for_selector("[data-testid=myhand] .tile", timeout=60000)
            assert host.evaluate("VIEW.me") == seat
            assert hand_tiles(host) == tiles
            assert host.url.startswith(dep.base)
            reloaded = True
            break
        play_hand_together([host, friend])  # (the rest of the hand, if the friend's page has it still)
        for page in (host, friend):
            page.click("[data-testid=next-hand]")
        for page in (host, friend):
            page.wait_for_selector("[data-testid=score-table]", state="detached", timeout=60000)
    assert reloaded

    # The hand goes on to its end by clicks on both pages, each on its own node.
    play_hand_together([host, friend])
    for page in (host, friend):
        assert page.locator("[data-testid=score-table] .scoreseat").count() == 4
    verified = httpx.get(f"{dep.base}/api/matches/{code}/verify", timeout=BOUND)
    assert verified.status_code == 200 and verified.json()["ok"] is True
    host.context.close()
    friend.context.close()
