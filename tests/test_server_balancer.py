"""The game centre behind a real load balancer (issue 28, item 8; docs/server.md,
"Deployment"): HAProxy from ``deploy/haproxy.cfg`` in front of three ``caishen serve --redis``
nodes on one PostgreSQL schema (tests/helpers_balancer.py).

Two friends play a whole hand, one through the balancer and one on a connection to another
node (the balancer's hash would bring both to one node, so the second connects to a node that
does not run the table: relayed through Redis). The node that runs the table is then killed
(SIGKILL); both reconnect through the balancer, the table is taken over by a living node, and
they resume at the exact state they left, and play on.

Skipped without haproxy, PostgreSQL or Redis at 127.0.0.1; marked ``redis``."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from helpers_balancer import BalancedNodes, balanced_nodes, balancer, services_or_skip
from helpers_nodes import poll
from helpers_server import act_json, choose

pytestmark = [pytest.mark.redis, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

BOUND = 90.0  # seconds: every wait for a state is polled up to this (a busy two-core machine)
NODE_ENV = {"CAISHEN_CONTRIBUTE_SECONDS": "0"}  # no wait for the pages' randomness before a deal


@pytest.fixture
def services() -> None:
    services_or_skip()


def test_the_local_balancer_runs_deploy_haproxy_cfg_with_only_its_addresses_changed() -> None:
    """benchmarks/balancer.py renders deploy/haproxy.cfg for loopback: every line but the
    ``bind`` and ``server`` lines is the file's, each backend gets one server per local node
    (its options kept, ``track`` following the node's name), and haproxy accepts the result."""
    if balancer.HAPROXY is None:
        pytest.skip("haproxy is not installed")
    template = balancer.TEMPLATE.read_text(encoding="utf-8")
    text = balancer.render(template, 18080, [19001, 19002])
    kept = [line for line in template.splitlines() if not line.strip().startswith(("bind ", "server "))]
    assert [line for line in text.splitlines() if not line.strip().startswith(("bind ", "server "))] == kept
    servers = [line.split() for line in text.splitlines() if line.strip().startswith("server ")]
    nodes = [["server", "node1", "127.0.0.1:19001", "check"], ["server", "node2", "127.0.0.1:19002", "check"]]
    spares = [["server", "spare1", "127.0.0.1:19001", "backup"], ["server", "spare2", "127.0.0.1:19002", "backup"]]
    tracked = [["server", "node1", "127.0.0.1:19001", "track", "nodes/node1"],
               ["server", "node2", "127.0.0.1:19002", "track", "nodes/node2"]]
    assert servers == nodes + spares + tracked + spares
    binds = [line.split()[1] for line in text.splitlines() if line.strip().startswith("bind ")]
    assert binds[0] == "127.0.0.1:18080" and all(b.startswith("127.0.0.1:") for b in binds)
    front = balancer.Balancer([19001, 19002])
    try:
        front.check()  # haproxy -c
    finally:
        front.stop()


def connect_page(url: str, cookie: str) -> ClientConnection:
    """A page's connection to a table, as a browser opens it (the balancer refusing or a node
    not answering is met by trying again, up to BOUND s). No state is waited for: a person
    who is not asked while a discard is decided on is rightly sent none until it is."""
    deadline = time.monotonic() + BOUND
    origin = url.replace("ws://", "http://").split("/ws/")[0]  # as a browser sends it
    while True:
        try:
            return connect(url, additional_headers={"Cookie": f"caishen={cookie}", "Origin": origin},
                           open_timeout=BOUND, ping_interval=None)
        except (InvalidStatus, InvalidHandshake, OSError) as exc:
            assert time.monotonic() < deadline, f"no connection within {BOUND} s: {exc!r}"
            time.sleep(0.5)  # the page's pause before it tries again, not a wait for a state


def join(url: str, cookie: str) -> tuple[ClientConnection, dict[str, Any]]:
    """A connection to a table and its first state. What a page meets while a node has died
    and another has not taken its tables yet (the balancer refusing, 1012, 1013, a connection
    cut) is answered as the page does: by connecting again, up to BOUND s."""
    deadline = time.monotonic() + BOUND
    while True:
        ws = None
        try:
            origin = url.replace("ws://", "http://").split("/ws/")[0]  # as a browser sends it
            ws = connect(url, additional_headers={"Cookie": f"caishen={cookie}", "Origin": origin},
                         open_timeout=BOUND, ping_interval=None)
            while True:
                msg = json.loads(ws.recv(timeout=BOUND))
                assert msg["type"] != "error", msg
                if msg["type"] == "state":
                    return ws, msg
        except (ConnectionClosed, InvalidStatus, InvalidHandshake, OSError) as exc:
            if ws is not None:
                ws.close()
            closed = exc.rcvd.code if isinstance(exc, ConnectionClosed) and exc.rcvd is not None else None
            assert closed in (None, 1006, 1011, 1012, 1013), exc
            assert time.monotonic() < deadline, f"no table within {BOUND} s: {exc!r}"
            time.sleep(0.5)  # the page's pause before it tries again, not a wait for a state


class Seat:
    """A person's page in a thread: it reads every message, keeps the last state, answers
    each state that asks it while ``acts(state)`` says so (the simple player of
    helpers_server.choose), and says "next" after a hand's end while ``nexts(hand)``."""

    def __init__(self, ws: ClientConnection, first: dict[str, Any] | None, acts: Callable[[dict[str, Any]], bool],
                 nexts: Callable[[int], bool], again: Callable[[], ClientConnection] | None = None) -> None:
        """``first``: the state the page has (None: none yet); ``again``: how the page connects
        again if its connection is closed before any state came (1013 while the owner is not
        yet listening for relayed pages, as the page does); without it a close ends the seat."""
        self.ws = ws
        self.last = first
        self.states = [] if first is None else [first]
        self.again = again
        self.acts = acts
        self.nexts = nexts
        self.pongs = 0
        self.closed: ConnectionClosed | None = None
        self.lock = threading.Lock()
        self.outbox: list[str] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def send(self, text: str) -> None:
        """Send from the seat's own thread (the socket is read there)."""
        with self.lock:
            self.outbox.append(text)

    def _answer(self, view: dict[str, Any]) -> None:
        if view["choices"] and self.acts(view):
            self.ws.send(act_json(view, choose(view)))
        elif view["hand_end"] is not None and not view["match_over"] and self.nexts(view["hand"]):
            self.ws.send(json.dumps({"type": "next", "hand": view["hand"]}))

    def _run(self) -> None:
        while True:
            try:
                self._read()
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                if self.again is None or self.states or code not in (None, 1006, 1011, 1012, 1013):
                    self.closed = exc
                    return
                self.ws = self.again()

    def _read(self) -> None:
        if self.last is not None:
            self._answer(self.last)
        while True:
            with self.lock:
                out, self.outbox = self.outbox, []
            for text in out:
                self.ws.send(text)
            try:
                msg = json.loads(self.ws.recv(timeout=0.1))
            except TimeoutError:
                continue
            if msg["type"] == "pong":
                self.pongs += 1
            elif msg["type"] == "error":
                assert msg["code"] == "stale", msg  # a "next" or move the table had already acted on
            elif msg["type"] == "state":
                self.last = msg
                self.states.append(msg)
                self._answer(msg)

    def barrier(self) -> None:
        """Until the table has answered every message this page sent (a ping's pong comes
        after them all): what it sent is done, and every state it was sent has arrived."""
        before = self.pongs
        self.send('{"type":"ping"}')
        poll(lambda: self.pongs > before or self.closed is not None, why="a pong")

    def close(self) -> None:
        self.ws.close()
        self.thread.join(BOUND)


def rests_on_me(view: dict[str, Any] | None, hand: int) -> bool:
    """The table waits for this person's "next" at the end of hand ``hand`` or later (a state
    every seat is sent), or the match is over."""
    return view is not None and (view["match_over"] or (view["hand"] >= hand and view["hand_end"] is not None))


SAME = ("hand", "step", "phase", "me", "current", "to_move", "tiles", "my_flowers", "last_discard", "choices",
        "match_over")


@pytest.mark.usefixtures("services")
# slow: HAProxy, two nodes and a kill, 16 s (CI's slow stage runs it)
@pytest.mark.slow
def test_friends_on_different_nodes_play_a_hand_behind_the_balancer_and_resume_after_the_owner_is_killed(
        tmp_path: Path) -> None:
    with balanced_nodes(tmp_path, 3, env=NODE_ENV) as dep:
        _play(dep)


def _play(dep: BalancedNodes) -> None:
    ann_http = httpx.Client(base_url=dep.base, timeout=BOUND)
    bob_http = httpx.Client(base_url=dep.base, timeout=BOUND)
    ann = ann_http.post("/api/me", json={"name": "安"}).cookies["caishen"]
    bob = bob_http.post("/api/me", json={"name": "波"}).cookies["caishen"]
    made = ann_http.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "pace": "instant", "hands": 8})
    assert made.status_code == 200, made.text
    code = made.json()["code"]
    assert bob_http.post(f"/api/rooms/{code}/join").status_code == 200
    assert ann_http.get(f"/api/rooms/{code}").json()["status"] == "playing"

    # Ann through the balancer: the node it sends her to takes the table (her first state may
    # wait: the first deal's bots may wait for Bob's claim, and she is not asked)
    ws_ann = connect_page(dep.ws(code), ann)
    assert ws_ann.response is not None and ws_ann.response.headers.get("x-caishen-relayed") is None
    owner = poll(lambda: dep.owner(code), why="the table's lease")
    # Bob on another node: relayed to the owner through Redis
    edge = next(n for n in dep.nodes if n is not owner)
    ws_bob = connect_page(dep.ws(code, edge), bob)
    assert ws_bob.response is not None and ws_bob.response.headers.get("x-caishen-relayed") == "node"

    # two whole hands: both play them; Bob plays on, Ann says "next" only after the first, so
    # the table rests at the second hand's end, waiting for her (a state every seat is sent)
    seat_ann = Seat(ws_ann, None, acts=lambda v: True, nexts=lambda h: h < 1,
                    again=lambda: connect_page(dep.ws(code), ann))
    seat_bob = Seat(ws_bob, None, acts=lambda v: True, nexts=lambda h: True,
                    again=lambda: connect_page(dep.ws(code, edge), bob))
    poll(lambda: seat_ann.closed is None and rests_on_me(seat_ann.last, 1), why="Ann waited for after hand 2")
    assert any(s["hand"] == 0 and s["hand_end"] is not None for s in seat_ann.states), "hand 1 was not played out"
    assert any(s["hand"] == 0 and s["hand_end"] is not None for s in seat_bob.states), "Bob did not see hand 1's end"
    assert dep.owner(code) is owner
    seat_bob.barrier()  # Bob's answers are in, and the table waits for Ann alone
    seat_ann.barrier()  # every state the table sent Ann has arrived
    left = seat_ann.last
    assert rests_on_me(left, 1)

    # the owner dies
    owner.kill()
    poll(lambda: seat_ann.closed is not None and seat_bob.closed is not None, why="both pages to lose the table")

    # both come back through the balancer, to a living node that takes the table over
    ws_ann, again = join(dep.ws(code), ann)
    new_owner = poll(lambda: dep.owner(code), why="the table's new lease")
    assert new_owner is not owner
    assert {k: again[k] for k in SAME} == {k: left[k] for k in SAME}
    assert (again["hand_end"] is None) == (left["hand_end"] is None)
    ws_bob, bob_again = join(dep.ws(code), bob)
    assert (bob_again["hand"], bob_again["step"]) == (again["hand"], again["step"])

    # and play on
    if not again["match_over"]:
        seat_bob = Seat(ws_bob, bob_again, acts=lambda v: True, nexts=lambda h: True)
        seat_ann = Seat(ws_ann, again, acts=lambda v: True, nexts=lambda h: True)
        poll(lambda: any((s["hand"], s["step"]) > (again["hand"], again["step"]) for s in seat_ann.states)
             or seat_ann.last["match_over"], why="a move after the takeover")
        assert seat_ann.closed is None, seat_ann.closed
        seat_ann.close()
        seat_bob.close()
    else:
        ws_ann.close()
        ws_bob.close()
    ann_http.close()
    bob_http.close()
