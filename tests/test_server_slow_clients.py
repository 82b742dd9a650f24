"""Slow and greedy clients against a real server (``caishen serve`` on loopback, issue 26):
a seat that stops reading mid-hand holds up nobody and is closed within 10 s; 500 sockets
for one seat leave four open and bring the others no states."""

from __future__ import annotations

import asyncio
import json
import math
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from caishen.server.conns import CLOSE_REPLACED, SOCKETS_PER_SEAT
from helpers_server import ServerProcess, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with database("sqlite", tmp_path) as url:
        srv = ServerProcess(url).start()
        try:
            yield srv
        finally:
            srv.stop()


def _person(srv: ServerProcess, name: str) -> tuple[httpx.Client, str]:
    http = httpx.Client(base_url=srv.base, timeout=30)
    r = http.post("/api/me", json={"name": name})
    assert r.status_code == 200
    return http, r.cookies["caishen"]


def _silent_socket(srv: ServerProcess, code: str, cookie: str) -> socket.socket:
    """A WebSocket opened by hand that, after its handshake, reads nothing at all (a small
    receive buffer, so that what the server sends piles up)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", srv.port))
    s.sendall((f"GET /ws/{code} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               f"Sec-WebSocket-Version: 13\r\nCookie: caishen={cookie}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, "the handshake was refused"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def test_a_seat_that_stops_reading_holds_up_nobody_and_is_closed_within_10_s(server: ServerProcess) -> None:
    """Gangci (no going broke: the match lasts), Ann's turn timer 1 s."""
    ann, ann_cookie = _person(server, "Ann")
    bob, bob_cookie = _person(server, "Bob")
    try:
        code = ann.post("/api/rooms", json={"variant": "luoyang-gangci", "friends": 1, "turn_seconds": 1, "hands": 24}).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"

        async def play() -> tuple[float, list[float], int]:
            url = f"ws://127.0.0.1:{server.port}/ws/{code}"
            async with websockets.connect(url, additional_headers={"Cookie": f"caishen={bob_cookie}"},
                                          max_size=2**22) as ws:
                v = json.loads(await ws.recv())
                silent = _silent_socket(server, code, ann_cookie)
                stopped = time.monotonic()
                arrivals: list[float] = []
                seen_ann = False
                try:
                    while time.monotonic() - stopped < 60:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if msg["type"] != "state":
                            continue
                        arrivals.append(time.monotonic())
                        ann_seat = next(s for s in msg["seats"] if s["name"] == "Ann")
                        seen_ann = seen_ann or ann_seat["connected"]
                        if seen_ann and not ann_seat["connected"]:
                            return time.monotonic() - stopped, arrivals, msg["step"]
                        assert not msg["match_over"], msg["standings"]
                        if msg["hand_end"] is not None:
                            # the next hand waits for every person connected to say "next" (Ann
                            # too, until her socket is closed): a wait of the rules, not of her
                            # socket, so the gaps are counted within a hand only
                            arrivals.append(math.nan)
                            await ws.send(json.dumps({"type": "next", "hand": msg["hand"]}))
                        elif msg["choices"]:
                            await asyncio.sleep(0.2)  # Bob plays at a person's pace (no timing is asserted on it)
                            await ws.send(json.dumps({"type": "act", "action": choose(msg),
                                                      "hand": msg["hand"], "step": msg["step"]}))
                    raise AssertionError(f"Ann's seat never showed as gone (from {v['step']})")
                finally:
                    silent.close()

        gone_after, arrivals, _ = asyncio.run(play())
    finally:
        ann.close()
        bob.close()
    assert gone_after < 10.0, f"the silent seat was closed only after {gone_after:.1f} s"
    # Bob's states kept coming while Ann read nothing: the table never waited on her socket
    # (her turns are played by the stand-in after the 1 s timer).
    assert sum(1 for t in arrivals if not math.isnan(t)) >= 3
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False) if not math.isnan(a) and not math.isnan(b)]
    assert max(gaps, default=0.0) < 5.0, gaps


def test_five_hundred_sockets_for_one_seat_leave_four(server: ServerProcess) -> None:
    http, cookie = _person(server, "Flo")
    code = http.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "pace": "instant"}).json()["code"]
    http.close()

    async def flood() -> tuple[list[int | None], int]:
        url = f"ws://127.0.0.1:{server.port}/ws/{code}"
        headers = {"Cookie": f"caishen={cookie}"}
        socks: list[Any] = []
        states = 0
        try:
            for i in range(500):
                ws = await websockets.connect(url, additional_headers=headers, max_size=2**22, open_timeout=60)
                socks.append(ws)
                first = json.loads(await asyncio.wait_for(ws.recv(), 60))
                assert first["type"] == "state", (i, first)
                states += 1
            # every socket but the last four was closed with 4001; the four got one state each
            codes: list[int | None] = []
            for ws in socks[:-SOCKETS_PER_SEAT]:
                try:
                    while True:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
                        states += msg["type"] == "state"
                except websockets.ConnectionClosed as exc:
                    codes.append(exc.rcvd.code if exc.rcvd else None)
            for ws in socks[-SOCKETS_PER_SEAT:]:
                await ws.send('{"type":"ping"}')
                assert json.loads(await asyncio.wait_for(ws.recv(), 60)) == {"type": "pong"}
            return codes, states
        finally:
            for ws in socks:
                await ws.close()

    codes, states = asyncio.run(flood())
    assert codes == [CLOSE_REPLACED] * (500 - SOCKETS_PER_SEAT)
    assert states == 500  # one each on opening, none for the comings and goings of the others
