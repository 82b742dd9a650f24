"""Browser tests of issue 27's lobby and result page: house-rule presets applied in the lobby,
the match-end reason on the result page, flower wilds in the replay.

Run them on their own: ``python3 -m pytest -m browser tests/test_server_browser_lobby.py``. With
``CAISHEN_SCREENSHOTS=docs/screenshots`` they also save the lobby's presets and house rules
(desktop, and a phone in Chinese) and a result page on a phone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")
Page = playwright_api.Page
from helpers_browser import PRACTICE_INSTANT, SIZES, WAIT_MS, lobby_page, take_name  # noqa: E402
from helpers_browser import next_hand as _next_hand  # noqa: E402
from helpers_browser import play_one as _play_one  # noqa: E402 - needs playwright
from helpers_browser import state as _state  # noqa: E402
from helpers_browser import wait_change as _wait_change  # noqa: E402

#: A master seed whose first hand turns up 春 (f1) as the indicator, so every other flower is
#: wild for every seat (花财神, L5): East holds 冬 (f4) and North 秋 (f3) in the deal.
FLOWER_INDICATOR_SEED = bytes.fromhex("b9aa34793a56a7a233784c47df405a85b170f32627fe1e11f614553fff54175b")
_NOBODY_CONTRIBUTES = "from caishen.server import contrib\ncontrib.Window.take = lambda self, player, value: False\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("lobby") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}", env={"CAISHEN_PACE_SCALE": "0"}).start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def flower_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("flower") / "centre.sqlite3"
    # the deal is the seed's alone: the page's randomness is refused (docs/fairness.md), and
    # the deal does not wait for it
    s = ServerProcess(f"sqlite:///{db}", seed=FLOWER_INDICATOR_SEED, setup=_NOBODY_CONTRIBUTES,
                      env={"CAISHEN_PACE_SCALE": "0", "CAISHEN_CONTRIBUTE_SECONDS": "0"}).start()
    yield s
    s.stop()


def _shot(page: Page, name: str, part: str | None = None) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        (page.locator(part) if part else page).screenshot(path=str(Path(SHOTS) / name))


def _lobby(browser: object, base: str, size: str, lang: str) -> Page:
    page = lobby_page(browser, base, size, lang)  # type: ignore[arg-type]
    page.wait_for_selector("#sw-four_winds_wild_rule", state="attached")
    return page


def _room(page: Page, timer: int = 0) -> str:
    """Open a room for one person and three bots from the lobby's form; its code."""
    page.select_option("#friends", "0")
    page.fill("#timer", str(timer))
    page.click("#roomform button[type=submit]")
    page.wait_for_url("**/r/*")
    return page.url.rsplit("/", 1)[1]


# The presets of docs/server.md ("House-rule presets"), each with the switches it sets apart
# from the main text's rules, and its name in the lobby's two languages.
PRESETS = {
    "longgang": ({}, "Main text", "正文规则"),
    "longgang-simplified-copy": ({"four_winds_wild_rule": False}, "Simplified copy", "简体版规则"),
    "longgang-common": ({"four_winds_wild_rule": False, "single_honor_pair_self_draw_fu": True},
                        "Common house rules", "常见房规"),
}


@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("desktop", "zh"), ("phone", "en"), ("phone", "zh")])
def test_presets_applied_in_the_lobby(server: ServerProcess, browser: object, size: str, lang: str) -> None:
    """Picking a preset sets the house-rule switches to its values; the room opened with it
    plays exactly those switches (the room's own API); a switch changed by hand afterwards
    makes the rules "custom", and that change reaches the room too. Each switch has a plain
    name and a line in the page's language; the rule ID and the switch's name only with
    "details" on."""
    page = _lobby(browser, server.base, size, lang)
    take_name(page, "Pia")
    titles = page.eval_on_selector_all("#preset option", "os => os.map(o => [o.value, o.textContent])")
    assert titles[:3] == [[k, v[1] if lang == "en" else v[2]] for k, v in PRESETS.items()]
    assert page.input_value("#preset") == "longgang"  # the main text's rules by default

    page.click("#rules summary")
    row = page.locator("label[for=sw-four_winds_wild_rule]")
    assert row.locator(".title").inner_text() == ("Wilds in four winds restricted" if lang == "en" else "四喜限财神")
    assert row.locator(".doc").inner_text().startswith("四喜 with a wild" if lang == "en" else "带财神的四喜")
    assert not row.locator(".more").is_visible()  # rule ID and switch name behind "details"
    page.check("#ruledetails")
    assert row.locator(".more").inner_text() == "L22 four_winds_wild_rule · true | false"
    assert page.evaluate("document.documentElement.scrollWidth") == SIZES[size]["width"]  # nothing overflows

    for name, (changes, _, _) in PRESETS.items():
        page.select_option("#preset", name)
        assert page.is_checked("#sw-four_winds_wild_rule") == changes.get("four_winds_wild_rule", True)
        assert page.is_checked("#sw-single_honor_pair_self_draw_fu") == changes.get("single_honor_pair_self_draw_fu", False)
        assert page.input_value("#preset") == name
    page.select_option("#preset", "longgang-common")
    if (size, lang) in (("phone", "zh"), ("desktop", "en")):
        page.uncheck("#ruledetails")
        page.evaluate("document.querySelector('#roomform').closest('section').scrollIntoView()")
        _shot(page, "lobby-phone.png" if size == "phone" else "lobby-presets.png")
    code = _room(page)
    room = httpx.get(f"{server.base}/api/rooms/{code}", timeout=60).json()
    assert {r["name"]: r["value"] for r in room["rules"]} == PRESETS["longgang-common"][0]

    # a preset, then one switch by hand: "custom", and the room has both
    page.context.close()
    page = _lobby(browser, server.base, size, lang)
    take_name(page, "Pia")
    page.select_option("#preset", "longgang-simplified-copy")
    page.click("#rules summary")
    page.check("#sw-kong_replacement_tai")
    assert page.input_value("#preset") == ""
    assert page.locator("#presetdoc").inner_text() == (
        "Your own mix of house rules (see House rules below)." if lang == "en" else "自己选的房规（见下面的地方规则）。")
    assert page.input_value("#pace") == "normal"  # the bots' pace: normal unless chosen
    page.select_option("#pace", "fast")
    code = _room(page)
    room = httpx.get(f"{server.base}/api/rooms/{code}", timeout=60).json()
    assert {r["name"]: r["value"] for r in room["rules"]} == {"four_winds_wild_rule": False, "kong_replacement_tai": True}
    assert room["pace"] == "fast"
    page.context.close()


def _wait_for(base: str, code: str, ready: Callable[[dict[str, Any]], bool], seconds: int = 150) -> dict[str, Any]:
    """The match's public result once ``ready`` holds for it (polled, at most ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        r: dict[str, Any] = httpx.get(f"{base}/api/matches/{code}", timeout=10).json()
        if ready(r):
            return r
        assert time.monotonic() < deadline, f"not ready in {seconds} s: {r.get('status')}, {len(r.get('hands', []))} hands"
        time.sleep(0.2)  # polling for a state, not timing a behaviour


@pytest.mark.timeout(900)  # 8 hands by clicks, each discard animated: about 2 minutes, more on a busy machine
@pytest.mark.parametrize(("size", "lang"), [("desktop", "zh"), ("phone", "en")])
def test_the_result_page_says_why_the_match_ended(server: ServerProcess, browser: object, size: str, lang: str) -> None:
    """A whole match of 8 hands at the instant pace, by clicks; then its result page /m/CODE
    says why it ended, all 8 hands played or who went broke after which hand, in the page's
    language, as the API's ``match_end`` says."""
    page = _lobby(browser, server.base, size, lang)
    take_name(page, "Rex")
    page.evaluate(PRACTICE_INSTANT)
    page.wait_for_selector("[data-testid=myhand] .tile")
    code = page.url.rsplit("/", 1)[1]
    while not page.locator("[data-testid=match-end]").count():
        if page.locator("[data-testid=score-table]").count():
            _next_hand(page)
            continue
        old = _state(page)
        if not _play_one(page):
            _wait_change(page, old)
    page.goto(f"{server.base}/m/{code}")
    shown = page.locator("[data-testid=match-end]")
    shown.wait_for()
    end = _wait_for(server.base, code, lambda r: r["status"] == "over")["match_end"]
    if end["ended_by"] == "hands":
        assert end["hands"] == 8  # (a player topped up after going broke once may be in end["broke"])
        assert shown.inner_text() == ("The match is over: all 8 hands played" if lang == "en" else "8局打完，比赛结束")
    else:
        assert end["ended_by"] == "broke" and end["broke"] and 1 <= end["hands"] <= 8
        names = dict(page.eval_on_selector_all("[data-testid=standings] td[title]", "tds => tds.map(t => [t.title, t.textContent])"))
        who = (", " if lang == "en" else "，").join(names[b] for b in end["broke"])
        assert shown.inner_text() == (f"The match ended after hand {end['hands']}: {who} went broke (断筹)" if lang == "en"
                                      else f"{who}断筹，比赛在第{end['hands']}局后结束")
    # the fairness table fits the screen: on a phone each hand's values stand under their labels
    # (its columns of hex were cut off there, the players' randomness with them)
    last = page.locator("#fairness td[data-label]").last
    box = last.bounding_box()
    assert box is not None and box["x"] + box["width"] <= SIZES[size]["width"]
    assert page.evaluate("document.documentElement.scrollWidth") == SIZES[size]["width"]
    if size == "phone":
        _shot(page, "result-phone.png")
    page.context.close()


def test_the_replay_marks_every_flower_wild_under_a_flower_indicator(flower_server: ServerProcess, browser: object) -> None:
    """Under a flower indicator every other flower is wild for every seat (花财神, L5): the replay
    seen from above marks East's 冬 (f4) and North's 秋 (f3) in the deal as wild, not only each
    seat's own flower, and never the indicator's kind (it is not in the hands)."""
    page = _lobby(browser, flower_server.base, "desktop", "en")
    take_name(page, "Flo")
    code = _room(page, timer=1)  # the table page stays open: his turns pass to the stand-in after 1 s
    _wait_for(flower_server.base, code, lambda r: len(r["hands"]) >= 1)
    page.goto(f"{flower_server.base}/replay/{code}/0")
    page.wait_for_selector("#boardbox .seat .backs.open .tile")
    assert page.input_value("#slider") == "0"
    frame = page.evaluate("FRAMES[0].view")
    assert frame["indicator"] == "f1" and frame["dealer"] == 0
    # every other flower for everyone; East's own flower is the indicator's kind (L7 still names it)
    assert frame["all_wilds"] == [["f1", "f2", "f3", "f4"]] + [["f2", "f3", "f4"]] * 3
    for seat, flower in ((0, "f4"), (3, "f3")):
        tile = page.locator(f".seat[data-seat='{seat}'] .backs .tile[data-tile='{flower}']")
        assert tile.count() == 1
        assert "wild" in (tile.get_attribute("class") or "").split()
    # the centre lists what is wild for every seat, and East's own flower as a seat's own (L7):
    # it listed all four flowers there, as if 春 were wild for everyone
    centre = page.locator(".center [data-testid=wilds]")
    assert centre.locator(".tile").evaluate_all("ts => ts.map(t => t.dataset.tile)") == ["f2", "f3", "f4"]
    assert centre.locator("[data-testid=own-wilds]").inner_text() == "+ each seat's own flower (marked in its hand)"
    # a link to a hand that is not there (mistyped, or not played yet) says so, with the way back
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{flower_server.base}/replay/{code}/999")
    said = page.locator("[data-testid=replay-error]")
    said.wait_for()
    assert said.inner_text() == "No replay of this hand (this match has no hand 1000)"
    assert page.locator("#boardbox a").get_attribute("href") == f"/m/{code}"
    assert errors == []  # it was an uncaught error and a blank page
    page.context.close()


@pytest.mark.parametrize(("lang", "said"), [("zh", "没有这个房间（请检查房间号或链接）"), ("en", "No such room (check the code or link)")])
def test_a_link_to_no_room_says_so_in_the_pages_language(server: ServerProcess, browser: object, lang: str, said: str) -> None:
    """A mistyped result or replay link says there is no such room in the page's language (a
    Chinese page said "no such room", the server's English), with the way back."""
    page = _lobby(browser, server.base, "phone", lang)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.base}/m/NOPE123")
    shown = page.locator("[data-testid=result-error]")
    shown.wait_for()
    assert shown.inner_text() == said
    assert page.locator("[data-testid=result-error] + p a").get_attribute("href") == "/"  # the way back
    page.goto(f"{server.base}/replay/NOPE123/0")
    shown = page.locator("[data-testid=replay-error]")
    shown.wait_for()
    assert shown.inner_text() == said
    assert errors == []
    page.context.close()


def test_on_a_phone_my_matches_shows_the_way_back_into_a_match(server: ServerProcess, browser: object) -> None:
    """The lobby's "My matches" is wider than a phone: its "Open" and "Result" links come first,
    in sight (they were past the chips column, off the screen, with no hint to scroll). My name
    and my chips are in bold: a list of four numbers said nothing of whose they were."""
    page = _lobby(browser, server.base, "phone", "zh")
    take_name(page, "Mo")
    made = page.evaluate("""() => fetch('/api/rooms', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({friends: 0, turn_seconds: 0, hands: 8, pace: 'instant'})}).then((r) => r.json())""")
    page.reload()
    link = page.locator(f"#matches a[href='/r/{made['code']}']")
    link.wait_for()
    assert link.inner_text() == "打开"
    box = link.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SIZES["phone"]["width"]
    assert page.locator(f"#matches a[href='/m/{made['code']}']").count() == 1
    # which name and which chips are mine: bold, at my place in the room (the API's "me")
    me = page.evaluate("() => fetch('/api/my/matches').then((r) => r.json())")[0]["me"]
    assert me is not None
    row = page.locator("#matches tr", has=page.locator(f"a[href='/r/{made['code']}']"))
    assert row.locator("[data-testid=my-name]").inner_text() == "Mo"
    assert row.locator("td:nth-child(4) > *").evaluate_all("els => els.map((e) => e.tagName)") \
        == ["B" if i == me else "SPAN" for i in range(4)]
    assert row.locator("td:nth-child(6) > *").evaluate_all("els => els.map((e) => e.tagName)") \
        == ["B" if i == me else "SPAN" for i in range(4)]
    page.context.close()


def test_the_lobby_offers_the_bots_that_play_the_variant_and_says_a_limit_in_its_language(
        server: ServerProcess, browser: object) -> None:
    """A new player's review: choosing Luoyang Gangci with the learned bot (Longgang only) was
    refused in the server's English, and "too many requests" reached a Chinese page in English."""
    page = _lobby(browser, server.base, "phone", "zh")
    take_name(page, "Lia")
    page.select_option("#bot", "learned")
    page.select_option("#variant", "luoyang-gangci")
    assert page.input_value("#bot") == "greedy"
    assert page.eval_on_selector("#bot option[value=learned]", "o => o.disabled") is True
    assert page.eval_on_selector("#bot option[value=strong]", "o => o.disabled") is False
    page.select_option("#variant", "longgang")
    assert page.eval_on_selector("#bot option[value=learned]", "o => o.disabled") is False
    # a limit reached: said in the page's language, with the wait the server names
    page.route("**/api/practice", lambda route: route.fulfill(
        status=429, headers={"Retry-After": "7"}, content_type="application/json",
        body='{"detail": "too many requests (rooms): try again in 7 s", "code": "too_many_requests"}'))
    page.click("#practice")
    page.wait_for_function("() => document.getElementById('practiceerr').textContent", timeout=WAIT_MS)
    assert page.text_content("#practiceerr") == "操作太频繁，请 7 秒后再试"
    page.click("#langslot button")  # the refusal follows the page's language (it stayed in Chinese)
    page.wait_for_function("() => document.documentElement.lang === 'en'", timeout=WAIT_MS)
    assert page.text_content("#practiceerr") == "Too many requests: try again in 7 s"
    page.context.close()
