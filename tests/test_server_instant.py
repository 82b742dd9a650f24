"""The instant pace with one person and bots (docs/server.md, "Paced play"): the moves made
since the last state come inside the state that follows them (its ``events``), not as
messages of their own, and no move is lost: a whole hand's events are every move of its
record but the passes, in order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from caishen.server import core
from caishen.server.app import create_app
from caishen.table.movesig import ANSWERS, OPENS
from helpers_server import act_json, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SEED = bytes(range(32))  # a fixed match: the same hands every run
LOST = b"lost claim 3"     # one whose second hand has a claim that loses to another on one discard


def _told(actions: list[list[Any]]) -> list[int]:
    """The indices of a hand's actions a player is told of: no passes, and of the claims on one
    discard or added kong only the one that took effect (the claimer moves next; or, when the
    hand ends there, the win)."""
    out: list[int] = []
    claims: list[int] = []
    seats: set[int] | None = None  # who opened the window open now and who answered it
    for i, (s, text) in enumerate([*actions, (-1, "end")]):
        kind = text.split()[0]
        if seats is not None and kind in ANSWERS and s not in seats:
            seats.add(s)
            if kind != "pass":
                claims.append(i)
            continue
        took = [c for c in claims if actions[c][0] == s] or \
            [c for c in claims if kind == "end" and actions[c][1] == "win"]
        assert len(took) == (1 if claims else 0), (claims, s, text)
        out += took
        claims, seats = [], ({s} if kind in OPENS else None)
        if kind not in ("pass", "end"):
            out.append(i)
    return out


@pytest.mark.parametrize("seed", [SEED, LOST], ids=["no_lost_claim", "a_lost_claim"])
def test_instant_states_carry_every_move_of_the_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     seed: bytes) -> None:
    monkeypatch.setattr(core, "new_seed", lambda: seed)
    with database("sqlite", tmp_path) as url, TestClient(create_app(url)) as c:
        assert c.post("/api/me", json={"name": "Ann"}).status_code == 200
        code = c.post("/api/practice?pace=instant").json()["code"]
        told: dict[int, list[dict[str, Any]]] = {}
        step: dict[int, int] = {}  # each hand's step as the last state said it
        asked_with_events = 0
        kinds: set[str] = set()
        with c.websocket_connect(f"/ws/{code}") as ws:
            # the first hand is joined after the bots' opening moves (a new connection starts
            # from the present): the second hand is told from its deal on
            while True:
                msg = ws.receive_json()
                kinds.add(msg["type"])
                if msg["type"] != "state":
                    continue
                assert all(set(e) == {"seat", "kind", "tile"} for e in msg["events"]), msg["events"]
                told.setdefault(msg["hand"], []).extend(msg["events"])
                # a state's events are the moves since the last state, no more, no fewer (a claim
                # that lost to another on one discard is never told, and counts no step: it did,
                # and the gap told the table someone had tried to claim):
                # also the state that asks about a discard, which ends with that discard (the
                # page plays them first; an operator's review found them told after the answer)
                first = msg["hand"] not in step  # a connection's first state is the present, no events
                if not first:
                    assert len(msg["events"]) == msg["step"] - step[msg["hand"]], (step, msg)
                step[msg["hand"]] = msg["step"]
                if not first and any(ch["kind"] == "pass" for ch in msg["choices"]):  # asked to answer a move
                    assert msg["events"] and msg["events"][-1]["seat"] != msg["me"], msg
                    assert msg["events"][-1]["kind"] in ("discard", "added_kong"), msg["events"]
                    asked_with_events += 1
                if msg["hand_end"] is not None:
                    if msg["hand"] >= 1 or msg["match_over"]:
                        break
                    ws.send_text(json.dumps({"type": "next", "hand": msg["hand"]}))
                elif msg["choices"]:
                    ws.send_text(act_json(msg, choose(msg)))
        assert not msg["match_over"], "the fixed seed gives no second hand: choose another"
        assert asked_with_events, "the fixed seed asks about no discard: choose another"
        assert "event" not in kinds, kinds  # every move came inside a state
        record = json.loads(c.get(f"/api/matches/{code}/record").text)
        actions = record["hands"][1]["actions"]
        kept = [actions[i] for i in _told(actions)]
        assert [(e["seat"], e["kind"]) for e in told[1]] == [(s, text.split()[0]) for s, text in kept]
        lost = sum(1 for _, text in actions if text != "pass") - len(kept)
        assert lost == (1 if seed == LOST else 0), lost  # the seeds do what they are chosen for
        # each discard with its tile; a concealed kong's tile only to its own seat
        me = msg["me"]
        for (s, text), e in zip(kept, told[1], strict=True):
            kind, *tiles = text.split()
            if kind == "concealed_kong" and s != me:
                assert e["tile"] is None
            elif tiles:
                assert e["tile"] == tiles[0]
