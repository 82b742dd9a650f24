"""Browser test of clubs (issue 30, item 2), desktop and phone, Chinese and English: Ann
creates a club on /clubs (its name and hers with HTML in them: they stay text), saves the
lobby's room form as the club's template, invites Bob by the link; Bob joins from the link,
opens a table from the template (a seat kept for a member: Ann's club page lists it), then a
table with bots in every empty seat, plays a hand, and the season's leaderboard counts it.

Run it on its own: ``python3 -m pytest -m browser tests/test_server_browser_clubs.py``. With
``CAISHEN_SCREENSHOTS=DIR`` it saves Ann's club page of each size and language there
(docs/screenshots/club.png is the desktop one in Chinese).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")
Page = playwright_api.Page
from helpers_browser import lobby_page, play_hand  # noqa: E402 - needs playwright

WAIT_MS = 60000  # a bound only: a busy machine


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("clubs") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}", env={"CAISHEN_PACE_SCALE": "0"}).start()
    yield s
    s.stop()


def _ready(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)


def _named(page: Page, name: str) -> None:
    page.fill("#name", name)
    page.click("#nameform button")
    page.wait_for_function("name => document.getElementById('meline').textContent.includes(name)", arg=name)


@pytest.mark.parametrize(("size", "lang"), [("desktop", "zh"), ("desktop", "en"), ("phone", "zh"), ("phone", "en")])
def test_create_a_club_invite_by_link_open_tables_and_see_the_leaderboard(
    server: ServerProcess, browser: object, size: str, lang: str,
) -> None:
    club_name = f"<i>牌友</i> {size} {lang}"
    ann = lobby_page(browser, server.base, size, lang)  # type: ignore[arg-type]
    _named(ann, "<b>Ann</b>")
    ann.click("[data-testid=clubs-link]")
    ann.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)
    ann.fill("[data-testid=club-name]", club_name)
    ann.click("[data-testid=create-club]")
    ann.wait_for_url("**/club/*", timeout=WAIT_MS)
    ann.wait_for_function("name => document.getElementById('clubtitle').textContent === name", arg=club_name,
                          timeout=WAIT_MS)
    assert ann.locator("header i").count() == 0  # the name is text, not markup
    if size == "phone":  # the title has a line of its own, the links under it (not a narrow column)
        title, links = ann.locator("header h1").bounding_box(), ann.locator("header a").first.bounding_box()
        assert title and links and title["width"] > 340 and links["y"] >= title["y"] + title["height"]
    link = ann.input_value("[data-testid=club-link]")
    code = ann.text_content("[data-testid=club-code]")
    assert code and link.endswith("/club/" + code)
    # the lobby's room form, saved as the club's template: one seat for a member, no timer
    _ready(ann, f"{server.base}/?club={code}")
    ann.wait_for_selector("#templaterow:not([hidden])", timeout=WAIT_MS)
    ann.select_option("#friends", "1")
    ann.fill("#timer", "0")
    ann.fill("[data-testid=template-name]", "Friday 周五")
    ann.click("[data-testid=save-template]")
    ann.wait_for_function("() => document.getElementById('roomerr').textContent", timeout=WAIT_MS)
    assert "Friday 周五" in (ann.text_content("#roomerr") or "")
    # Bob opens the invite link, picks a name and joins
    bob = browser.new_context(viewport=ann.viewport_size, device_scale_factor=1).new_page()  # type: ignore[attr-defined]
    _ready(bob, server.base + "/")
    bob.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    _ready(bob, link)
    # the invite names the club and whose it is (the owner's name is text, not markup)
    invited = {"zh": f"你被邀请加入亲友圈“{club_name}”（圈主 <b>Ann</b>，1 位成员）。",
               "en": f"You are invited to the club \u201c{club_name}\u201d, run by <b>Ann</b> (1 member)."}
    assert bob.text_content("#joinnote") == invited[lang]
    bob.fill("#name", "Bob")
    bob.click("[data-testid=join-club]")
    bob.wait_for_selector("#memberonly:not([hidden]) [data-testid=open-table]", timeout=WAIT_MS)
    # the template says what it is in words: "8 hands", not a bare "8"
    assert ("8 局" if lang == "zh" else "8 hands") in bob.locator("#templates td.muted").first.inner_text()
    # a table from the template, kept for a member: Ann's club page lists it with its open seat
    bob.click("[data-testid=open-table]")
    bob.wait_for_url("**/r/*", timeout=WAIT_MS)
    table = bob.url.rsplit("/", 1)[1]
    # someone outside the club who has the table's link: its card says whose table it is and
    # links to the club's page (the refusal said "join the club" and not which one)
    eve = browser.new_context(viewport=ann.viewport_size).new_page()  # type: ignore[attr-defined]
    _ready(eve, server.base + "/")
    eve.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    eve.goto(f"{server.base}/r/{table}")
    said = eve.wait_for_selector("[data-testid=room-club]", timeout=WAIT_MS)
    assert said is not None and club_name in said.inner_text() and eve.locator("[data-testid=room-club] i").count() == 0
    assert eve.get_attribute("[data-testid=room-club] a", "href") == f"/club/{code}"
    eve.context.close()
    _ready(ann, link)
    ann.wait_for_selector(f"[data-testid=tables] a[href='/r/{table}']", timeout=WAIT_MS)
    assert "Bob" in (ann.text_content("[data-testid=members]") or "")
    # bots in every empty seat: Bob plays a hand, and the leaderboard counts it
    _ready(bob, link)
    bob.check("[data-testid=with-bots]")
    bob.click("[data-testid=open-table]")
    bob.wait_for_url("**/r/*", timeout=WAIT_MS)
    bob.wait_for_selector(".myhand .tile", timeout=WAIT_MS)
    play_hand(bob)
    _ready(ann, link)
    ann.wait_for_function("() => document.querySelector('[data-testid=leaderboard] table')", timeout=WAIT_MS)
    row = ann.locator("[data-testid=leaderboard] tr", has_text="Bob")
    assert row.count() == 1
    cells = row.locator("td").all_text_contents()
    assert cells[1] == "Bob" and cells[2:4] == ["1", "1"]  # one match, one hand
    if size == "phone":  # a block a row: the chips (which rank it) beside the name, in sight
        name, chips = (row.locator(f"td:nth-child({i})").bounding_box() for i in (2, 7))
        assert name is not None and chips is not None
        assert chips["y"] < name["y"] + name["height"] and name["y"] < chips["y"] + chips["height"]  # one line
        assert chips["x"] + chips["width"] <= ann.viewport_size["width"]
    assert ann.locator("[data-testid=members] b, [data-testid=members] i").count() == 0  # Ann's name with <b> is text too
    assert "<b>Ann</b>" in (ann.text_content("[data-testid=members]") or "")
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        ann.screenshot(path=str(Path(SHOTS) / f"club-{size}-{lang}.png"), full_page=True)
    bob.context.close()
    ann.context.close()


@pytest.mark.parametrize(("size", "lang"), [("desktop", "zh"), ("phone", "en")])
def test_the_owner_hands_the_club_to_an_admin_on_its_page(
    server: ServerProcess, browser: object, size: str, lang: str,
) -> None:
    """Ann makes Bob (his name with HTML in it) an admin on the club page, then hands him the
    club (after a confirmation naming him): Bob is the owner, Ann an admin who may leave and
    no longer sees the owner's settings; on Bob's page the owner's settings appear."""
    words = {"zh": ("管理员", "圈主", "设为管理员", "转让圈主"), "en": ("admin", "owner", "Make admin", "Hand the club over")}
    admin_word, owner_word, make_admin, make_owner = words[lang]
    my_role = {"zh": "我的身份：{}", "en": "My role: {}"}[lang]  # the role beside the code, under its label
    ann = lobby_page(browser, server.base, size, lang)  # type: ignore[arg-type]
    _named(ann, "Ann")
    ann.click("[data-testid=clubs-link]")
    ann.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)
    ann.fill("[data-testid=club-name]", f"transfer {size} {lang}")
    ann.click("[data-testid=create-club]")
    ann.wait_for_url("**/club/*", timeout=WAIT_MS)
    ann.wait_for_selector("#seasonform:not([hidden])", timeout=WAIT_MS)
    link = ann.input_value("[data-testid=club-link]")
    bob = browser.new_context(viewport=ann.viewport_size, device_scale_factor=1).new_page()  # type: ignore[attr-defined]
    _ready(bob, server.base + "/")
    bob.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    _ready(bob, link)
    bob.fill("#name", "<b>Bob</b>")
    bob.click("[data-testid=join-club]")
    bob.wait_for_selector("#memberonly:not([hidden])", timeout=WAIT_MS)
    assert bob.is_hidden("#seasonform") and bob.is_hidden("[data-testid=approval]")
    _ready(ann, link)
    bob_row = ann.locator("[data-testid=members] .member", has_text="<b>Bob</b>")
    assert bob_row.locator("button", has_text=make_owner).count() == 0  # a member is not offered the club
    bob_row.locator("button", has_text=make_admin).click()
    bob_row.locator("button", has_text=make_owner).wait_for(timeout=WAIT_MS)
    asked: list[str] = []
    ann.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    bob_row.locator("button", has_text=make_owner).click()
    ann.wait_for_function("w => document.getElementById('myrole').textContent === w", arg=my_role.format(admin_word), timeout=WAIT_MS)
    assert asked and "<b>Bob</b>" in asked[0]
    assert ann.is_hidden("#seasonform") and ann.is_visible("#leavecard")
    assert owner_word in (bob_row.text_content() or "")
    assert ann.locator("[data-testid=members] b").count() == 0  # his name stays text
    assert ann.locator("[data-testid=members] button", has_text=make_owner).count() == 0  # no longer Ann's to give
    _ready(bob, link)
    bob.wait_for_selector("#seasonform:not([hidden])", timeout=WAIT_MS)
    assert bob.text_content("[data-testid=my-role]") == my_role.format(owner_word) and bob.is_hidden("#leavecard")
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        bob.screenshot(path=str(Path(SHOTS) / f"club-owner-{size}-{lang}.png"), full_page=True)
    bob.context.close()
    ann.context.close()


def _told(page: Page, line: str) -> str:
    """What the message line with id ``line`` says, once it says anything."""
    page.wait_for_function("id => document.getElementById(id).textContent", arg=line, timeout=WAIT_MS)
    return page.text_content("#" + line) or ""


def test_a_careless_owner_and_visitor_are_told_in_the_pages_language(server: ServerProcess, browser: object) -> None:
    """A new user's review (phone, Chinese): saving the approval switch alone left the season
    fixed to this month's dates (it would never move on); a code in small letters, a code too
    long, a name in the join box and names of spaces were refused in English, raw JSON or
    "Unprocessable Entity"; a request to join could not be withdrawn."""
    ann = lobby_page(browser, server.base, "phone", "zh")  # type: ignore[arg-type]
    _named(ann, "Ann")
    ann.click("[data-testid=clubs-link]")
    ann.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)
    ann.fill("[data-testid=club-name]", "周五牌局")
    ann.click("[data-testid=create-club]")
    ann.wait_for_url("**/club/*", timeout=WAIT_MS)
    ann.wait_for_selector("#seasonform:not([hidden])", timeout=WAIT_MS)
    code = ann.text_content("[data-testid=club-code]") or ""
    assert (ann.text_content("#season") or "").endswith("（自然月）")
    ann.check("[data-testid=approval]")  # beside the members, saved at once
    ann.wait_for_function("() => VIEW && VIEW.club.approval", timeout=WAIT_MS)
    ann.click("#seasonform button[type=submit]")  # the month's dates saved unchanged: still the month
    assert ann.evaluate("VIEW.season_set") is False  # still the calendar month
    assert (ann.text_content("#season") or "").endswith("（自然月）")
    # the lobby's template row: no name, or a name of spaces, is refused in words that say what
    # is missing (not the server's English, nor "有一项填得不对", which an empty one said)
    _ready(ann, f"{server.base}/?club={code}")
    ann.wait_for_selector("#templaterow:not([hidden])", timeout=WAIT_MS)
    for name in ("", "   "):
        ann.evaluate("() => { document.getElementById('roomerr').textContent = ''; }")
        ann.fill("[data-testid=template-name]", name)
        ann.click("[data-testid=save-template]")
        assert _told(ann, "roomerr") == "先给模板起个名字"
    # a link typed in small letters opens the club
    ann.goto(f"{server.base}/club/{code.lower()}")
    ann.wait_for_function("n => document.getElementById('clubtitle').textContent === n", arg="周五牌局", timeout=WAIT_MS)
    assert ann.url.endswith(f"/club/{code}")
    # Carl, not a member
    carl = browser.new_context(viewport=ann.viewport_size, device_scale_factor=1, locale="zh-CN").new_page()  # type: ignore[attr-defined]
    _ready(carl, server.base + "/clubs")
    carl.fill("[data-testid=join-club-code]", "我的圈 hello/?")
    carl.click("#joinclubform button")
    assert _told(carl, "err") == "圈号是 4 到 16 位字母或数字（或粘贴邀请链接）" and carl.url.endswith("/clubs")
    _ready(carl, f"{server.base}/club/{'A' * 24}")
    assert _told(carl, "err") == "没有这个亲友圈"
    _ready(carl, f"{server.base}/club/{code}")
    carl.wait_for_selector("[data-testid=join-club]", timeout=WAIT_MS)
    carl.fill("#name", "   ")
    carl.click("[data-testid=join-club]")
    assert _told(carl, "err") == "名字不能为空"
    carl.fill("#name", "Carl")
    carl.click("[data-testid=join-club]")
    carl.wait_for_selector("[data-testid=withdraw]:not([hidden])", timeout=WAIT_MS)
    assert carl.text_content("#joinnote") == "已申请加入，等待管理员同意。" and carl.is_hidden("[data-testid=join-club]")
    _ready(ann, f"{server.base}/club/{code}")  # Ann sees his request...
    ann.wait_for_selector("[data-testid=requests] button", timeout=WAIT_MS)
    carl.click("[data-testid=withdraw]")  # ...which he withdraws before she answers it
    carl.wait_for_selector("[data-testid=join-club]:not([hidden])", timeout=WAIT_MS)
    assert carl.is_hidden("[data-testid=withdraw]") and carl.text_content("#err") == ""
    assert carl.text_content("#joinnote") == "你被邀请加入亲友圈“周五牌局”（圈主 Ann，1 位成员）。"
    ann.click("[data-testid=requests] button:has-text('同意')")  # refused: said in view, the lists as they are now
    assert _told(ann, "err") == "此人不在圈里"
    ann.wait_for_selector("#requestsbox", state="hidden", timeout=WAIT_MS)
    assert ann.evaluate("(() => { const r = document.getElementById('err').getBoundingClientRect(); "
                        "return r.top >= 0 && r.bottom <= innerHeight; })()") is True
    # Carl asks again and Ann says no: his page tells him (it asks every 30 s; here, reloaded)
    # when he may ask again, and offers no button before then (it could only be refused)
    carl.click("[data-testid=join-club]")
    carl.wait_for_selector("[data-testid=withdraw]:not([hidden])", timeout=WAIT_MS)
    _ready(ann, f"{server.base}/club/{code}")
    ann.wait_for_selector("[data-testid=requests] button", timeout=WAIT_MS)
    asking = ann.text_content("[data-testid=requests]") or ""
    assert "Carl" in asking and "在线" not in asking and "离线" not in asking  # never had the page: no presence
    ann.click("[data-testid=requests] button:text-is('拒绝')")
    # the no stays on Ann's list for the day, to be taken back if she clicked the wrong line
    ann.wait_for_selector("[data-testid=requests] button:text-is('撤销拒绝')", timeout=WAIT_MS)
    assert "未获同意" in (ann.text_content("[data-testid=requests]") or "")
    _ready(carl, f"{server.base}/club/{code}")
    carl.wait_for_function("() => document.getElementById('joinnote').textContent.startsWith('管理员没有同意')", timeout=WAIT_MS)
    again = carl.evaluate("(c) => fetch('/api/clubs/' + c).then(r => r.json()).then(j => localStamp(j.ask_again_at))", code)
    assert re.fullmatch(r"\d\d-\d\d \d\d:\d\d", again)
    assert carl.text_content("#joinnote") == f"管理员没有同意你加入“周五牌局”的申请，{again} 之后可以再申请。"
    assert carl.text_content("#myrole") == "我的身份：未获同意" and carl.is_hidden("[data-testid=withdraw]")
    assert carl.is_hidden("[data-testid=join-club]")
    # his list of clubs says so, under headings; a long Latin club name never widens a phone's page
    _ready(carl, server.base + "/clubs")
    carl.wait_for_selector("#clublist table", timeout=WAIT_MS)
    assert carl.eval_on_selector_all("#clublist th", "ths => ths.map(t => t.textContent)") == ["圈名", "圈号", "我的身份", "成员"]
    assert carl.eval_on_selector_all("#clublist td", "tds => tds.map(t => t.textContent)") == ["周五牌局", code, "未获同意", "1"]
    long_code = carl.evaluate("() => api('/api/clubs', { method: 'POST', body: { name: 'W'.repeat(40) } }).then(c => c.code)")
    _ready(carl, f"{server.base}/club/{long_code}")
    carl.wait_for_function("() => document.getElementById('clubtitle').textContent.length === 40", timeout=WAIT_MS)
    assert carl.evaluate("document.documentElement.scrollWidth") <= (carl.viewport_size or {}).get("width", 0)
    carl.context.close()
    ann.context.close()
