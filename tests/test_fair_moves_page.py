"""Issue 29 item 5 in the browser: the table page makes an ECDSA P-256 key pair with WebCrypto
(private key not extractable, kept in IndexedDB for the room: a reload signs with the same
key), registers its public key and signs every move; the downloaded record holds that seat's
key and a signature on each of its moves, and verifies with ``caishen verify --key`` and in the
page (docs/fairness.md, "Signed moves")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from caishen.cli import main as cli_main
from helpers_server import ServerProcess

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
from helpers_browser import bots_room, move_when_asked, next_hand, play_hand  # noqa: E402 - needs Playwright


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("movepage") / "centre.sqlite3"
    s = ServerProcess(f"sqlite:///{db}", env={"CAISHEN_PACE_SCALE": "0"}).start()
    yield s
    s.stop()



def test_the_page_signs_its_moves_and_the_record_verifies(server: ServerProcess, browser: Any, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    ctx = browser.new_context(viewport={"width": 1000, "height": 800}, locale="en-US")
    page = ctx.new_page()
    code = bots_room(page, server.base)
    page.goto(server.base + f"/r/{code}")
    page.wait_for_selector("[data-testid=myhand] .tile")
    page.wait_for_function("(document.body.dataset.movekey || '').length > 4")
    key = page.evaluate("document.body.dataset.movekey")
    assert re.fullmatch("04[0-9a-f]{128}", key)
    # two moves, then a reload: the page signs on with the same key (kept in IndexedDB); then
    # hands to their end until the person has made a move after the reload (a bot may end a
    # hand before the person's turn: the moves then go on in the next hand)
    for _ in range(2):
        move_when_asked(page)
    page.reload()
    page.wait_for_selector("[data-testid=myhand] .tile")
    page.wait_for_function("(document.body.dataset.movekey || '').length > 4")
    assert page.evaluate("document.body.dataset.movekey") == key
    after = play_hand(page)
    for _ in range(4):
        if after:
            break
        next_hand(page)
        after += play_hand(page)
    assert after > 0

    text = httpx.get(server.base + f"/api/matches/{code}/record", timeout=60).text
    moves = 0
    for h in json.loads(text)["hands"]:  # every hand played (one, unless a bot ended one early)
        seat = h["seats"].index(0)
        mine = [i for i, (s, _) in enumerate(h["actions"]) if s == seat]
        moves += len(mine)
        assert h["signers"] == [key if s == seat and mine else None for s in range(4)]
        assert all(re.fullmatch("[0-9a-f]{128}", h["signatures"][i]) for i in mine)
        assert all(sig == "server" for i, sig in enumerate(h["signatures"]) if i not in mine)
    assert moves >= 3  # two before the reload, at least one after it
    # in the page's own verifier, and with caishen verify and the centre's key
    got = page.evaluate("(t) => FairCheck.verifyRecord(t)", text)
    assert got["ok"] and f"moves: {moves} signed by the person's own key" in got["message"], got
    path = tmp_path / "record.json"
    path.write_text(text, encoding="utf-8")
    assert cli_main(["verify", "--key", json.loads(text)["signature"]["key"], str(path)]) == 0
    assert f"moves: {moves} signed by the person's own key" in capsys.readouterr().out
    ctx.close()


def test_without_webcrypto_the_page_plays_unsigned(server: ServerProcess, browser: Any) -> None:
    """Where the browser gives no ``crypto.subtle`` (http from an address other than localhost),
    the page says it cannot sign, sends no key and its moves go without ``sig``."""
    ctx = browser.new_context(viewport={"width": 1000, "height": 800}, locale="en-US")
    ctx.add_init_script("Object.defineProperty(Crypto.prototype, 'subtle', {get() { return undefined; }})")
    page = ctx.new_page()
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    code = bots_room(page, server.base)
    page.goto(server.base + f"/r/{code}")
    page.wait_for_selector("[data-testid=myhand] .tile")
    page.wait_for_function("document.body.dataset.movekey === 'none'")
    assert page.locator("[data-testid=keyline]").inner_text() == "This browser cannot sign moves: yours are recorded unsigned"
    move_when_asked(page)  # into the next hand if a bot ends the first before the person's turn
    acts = [m for m in sent if m.get("type") == "act"]
    assert acts and all("sig" not in m for m in acts)
    assert not [m for m in sent if m.get("type") == "key"]
    ctx.close()


def test_the_pages_verifier_counts_each_moves_step_as_caishen_verify_does(
        server: ServerProcess, browser: Any, tmp_path: Path) -> None:
    """An answer to a discard is signed at the step after the discard, however many claimed
    before it, and of one discard's claims only the one that took effect counts
    (caishen/table/movesig.py, ``steps``): the page's verifier counts the same steps,
    and the step an older record signed it at, over whole matches of random players (who claim
    often: windows of two answers that are not passes)."""
    from caishen.table import movesig  # noqa: PLC0415

    record = tmp_path / "r.json"
    assert cli_main(["selfplay", "--hands", "8", "--seed", "s1", "--record", str(record),
                     "--quiet"]) == 0
    hands = [[(seat, text) for seat, text in h["actions"]] for h in json.loads(record.read_text())["hands"]]
    want = [[list(at) for at in movesig.steps(h)] for h in hands]
    assert any(new != old for h in want for new, old in h)  # the two counts differ somewhere

    def lost_claims(hand: list[tuple[int, str]]) -> int:  # a hand's claims that lost: counted by older records only
        counter = movesig.Steps()
        for seat, text in hand:
            counter.add(seat, text.split(" ", 1)[0])
        return counter.older - counter.count

    assert any(lost_claims(h) for h in hands)  # a claim lost to another on one discard somewhere
    page = browser.new_context().new_page()
    page.goto(server.base + "/m/none")  # a page with the verifier (fair.js)
    page.wait_for_function("typeof FairCheck === 'object'")
    assert page.evaluate("(hs) => hs.map((h) => FairCheck.moveSteps(h).map(([s, , o]) => [s, o]))", hands) == want
    also = [[list(at) for at in movesig.accepted(h)] for h in hands]
    assert page.evaluate("(hs) => hs.map((h) => FairCheck.acceptedSteps(h))", hands) == also
    page.context.close()
