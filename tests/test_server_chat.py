"""Free-text chat at the table (issue 30, "Table manners": "Free-text chat is off by default:
a room option, with a length limit and shown as plain text"). A room made with ``chat`` on
takes ``{"type": "chat", "text": ...}`` from a seated person and tells every page
``{"type": "chatted", "seat", "name", "text", "at"}``; off (the default), it is refused as
``chat_off`` and reaches nobody. A page that connects is told the latest lines again."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from caishen.server import conns
from caishen.server.protocol import CHAT_CHARS, ProtocolError
from caishen.server.tables import chat
from helpers_server import app_fixture, next_of, person, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")


def test_a_line_is_cleaned_of_what_could_disguise_it() -> None:
    assert chat.clean("  good   game\n\nall ") == "good game all"
    assert chat.clean("a\u202eb\u200bc\x00d") == "abcd"  # right-to-left override, zero-width space, NUL
    assert chat.clean("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"  # an emoji family keeps its joiners
    assert chat.clean("<b>杠上开花</b>") == "<b>杠上开花</b>"  # text, shown as text: nothing to strip
    assert len(chat.clean("x" * 500)) == CHAT_CHARS
    with pytest.raises(ProtocolError) as refused:
        chat.clean(" \u200b\n\t ")
    assert refused.value.code == "empty_chat"


def _table(app: FastAPI, chat_on: bool) -> tuple[Any, Any, str, dict[str, int]]:
    ann = person(app, "Ann <i>")
    bob = person(app, "Bob")
    room = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "hands": 8, "chat": chat_on}).json()
    assert room["chat"] is chat_on
    assert bob.post(f"/api/rooms/{room['code']}/join").json()["status"] == "playing"
    players = {s["name"]: s["player"] for s in ann.get(f"/api/rooms/{room['code']}").json()["seats"] if s["name"]}
    return ann, bob, room["code"], players


def test_chat_is_off_unless_the_room_turns_it_on(app: FastAPI) -> None:
    ann, bob, code, _ = _table(app, chat_on=False)
    # entered: both on Ann's loop (conftest's _one_loop_per_app), as in the server
    with ann, bob, ann.websocket_connect(f"/ws/{code}") as wa, bob.websocket_connect(f"/ws/{code}") as wb:
        live = app.state.tables.live[code]
        until(lambda: len(live.clients) == 2 and not live.lock.locked())
        wa.send_json({"type": "chat", "text": "hello"})
        assert next_of(wa, "error")["code"] == "chat_off"
        # Bob hears a phrase sent after it, and no line before it
        wa.send_json({"type": "say", "say": "hello"})
        while (msg := wb.receive_json())["type"] != "said":
            assert msg["type"] != "chatted", msg
        assert live.chat.count == 0


def test_a_line_reaches_every_seat_as_text_and_a_page_that_connects_is_told_it_again(
        app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    ann, bob, code, players = _table(app, chat_on=True)
    with ann, bob:
        with ann.websocket_connect(f"/ws/{code}") as wa:
            live = app.state.tables.live[code]
            seat_ann, seat_bob = live.session.seat_of(players["Ann <i>"]), live.session.seat_of(players["Bob"])
            with bob.websocket_connect(f"/ws/{code}") as wb:
                until(lambda: len(live.clients) == 2 and not live.lock.locked())
                wa.send_json({"type": "chat", "text": "  <script>alert(1)</script>\u202e 碰！ "})
                line = {"type": "chatted", "seat": seat_ann, "name": "Ann <i>",
                        "text": "<script>alert(1)</script> 碰！", "at": 1, "again": False}
                assert next_of(wa, "chatted") == line
                assert next_of(wb, "chatted") == line
                wb.send_json({"type": "chat", "text": "好牌"})
                for ws in (wa, wb):
                    assert next_of(ws, "chatted") == {"type": "chatted", "seat": seat_bob, "name": "Bob",
                                                       "text": "好牌", "at": 2, "again": False}
                # too long, or nothing but spaces: refused, nobody hears
                wb.send_json({"type": "chat", "text": "x" * (CHAT_CHARS + 1)})
                assert next_of(wb, "error")["code"] == "bad_message"
                wb.send_json({"type": "chat", "text": "\u200b \n"})
                assert next_of(wb, "error")["code"] == "empty_chat"
                assert live.chat.count == 2
            until(lambda: len(live.clients) == 1)
            # Bob's page connects again: both lines again, in order, marked as told before
            with bob.websocket_connect(f"/ws/{code}") as wb:
                first, second = next_of(wb, "chatted"), next_of(wb, "chatted")
                assert (first["at"], first["text"], first["again"]) == (1, "<script>alert(1)</script> 碰！", True)
                assert (second["at"], second["text"], second["again"]) == (2, "好牌", True)
                # a flood, the budgets' clock held still: the burst passes, then rate_limited
                monkeypatch.setattr(conns, "clock", lambda: 1e9)
                for i in range(5):
                    wb.send_json({"type": "chat", "text": f"line {i}"})
                heard: list[str] = []
                refused = 0
                while len(heard) + refused < 5:
                    msg = wb.receive_json()
                    if msg["type"] == "chatted" and not msg["again"]:
                        heard.append(msg["text"])
                    elif msg["type"] == "error":
                        assert msg["code"] == "rate_limited", msg
                        refused += 1
                assert heard == [f"line {i}" for i in range(len(heard))] and 1 <= len(heard) <= 3 and refused >= 2
