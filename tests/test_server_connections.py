"""Connection hygiene (issue 26): a connection that sends no request is closed after the
header timeout, and with more half-open connections than the process has file handles
(1,100 against the usual limit of 1,024), normal requests are still served."""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers_server import ServerProcess, database


@pytest.fixture
def db(tmp_path: Path) -> Iterator[str]:
    with database("sqlite", tmp_path) as url:
        yield url


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` (an empty read) within ``seconds``."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_a_connection_that_sends_nothing_is_closed_after_the_header_timeout(db: str) -> None:
    srv = ServerProcess(db, args=("--header-timeout", "1")).start()
    try:
        silent = socket.create_connection(("127.0.0.1", srv.port))
        partial = socket.create_connection(("127.0.0.1", srv.port))
        partial.sendall(b"GET /api/variants HTTP/1.1\r\nHost: x\r\n")  # and never the end of the headers
        started = time.monotonic()
        assert _closed_within(silent, 30) and _closed_within(partial, 30)
        assert time.monotonic() - started < 30
        assert httpx.get(srv.base + "/api/variants", timeout=30).status_code == 200
        silent.close()
        partial.close()
    finally:
        srv.stop()


@pytest.mark.slow
def test_1100_half_open_connections_leave_room_for_real_requests(db: str) -> None:
    """The server runs with the usual open-files limit (1,024); 1,100 connections that send
    nothing are opened first. The oldest are closed to make room, and requests are served."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip(f"this test needs 1,400 open files of its own (hard limit {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400) if hard == resource.RLIM_INFINITY else
                                                max(soft, min(hard, 4096)), hard))
    srv = ServerProcess(db, files=1024, args=("--header-timeout", "60")).start()
    half_open: list[socket.socket] = []
    try:
        for _ in range(1100):
            half_open.append(socket.create_connection(("127.0.0.1", srv.port)))
        with httpx.Client(base_url=srv.base, timeout=30) as http:
            for _ in range(20):
                assert http.get("/api/variants").status_code == 200
            assert http.post("/api/me", json={"name": "Ann"}).status_code == 200
            assert http.post("/api/practice").status_code == 200
        assert srv.proc is not None and srv.proc.poll() is None
        closed = sum(_closed_within(s, 0.01) for s in half_open[:200])
        assert closed > 0  # the oldest made room
    finally:
        for s in half_open:
            s.close()
        srv.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
