"""Issue 29, item 4: the test vectors of tests/data/fair-vectors.json hold in Python
(caishen.fair) and in the browser (static/fair.js in Chromium, offline: no server), and the
browser verifier accepts a whole record and refuses the tampered ones ``caishen verify``
refuses."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from caishen import fair
from caishen.table.match import Match
from caishen.table.play import play
from caishen.table.players import RandomPlayer, player_rng
from caishen.table.record import Mix, VerifyError, loads
from caishen.table.replay import verify
from caishen.tiles import tile_name
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI
from fair_vectors import PATH, text

FAIR_JS = Path(__file__).resolve().parents[1] / "src" / "caishen" / "server" / "static" / "fair.js"
VECTORS = json.loads(PATH.read_text(encoding="utf-8"))


def test_the_vectors_file_is_what_caishen_fair_computes() -> None:
    assert PATH.read_text(encoding="utf-8") == text()


def test_python_matches_every_vector() -> None:
    for v in VECTORS["caishen-fair-1"]:
        seed = bytes.fromhex(v["seed"])
        assert fair.commitment(seed) == v["commitment"]
        assert " ".join(tile_name(k) for k in fair.shuffled_wall(seed, LONGGANG)) == v["wall_longgang"]
        assert list(fair.dice(seed)) == v["dice"]
    assert len(VECTORS["caishen-fair-2"]) == 5
    for v in VECTORS["caishen-fair-2"]:
        seed, prev = bytes.fromhex(v["seed"]), bytes.fromhex(v["prev"])
        cs = [None if c is None else bytes.fromhex(c) for c in v["contributions"]]
        assert fair.mix_message(cs, v["index"]).hex() == v["mix_message"]
        ws = fair.wall_seed(seed, cs, v["index"])
        assert ws.hex() == v["wall_seed"]
        assert fair.chained_commitment(seed, prev, v["index"]) == v["commitment"]
        assert " ".join(tile_name(k) for k in fair.shuffled_wall(ws, LONGGANG)) == v["wall_longgang"]
        assert " ".join(tile_name(k) for k in fair.shuffled_wall(ws, GANGCI)) == v["wall_gangci"]
        assert list(fair.dice(ws)) == v["dice"]


def mixed_record(hands: int = 8, seat_draw: bool = False) -> dict[str, Any]:
    """An 8-hand match where seats 0 and 2 contribute to every wall (``seat_draw``: the
    players seated by the draw 校位定莊 from the match seed, L2)."""
    m = Match(LONGGANG.replace(hands_per_match=hands), [RandomPlayer(player_rng(b"browser", i)) for i in range(4)],
              seed=b"browser", seat_draw=seat_draw)
    while not m.over:
        mix = Mix((bytes(range(32)), "bot", bytes(range(50, 82)), "timeout"), ("commit", "contribute 0", "contribute 2",
                                                                             "deal"))
        game = m.deal(mix)
        play(game, [m.players[p] for p in m.seats])
        m.finish(game)
    out: dict[str, Any] = json.loads(m.record().dumps())
    return out


# ---------------------------------------------------------------- in Chromium


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    """A page of a made-up https origin (a secure context, as WebCrypto needs) that is only
    fair.js: nothing is fetched from any server."""
    pg = browser.new_page()
    pg.route("https://caishen.test/**", lambda route: route.fulfill(
        status=200, content_type="text/html",
        body=f"<!doctype html><meta charset=utf-8><script>{FAIR_JS.read_text(encoding='utf-8')}</script>"))
    pg.goto("https://caishen.test/check.html")
    yield pg
    pg.close()


VECTOR_CHECK = """async (v) => {
  const F = FairCheck, out = [];
  const tiles = (variant) => F.tileSet({version: 3, variant, ruleset: {has_white: false, has_flowers: true}});
  for (const x of v["caishen-fair-1"]) {
    const seed = F.unhex(x.seed);
    const c = F.hex(new Uint8Array(await crypto.subtle.digest("SHA-256", seed)));
    if (c !== x.commitment) out.push(["fair-1 commitment", x.seed]);
    if ((await F.shuffledWall(seed, tiles("longgang"))).join(" ") !== x.wall_longgang) out.push(["fair-1 wall", x.seed]);
    if ((await F.dice(seed)).join() !== x.dice.join()) out.push(["fair-1 dice", x.seed]);
  }
  for (const x of v["caishen-fair-2"]) {
    const seed = F.unhex(x.seed), prev = F.unhex(x.prev);
    const cs = x.contributions.map((c) => (c === null ? null : F.unhex(c)));
    if (F.hex(F.mixMessage(cs, x.index)) !== x.mix_message) out.push(["mix message", x.index]);
    const ws = await F.wallSeed(seed, cs, x.index);
    if (F.hex(ws) !== x.wall_seed) out.push(["wall seed", x.index]);
    if ((await F.chainedCommitment(seed, prev, x.index)) !== x.commitment) out.push(["commitment", x.index]);
    if ((await F.shuffledWall(ws, tiles("longgang"))).join(" ") !== x.wall_longgang) out.push(["wall", x.index]);
    if ((await F.shuffledWall(ws, tiles("luoyang-gangci"))).join(" ") !== x.wall_gangci) out.push(["gangci wall", x.index]);
    if ((await F.dice(ws)).join() !== x.dice.join()) out.push(["dice", x.index]);
  }
  return out;
}"""


@pytest.mark.browser
def test_the_browser_matches_every_vector(page: Any) -> None:
    assert page.evaluate("window.isSecureContext") is True
    assert page.evaluate(VECTOR_CHECK, VECTORS) == []


def _check(page: Any, record: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = page.evaluate("(r) => FairCheck.verifyRecord(JSON.stringify(r))", record)
    return out


@pytest.mark.browser
def test_the_browser_verifies_a_whole_match_and_refuses_tampered_ones(page: Any) -> None:
    good = mixed_record()
    assert len(good["hands"]) == 8
    r = _check(page, good)
    assert r["ok"] is True, r["message"]
    assert r["hands"] == 8 and r["draws"] == sum(len(h["draws"]) for h in good["hands"])

    def bad(change: Any) -> str:
        d = copy.deepcopy(good)
        change(d)
        res = _check(page, d)
        assert res["ok"] is False
        return str(res["message"])

    assert bad(lambda d: d["hands"][3]["contributions"].__setitem__(0, "11" * 32)).startswith("hand 4 (hands[3]): wall position")
    renumber = lambda d: [h.__setitem__("index", i) for i, h in enumerate(d["hands"])]  # noqa: E731
    assert "hand 3 (hands[2]): the chain is broken" in bad(lambda d: (d["hands"].pop(2), renumber(d)))
    assert "hand 2 (hands[1]): the chain is broken" in bad(lambda d: (d["hands"].insert(1, d["hands"].pop(4)), renumber(d)))
    assert "hand 6 (hands[5]): the revealed seed does not match the commitment" in bad(
        lambda d: d["hands"][5].__setitem__("seed", "ab" * 32))
    assert "hand 1 (hands[0]): a contribution arrived after the seed was revealed" in bad(
        lambda d: d["hands"][0].__setitem__("timeline", ["commit", "contribute 0", "deal", "reveal", "contribute 2"]))
    assert "hand 7 (hands[6].draws[70]): the draw does not match the wall" in bad(lambda d: d["hands"][6]["draws"][70].__setitem__(2, "f4"))


@pytest.mark.browser
def test_the_browser_checks_the_seat_draw_and_every_hands_seed_against_the_match_seed(page: Any) -> None:
    """L2, L4: a match played from one master seed, revealed in its record, has its seat draw
    and every hand's seed from that seed; the browser's checker checks both, as caishen verify
    does, and names the same first failure (it checked neither before)."""
    good = mixed_record(hands=2, seat_draw=True)
    assert good["seat_draw"]["tiles"] and good["seed"] == b"browser".hex()
    r = _check(page, good)
    assert r["ok"] is True and "every hand's seed and the seat draw come from the match seed" in r["message"], r
    assert page.evaluate("async (s) => FairCheck.canonical(await FairCheck.seatDraw(FairCheck.unhex(s), 4))",
                         good["seed"]) == json.dumps(good["seat_draw"], ensure_ascii=False, sort_keys=True,
                                                     separators=(",", ":"))
    other = dict(good, seed=b"another".hex())  # the draw and the hands' seeds came from another seed
    said = str(_check(page, other)["message"])
    assert said.startswith("hand 1 (hands[0]): the seat draw is not the one the match seed gives (L2): expected {")
    with pytest.raises(VerifyError, match=re.escape("hand 1 (hands[0]): the seat draw is not the one the match seed gives (L2)")):
        verify(loads(json.dumps(other)))
    plain = mixed_record(hands=2)
    assert "seat_draw" not in plain and _check(page, plain)["ok"] is True
    moved = dict(plain, seed=b"another".hex())  # no seat draw: each hand's seed is checked
    want = fair.hand_seed(b"another", 0).hex()
    said = str(_check(page, moved)["message"])
    assert said == (f"hand 1 (hands[0]): the hand's seed is not the one the match seed gives (L4): expected {want}, "
                    f"recorded {plain['hands'][0]['seed']}")
    with pytest.raises(VerifyError) as err:
        verify(loads(json.dumps(moved)))
    assert str(err.value) == said


@pytest.mark.browser
def test_the_browser_verifies_the_older_records(page: Any) -> None:
    for path in sorted((Path(__file__).parent / "data" / "records-v1").glob("*.json")):
        r = _check(page, json.loads(path.read_text(encoding="utf-8")))
        assert r["ok"] is True, (path.name, r["message"])


@pytest.mark.browser
def test_a_finished_match_in_the_centre_verifies_in_the_result_page(tmp_path: Path, browser: Any) -> None:
    """The acceptance: the record of a match finished in the centre is checked by the result
    page in the browser ("verified in your browser"), and by ``caishen verify --key``."""
    import httpx  # noqa: PLC0415
    from websockets.sync.client import connect  # noqa: PLC0415

    from caishen.cli import main as cli_main  # noqa: PLC0415
    from caishen.table.signing import load_or_create_key, public_key_hex  # noqa: PLC0415
    from helpers_server import ServerProcess, act_json, choose  # noqa: PLC0415

    server = ServerProcess(f"sqlite:///{tmp_path / 'centre.sqlite3'}").start()
    try:
        r = httpx.post(server.base + "/api/me", json={"name": "Mei"}, timeout=60)
        code = httpx.post(server.base + "/api/rooms", cookies=r.cookies, timeout=60,
                          json={"friends": 0, "turn_seconds": 0, "hands": 8, "bot": "random"}).json()["code"]
        url = server.base.replace("http://", "ws://") + f"/ws/{code}"
        with connect(url, additional_headers={"Cookie": f"caishen={r.cookies['caishen']}"}, open_timeout=60) as ws:
            view: dict[str, Any] = {"match_over": False, "hand_end": None, "choices": []}
            while not view["match_over"]:
                msg = json.loads(ws.recv(timeout=30))
                if msg["type"] != "state":
                    continue
                view = msg
                if view["hand_end"] is not None and not view["match_over"]:
                    ws.send(json.dumps({"type": "next", "hand": view["hand"]}))
                elif view["choices"] and view["hand_end"] is None:
                    ws.send(act_json(view, choose(view)))
        record = httpx.get(server.base + f"/api/matches/{code}/record", timeout=60).text
        path = tmp_path / "downloaded.json"
        path.write_text(record, encoding="utf-8")
        assert cli_main(["verify", "--key", public_key_hex(load_or_create_key()), str(path)]) == 0
        # the key to check it with is published by the centre, not taken from the record
        published = httpx.get(server.base + "/api/signing-key", timeout=60).json()
        assert published == {"algorithm": "ed25519", "key": public_key_hex(load_or_create_key())}
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto(server.base + f"/m/{code}")
        page.wait_for_selector("[data-testid=browser-verify][data-ok]", timeout=30000)
        local = page.locator("[data-testid=browser-verify]")
        assert local.get_attribute("data-ok") == "true", local.text_content()
        assert f"{len(json.loads(record)['hands'])} hands" in (local.text_content() or "")  # 8, or fewer: broke
        # the page shows the published key and that the record names it; and what the browser checks
        page.wait_for_selector("[data-testid=key-match]", timeout=30000)
        assert published["key"] in (page.text_content("[data-testid=centre-key]") or "")
        assert page.get_attribute("[data-testid=key-match]", "class") == "pos"
        assert "second opinion" in (page.text_content("[data-testid=browser-scope]") or "")
        # and, first, what it all shows, in plain words (the words were an expert's: a review)
        assert (page.text_content("[data-testid=fair-plain]") or "").startswith("What this shows: before each hand the centre")
        # each hand's randomness named by seat, in the page's words (it read "none bot bot bot")
        cells = page.eval_on_selector_all("#fairness td:nth-child(4)", "tds => tds.map(t => t.textContent)")
        assert cells and all(c.split(" · ")[0].split(" ")[0] == "E" and len(c.split(" · ")) == 4 for c in cells), cells
        # docs/screenshots/fairness.png: tests/test_fair_page.py, where the page contributed and signed
        page.close()
    finally:
        server.stop()


def signed_record(hands: int = 8, people: int = 4) -> dict[str, Any]:
    """An 8-hand match where the first ``people`` players sign every move of theirs
    (caishen.table.movesig), each with a key of their own, and the others are the server's
    (bots): 4 is the browser's worst case, 1 the centre's usual match."""
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415

    from caishen.engine.actions import ActionKind  # noqa: PLC0415
    from caishen.table.movesig import key_hex, move_message, sign_move  # noqa: PLC0415

    keys = [ec.generate_private_key(ec.SECP256R1()) for _ in range(4)]
    m = Match(LONGGANG.replace(hands_per_match=hands), [RandomPlayer(player_rng(b"signed", i)) for i in range(4)],
              seed=b"signed")
    m.room = "SIGNEDROOM12"
    while not m.over:
        seats = m.seats
        game = m.deal(Mix(("none",) * 4, ("commit", "deal")))
        play(game, [m.players[p] for p in seats])
        marks: list[tuple[str | None, str | None]] = []
        step = 0
        for seat, a in game.move_stack:
            k = keys[seats[seat]]
            if seats[seat] < people:
                marks.append((sign_move(k, move_message(m.room, len(m.hands), step, a.text())), key_hex(k)))
            else:
                marks.append(("server", None))
            step += a.kind is not ActionKind.PASS
        m.finish(game, marks)
    out: dict[str, Any] = json.loads(m.record().dumps())
    return out


@pytest.mark.browser
def test_the_browser_checks_every_signed_move_of_an_8_hand_match(page: Any) -> None:
    good = signed_record()
    moves = sum(len(h["actions"]) for h in good["hands"])
    r = _check(page, good)
    assert r["ok"] is True, r["message"]
    assert r["moves"] == {"signed": moves, "server": 0, "unsigned": 0}
    assert r["message"].endswith(f"moves: {moves} signed by the person's own key, 0 by the server (bots, stand-ins), "
                                 "0 unsigned")

    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415

    from caishen.table.movesig import move_message, sign_move  # noqa: PLC0415

    d = copy.deepcopy(good)
    h = d["hands"][7]
    step = sum(1 for _, a in h["actions"][:40] if a != "pass")
    h["signatures"][40] = sign_move(ec.generate_private_key(ec.SECP256R1()),
                                    move_message(d["room"], 7, step, h["actions"][40][1]))  # the server's key
    res = _check(page, d)
    assert res["ok"] is False and res["message"].startswith(
        "hand 8 (hands[7]): actions[40] (seat ") and "is not signed by the seat's own key: a move put in the person's name" in res["message"]
