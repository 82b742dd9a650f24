"""A page opened while someone else decides on a discard (a reload, a second window) sees its
table at once: the state its seat was last told, without choices, and the present once the
discard is decided. It is told nothing new meanwhile: that anyone may claim stays hidden
(docs/server.md, "What the timing tells").

Before, it was sent nothing until the discard was decided: at a table without a timer the
page stayed empty for as long as a friend thought about a pong (seen in the browser suite:
a reload that showed no hand in 60 s)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from helpers_server import ServerProcess, act_json, database
from test_server_durability import _cookie, _socket  # a person's cookie, a table's socket
from test_server_durability import _state as _next_state  # the next state a socket receives
from test_server_timing import _choose  # win, else pass, else the last choice

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
SEED = bytes.fromhex("7a11" * 16)


class Player(threading.Thread):
    """A person who answers every state at once and starts each next hand. ``hold``: which
    claim, once this person is asked about it, he keeps thinking about (``holding`` is set,
    and ``held`` is the state that asks him)."""

    def __init__(self, ws: Any, hold: Callable[[dict[str, Any]], bool] | None = None) -> None:
        super().__init__(daemon=True)
        self.ws, self.hold = ws, hold
        self.states: list[dict[str, Any]] = []
        self.holding = threading.Event()
        self.held: dict[str, Any] | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        acted: tuple[int, int, str] | None = None
        try:
            while True:
                msg = json.loads(self.ws.recv(timeout=120))
                assert msg["type"] != "error", msg
                if msg["type"] != "state":
                    continue
                self.states.append(msg)
                assert not msg["match_over"], "the match ended before the seat held a claim"
                if msg["hand_end"] is not None:
                    if acted != (msg["hand"], -1, "next"):
                        acted = (msg["hand"], -1, "next")
                        self.ws.send(json.dumps({"type": "next", "hand": msg["hand"]}))
                    continue
                if not msg["choices"] or acted == (msg["hand"], msg["step"], msg["phase"]):
                    continue
                if msg["phase"] == "claim" and self.hold is not None and self.hold(msg):
                    self.held = msg
                    self.holding.set()
                    return  # thinking: no answer
                acted = (msg["hand"], msg["step"], msg["phase"])  # (a pass is no step: the phase tells)
                self.ws.send(act_json(msg, _choose(msg)))
        except ConnectionClosed:
            return  # the page was closed under it
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
            self.holding.set()


def _room(server: ServerProcess, hands: int = 8) -> tuple[dict[str, str], dict[str, str], str]:
    """Ann's and Bob's cookies and the code of the room they play in, with two bots, no timer,
    at the instant pace."""
    ann, bob = _cookie(server.base, "Ann"), _cookie(server.base, "Bob")
    code = httpx.post(server.base + "/api/rooms", cookies=ann, timeout=60, json={
        "friends": 1, "turn_seconds": 0, "hands": hands, "pace": "instant"}).json()["code"]
    assert httpx.post(server.base + f"/api/rooms/{code}/join", cookies=bob,
                      timeout=60).json()["status"] == "playing"
    return ann, bob, code


def _next_event(ws: Any) -> dict[str, Any]:
    """The next event a socket receives (states and other messages before it skipped)."""
    while True:
        msg = json.loads(ws.recv(timeout=30))
        assert msg["type"] != "error", msg
        if msg["type"] == "event":
            return msg


def _discard_of(held: dict[str, Any]) -> dict[str, Any]:
    """The event of the discard a state asks about."""
    return {"type": "event", "hand": held["hand"], "step": held["step"], "seat": held["current"],
            "kind": "discard", "tile": held["last_discard"]}


def _until_held(a: Player, b: Player, wa: Any, never: str) -> dict[str, Any]:
    """Ann and Bob play until Bob holds a claim (``never``: the message if he is not asked in
    5 minutes); then Ann's page closes, the first half of a reload. The state Bob holds."""
    a.start()
    b.start()
    assert b.holding.wait(300), never
    assert b.error is None and a.error is None, (b.error, a.error)
    held = b.held
    assert held is not None
    wa.close()
    a.join(60)
    return held


def test_a_page_opened_while_a_friend_decides_on_a_claim_shows_the_table_and_tells_nothing_new(
        tmp_path: Path) -> None:
    with database("sqlite", tmp_path) as url:
        server = ServerProcess(url, seed=SEED).start()
        try:
            ann, bob, code = _room(server)
            with _socket(server.base, code, bob) as wb:
                # Bob thinks about the first discard of Ann's he may claim
                b = Player(wb, hold=lambda m: m["seats"][m["current"]]["name"] == "Ann")
                wa = _socket(server.base, code, ann)
                a = Player(wa)
                held = _until_held(a, b, wa, "Bob was never offered a claim on Ann's discard")  # Ann reloads...
                told = a.states[-1]  # the last state Ann's seat was told: before her discard
                with _socket(server.base, code, ann) as wa2:  # ...and the new one opens
                    again = _next_state(wa2)
                    assert (again["hand"], again["step"], again["phase"]) == (told["hand"], told["step"], told["phase"])
                    assert again["tiles"] == told["tiles"]  # what she was told, nothing of the discard's fate
                    assert again["choices"] == [] and again["deadline_ms"] is None and again["events"] == []
                    # ... and then her discard, which every seat was told of: her page plays it
                    # on that state (it showed the tile back in her hand, a new player found)
                    assert _next_event(wa2) == _discard_of(held)
                    wb.send(act_json(held, "pass"))  # Bob decides: the present, to Ann's new page
                    later = _next_state(wa2)
                    assert (later["hand"], later["step"]) > (told["hand"], told["step"])  # her discard, told
        finally:
            server.stop()


def test_a_page_opened_in_a_claim_window_before_its_seat_saw_the_new_hand_shows_the_hand_as_dealt(
        tmp_path: Path) -> None:
    """The bots play on at once after a deal, to a discard Bob may claim: Ann's seat has been
    told nothing of the new hand. A page of Ann's that opens then is shown the hand as dealt
    (step 0), not the last hand's score table (which it was shown before)."""
    with database("sqlite", tmp_path) as url:
        server = ServerProcess(url, seed=SEED).start()
        try:
            ann, bob, code = _room(server, hands=16)
            with _socket(server.base, code, bob) as wb:
                wa = _socket(server.base, code, ann)
                a = Player(wa)
                # Bob thinks about a claim in a later hand of which Ann has been told nothing
                b = Player(wb, hold=lambda m: m["hand"] > 0 and not any(s["hand"] == m["hand"] for s in a.states))
                held = _until_held(a, b, wa, "Bob was never asked in a hand before Ann was told of it")  # Ann reloads
                assert a.states[-1]["hand_end"] is not None  # her old page showed the last hand's end
                with _socket(server.base, code, ann) as wa2:
                    again = _next_state(wa2)
                    assert again["hand"] == held["hand"] and again["hand_end"] is None
                    assert again["step"] < held["step"]  # as dealt (or after, if told): not the discard
                    assert len(again["tiles"]) >= 16 and again["choices"] == [] and again["deadline_ms"] is None
                    wb.send(act_json(held, "pass"))
                    later = _next_state(wa2)
                    assert (later["hand"], later["step"]) > (again["hand"], again["step"])
        finally:
            server.stop()


def _claim(m: dict[str, Any]) -> str | None:
    """A set Bob may claim with (chow, pong, kong), the first offered."""
    return next((c["action"] for c in m["choices"] if c["action"].split()[0] in ("chow", "pong", "exposed_kong")), None)


def test_a_table_reopened_inside_a_claim_window_tells_the_claim_that_closes_it(tmp_path: Path) -> None:
    """The server stops while Bob thinks about claiming Ann's discard (a restart; in a
    cluster: the node that ran the table died and another takes it over): the table is
    rebuilt from storage inside the window. Bob's claim closes it and is told like any other.
    (A chaos run found it refused: the table reopened knew nothing of the window's opening and
    failed on the claim, IndexError, and the page heard nothing.)"""
    with database("sqlite", tmp_path) as url:
        server = ServerProcess(url, seed=SEED).start()
        try:
            ann, bob, code = _room(server, hands=16)
            wb = _socket(server.base, code, bob)
            b = Player(wb, hold=lambda m: m["seats"][m["current"]]["name"] == "Ann" and _claim(m) is not None)
            wa = _socket(server.base, code, ann)
            a = Player(wa)
            held = _until_held(a, b, wa, "Bob was never offered a set on Ann's discard")
            claim = _claim(held)
            assert claim is not None
            server.kill()  # Bob's page loses its connection, and comes back to the new server
            wb.close()
            server.start()
            with _socket(server.base, code, bob) as wb2, _socket(server.base, code, ann) as wa2:
                # Ann's page, open while Bob decides, shows the table before her discard, as a
                # page of hers would have on the first server
                before = _next_state(wa2)
                assert (before["hand"], before["step"], before["choices"]) == (held["hand"], held["step"] - 1, [])
                assert before["seats"][before["me"]]["discards"] == held["seats"][held["current"]]["discards"][:-1]
                assert _next_event(wa2) == _discard_of(held)  # then the discard, played on it
                again = _next_state(wb2)
                assert (again["hand"], again["step"], again["phase"]) == (held["hand"], held["step"], "claim")
                assert claim in [c["action"] for c in again["choices"]]
                mine = again["me"]
                melds = len(again["seats"][mine]["melds"])
                wb2.send(act_json(again, claim))
                events: list[dict[str, Any]] = []
                while True:
                    msg = json.loads(wb2.recv(timeout=60))
                    assert msg["type"] != "error", msg
                    if msg["type"] == "event":
                        events.append(msg)
                    elif msg["type"] == "state" and (msg["hand"], msg["step"]) > (held["hand"], held["step"]):
                        break
                took = len(msg["seats"][mine]["melds"]) > melds  # a win by another seat beats a set
                told = [(e["hand"], e["step"], e["kind"], e["tile"]) for e in events if e["seat"] == mine]
                kind, tile = claim.split()[:2]  # "pong 9p", "chow 4p 3p": the kind and the tile claimed
                assert told == ([(held["hand"], held["step"] + 1, kind, tile)] if took else []), (claim, events)
        finally:
            server.stop()
