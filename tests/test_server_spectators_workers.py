"""Spectators through ``caishen serve --workers 2`` (docs/server.md, "Spectators"): a spectator's
WebSocket that reaches the process that does not own the table is relayed to the owner (a
connection that loaded a page first cannot be handed over whole) with ``?watch=1``, and is
served there as a spectator; a refusal keeps its close code (1008) and reason through the relay."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from helpers_server import ServerProcess, database
from test_server_workers import RECV_SECONDS, sock, via

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _cookie(server: ServerProcess, name: str) -> str:
    return str(httpx.post(server.base + "/api/me", json={"name": name}, timeout=30).cookies["caishen"])


def _room(server: ServerProcess, cookie: str, spectators: bool) -> str:
    got = httpx.post(server.base + "/api/rooms", cookies={"caishen": cookie}, timeout=30,
                     json={"turn_seconds": 0, "pace": "normal", "spectators": spectators})
    assert got.status_code == 200, got.text
    return str(got.json()["code"])


def _until_pong(ws: Any) -> list[dict[str, Any]]:
    ws.send('{"type":"ping"}')
    out: list[dict[str, Any]] = []
    while (msg := json.loads(ws.recv(timeout=RECV_SECONDS))) != {"type": "pong"}:
        out.append(msg)
    return out


def test_a_spectator_through_either_worker(tmp_path: Path) -> None:
    with database("sqlite", tmp_path) as db:
        server = ServerProcess(db, workers=2).start()
        try:
            ann, wen = _cookie(server, "Ann"), _cookie(server, "Wen")
            code, closed = _room(server, ann, True), _room(server, ann, False)
            ways: set[str] = set()
            refused: set[str] = set()
            deadline = time.monotonic() + 60  # which worker accepts a connection is the kernel's choice
            while ({"direct", "relayed"} - ways or {"direct", "relayed"} - refused) and time.monotonic() < deadline:
                with sock(server, f"{code}?watch=1", wen, after_page=True) as ws:
                    way = via(ws)
                    assert way in ("direct", "relayed")
                    got = _until_pong(ws)
                    assert {"type": "watchers", "names": ["Wen"]} in got, got
                    ws.send(json.dumps({"type": "next", "hand": 0}))
                    assert [m["code"] for m in _until_pong(ws) if m["type"] == "error"] == ["spectator"]
                    ways.add(way)
                with sock(server, f"{closed}?watch=1", wen, after_page=True) as ws:
                    way = via(ws)
                    msg = json.loads(ws.recv(timeout=RECV_SECONDS))
                    assert msg["type"] == "error" and msg["code"] == "spectators_off", msg
                    with pytest.raises(ConnectionClosed) as gone:
                        ws.recv(timeout=RECV_SECONDS)
                    assert gone.value.rcvd is not None
                    assert (gone.value.rcvd.code, gone.value.rcvd.reason) == (1008, "spectators_off"), way
                    refused.add(way)
            assert ways == refused == {"direct", "relayed"}, (ways, refused)
        finally:
            server.stop()
        assert "Traceback" not in server.log()
