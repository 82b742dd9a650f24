"""Browser test of profiles and share cards (issue 30, item 4), desktop and phone, Chinese and
English: a person (a name with HTML in it) finishes a match against bots, opens its result page
and downloads the share card: a PNG of the card's size, showing every player's name (the texts
the drawing code put on it, each with ink in its place in the downloaded image, and a card with
one name changed is another image); the profile page shows the person's numbers and the name as
text, and "Invite again" opens a new room with a seat for a friend.

Run it on its own: ``python3 -m pytest -m browser tests/test_server_browser_profiles.py``.
With ``CAISHEN_SCREENSHOTS=DIR`` it saves the profile page and the card of each size and
language there (docs/screenshots/profile.png and sharecard.png are the Chinese desktop ones).
"""

from __future__ import annotations

import base64
import json
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from helpers_server import ServerProcess, act_json, choose

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
SHOTS = os.environ.get("CAISHEN_SCREENSHOTS")
Page = playwright_api.Page
from helpers_browser import SIZES, take_name  # noqa: E402 - needs playwright

WAIT_MS = 60000  # a bound only (a busy machine)
BOUND = 60  # s: the same for the test's own WebSocket and HTTP requests
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BOT = {"zh": "机器人 {0} (贪心)", "en": "bot {0} (greedy)"}  # a greedy bot's name as the pages show it


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("profiles") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}", env={"CAISHEN_PACE_SCALE": "0", "CAISHEN_CONTRIBUTE_SECONDS": "0"}).start()
    yield s
    s.stop()


def _person(server: ServerProcess, name: str) -> httpx.Client:
    http = httpx.Client(base_url=server.base, timeout=BOUND)
    assert http.post("/api/me", json={"name": name}).status_code == 200
    return http


def _play_match(server: ServerProcess, http: httpx.Client) -> str:
    """A room of the person against three bots at the instant pace, played to its end over the
    table's WebSocket (the player of helpers_server); its code."""
    r = http.post("/api/rooms", json={"turn_seconds": 0, "pace": "instant"})
    assert r.status_code == 200, r.text
    code: str = r.json()["code"]
    with connect(f"ws://127.0.0.1:{server.port}/ws/{code}", additional_headers={"Cookie": f"caishen={http.cookies['caishen']}"},
                 open_timeout=BOUND) as ws:
        while True:
            v: dict[str, Any] = json.loads(ws.recv(timeout=BOUND))
            if v["type"] != "state":
                assert v["type"] != "error" or v.get("code") == "stale", v
                continue
            if v["match_over"]:
                break
            if v["hand_end"] is not None:
                ws.send(json.dumps({"type": "next", "hand": v["hand"]}))
            elif v["choices"]:
                ws.send(act_json(v, choose(v)))
    return code


def _page(browser: Any, server: ServerProcess, http: httpx.Client, size: str, lang: str) -> Page:
    """A page of the centre in ``lang`` at ``size``, signed in as ``http``'s person."""
    ctx = browser.new_context(viewport=SIZES[size], device_scale_factor=1, accept_downloads=True)
    ctx.add_cookies([{"name": "caishen", "value": http.cookies["caishen"], "url": server.base}])
    page = ctx.new_page()
    page.goto(server.base + "/healthz")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    return page  # type: ignore[no-any-return]


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _shot(page: Page, name: str, part: str | None = None) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        if part:
            page.locator(part).screenshot(path=str(Path(SHOTS) / name))
        else:
            page.screenshot(path=str(Path(SHOTS) / name), full_page=True)


# In the page: how many pixels of each text's box (x, y, w, h) in the PNG `url` differ clearly
# from the box's own lightest-or-darkest background (its most common colour): ink.
_INK = """async ([url, boxes]) => {
  const img = new Image();
  img.src = url;
  await img.decode();
  const c = document.createElement("canvas");
  c.width = img.width; c.height = img.height;
  const ctx = c.getContext("2d");
  ctx.drawImage(img, 0, 0);
  return boxes.map((b) => {
    const d = ctx.getImageData(b.x, b.y, Math.max(1, b.w), Math.max(1, b.h)).data;
    const counts = new Map();
    for (let i = 0; i < d.length; i += 4) { const k = d[i] << 16 | d[i + 1] << 8 | d[i + 2]; counts.set(k, (counts.get(k) || 0) + 1); }
    const bg = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) {
      const diff = Math.abs(d[i] - (bg >> 16 & 255)) + Math.abs(d[i + 1] - (bg >> 8 & 255)) + Math.abs(d[i + 2] - (bg & 255));
      if (diff > 150) ink += 1;
    }
    return ink;
  });
}"""

# In the page: the card drawn from the result `res` twice, and once with the name of standing
# `i` replaced by `other`: the PNGs (data URLs).
_REDRAW = """([res, i, other]) => {
  const again = ShareCard.draw(res).canvas.toDataURL("image/png");
  const twice = ShareCard.draw(res).canvas.toDataURL("image/png");
  const changed = structuredClone(res);
  changed.standings[i].name = other;
  return [again, twice, ShareCard.draw(changed).canvas.toDataURL("image/png")];
}"""


@pytest.mark.parametrize(("size", "lang"), [("desktop", "zh"), ("desktop", "en"), ("phone", "zh"), ("phone", "en")])
def test_a_finished_match_gets_a_share_card_and_the_profile_counts_it(
    server: ServerProcess, browser: object, size: str, lang: str,
) -> None:
    name = f"<b>梅</b> Mei {size[0]}{lang}"
    http = _person(server, name)
    code = _play_match(server, http)
    res = http.get(f"/api/matches/{code}").json()
    assert res["status"] == "over" and res["hands"]
    page = _page(browser, server, http, size, lang)
    page.goto(f"{server.base}/m/{code}")
    page.wait_for_selector("#sharecard[data-ready]", state="attached", timeout=WAIT_MS)
    with page.expect_download(timeout=WAIT_MS) as got:
        page.click("[data-testid=sharecard-download]")
    assert got.value.suggested_filename == f"caishen-{code}.png"
    data = Path(got.value.path()).read_bytes()
    assert _png_size(data) == (1080, 1350)
    assert 20_000 < len(data) < 3_000_000, len(data)
    # the names drawn: the person's as typed (text, not HTML), the bots' in the page's language
    texts: list[dict[str, Any]] = page.evaluate("window.shareCardTexts")
    names = [x for x in texts if x["role"] == "name"]
    shown = [s["name"] if "bot" not in s["name"] else BOT[lang].format(s["name"].split()[-1]) for s in res["standings"]]
    assert [x["text"] for x in names] == shown and name in shown
    # each name has ink in its box in the downloaded PNG itself
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    inks = page.evaluate(_INK, [url, names])
    assert all(ink >= 40 for ink in inks), inks
    # the same result draws the same card; another name, another card
    mine = next(i for i, s in enumerate(res["standings"]) if s["name"] == name)
    again, twice, changed = page.evaluate(_REDRAW, [res, mine, name.replace("梅", "兰")])
    assert again == twice and changed != again
    assert page.locator("[data-testid=sharecard-img]").is_visible()
    _shot(page, f"sharecard-result-{size}-{lang}.png", "#sharecard")
    if SHOTS:
        (Path(SHOTS) / f"sharecard-{size}-{lang}.png").write_bytes(data)
        if (size, lang) == ("desktop", "zh"):
            (Path(SHOTS) / "sharecard.png").write_bytes(data)
    # the profile: the numbers of the API, the name as text; a link to it from the result page
    page.click("[data-testid=profile-link]")
    page.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)
    assert page.locator("[data-testid=profile-name]").inner_text() == name
    assert page.locator("[data-testid=profile-name] b").count() == 0
    stats = http.get("/api/players/me/profile").json()["stats"]
    assert stats["hands"] == len(res["hands"]) and stats["finished"] == 1
    assert page.locator("[data-testid=stat-hands]").inner_text() == str(stats["hands"])
    assert page.locator("[data-testid=no-recent]").is_visible()  # only bots so far
    page.context.close()


@pytest.mark.parametrize(("size", "lang"), [("desktop", "zh"), ("phone", "en")])
def test_recent_players_are_invited_again_from_the_profile(
    server: ServerProcess, browser: object, size: str, lang: str,
) -> None:
    ann, bob = _person(server, f"安 Ann {size}"), _person(server, f"<i>Bob</i> 波 {lang}")
    _play_match(server, ann)  # with bots only: nobody to invite from it
    code = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "variant": "luoyang-gangci", "hands": 16}).json()["code"]
    assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
    page = _page(browser, server, ann, size, lang)
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)
    page.click("[data-testid=my-profile]")
    page.wait_for_selector("[data-testid=recent-player]", timeout=WAIT_MS)
    rows = page.locator("[data-testid=recent-player]")
    assert rows.count() == 1 and rows.first.locator(".who").inner_text() == f"<i>Bob</i> 波 {lang}"
    assert rows.first.locator("i").count() == 0
    if lang == "zh" and size == "desktop":
        _shot(page, "profile.png")
    _shot(page, f"profile-{size}-{lang}.png")
    page.click("[data-testid=invite]")
    page.wait_for_url(f"{server.base}/r/*", timeout=WAIT_MS)
    new = page.url.rsplit("/", 1)[1]
    room = ann.get(f"/api/rooms/{new}").json()
    assert new != code and room["status"] == "waiting" and room["owner"] is True
    assert (room["variant"], room["hands"]) == ("luoyang-gangci", 16)
    assert [s["name"] is None and s["bot"] is None for s in room["seats"]].count(True) == 1  # a seat for a friend
    assert bob.post(f"/api/rooms/{new}/join").json()["status"] == "playing"
    # a guest's profile is nobody else's to see; a deleted account is "deleted player"
    bob_id = bob.get("/api/me").json()["id"]
    page.goto(f"{server.base}/profile/{bob_id}")
    page.wait_for_selector("[data-testid=no-profile]", timeout=WAIT_MS)
    login = f"bob-{size}-{lang}"
    assert bob.post("/api/account", json={"login": login, "password": "correct horse battery"}).status_code == 200
    page.reload()
    page.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)
    assert page.locator("[data-testid=profile-name]").inner_text() == f"<i>Bob</i> 波 {lang}"
    assert bob.post("/api/account/delete", json={"password": "correct horse battery"}).status_code == 200
    page.reload()
    page.wait_for_selector("[data-testid=deleted]", timeout=WAIT_MS)
    assert page.locator("[data-testid=profile-name]").inner_text() == {"zh": "已删除玩家", "en": "deleted player"}[lang]
    page.context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_my_profile_with_no_name_says_where_to_go_and_the_claim_form_says_how_long_a_password(
        server: ServerProcess, browser: object, lang: str) -> None:
    """Logged out, "My profile" said only "pick a name in the lobby first", with no way to log
    in; the claim form's password box said nothing of its 8 characters until the browser's own
    warning (a phone review)."""
    ctx = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.goto(server.base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    page.goto(server.base + "/profile/me")
    page.wait_for_selector("[data-testid=no-profile]", timeout=30000)
    assert page.locator("[data-testid=no-profile]").inner_text() == {
        "zh": "先在大厅取一个昵称，或登录你的账户。", "en": "Pick a name in the lobby first, or log in to your account."}[lang]
    assert page.get_attribute("[data-testid=to-login]", "href") == "/account"
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready]", state="attached", timeout=30000)
    take_name(page, "Kai")
    page.goto(server.base + "/account")
    page.wait_for_selector("#claimcard:not([hidden])", timeout=30000)
    assert page.locator("label:has(#claimpassword) span").inner_text() == {
        "zh": "密码（至少 8 个字符）", "en": "Password (8 characters or more)"}[lang]
    ctx.close()


def test_on_a_phone_my_clubs_my_devices_and_my_profile_fit_the_screen(server: ServerProcess, browser: object) -> None:
    """A phone review (390 px, English): my clubs' "Members" column, the "End" button of this
    device's row and the profile's per-variant figures ran past the screen's edge or broke
    inside a word ("Longga/ng", "0.0/%"). Each table now fits, its numbers on one line."""
    ctx = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.goto(server.base + "/")
    page.evaluate("() => localStorage.setItem('caishen.lang', 'en')")
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready]", state="attached", timeout=30000)
    take_name(page, "阿丽")
    for call in ("fetch('/api/clubs', {method: 'POST', headers: {'content-type': 'application/json'}, "
                 "body: JSON.stringify({name: '周五麻将局', approval: false})})",
                 "fetch('/api/practice', {method: 'POST'})",
                 "fetch('/api/account', {method: 'POST', headers: {'content-type': 'application/json'}, "
                 "body: JSON.stringify({login: 'ali-phone', password: 'correct horse'})})"):
        assert page.evaluate(f"() => {call}.then((r) => r.status)") == 200
    width = SIZES["phone"]["width"]
    for path, table in (("/clubs", "#clublist table"), ("/account", "[data-testid=sessions]"), ("/profile/me", "table")):
        page.goto(server.base + path)
        page.wait_for_selector(f"{table} td", timeout=30000)
        # (the lines a cell's text takes: its text's line boxes, not the row's height)
        cells = page.locator(f"{table} td").evaluate_all("""tds => tds.map((td) => { const r = td.getBoundingClientRect();
            const range = document.createRange(); range.selectNodeContents(td);
            const tops = new Set([...range.getClientRects()].map((x) => Math.round(x.top)));
            return { right: r.right, num: td.classList.contains('num'), lines: tops.size, text: td.textContent }; })""")
        assert cells, path
        for c in cells:
            assert c["right"] <= width + 0.5, (path, c)
            assert not c["num"] or c["lines"] == 1, (path, c)  # a number on one line
    ctx.close()
