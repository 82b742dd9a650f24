"""Issue 29 item 2: every person's randomness in every wall, over the WebSocket.

A page that connects with ``?contribute=1`` is asked for 32 bytes once a hand's commitment is
out, and what it sends is mixed into that hand's wall (docs/fairness.md, caishen-fair-2): the
downloaded record holds it, the wall is the one HMAC-SHA256(seed, contributions, index) deals,
and a seat that sent nothing says why (``timeout``, ``none``, ``bot``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from caishen import fair
from caishen.cli import main as cli_main
from caishen.server.app import create_app
from caishen.server.conns import CONNECTION_RATES
from caishen.table.signing import load_or_create_key, public_key_hex
from caishen.variants.longgang.rules import LONGGANG
from helpers_server import act_json, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
MINE = [bytes([i + 1]) * 32 for i in range(8)]  # the page's value for hand i


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FastAPI]:
    monkeypatch.setenv("CAISHEN_CONTRIBUTE_SECONDS", "30")  # a page that contributes is waited for
    with database("sqlite", tmp_path) as url:
        yield create_app(url)


def _until(ws: Any, want: Callable[[dict[str, Any]], bool], seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Read messages until one that ``want`` takes (errors fail the test); all read go to ``seen``."""
    for _ in range(2000):
        msg = ws.receive_json()
        if seen is not None:
            seen.append(msg)
        assert msg["type"] != "error", msg
        if want(msg):
            return msg
    raise AssertionError("no such message in 2000")


def _is_state(m: dict[str, Any]) -> bool:
    return m["type"] == "state"


def _is_dealt(m: dict[str, Any]) -> bool:
    return m["type"] == "fair" and m["hand"] == 0 and m["dealt"] is True


def _play_hand(ws: Any, view: dict[str, Any], seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Play until the hand ends; its last view."""
    while view["hand_end"] is None:
        if view["choices"]:
            ws.send_text(act_json(view, choose(view)))
        view = _until(ws, _is_state, seen)
    return view


def _room(c: TestClient, hands: int = 8) -> str:
    assert c.post("/api/me", json={"name": "Ann"}).status_code == 200
    return str(c.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": hands, "pace": "instant"}
                      ).json()["code"])


def _send(ws: Any, hand: int, value: bytes) -> None:
    ws.send_text(json.dumps({"type": "contribute", "hand": hand, "value": value.hex()}))


def test_the_pages_contribution_is_in_the_record_and_deals_the_wall(
    app: FastAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestClient(app) as c:
        code = _room(c)
        with c.websocket_connect(f"/ws/{code}?contribute=1") as ws:
            seen: list[dict[str, Any]] = []
            # nothing is dealt before the page is asked: the first message is the open window
            first = ws.receive_json()
            assert first == {"type": "fair", "hand": 0, "commitment": first["commitment"], "open": True,
                             "dealt": False, "mine": None}
            _send(ws, 0, MINE[0])
            taken = _until(ws, lambda m: m["type"] == "fair", seen)
            assert (taken["open"], taken["mine"]) == (True, MINE[0].hex())
            view = _until(ws, _is_state, seen)
            assert view["hand"] == 0 and view["commitment"] == first["commitment"]
            # (the bots may end hand 0 before the person moves: hand 1's window is then told first)
            dealt = _until(ws, _is_dealt, seen)
            assert (dealt["hand"], dealt["open"], dealt["dealt"], dealt["mine"]) == (0, False, True, MINE[0].hex())
            # the window of hand 1 opens when hand 0 ends
            view = _play_hand(ws, next(m for m in reversed(seen) if _is_state(m)), seen)
            ask = next((m for m in seen if m["type"] == "fair" and m["hand"] == 1), None) or _until(
                ws, lambda m: m["type"] == "fair" and m["hand"] == 1, seen)
            assert (ask["hand"], ask["open"], ask["mine"]) == (1, True, None)
            _send(ws, 1, MINE[1])
            _until(ws, lambda m: m["type"] == "fair" and m["mine"] == MINE[1].hex(), seen)
            # a value for a hand already dealt is not taken: the page hears what the table holds
            _send(ws, 0, MINE[5])
            late = _until(ws, lambda m: m["type"] == "fair", seen)
            assert (late["hand"], late["dealt"], late["mine"]) == (0, True, MINE[0].hex())
            ws.send_text(json.dumps({"type": "next", "hand": 0}))
            view = _until(ws, lambda m: m["type"] == "state" and m["hand"] == 1, seen)
            _play_hand(ws, view, seen)
            text = c.get(f"/api/matches/{code}/record").text  # two hands, signed "in play"
    assert len(json.loads(text)["hands"]) == 2
    rec = json.loads(text)
    for i, h in enumerate(rec["hands"]):
        seat = h["seats"].index(0)
        assert h["contributions"] == [MINE[i].hex() if s == seat else "bot" for s in range(4)]
        assert h["timeline"] == ["commit", f"contribute {seat}", "deal", "reveal"]
        values: list[bytes | None] = [MINE[i] if s == seat else None for s in range(4)]
        wall_seed = fair.wall_seed(bytes.fromhex(h["seed"]), values, i)
        names = " ".join(LONGGANG_NAMES(fair.shuffled_wall(wall_seed, LONGGANG)))
        assert h["wall"] == names
        # without the contribution the wall would have been another
        assert h["wall"] != " ".join(LONGGANG_NAMES(fair.shuffled_wall(
            fair.wall_seed(bytes.fromhex(h["seed"]), [None] * 4, i), LONGGANG)))
    path = tmp_path / "record.json"
    path.write_text(text, encoding="utf-8")
    assert cli_main(["verify", "--key", public_key_hex(load_or_create_key()), str(path)]) == 0
    capsys.readouterr()


def LONGGANG_NAMES(wall: tuple[int, ...]) -> list[str]:  # noqa: N802 - reads as the wall's tile names
    from caishen.tiles import tile_name  # noqa: PLC0415

    return [tile_name(k) for k in wall]


def test_a_page_that_sends_nothing_is_waited_for_then_recorded_as_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAISHEN_CONTRIBUTE_SECONDS", "0.3")
    with database("sqlite", tmp_path) as url, TestClient(create_app(url)) as c:
        code = _room(c)
        with c.websocket_connect(f"/ws/{code}?contribute=1") as ws:
            assert ws.receive_json()["open"] is True
            view = _until(ws, _is_state)  # dealt once the window's time is up
            # (the bots may end hand 0 before the person moves: hand 1's window, and hand 0's
            # last views, are then told before hand 0's 'dealt')
            seen: list[dict[str, Any]] = []
            dealt = _until(ws, _is_dealt, seen)
            assert (dealt["dealt"], dealt["mine"]) == (True, None)
            _play_hand(ws, next((m for m in reversed(seen) if _is_state(m)), view), [])
            h = json.loads(c.get(f"/api/matches/{code}/record").text)["hands"][0]
    seat = h["seats"].index(0)
    assert h["contributions"] == ["timeout" if s == seat else "bot" for s in range(4)]
    assert h["timeline"] == ["commit", "deal", "reveal"]


def test_the_first_deal_waits_for_the_friend_still_on_the_waiting_page(app: FastAPI) -> None:
    """Ann opened a room for one friend and waits; Bob sits, and the match starts. Bob's page
    contributes at once; the deal waits for Ann's page, which comes a moment later from the
    waiting page, and both values are in the wall (a tryout found Ann's left out)."""
    with TestClient(app) as ann, TestClient(app) as bob:
        assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
        assert bob.post("/api/me", json={"name": "Bob"}).status_code == 200
        code = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "pace": "instant"}).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        with bob.websocket_connect(f"/ws/{code}?contribute=1") as wb:
            assert wb.receive_json()["open"] is True
            _send(wb, 0, MINE[1])
            assert _until(wb, lambda m: m["type"] == "fair")["mine"] == MINE[1].hex()  # taken, not dealt
            with ann.websocket_connect(f"/ws/{code}?contribute=1") as wa:
                assert _until(wa, lambda m: m["type"] == "fair")["open"] is True
                _send(wa, 0, MINE[0])
                # dealt: each contributing page hears so (a state need not come: if a bot deals
                # and its first discard waits for the other person's claim, this one is sent none)
                _until(wa, _is_dealt)
            _until(wb, _is_dealt)
            mix = app.state.tables.live[code].session.match.mix  # what hand 0's wall took in
    assert sorted(c for c in mix.contributions if c != "bot") == sorted([MINE[0], MINE[1]])
    assert mix.timeline[0] == "commit" and mix.timeline[-1] == "deal"
    assert sum(e.startswith("contribute ") for e in mix.timeline) == 2


def test_a_client_that_does_not_contribute_is_not_waited_for_and_says_none(app: FastAPI) -> None:
    with TestClient(app) as c:
        code = _room(c)
        with c.websocket_connect(f"/ws/{code}") as ws:
            seen: list[dict[str, Any]] = []
            view = _until(ws, _is_state, seen)  # at once: the window of 30 s is not waited through
            ws.send_text(json.dumps({"type": "contribute", "hand": 0, "value": MINE[0].hex()}))
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "not_contributing"
            _play_hand(ws, view, seen)
            assert not [m for m in seen if m["type"] == "fair"]
            h = json.loads(c.get(f"/api/matches/{code}/record").text)["hands"][0]
    seat = h["seats"].index(0)
    assert h["contributions"] == ["none" if s == seat else "bot" for s in range(4)]


def test_contributions_count_against_the_rate_budget(app: FastAPI) -> None:
    with TestClient(app) as c:
        code = _room(c)
        with c.websocket_connect(f"/ws/{code}?contribute=1") as ws:
            assert ws.receive_json()["open"] is True
            burst = int(CONNECTION_RATES["contribute"].burst)
            for _ in range(burst + 3):
                _send(ws, 5, MINE[0])  # a hand with no window: each answered, none taken
            got = [ws.receive_json() for _ in range(burst + 3)]
            assert all(m["type"] == "error" and m["code"] in ("stale", "rate_limited") for m in got), got
            assert sum(m["code"] == "rate_limited" for m in got) >= 2


def test_a_table_rebuilt_from_the_database_deals_the_same_mixed_wall(app: FastAPI) -> None:
    with TestClient(app) as c:
        code = _room(c)
        with c.websocket_connect(f"/ws/{code}?contribute=1") as ws:
            assert ws.receive_json()["open"] is True
            _send(ws, 0, MINE[0])
            view = _until(ws, _is_state)
            for _ in range(3):  # a few moves into the hand, or fewer if a bot ends it first
                while not view["choices"] and view["hand_end"] is None:
                    view = _until(ws, _is_state)
                if view["hand_end"] is not None:  # the table now waits for "next": no more states come
                    break
                ws.send_text(act_json(view, choose(view)))
                view = _until(ws, _is_state)
            tables, store = app.state.tables, app.state.store
            live = tables.live[code]
            room = store.room(code)
            mixes = store.mixes(code)
            assert mixes[0] is not None and MINE[0] in mixes[0].contributions
            rebuilt = tables._session(room, store.moves(code))  # what a restart or an eviction builds
            assert rebuilt.game.wall == live.session.game.wall and rebuilt.moves == live.session.moves
            assert tables.rebuild(room, [[]]).game.wall != live.session.game.wall  # nothing mixed in
