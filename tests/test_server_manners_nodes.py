"""Table manners (issue 30, item 3) on three game-centre nodes sharing one PostgreSQL database
and one Redis ("Everything works ... on one node and three"). The table runs on the node its
first page reached; the other pages are joined to it through Redis (docs/server.md, "Nodes").
Each page says its address in ``X-Forwarded-For``, as a proxy on this machine would.

- the same-address warning reaches every page, whichever node it came through (the relayed
  pages' addresses cross Redis as the relay's own field);
- a free-text line written on one node is told on all three;
- the owner removes one of the group: the removed page, on another node, is closed (4003), and
  a new connection of that person is refused on any node;
- votes: a pause voted from node C and answered from A holds the table and is resumed from C;
  then a dismissal voted from A and answered from C ends the match, stored as dismissed (the
  nodes run with no cooldown between votes, ``CAISHEN_VOTE_COOLDOWN_SECONDS=0``).

Skipped when PostgreSQL or Redis is not reachable on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_nodes import BOUND, Cluster, cluster, poll, require_services, sign_up
from helpers_server import ServerProcess

pytestmark = [pytest.mark.redis, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
HOME, AWAY = "198.51.100.7", "203.0.113.20"  # documentation addresses (RFC 5737)


@pytest.fixture(autouse=True)
def _services() -> None:
    require_services()


def _connect(node: ServerProcess, code: str, cookie: str, address: str) -> Any:
    from websockets.sync.client import connect  # noqa: PLC0415

    return connect(f"ws://127.0.0.1:{node.port}/ws/{code}?contribute=0", open_timeout=BOUND, ping_interval=None,
                   additional_headers={"Cookie": f"caishen={cookie}", "X-Forwarded-For": address})


def _next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (the table's states and events come between)."""
    for _ in range(5000):
        msg: dict[str, Any] = json.loads(ws.recv(timeout=BOUND))
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} within 5,000 messages")


def _closed_with(ws: Any) -> int:
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415

    try:
        for _ in range(5000):
            ws.recv(timeout=BOUND)
    except ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd is not None else 1006
    raise AssertionError("still open after 5,000 messages")


@pytest.mark.slow  # three node starts: 8-12 s on an idle machine, far more on busy cores
def test_warning_chat_removal_and_votes_across_three_nodes(tmp_path: Path) -> None:
    with cluster(tmp_path, 3, env={"CAISHEN_VOTE_COOLDOWN_SECONDS": "0"}) as c:
        _manners(c)


def _manners(c: Cluster) -> None:
    a, b, n3 = c.nodes
    ann, bob, cy = sign_up(a, "Ann"), sign_up(b, "Bob"), sign_up(n3, "Cy")
    with httpx.Client(base_url=a.base, cookies={"caishen": ann}, timeout=BOUND) as http:
        room = http.post("/api/rooms", json={"friends": 2, "turn_seconds": 0, "hands": 8, "chat": True}).json()
    code = room["code"]
    for node, cookie in ((b, bob), (n3, cy)):
        with httpx.Client(base_url=node.base, cookies={"caishen": cookie}, timeout=BOUND) as http:
            assert http.post(f"/api/rooms/{code}/join").status_code == 200
    seats = {s["name"]: s["player"] for s in httpx.get(f"{a.base}/api/rooms/{code}", timeout=BOUND).json()["seats"]}
    assert c.store.room(code).status == "playing"

    with _connect(a, code, ann, HOME) as wa:  # first: node A takes the table
        poll(lambda: c.holder(code) is a, BOUND, "node A to take the table")
        with _connect(n3, code, cy, AWAY) as wc, _connect(b, code, bob, HOME) as wb:
            warned = {"type": "same_address", "groups": [["Ann", "Bob"]], "players": [[seats["Ann"], seats["Bob"]]]}
            for ws in (wa, wb, wc):
                assert _next_of(ws, "same_address") == warned
            assert c.holder(code) is a

            wc.send(json.dumps({"type": "chat", "text": "三台机器，一张桌 <b>"}))
            lines = [_next_of(ws, "chatted") for ws in (wa, wb, wc)]
            assert {(x["name"], x["text"], x["at"]) for x in lines} == {("Cy", "三台机器，一张桌 <b>", 1)}

            wa.send(json.dumps({"type": "remove", "player": seats["Bob"]}))
            told = {"type": "removed", "player": seats["Bob"], "name": "Bob"}
            assert _next_of(wa, "removed") == told and _next_of(wc, "removed") == told
            assert _closed_with(wb) == 4003

            # a pause: asked on C, answered on A (the two people left), resumed on C
            wc.send(json.dumps({"type": "vote", "kind": "pause"}))
            vote = _next_of(wa, "vote_state")
            assert (vote["kind"], vote["starter"], vote["mine"], vote["outcome"]) == ("pause", "Cy", True, None)
            wa.send(json.dumps({"type": "ballot", "vote": vote["vote"], "yes": True}))
            for ws in (wa, wc):
                assert _next_of(ws, "paused")["on"] is True
            wc.send(json.dumps({"type": "resume"}))
            for ws in (wa, wc):
                back = _next_of(ws, "paused")
                assert (back["on"], back["by"]) == (False, "Cy")
            # a dismissal: asked on A, answered on C
            wa.send(json.dumps({"type": "vote", "kind": "dismiss"}))
            vote = _next_of(wc, "vote_state")
            while vote["kind"] != "dismiss" or vote["outcome"] is not None or not vote["mine"]:
                vote = _next_of(wc, "vote_state")
            wc.send(json.dumps({"type": "ballot", "vote": vote["vote"], "yes": True}))
            for ws in (wa, wc):
                ended = _next_of(ws, "vote_state")
                while ended["kind"] != "dismiss" or ended["outcome"] is None:
                    ended = _next_of(ws, "vote_state")
                assert ended["outcome"] == "passed"
            poll(lambda: c.store.room(code).status == "over", BOUND, "the dismissed match to be stored")
            assert json.loads(c.store.room(code).record or "{}")["result"]["ended_by"] == "dismissed"
    assert c.store.room(code).players[seats["Bob"]].removed is True
    for node in c.nodes:  # Bob's pages are refused on every node from now on
        with _connect(node, code, bob, HOME) as again:
            assert _closed_with(again) == 4003
