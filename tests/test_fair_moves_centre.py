"""Issue 29 item 5 at the game centre: a person's page registers its public key over the
WebSocket and signs every move; the centre checks each signature before it applies the move,
stores key and signature with the move (migration 0007), and the record it serves keeps them, so
``caishen verify --key`` checks that every move in the person's name is the person's
(docs/fairness.md, "Signed moves"). The client here signs with ``cryptography`` the way the
page signs with WebCrypto."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI
from fastapi.testclient import TestClient

from caishen.cli import main as cli_main
from caishen.engine.actions import Action, ActionKind
from caishen.table.movesig import key_hex, move_message, sign_move
from caishen.table.record import loads
from caishen.table.replay import verify
from caishen.table.signing import load_or_create_key, public_key_hex, sign_record
from helpers_server import app_fixture, asked, choose, next_state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")
ANN = ec.generate_private_key(ec.SECP256R1())
OTHER = ec.generate_private_key(ec.SECP256R1())   # another person's key
SERVER = ec.generate_private_key(ec.SECP256R1())  # a key the centre made to sign in Ann's name


def _signed_act(code: str, view: dict[str, Any], action: str, key: ec.EllipticCurvePrivateKey = ANN) -> str:
    sig = sign_move(key, move_message(code, view["hand"], view["step"], action))
    return json.dumps({"type": "act", "action": action, "hand": view["hand"], "step": view["step"], "sig": sig})


def _register(ws: Any, key: ec.EllipticCurvePrivateKey = ANN) -> None:
    ws.send_text(json.dumps({"type": "key", "key": key_hex(key)}))


def _play(code: str, ws: Any, view: dict[str, Any], done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Play, every move signed, (and start each next hand) until ``done`` says so."""
    while not done(view):
        if view["hand_end"] is not None:
            ws.send_text(json.dumps({"type": "next", "hand": view["hand"]}))
        elif view["choices"]:
            ws.send_text(_signed_act(code, view, choose(view)))
        view = next_state(ws, errors=False)
    return view


def _error(ws: Any) -> dict[str, Any]:
    """The next error message (states and events on the way are skipped)."""
    while True:
        msg = ws.receive_json()
        if msg["type"] == "error":
            return msg  # type: ignore[no-any-return]


def _cli_verify(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "downloaded.json"
    path.write_text(text, encoding="utf-8")
    code = cli_main(["verify", "--key", public_key_hex(load_or_create_key()), str(path)])
    out, err = capsys.readouterr()
    return code, out + err


def _ann_moves(hand: dict[str, Any], ann: int) -> list[int]:
    return [i for i, (seat, _) in enumerate(hand["actions"]) if hand["seats"][seat] == ann]


def test_a_match_with_a_signing_page_gives_a_record_where_every_move_of_the_person_is_signed(
    app: FastAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestClient(app) as c:
        assert c.post("/api/me", json={"name": "Ann"}).status_code == 200
        code = c.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": 8}).json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            # Ann to act: nothing else is sent until she does (a bot may end the first hand
            # before she is asked: the table then waits for her "next", which asked() sends)
            view = asked(ws, next_state(ws, errors=False))
            # a key that is not a point on P-256, or not 130 lowercase hex digits: bad_message
            for bad in ("04" + "00" * 64, key_hex(ANN).upper(), key_hex(ANN)[:-2]):
                ws.send_text(json.dumps({"type": "key", "key": bad}))
                assert _error(ws)["code"] == "bad_message"
            action = choose(view)
            # signed before any key is registered: refused
            ws.send_text(_signed_act(code, view, action))
            assert _error(ws)["code"] == "no_key"
            _register(ws)
            # another key's signature, one over another step, another room: refused, nothing changes
            later = json.loads(_signed_act(code, {**view, "step": view["step"] + 1}, action))
            elsewhere = json.loads(_signed_act("ANOTHERROOM1", view, action))
            for text in (_signed_act(code, view, action, OTHER), json.dumps({**later, "step": view["step"]}),
                         json.dumps(elsewhere)):
                ws.send_text(text)
                assert _error(ws)["code"] == "bad_signature"
            store, tables = app.state.store, app.state.tables
            assert sum(len(h) for h in store.moves(code)) == len(tables.live[code].session.moves)
            before = len(tables.live[code].session.moves)
            ws.send_text(json.dumps({"type": "back"}))  # the table as it stands: the refused moves changed nothing
            again = next_state(ws, errors=False)
            assert (again["hand"], again["step"], again["choices"]) == (view["hand"], view["step"], view["choices"])
            assert len(tables.live[code].session.moves) == before
            _play(code, ws, again, lambda v: bool(v["match_over"]))
            # stored with the move: a table rebuilt from the database keeps every mark
            live = tables.live[code].session
            rows = store.moves(code)
            assert {(sig == "server", key) for h in rows for _, _, sig, key in h} == {(True, None), (False, key_hex(ANN))}
            rebuilt = tables._session(store.room(code), rows)
            assert rebuilt.moves == live.moves and rebuilt.record().dumps() == live.record().dumps()
        text = c.get(f"/api/matches/{code}/record").text
    rc, out = _cli_verify(text, tmp_path, capsys)
    assert rc == 0, out
    data = json.loads(text)
    assert data["room"] == code
    signed = 0
    for h in data["hands"]:
        ann = h["seats"].index(0)
        mine = set(_ann_moves(h, 0))  # (none when the hand ended before Ann's first turn)
        assert h["signers"] == [key_hex(ANN) if s == ann and mine else None for s in range(4)]
        assert all(len(h["signatures"][i]) == 128 for i in mine)
        assert all(h["signatures"][i] == "server" for i in range(len(h["actions"])) if i not in mine)
        signed += len(mine)
    # (a match may end early, a player broke: 13 of Ann's moves were seen once, so no larger bound)
    assert signed > 0 and f"moves: {signed} signed by the person's own key" in out
    assert verify(loads(text)).signed == signed


def _forged(text: str, change: Callable[[dict[str, Any]], object]) -> str:
    """The served record changed, and signed again with the centre's key: what a dishonest
    centre could serve."""
    d = json.loads(text)
    d.pop("signature")
    change(d)
    return sign_record(json.dumps(d, ensure_ascii=False), load_or_create_key())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A finished 8-hand match's record as the centre serves it, Ann signing her moves."""
    from caishen.server.app import create_app  # noqa: PLC0415

    db = tmp_path_factory.mktemp("served") / "caishen.sqlite3"
    with TestClient(create_app(f"sqlite:///{db}")) as c:
        assert c.post("/api/me", json={"name": "Ann"}).status_code == 200
        code = c.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": 8}).json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            _register(ws)
            _play(code, ws, next_state(ws, errors=False), lambda v: bool(v["match_over"]))
        return c.get(f"/api/matches/{code}/record").text


def _last_hand_move(text: str) -> tuple[int, int, int]:
    """Hand index, move index and canonical bytes' step of one of Ann's moves in the last hand
    she moved in (its signatures are checked before the next hand's chain would fail)."""
    d = json.loads(text)
    hand = max(k for k, h in enumerate(d["hands"]) if _ann_moves(h, 0))
    h = d["hands"][hand]
    i = _ann_moves(h, 0)[-1]
    step = sum(1 for _, a in h["actions"][:i] if Action.parse(a).kind is not ActionKind.PASS)
    return hand, i, step


@pytest.mark.parametrize("forger", ["server", "other"])
def test_a_move_signed_in_the_persons_name_by_another_key_fails_caishen_verify(
    served: str, forger: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli_verify(served, tmp_path, capsys)[0] == 0
    hand, i, step = _last_hand_move(served)
    d = json.loads(served)
    key = SERVER if forger == "server" else OTHER
    forged_sig = sign_move(key, move_message(d["room"], hand, step, d["hands"][hand]["actions"][i][1]))
    bad = _forged(served, lambda r: r["hands"][hand]["signatures"].__setitem__(i, forged_sig))
    rc, out = _cli_verify(bad, tmp_path, capsys)
    assert rc != 0 and f"actions[{i}] " in out and "not signed by the seat's own key" in out, out


def test_a_record_whose_signature_was_changed_fails_caishen_verify(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hand, i, _ = _last_hand_move(served)
    sig = json.loads(served)["hands"][hand]["signatures"][i]
    changed = sig[:-1] + ("0" if sig[-1] != "0" else "1")
    bad = _forged(served, lambda r: r["hands"][hand]["signatures"].__setitem__(i, changed))
    rc, out = _cli_verify(bad, tmp_path, capsys)
    assert rc != 0 and f"actions[{i}] " in out and "not signed by the seat's own key" in out, out


def test_moves_sent_without_a_signature_are_recorded_unsigned(app: FastAPI) -> None:
    """A client that does not sign (the terminal, a script, a browser without WebCrypto) plays
    on; the record says ``unsigned`` for its moves and the verifiers count them."""
    with TestClient(app) as c:
        assert c.post("/api/me", json={"name": "Ann"}).status_code == 200
        code = c.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": 8}).json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            view = next_state(ws, errors=False)
            while view["hand_end"] is None:
                if view["choices"]:
                    ws.send_text(json.dumps({"type": "act", "action": choose(view), "hand": view["hand"],
                                             "step": view["step"]}))
                view = next_state(ws, errors=False)
        text = c.get(f"/api/matches/{code}/record").text
    h = json.loads(text)["hands"][0]
    mine = set(_ann_moves(h, 0))
    assert h["signers"] == [None] * 4
    assert [s for i, s in enumerate(h["signatures"]) if i in mine] == ["unsigned"] * len(mine)
    assert all(s == "server" for i, s in enumerate(h["signatures"]) if i not in mine)
    summary = verify(loads(text))
    assert (summary.signed, summary.unsigned) == (0, len(mine))
