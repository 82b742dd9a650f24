"""``caishen serve --workers 2``: two nodes on one machine share the port (docs/server.md,
"Several processes"). Each table runs on the worker that holds its lease in Redis; a WebSocket
that reaches the other worker is joined to it through Redis, as across machines.

The kernel gives each new connection to either process, so the tests connect until they have
seen each way a connection can come to the same table, and play through each."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from helpers_nodes import REDIS_URL, require_services
from helpers_server import ROOT, ServerProcess, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_workers_without_redis_are_refused_in_one_line(tmp_path: Path) -> None:
    """N workers are N nodes, which share the tables through Redis: without a Redis URL the
    command says so and exits 2, before it opens anything."""
    env = {k: v for k, v in os.environ.items() if k != "CAISHEN_REDIS"} | {"PYTHONPATH": str(ROOT / "src")}
    got = subprocess.run([sys.executable, "-m", "caishen.cli", "serve", "--workers", "2", "--db",
                          f"sqlite:///{tmp_path / 'c.sqlite3'}"], env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == 2
    assert got.stderr.strip().splitlines() == [
        "caishen serve: error: --workers 2 runs 2 nodes, which share the tables through Redis: "
        "give --redis URL (or $CAISHEN_REDIS), or run one process"]
    assert not (tmp_path / "c.sqlite3").exists()


def test_workers_far_more_than_the_cores_are_refused_in_one_line(tmp_path: Path) -> None:
    """--workers 100000 (a typo) forked worker after worker until the machine stood still: now
    more than 4 a core is refused in one line, exit 2, before anything is opened or started."""
    most = 4 * (os.cpu_count() or 1)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    got = subprocess.run([sys.executable, "-m", "caishen.cli", "serve", "--workers", str(most + 1), "--redis",
                          "redis://127.0.0.1:1/0", "--db", f"sqlite:///{tmp_path / 'c.sqlite3'}"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == 2
    assert got.stderr.strip().splitlines() == [
        f"caishen serve: error: --workers {most + 1} is more than 4 a core ({most} on this machine): "
        "each worker is a process running its tables on one core"]
    assert not (tmp_path / "c.sqlite3").exists()


def sock(server: ServerProcess, code: str, cookie: str) -> ClientConnection:
    """A WebSocket to table ``code``."""
    return connect(f"ws://127.0.0.1:{server.port}/ws/{code}", additional_headers={"Cookie": f"caishen={cookie}"},
                   open_timeout=30)


def via(ws: ClientConnection) -> str:
    """How the connection came to the table: direct, or relayed from the other worker."""
    headers = ws.response.headers if ws.response is not None else {}
    return "relayed" if headers.get("x-caishen-relayed") == "node" else "direct"


START_SECONDS = 120  # a bound: a worker's start and its tables' resumption, on a busy machine
RECV_SECONDS = 90  # a bound: two worker processes on a machine with both cores kept busy (stress-suite.sh)


def next_state(ws: ClientConnection, after: dict[str, Any] | None = None) -> dict[str, Any]:
    """The next state, past any that repeat ``after`` (a leaving connection's broadcast may
    still arrive after a move was sent)."""
    while True:
        msg = json.loads(ws.recv(timeout=RECV_SECONDS))
        assert msg["type"] != "error", msg
        if msg["type"] == "state" and (after is None or _at(msg) != _at(after)):
            return msg  # type: ignore[no-any-return]


def _at(view: dict[str, Any]) -> tuple[int, int, bool, str, int]:
    # a pass is no step (docs/server.md, "What the timing tells"): the phase and whose turn
    # tell the state after it from the one it answered
    return view["hand"], view["step"], view["hand_end"] is not None, view["phase"], view["current"]


def play(ws: ClientConnection, moves: int, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """Make ``moves`` moves from ``view`` (else the next state; a hand's end counts one:
    "next"); the last state seen."""
    view = view or next_state(ws)
    made = 0
    while made < moves and not view["match_over"]:
        if view["hand_end"] is not None:
            ws.send(json.dumps({"type": "next", "hand": view["hand"]}))
        elif view["choices"]:
            ws.send(json.dumps({"type": "act", "action": choose(view), "hand": view["hand"], "step": view["step"]}))
        else:
            view = next_state(ws, view)
            continue
        made += 1
        view = next_state(ws, view)
    return view


def play_on(ws: ClientConnection, moves: int, view: dict[str, Any]) -> dict[str, Any]:
    """:func:`play` ``moves`` moves, then on until the table's step has moved past ``view``'s
    (at most 30 more): a pass makes no step, and its seat may be asked again at the same step
    (to discard the tile drawn next). Three moves once left a table at its step in CI."""
    after = play(ws, moves, view)
    for _ in range(30):
        if (after["hand"], after["step"]) > (view["hand"], view["step"]) or after["match_over"]:
            break
        after = play(ws, 1, after)
    return after


def ways(server: ServerProcess, code: str, cookie: str) -> dict[str, int]:
    """Connect until a connection of each way it can come (:func:`via`) made moves; the
    table's step after each. Which worker accepts a connection is the kernel's choice, and a
    worker still starting (or busy taking tables) accepts none, so this keeps connecting for
    up to a minute."""
    want = {"direct", "relayed"}
    seen: dict[str, int] = {}
    deadline = time.monotonic() + 60
    tries = 0
    while time.monotonic() < deadline:
        tries += 1
        with sock(server, code, cookie) as ws:
            way = via(ws)
            if way in seen:
                continue
            before = next_state(ws)
            ws.send(json.dumps({"type": "ping"}))
            while (msg := json.loads(ws.recv(timeout=RECV_SECONDS))) != {"type": "pong"}:
                # the last connection's leaving may still be told to this one
                assert msg["type"] in ("state", "event"), msg
                if msg["type"] == "event":
                    continue
                before = msg
            after = play_on(ws, 3, before)
            assert (after["hand"], after["step"]) > (before["hand"], before["step"])
            seen[way] = after["step"]
        if want <= set(seen):
            return seen
    raise AssertionError(f"only {seen} after {tries} connections in a minute")


# PostgreSQL's runs in the slow stage (two worker processes start for each: 20-30 s of the
# README's command on two cores); SQLite's stay in the quick suite
@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def two_workers(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Two workers on Redis and a fresh SQLite file, and on a fresh schema of the real PostgreSQL."""
    require_services()
    with database(request.param, tmp_path) as db:
        server = ServerProcess(db, workers=2, args=("--redis", REDIS_URL)).start()
        try:
            yield server
        finally:
            pids = worker_pids(server) if server.proc is not None and server.proc.poll() is None else []
            server.stop()
        # no process stays behind (each stops within its grace; the supervisor waits for them)
        wait_for(lambda: not any(_running(p) for p in pids))
        assert "Traceback" not in server.log()  # no process failed on the way


def worker_pids(server: ServerProcess) -> list[int]:
    assert server.proc is not None
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(server.proc.pid):
            pids.append(int(stat.parent.name))
    return pids


def wait_for(what: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)  # polling for a process state, not timing a behaviour


def test_tables_play_through_either_process_and_reads_agree(two_workers: ServerProcess) -> None:
    server = two_workers
    with httpx.Client(base_url=server.base, timeout=30) as http:
        cookie = http.post("/api/me", json={"name": "甲"}).cookies["caishen"]
        codes = [http.post("/api/practice?pace=instant").json()["code"] for _ in range(4)]
        for code in codes:
            ways(server, code, cookie)
        # every process answers for every table from the database or its live match
        for _ in range(6):
            mine = {m["code"]: m for m in http.get("/api/my/matches").json()}
            assert set(codes) <= set(mine)
            for code in codes:
                result = http.get(f"/api/matches/{code}").json()
                assert result["status"] == "playing"
                assert result["fairness"], "the next hand's commitment is published"
                record = http.get(f"/api/matches/{code}/record")
                assert record.status_code == 200
        # a stranger is refused, through either process
        stranger = httpx.post(server.base + "/api/me", json={"name": "乙"}, timeout=30).cookies["caishen"]
        refused = 0
        for _ in range(6):
            with pytest.raises(InvalidStatus) as err:
                sock(server, codes[0], stranger).close()
            assert err.value.response.status_code == 403
            refused += 1
        assert refused == 6


def test_a_killed_worker_comes_back_and_its_tables_resume(two_workers: ServerProcess) -> None:
    server = two_workers
    with httpx.Client(base_url=server.base, timeout=30) as http:
        cookie = http.post("/api/me", json={"name": "丙"}).cookies["caishen"]
        code = http.post("/api/practice?pace=instant").json()["code"]
        with sock(server, code, cookie) as ws:
            at = play(ws, 4)
        old = worker_pids(server)
        assert len(old) == 2
        for pid in old:
            os.kill(pid, signal.SIGKILL)
        # started again, and the table answers: bounded as a server's start is (ServerProcess,
        # 120 s): the 30 s of the other waits ran out here once with both cores kept busy
        wait_for(lambda: len(set(worker_pids(server)) - set(old)) == 2, START_SECONDS)
        wait_for(lambda: _plays(server, code, cookie), START_SECONDS)
        with sock(server, code, cookie) as ws:
            back = next_state(ws)
            assert (back["hand"], back["step"]) == (at["hand"], at["step"])  # nothing stored was lost
            after = play_on(ws, 2, back)
            assert (after["hand"], after["step"]) > (at["hand"], at["step"])  # and it plays on


def _plays(server: ServerProcess, code: str, cookie: str) -> bool:
    """The table answers (its owner is up again, whichever process takes the connection)."""
    try:
        with sock(server, code, cookie) as ws:
            next_state(ws)
        return True
    except (OSError, InvalidStatus, ConnectionClosed):
        return False


def test_workers_stop_with_their_supervisor_even_when_it_is_killed(two_workers: ServerProcess) -> None:
    server = two_workers
    pids = worker_pids(server)
    assert len(pids) == 2
    server.kill()  # SIGKILL: the supervisor cannot stop them; they are told it is gone
    wait_for(lambda: not any(_running(p) for p in pids))


def _running(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
