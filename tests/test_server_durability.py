"""Durability: the server killed with SIGKILL mid-match resumes every unfinished match where it
was, loses no finished hand, and the match's record verifies (``caishen verify``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from caishen.cli import main as cli_main
from helpers_server import ServerProcess, act_json, choose, database


def _cookie(base: str, name: str) -> dict[str, str]:
    r = httpx.post(base + "/api/me", json={"name": name}, timeout=60)
    r.raise_for_status()
    return {"caishen": r.cookies["caishen"]}


def _socket(base: str, code: str, cookies: dict[str, str]) -> ClientConnection:
    url = base.replace("http://", "ws://") + f"/ws/{code}"
    return connect(url, additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}, open_timeout=60)


def _state(ws: ClientConnection) -> dict[str, Any]:
    while True:
        msg = json.loads(ws.recv(timeout=30))
        if msg["type"] == "state":
            return msg
        assert msg["type"] != "error", msg


def _play(ws: ClientConnection, view: dict[str, Any], moves: int | None) -> dict[str, Any]:
    """Play ``moves`` of our moves (None: to the end of the match); start next hands."""
    done = 0
    while not view["match_over"] and (moves is None or done < moves):
        if view["hand_end"] is not None:
            ws.send(json.dumps({"type": "next", "hand": view["hand"]}))
        elif view["choices"]:
            ws.send(act_json(view, choose(view)))
            done += 1
        view = _state(ws)
    return view


def _play_in_hand(ws: ClientConnection, view: dict[str, Any], moves: int) -> dict[str, Any]:
    """Play up to ``moves`` of our moves without leaving the hand in play."""
    hand = view["hand"]
    done = 0
    while done < moves and view["hand"] == hand and view["hand_end"] is None and not view["match_over"]:
        if view["choices"]:
            ws.send(act_json(view, choose(view)))
            done += 1
        view = _state(ws)
    return view


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_sigkill_mid_match_then_resume_and_finish(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with database(kind, tmp_path) as db:
        record, hands = _kill_and_resume(db)
    path = tmp_path / "record.json"
    path.write_text(record, encoding="utf-8")
    assert cli_main(["verify", str(path)]) == 0
    assert f"OK: {hands} hands" in capsys.readouterr().out


def _kill_and_resume(db: str) -> tuple[str, int]:
    """Play two hands and part of a third, SIGKILL the server, restart it, finish the match;
    returns the record and the number of hands."""
    server = ServerProcess(db).start()
    try:
        cookies = _cookie(server.base, "Dora")
        for _ in range(5):  # another match if a deal ends one before its third hand (L25.5: a CI run's did)
            room = httpx.post(server.base + "/api/rooms", cookies=cookies, timeout=60,
                              json={"friends": 0, "turn_seconds": 0, "hands": 8, "bot": "random", "pace": "instant"}).json()
            code = room["code"]
            with _socket(server.base, code, cookies) as ws:
                view = _state(ws)
                # at least two whole hands, then part of the next one (a hand may end before our
                # third move in it, e.g. on a bulldozer: then we stop in the hand after it)
                while not view["match_over"] and (view["hand"] < 2 or view["hand_end"] is not None or not view["choices"]):
                    view = _play(ws, view, 1)
                if not view["match_over"]:
                    view = _play_in_hand(ws, view, 3)
            if not view["match_over"]:
                break
        else:
            raise AssertionError("5 matches ended before their third hand")
        before = view
        finished = httpx.get(server.base + f"/api/matches/{code}", timeout=60).json()["hands"]
        # every hand before the one in play is stored (that one too, if our moves ended it)
        assert len(finished) == before["hand"] + (before["hand_end"] is not None) >= 2
        server.kill()

        server.start()
        with _socket(server.base, code, cookies) as ws:
            view = _state(ws)
            assert (view["hand"], view["step"], view["tiles"]) == (before["hand"], before["step"], before["tiles"])
            assert view["choices"] == before["choices"]
            view = _play(ws, view, None)
        assert view["match_over"]
        result = httpx.get(server.base + f"/api/matches/{code}", timeout=60).json()
        assert result["status"] == "over"
        assert [h["index"] for h in result["hands"]] == list(range(len(result["hands"])))
        assert result["hands"][:len(finished)] == finished  # the hands finished before the kill, unchanged
        record = httpx.get(server.base + f"/api/matches/{code}/record", timeout=60).text
        assert httpx.get(server.base + f"/api/matches/{code}/verify", timeout=60).json()["ok"]
    finally:
        server.stop()
    return record, len(result["hands"])
