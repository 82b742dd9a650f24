"""Spectators through ``caishen serve --workers 2`` (docs/server.md, "Spectators"): a spectator's
WebSocket that reaches the worker that does not run the table is relayed to the one that does
(through Redis, as between nodes) and is served there as a spectator; a refusal keeps its close
code (1008) and reason on either worker (a room closed to spectators is refused where the
connection comes, before any relay)."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from helpers_nodes import REDIS_URL, require_services
from helpers_server import ServerProcess, database
from test_server_workers import RECV_SECONDS, next_state, sock, via

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
    require_services()
    with database("sqlite", tmp_path) as db:
        server = ServerProcess(db, workers=2, args=("--redis", REDIS_URL)).start()
        try:
            ann, wen = _cookie(server, "Ann"), _cookie(server, "Wen")
            code, closed = _room(server, ann, True), _room(server, ann, False)
            # a spectator never makes a worker take a table: the player's page opens it first
            player = sock(server, code, ann)
            next_state(player)
            ways: set[str] = set()
            deadline = time.monotonic() + 60  # which worker accepts a connection is the kernel's choice
            while {"direct", "relayed"} - ways and time.monotonic() < deadline:
                with contextlib.suppress(TimeoutError):  # Ann is told who watches: read, so her queue never fills
                    while True:
                        player.recv(timeout=0)
                with sock(server, f"{code}?watch=1", wen) as ws:
                    way = via(ws)
                    assert way in ("direct", "relayed")
                    got = _until_pong(ws)
                    assert {"type": "watchers", "names": ["Wen"]} in got, got
                    ws.send(json.dumps({"type": "next", "hand": 0}))
                    assert [m["code"] for m in _until_pong(ws) if m["type"] == "error"] == ["spectator"]
                    ways.add(way)
                with sock(server, f"{closed}?watch=1", wen) as ws:
                    msg = json.loads(ws.recv(timeout=RECV_SECONDS))
                    assert msg["type"] == "error" and msg["code"] == "spectators_off", msg
                    with pytest.raises(ConnectionClosed) as gone:
                        ws.recv(timeout=RECV_SECONDS)
                    assert gone.value.rcvd is not None
                    assert (gone.value.rcvd.code, gone.value.rcvd.reason) == (1008, "spectators_off")
            assert ways == {"direct", "relayed"}, ways
            player.close()
        finally:
            server.stop()
        assert "Traceback" not in server.log()
