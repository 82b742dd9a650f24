"""Quick phrases and stickers at the table (issue 30, "Table manners"): a fixed list
(caishen.server.protocol.PHRASES and STICKERS), sent as ``{"type": "say", "say": ...}``; every
page at the table, the sender's too, is told ``{"type": "said", "seat": <the sender's engine
seat>, "say": ...}``; anything off the list is refused as a bad message and reaches nobody;
more than the budget's burst at once is refused as ``rate_limited``."""

from __future__ import annotations

import typing

import pytest
from fastapi import FastAPI

from caishen.server import conns
from caishen.server.protocol import PHRASES, STICKERS, Say
from helpers_server import app_fixture, next_of, person, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")


def test_the_list_is_the_protocols() -> None:
    assert typing.get_args(Say) == PHRASES + STICKERS
    assert len(set(PHRASES + STICKERS)) == len(PHRASES + STICKERS)


def test_a_phrase_and_a_sticker_reach_every_seat_at_the_senders_seat(app: FastAPI,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with person(app, "Ann") as ann:
        bob = person(app, "Bob")
        bob.portal = ann.portal  # one event loop for both, as in the server
        code = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "hands": 8}).json()["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        players = {s["name"]: s["player"] for s in ann.get(f"/api/rooms/{code}").json()["seats"] if s["name"]}
        with ann.websocket_connect(f"/ws/{code}") as wa, bob.websocket_connect(f"/ws/{code}") as wb:
            live = app.state.tables.live[code]
            until(lambda: len(live.clients) == 2 and not live.lock.locked())
            seat_ann = live.session.seat_of(players["Ann"])
            seat_bob = live.session.seat_of(players["Bob"])
            assert seat_ann is not None and seat_bob is not None and seat_ann != seat_bob

            wa.send_json({"type": "say", "say": "nice"})
            for ws in (wa, wb):
                assert next_of(ws, "said") == {"type": "said", "seat": seat_ann, "say": "nice"}
            wb.send_json({"type": "say", "say": "tea"})
            for ws in (wa, wb):
                assert next_of(ws, "said") == {"type": "said", "seat": seat_bob, "say": "tea"}

            # off the list: refused, nobody hears of it
            wa.send_json({"type": "say", "say": "<b>hi</b>"})
            assert next_of(wa, "error")["code"] == "bad_message"
            wa.send_json({"type": "say", "say": "free text is not a phrase"})
            assert next_of(wa, "error")["code"] == "bad_message"

            # a flood, the budgets' clock held still: the burst left passes, then rate_limited
            monkeypatch.setattr(conns, "clock", lambda: 1e9)
            sent: list[str] = []
            for say in ("hello", "thanks", "sorry", "bye", "again"):
                wa.send_json({"type": "say", "say": say})
                sent.append(say)
            heard: list[str] = []
            refused = 0
            while len(heard) + refused < len(sent):
                msg = wa.receive_json()
                if msg["type"] == "said":
                    heard.append(msg["say"])
                elif msg["type"] == "error":
                    assert msg["code"] == "rate_limited", msg
                    refused += 1
            assert heard == sent[:len(heard)] and 1 <= len(heard) <= 3 and refused >= 2
            # Bob heard exactly what Ann's page heard, in order, and nothing refused
            got = [next_of(wb, "said")["say"] for _ in heard]
            assert got == heard
