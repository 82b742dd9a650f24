"""The score table of a hand won with wilds, as a player on a phone reads it (a new player's
review, 2026-12-06): each scored set draws a wild where it stood as the tile held, marked 财
(the tile it stood for was only in a tooltip, which a touch screen never shows), and a Chinese
item says what its wilds stood for, as the English one did ("暗刻 北风（财神 八万当北风、秋当北风）"),
and an English item names its tiles in words ("concealed pong North Wind (wild: 8 of Characters as
North Wind, ...)"), not in the engine's notation ("4z", "8m=4z") a newcomer cannot read.

The hand: seed ``w0`` of ``caishen selfplay``, its second hand (won with wilds in two sets, and
a loser's items with wilds too), its score table built by the server's own code
(``core.result_hands``) and drawn by the pages' ``scoreTableEl``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from caishen.cli import main
from caishen.server.core import result_hands
from caishen.tiles import NUM_KINDS, chinese_name, tile_name
from caishen.variants.luoyang_gangci.wins import GangciWin
from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")

from helpers_browser import SIZES, watch_errors  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = ServerProcess(f"sqlite:///{tmp_path_factory.mktemp('scores') / 'centre.sqlite3'}").start()
    yield s
    s.stop()


KIND = {tile_name(k): k for k in range(NUM_KINDS)}


def _zh(held: str, meant: str) -> str:
    return f"{chinese_name(KIND[held])}当{chinese_name(KIND[meant])}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_score_table_shows_each_wild_where_it_stood_and_says_it_in_chinese(
        server: ServerProcess, browser: object, tmp_path: Path, lang: str) -> None:
    record = tmp_path / "w0.json"
    assert main(["selfplay", "--hands", "8", "--seed", "w0", "--record", str(record), "--quiet"]) == 0
    end = result_hands(record.read_text(encoding="utf-8"))[1][1]
    assert end.sets == ["{6m4m5m}", "<4444p>", "{3m1m2m}", "[6666z]", "99m(8m=9m)", "567p(f4=6p)"]
    ctx = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)  # type: ignore[attr-defined]
    page = ctx.new_page()
    watch_errors(page)
    page.goto(server.base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    page.goto(server.base + "/replay/none/1")  # a page with the score table's code (common.js, board.js)
    page.evaluate("""end => { const box = scoreTableEl(end); box.id = 'probe';
        document.body.replaceChildren(box); }""", json.loads(end.model_dump_json()))
    sets = page.locator("#probe [data-testid=sets] .set")
    assert sets.count() == 6
    # 99m(8m=9m): a 9m and the wild 8m standing for the other; 567p(f4=6p): 5p, the wild f4, 7p
    assert sets.nth(4).locator(".tile").evaluate_all("els => els.map((e) => [e.dataset.tile, e.dataset.stands || null])") \
        == [["9m", None], ["8m", "9m"]]
    assert sets.nth(5).locator(".tile").evaluate_all("els => els.map((e) => [e.dataset.tile, e.dataset.stands || null])") \
        == [["5p", None], ["f4", "6p"], ["7p", None]]
    assert sets.nth(5).locator(".tile.wild .badge").inner_text() == "财"
    # every item whose English names its wilds: the Chinese row says them too (zh), or both (en)
    rows = page.locator("#probe .scoreseat table tr td:nth-child(2)").all_inner_texts()
    wild_items = [it for line in end.lines for it in line.items if "(wild " in it.english]
    assert len(wild_items) >= 2
    for it in wild_items:
        subs = re.search(r"\(wild ([^)]*)\)$", it.english)
        assert subs is not None
        said: dict[str, int] = {}
        for sub in subs.group(1).split(","):
            text = _zh(*sub.split("="))
            said[text] = said.get(text, 0) + 1
        note = "（财神 " + "、".join(t if n == 1 else f"{t}×{n}" for t, n in said.items()) + "）"
        if lang == "zh":
            assert it.chinese + note in rows, (it.chinese + note, rows)
    # each total's power of two says what it is: a 台 doubles, none leaves the sum as it is
    formulas = page.locator("#probe [data-testid=formula]").all_inner_texts()
    tai = [(line.tai, line.formula) for line in end.lines if line.limit is None]
    assert len(formulas) == len(end.lines) and tai
    word = "台" if lang == "zh" else "tai"
    for (n, formula), shown in zip(tai, formulas, strict=False):
        assert f" x 2^{n} = " in formula and f" × 2^{n} ({n} {word} = ×{2 ** n}) = " in shown, (formula, shown)
    if lang == "en":  # the English names its tiles in words, not in the engine's notation (9m, 7z, f2)
        for want in ("concealed pong North Wind (wild: 8 of Characters as North Wind, Autumn as North Wind) 暗刻 北风",
                     "concealed pong Red Dragon (wild: 8 of Characters as Red Dragon) 暗刻 红中",
                     "exposed pong 4 of Bamboo 明刻 四条", "exposed kong Green Dragon 明杠 发财", "guest flower Summer 客花 夏"):
            assert want in rows, (want, rows)
        assert not [row for row in rows if re.search(r"\b([1-9][mpsz]|f[1-4])\b", row)], rows
    ctx.close()


def _rows_as_blocks(page: object, table: str) -> list[dict[str, float]]:
    """Each row of the table as the phone lays it out: the payer's and the payee's cells (their
    top, height and line height) and the row's right edge."""
    return page.locator(f"#probe [data-testid={table}] tr").evaluate_all(  # type: ignore[attr-defined]
        """rows => rows.slice(1).map((r) => {
            const cell = (sel) => r.querySelector(sel).getBoundingClientRect();
            const names = [...r.cells].filter((c) => /^[ESWN] /.test(c.textContent));
            const line = parseFloat(getComputedStyle(names[0]).lineHeight) || 20;
            return { from: names[0].getBoundingClientRect().top, to: names[1].getBoundingClientRect().top,
                     tallest: Math.max(...names.map((c) => c.getBoundingClientRect().height)) / line,
                     right: r.getBoundingClientRect().right, amount: cell("td.num").top - names[0].getBoundingClientRect().top };
        })""")


@pytest.mark.parametrize(("variant", "seed", "hand", "table"),
                         [("longgang", "w0", 1, "transfers"), ("luoyang-gangci", "g0", 3, "payments")])
def test_on_a_phone_each_payment_is_one_line_of_who_pays_whom_how_much(
        server: ServerProcess, browser: object, tmp_path: Path, variant: str, seed: str, hand: int, table: str) -> None:
    """On a phone (390 px) a payment is a block: payer → payee, its rule and its chips on one
    line, how it is reached under it. As five columns, every name was three lines tall (a new
    player's review, 2026-12-06); Gangci's payments table was left so and is a block now too."""
    record = tmp_path / "m.json"
    assert main(["selfplay", "--variant", variant, "--hands", "8", "--seed", seed, "--bots", "greedy,greedy,greedy,greedy",
                 "--record", str(record), "--quiet"]) == 0
    end = result_hands(record.read_text(encoding="utf-8"))[1][hand]
    assert len(end.payments if table == "payments" else end.transfers) >= 4
    ctx = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)  # type: ignore[attr-defined]
    page = ctx.new_page()
    watch_errors(page)
    page.goto(server.base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", "en")
    page.goto(server.base + "/replay/none/1")
    page.evaluate("""end => { const box = scoreTableEl(end); box.id = 'probe';
        document.body.replaceChildren(box); }""", json.loads(end.model_dump_json()))
    rows = _rows_as_blocks(page, table)
    assert len(rows) == len(end.payments if table == "payments" else end.transfers)
    for row in rows:
        assert row["from"] == row["to"] and abs(row["amount"]) < 2, row  # payer, payee and chips on one line
        assert row["tallest"] < 1.5, row  # each name on one line
        assert row["right"] <= SIZES["phone"]["width"], row
    # Gangci's win types are the source's words: the table says what the one won is (炸弹 is a
    # plain self-drawn win), and every type has its words in both languages
    explain = page.locator("#probe [data-testid=win-explain]")
    if table == "payments":
        assert end.win_type == "zha_dan"
        assert explain.inner_text() == ("Bomb: a plain self-drawn win on a tile the hand waited for; "
                                        "each other player pays the bomb base.")
        said = page.evaluate("""types => ["zh", "en"].flatMap((lang) => types.map((w) => I18N[lang]["explain_" + w]))""",
                             [w.value for w in GangciWin])
        assert all(said) and len(set(said)) == 2 * len(GangciWin), said
    else:
        assert explain.count() == 0
    ctx.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_hand_a_player_went_broke_in_says_so_and_who_lent_him_chips_l25_4(
        server: ServerProcess, browser: object, tmp_path: Path, lang: str) -> None:
    """Seed ``b1`` of ``caishen selfplay`` with greedy bots, its fourth hand: greedy-2 loses his
    last chips, greedy-0 (the richest) lends him 50 (L25.4) and his line says "Chips now 50".
    The table says who went broke and who lent whom how much (it said nothing: a phone review)."""
    record = tmp_path / "b1.json"
    assert main(["selfplay", "--hands", "16", "--seed", "b1", "--bots", "greedy,greedy,greedy,greedy",
                 "--record", str(record), "--quiet"]) == 0
    end = result_hands(record.read_text(encoding="utf-8"))[1][3]
    assert end.broke == ["greedy-2"] and [(r.name, r.chips) for r in end.rebuys] == [("greedy-0", -50), ("greedy-2", 50)]
    ctx = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)  # type: ignore[attr-defined]
    page = ctx.new_page()
    watch_errors(page)
    page.goto(server.base + "/")
    page.evaluate("lang => localStorage.setItem('caishen.lang', lang)", lang)
    page.goto(server.base + "/replay/none/1")
    page.evaluate("""end => { const box = scoreTableEl(end); box.id = 'probe';
        document.body.replaceChildren(box); }""", json.loads(end.model_dump_json()))
    said = (page.locator("#probe [data-testid=went-broke]").inner_text(), page.locator("#probe [data-testid=rebuys]").inner_text())
    assert said == (("断筹（L25）：greedy-2", "加筹（L25.4）：greedy-0 借给 greedy-2 共 50 筹，已算入“现有筹码”") if lang == "zh"
                    else ("Went broke 断筹 (L25): greedy-2", "Top-up 加筹 (L25.4): greedy-0 lent greedy-2 50 chips, counted in “Chips now”"))
    ctx.close()
