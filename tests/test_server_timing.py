"""What the timing tells (docs/server.md): after every discard every seat waits through the
same claim pause, and what a seat receives does not depend on whether anyone else may claim.

The same match (same seed, same moves) is played twice by two people and two bots: once with
Bob a person, who is asked on Ann's discards whenever he may claim (and passes), once with
Bob's seat played by a bot that makes exactly Bob's choices. Ann's messages must be the same,
byte for byte, once the names are set aside; and on each of her discards, whether Bob held a
claim or not, her messages have the same shape. The slow test measures the time from Ann's
discard to her next state with the real claim pause."""

from __future__ import annotations

import json
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_server import ServerProcess, act_json, database
from test_server_durability import _cookie, _socket  # a person's cookie, a table's socket

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
SEED = bytes.fromhex("5eed" * 16)


def _choose(view: dict[str, Any]) -> str:
    acts = [c["action"] for c in view["choices"]]
    if "win" in acts:
        return "win"
    if "pass" in acts:
        return "pass"
    return acts[-1]


# Bob's way of playing (``_choose``) as the bot of the room's open seat (player 1)
_BOB_AS_BOT = """
from caishen.server import core
from caishen.engine.actions import ActionKind

class BobsChoices:
    name = "bob"
    observes = True

    def act(self, observation):
        legal = observation.legal_actions
        for kind in (ActionKind.WIN, ActionKind.PASS):
            for a in legal:
                if a.kind is kind:
                    return a
        return legal[-1]

_make = core._players

def _players(ruleset, bots, seed):
    out = _make(ruleset, bots, seed)
    if bots[1] is not None:
        out[1] = BobsChoices()
    return out

core._players = _players
"""


@contextmanager
def _server(tmp: Path, bob_as_bot: bool, scale: str) -> Iterator[ServerProcess]:
    """A server whose rooms all get SEED, its pace times ``scale``."""
    tmp.mkdir(parents=True, exist_ok=True)
    with database("sqlite", tmp) as url:
        server = ServerProcess(url, seed=SEED, setup=_BOB_AS_BOT if bob_as_bot else "",
                               env={"CAISHEN_PACE_SCALE": scale}).start()
        try:
            yield server
        finally:
            server.stop()


class Seat(threading.Thread):
    """A person at the table in a thread of its own: answers every state at once, starts the
    next hand, stops after ``hands`` hands. Keeps every message with the time it came."""

    def __init__(self, ws: Any, hands: int) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.hands = hands
        self.got: list[tuple[float, str]] = []
        self.sent: list[tuple[float, str, int]] = []  # (time, action, step) of each move made
        self.asked_on: set[tuple[int, int]] = set()   # (hand, step) of discards it could claim
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            acted: tuple[int, int, str] | None = None
            while True:
                text = self.ws.recv(timeout=120)
                self.got.append((time.monotonic(), text))
                msg = json.loads(text)
                assert msg["type"] != "error", msg
                if msg["type"] != "state":
                    continue
                if msg["hand_end"] is not None:
                    if msg["hand"] + 1 >= self.hands or msg["match_over"]:
                        return
                    if acted != (msg["hand"], -1, "next"):
                        acted = (msg["hand"], -1, "next")
                        self.ws.send(json.dumps({"type": "next", "hand": msg["hand"]}))
                elif msg["choices"] and acted != (msg["hand"], msg["step"], msg["phase"]):
                    acted = (msg["hand"], msg["step"], msg["phase"])  # (a pass is no step: the phase tells)
                    action = _choose(msg)
                    if msg["phase"] == "claim":
                        self.asked_on.add((msg["hand"], msg["step"]))
                    self.sent.append((time.monotonic(), action, msg["step"]))
                    self.ws.send(act_json(msg, action))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            last = [(m["type"], m.get("hand"), m.get("step"), m.get("kind"), m.get("phase"), bool(m.get("choices")))
                    for m in (json.loads(x) for _, x in self.got[-4:])]
            self.error = AssertionError(f"{exc!r} after {last}")


def _match(tmp: Path, bob_person: bool, scale: str = "0", pace: str = "normal", hands: int = 3,
           ) -> tuple[Seat, Seat | None]:
    """Ann and Bob (a person, or his choices as a bot) and two greedy bots, ``hands`` hands. (At
    the normal pace every turn, a bot's as a person's, is told before its move: at the
    instant pace a person's turn is told and a bot's is not, which is no secret.)"""
    with _server(tmp, not bob_person, scale) as server:
        ann, bob = _cookie(server.base, "Ann"), _cookie(server.base, "Bob")
        room = httpx.post(server.base + "/api/rooms", cookies=ann, timeout=60, json={
            "friends": 1, "turn_seconds": 0, "hands": 8, "pace": pace}).json()
        code = room["code"]
        if bob_person:
            r = httpx.post(server.base + f"/api/rooms/{code}/join", cookies=bob, timeout=60).json()
        else:
            r = httpx.post(server.base + f"/api/rooms/{code}/start", cookies=ann, timeout=60).json()
        assert r["status"] == "playing"
        wb = _socket(server.base, code, bob) if bob_person else None
        try:
            b = Seat(wb, hands) if wb is not None else None
            if b is not None:
                b.start()
            with _socket(server.base, code, ann) as wa:
                a = Seat(wa, hands)
                a.start()
                a.join(600)
                assert not a.is_alive() and a.error is None, a.error
            if b is not None:
                b.join(600)
                assert not b.is_alive() and b.error is None, b.error
        finally:
            if wb is not None:
                wb.close()
    return a, b


def _public(text: str, ann: str = "Ann") -> Any:
    """A message with the other players' names and kinds (person, bot) set aside, and what
    follows from them (the later hands' commitments)."""
    msg = json.loads(text)
    if msg["type"] == "state":
        msg["code"] = "x"
        # a hand's commitment chains the previous hand's record, which says who was a person
        # and who a bot (docs/fairness.md): set aside with the names
        msg["commitment"] = "x" if msg["hand"] else msg["commitment"]
        for sv in msg["seats"]:
            if sv["name"] != ann:
                sv.update(name="x", bot=None, connected=True)
        for row in msg["standings"]:
            if row["name"] != ann:
                row["name"] = "x"
        if msg["hand_end"]:
            for line in msg["hand_end"]["lines"]:
                if line["name"] != ann:
                    line["name"] = "x"
    return msg


def _from_first_turn(seat: Seat) -> list[Any]:
    """The seat's messages in each hand from its first turn on: before it, and between hands,
    what comes depends on when the other person took his seat or pressed "Next hand"."""
    msgs = [_public(x) for _, x in seat.got]
    out: list[Any] = []
    hand, started = -1, False
    for m in msgs:
        if m["hand"] != hand:
            hand, started = m["hand"], False
        started = started or (m["type"] == "state" and bool(m["choices"]))
        if started and (m["type"] != "state" or m["hand_end"] is None):
            out.append(m)
    return out


def _after_discards(seat: Seat) -> list[tuple[int, int, list[str], float]]:
    """For each of the seat's discards: hand, step, the types of the messages up to its next
    state, and the seconds from its move to that state."""
    out = []
    got = seat.got
    for t, action, step in seat.sent:
        if not action.startswith("discard"):
            continue
        i = next(k for k, (tk, _) in enumerate(got) if tk >= t)
        kinds: list[str] = []
        for tk, text in got[i:]:
            msg = json.loads(text)
            kinds.append(msg["type"] if msg["type"] != "event" else f"event:{msg['kind']}")
            if msg["type"] == "state":
                out.append((msg["hand"], step, kinds, tk - t))
                break
    return out


def test_the_discarder_hears_the_same_whether_a_person_a_bot_or_nobody_may_claim(tmp_path: Path) -> None:
    a1, b1 = _match(tmp_path / "person", bob_person=True, hands=8)  # the whole match
    assert b1 is not None
    a2, _ = _match(tmp_path / "bot", bob_person=False, hands=8)
    # Bob was asked on some discards (and passed): a person held a claim
    assert b1.asked_on, "Bob was never asked: the seed makes no test"
    # Ann's messages are the same, byte for byte once the names are set aside, whether Bob is
    # a person (asked, answering) or a bot
    # (in each hand from her first turn on: before it, Bob's seat is taken at another moment;
    # these clients send no randomness, so both runs deal the same walls, docs/fairness.md)
    ours, theirs = _from_first_turn(a1), _from_first_turn(a2)
    states = [json.loads(x) for _, x in a1.got if json.loads(x)["type"] == "state"]
    assert states[-1]["match_over"], "the whole match: all its hands, or until someone broke"
    assert ours == theirs
    # and on each of her discards the same shape, whoever may claim: her discard, then one
    # state (a claim made comes before it as its own event); never a state in between
    shapes = _after_discards(a1)
    assert len(shapes) >= 20
    for _, _, kinds, _ in shapes:
        assert kinds[0] == "event:discard" and kinds[-1] == "state" and "state" not in kinds[:-1], kinds
    # no countdown anywhere in her messages (no turn timer in this room)
    assert all(json.loads(x).get("deadline_ms") is None for _, x in a1.got)


@pytest.mark.slow
def test_the_claim_pause_takes_as_long_whether_or_not_a_person_may_claim(tmp_path: Path) -> None:
    """The pause (at half its length, to keep the test short), over a whole match: on Ann's discards, the time to
    her next state is the same at the median whether Bob (a person, answering at once) held a
    claim or nobody did. The bots move at once (the instant pace): with two people the pause
    holds even so."""
    a, b = _match(tmp_path, bob_person=True, scale="0.5", pace="instant", hands=8)  # the whole match
    assert b is not None
    held, free = [], []
    for hand, step, kinds, seconds in _after_discards(a):
        if len(kinds) != 2:
            continue  # a claim was made
        (held if (hand, step + 1) in b.asked_on else free).append(seconds)
    assert len(held) >= 3 and len(free) >= 10, (len(held), len(free))
    pause = 0.8 * 0.5
    assert statistics.median(free) >= pause and statistics.median(held) >= pause
    assert abs(statistics.median(held) - statistics.median(free)) < 0.05, (held, free)
