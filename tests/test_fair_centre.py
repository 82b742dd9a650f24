"""Issue 29: what the game centre serves can be checked without trusting it. Every record it
serves is signed with its key: the finished match's, and the one in play (marked so)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from caishen.cli import main as cli_main
from caishen.table.signing import load_or_create_key, public_key_hex
from helpers_server import act_json, app_fixture, choose, next_state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


app = app_fixture("sqlite")


def _play(ws: Any, view: dict[str, Any], done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Play (and start each next hand) until ``done`` says so; the view then."""
    while not done(view):
        if view["hand_end"] is not None:
            ws.send_text(json.dumps({"type": "next", "hand": view["hand"]}))
        elif view["choices"]:
            ws.send_text(act_json(view, choose(view)))
        view = next_state(ws, errors=False)
    return view


def _verify_with_key(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / "downloaded.json"
    path.write_text(text, encoding="utf-8")
    key = public_key_hex(load_or_create_key())
    code = cli_main(["verify", "--key", key, str(path)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    return out


def test_records_downloaded_in_play_and_finished_verify_with_the_centres_key(
    app: FastAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestClient(app) as c:
        assert c.post("/api/me", json={"name": "Ann"}).status_code == 200
        code = c.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "hands": 8}).json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            # past the first hand, asked to move: the table waits for her (no timer), so no hand
            # can end meanwhile (a state of hand 2 alone could be behind a table whose bots ended
            # it). Which hand that is depends on the deal: the bots may end a hand before she is
            # asked anything in it (a CI run met her first question in the third hand)
            view = _play(ws, next_state(ws, errors=False),
                         lambda v: v["hand"] >= 1 and v["hand_end"] is None and bool(v["choices"]))
            mid = c.get(f"/api/matches/{code}/record").text
            assert json.loads(mid)["in_play"] is True and len(json.loads(mid)["hands"]) == view["hand"]
            out = _verify_with_key(mid, tmp_path, capsys)
            assert f"OK: {view['hand']} hands" in out and "signed by the given key" in out and "in play" in out
            _play(ws, view, lambda v: bool(v["match_over"]))
        final = c.get(f"/api/matches/{code}/record").text
        data = json.loads(final)
        assert "in_play" not in data and data["signature"]["key"] == public_key_hex(load_or_create_key())
        out = _verify_with_key(final, tmp_path, capsys)
        assert f"OK: {len(data['hands'])} hands" in out and "in play" not in out
        assert f"the match checked: room {code}, players Ann, greedy bot 1, greedy bot 2, greedy bot 3" in out
        # the server's own check (the result page's button) says the same, key included
        assert c.get(f"/api/matches/{code}/verify").json()["message"].endswith("signed by this centre's key")


def test_a_record_stored_unsigned_before_is_served_signed(app: FastAPI, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from caishen.server import core  # noqa: PLC0415
    from caishen.table.match import selfplay  # noqa: PLC0415
    from caishen.variants.longgang.rules import LONGGANG  # noqa: PLC0415

    text = selfplay(LONGGANG, b"old", hands=2).dumps()
    assert "signature" not in json.loads(text)
    served = core.signed_text(text)
    assert core.signed_text(served) == served
    assert "OK: 2 hands" in _verify_with_key(served, tmp_path, capsys)
