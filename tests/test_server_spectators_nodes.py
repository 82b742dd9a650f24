"""Spectators across game-centre nodes (issue 30 item 3; docs/server.md, "Spectators"): three
``caishen serve --redis`` nodes; a person plays a room with spectators on through node A, which
takes its table; a spectator connects to node C, which does not run it and must not take it:
its connection is relayed to A through Redis (the node relay) and it is listed to the player,
sees the public view only, cannot act, and leaves the table where it was (A keeps the lease).

Skipped when PostgreSQL or Redis is not reachable (helpers_nodes.require_services)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from helpers_nodes import BOUND, cluster, new_room, poll, require_services, sign_up
from helpers_server import ServerProcess, act_json, choose

pytestmark = [pytest.mark.redis, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.fixture(autouse=True)
def _services() -> None:
    require_services()


def _connect(server: ServerProcess, path: str, cookie: str) -> ClientConnection:
    """A WebSocket to ``path`` on ``server``; a close with 1013 (try again: the table is being
    taken, or Redis was slow) is answered by connecting again, as the page does (up to BOUND s)."""
    deadline = time.monotonic() + BOUND
    while True:
        ws = connect(f"ws://127.0.0.1:{server.port}{path}", additional_headers={"Cookie": f"caishen={cookie}"},
                     open_timeout=BOUND, ping_interval=None)
        try:
            first = ws.recv(timeout=BOUND)
        except ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code != 1013 or time.monotonic() > deadline:
                raise
            time.sleep(0.5)  # the page's pause before it tries again, not a wait for a state
            continue
        ws.first = first  # type: ignore[attr-defined]
        return ws


def _messages(ws: ClientConnection) -> list[dict[str, Any]]:
    """What has come on ``ws`` so far (waiting 0.05 s at most for more)."""
    out: list[dict[str, Any]] = []
    if getattr(ws, "first", None) is not None:
        out.append(json.loads(ws.first))  # type: ignore[attr-defined]
        ws.first = None  # type: ignore[attr-defined]
    while True:
        try:
            out.append(json.loads(ws.recv(timeout=0.05)))
        except TimeoutError:
            return out


def test_a_spectator_on_a_node_that_does_not_run_the_table(tmp_path: Path) -> None:
    with cluster(tmp_path, 3) as c:
        a, b, node_c = c.nodes
        ann = sign_up(a, "Ann")
        code = new_room(a, ann, spectators=True, pace="normal")
        player = _connect(a, f"/ws/{code}", ann)
        poll(lambda: c.holder(code) is a, BOUND, "node A to run the table")
        wen = sign_up(node_c, "Wen")
        watcher = _connect(node_c, f"/ws/{code}?watch=1", wen)
        assert watcher.response is not None and watcher.response.headers.get("x-caishen-relayed") == "node"
        told: list[dict[str, Any]] = []
        watched: list[dict[str, Any]] = []
        deadline = time.monotonic() + BOUND
        while not ({"type": "watchers", "names": ["Wen"]} in told
                   and sum(1 for m in watched if m["type"] == "state") >= 3):
            assert time.monotonic() < deadline, (told[-3:], watched[-3:])
            for msg in _messages(player):
                told.append(msg)
                if msg["type"] == "state" and msg["choices"]:
                    player.send(act_json(msg, choose(msg)))
                elif msg["type"] == "state" and msg["hand_end"] is not None and not msg["match_over"]:
                    player.send(json.dumps({"type": "next", "hand": msg["hand"]}))
            watched += _messages(watcher)
        assert {"type": "watchers", "names": ["Wen"]} in watched
        for v in (m for m in watched if m["type"] == "state"):
            assert v["me"] is None and v["tiles"] == [] and v["choices"] == [] and v["drawn"] is None
        # it cannot act: refused, through the relay too
        watcher.send(json.dumps({"type": "next", "hand": 0}))
        watcher.send('{"type":"ping"}')
        got: list[dict[str, Any]] = []
        while {"type": "pong"} not in got:
            got += _messages(watcher)
            assert time.monotonic() < deadline + BOUND
        assert [m["code"] for m in got if m["type"] == "error"] == ["spectator"]
        watcher.close()
        while {"type": "watchers", "names": []} not in told:
            told += _messages(player)
            assert time.monotonic() < deadline + BOUND
        assert c.holder(code) is a  # the spectator took nothing over
        assert {m["code"] for m in told if m["type"] == "error"} <= {"stale"}  # (a "next" acted on already)
        player.close()
