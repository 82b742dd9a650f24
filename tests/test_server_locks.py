"""A lock held elsewhere on PostgreSQL (another node's transaction, a takeover, a session an
operator left open) bounds a table's commit: past ``PG_LOCK_MS`` (``lock_timeout``) the write
fails as the database being busy, the table pauses with a storage notice and refuses the move
with ``storage_unavailable``, and once the lock is let go the move is taken. Before, nothing
bounded a lock wait, and a table whose write waited on one answered nothing at all (seen once
in CI: a discard unanswered for 90 s, docs/server.md "Faults")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from caishen.server import db as db_module
from caishen.server.app import create_app
from helpers_server import act_json, asked, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _until(ws: Any, want: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Messages from ``ws`` until one of type ``want`` (each kept in ``seen``)."""
    for _ in range(1000):
        msg: dict[str, Any] = ws.receive_json()
        seen.append(msg)
        if msg["type"] == want:
            return msg
    raise AssertionError(f"no {want!r} message in 1,000")


def test_a_commit_waiting_on_a_lock_pauses_the_table_then_the_move_is_taken(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(db_module, "PG_LOCK_MS", 1_000)  # the server's own is 10 s: the same path, sooner
    with database("postgresql", tmp_path) as url:
        holder = create_engine(url)
        try:
            with TestClient(create_app(url)) as ann:
                assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
                code = ann.post("/api/rooms", json={"pace": "instant", "friends": 0, "turn_seconds": 0,
                                                    "hands": 8, "bot": "random"}).json()["code"]
                with ann.websocket_connect(f"/ws/{code}") as ws:
                    v = asked(ws)
                    while not any(c["kind"] == "discard" for c in v["choices"]):  # a discard: a stored move,
                        ws.send_text(act_json(v, choose(v)))                     # which a pass may not be
                        v = asked(ws)
                    move = [c["action"] for c in v["choices"] if c["kind"] == "discard"][-1]
                    with holder.connect() as conn:
                        conn.execute(text("LOCK TABLE moves IN EXCLUSIVE MODE"))  # every insert of a move waits
                        ws.send_text(act_json(v, move))
                        seen: list[dict[str, Any]] = []
                        err = _until(ws, "error", seen)
                        assert err["code"] == "storage_unavailable", err
                        notices = [m["ok"] for m in seen if m["type"] == "storage"]
                        assert notices[:1] == [False], seen  # told "connection to storage lost" first
                        assert not [m for m in seen if m["type"] == "state" and m["step"] > v["step"]], \
                            "a state told of the move that was not stored"
                        conn.rollback()  # the lock is let go
                    while not _until(ws, "storage", seen)["ok"]:  # a move sent before "storage back" is
                        pass                                       # refused again: wait to be told
                    back = asked(ws)  # the table resumes by itself and tells its state again
                    assert (back["hand"], back["step"]) == (v["hand"], v["step"])  # where it stood, stored
                    ws.send_text(act_json(back, move))
                    after = asked(ws)
                    assert (after["hand"], after["step"]) > (v["hand"], v["step"])
            with holder.connect() as conn:
                stored = conn.execute(text("SELECT count(*) FROM moves WHERE room = :c AND hand = :h"),
                                      {"c": code, "h": v["hand"]}).scalar_one()
            assert stored >= v["step"] + 1  # the move sent again is stored
        finally:
            holder.dispose()
