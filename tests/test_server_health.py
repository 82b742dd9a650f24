"""An operator's view of the centre (issue 26): ``/healthz`` answers while the process is up,
``/readyz`` while the database answers, and ``/metrics`` carries every metric of
``caishen.server.metrics`` in the Prometheus text format, moving as tables play. HTTP bodies
are strict: no string or boolean is taken for a number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from caishen.server import core
from caishen.server.app import create_app
from helpers_server import NINE_TERMINALS_SEED, act_json, asked, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _samples(text: str) -> dict[str, float]:
    """Every sample of a scrape without labels, by name."""
    return {s.name: s.value for fam in text_string_to_metric_families(text) for s in fam.samples if not s.labels}


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_health_ready_and_metrics_move_with_play(kind: str, tmp_path: Path) -> None:
    with database(kind, tmp_path) as url, TestClient(create_app(url)) as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        assert c.get("/readyz").json() == {"status": "ready"}
        before = _samples(c.get("/metrics").text)
        for name in ("caishen_live_tables", "caishen_connections", "caishen_moves_total", "caishen_commit_seconds_count",
                     "caishen_damaged_rooms", "caishen_storage_ok", "caishen_tables_paused"):
            assert name in before, name
        families = {fam.name for fam in text_string_to_metric_families(c.get("/metrics").text)}
        assert {"caishen_send_queue_drops", "caishen_rate_limited", "caishen_commit_seconds"} <= families
        assert c.post("/api/me", json={"name": "Ops"}).status_code == 200
        code = c.post("/api/practice?pace=instant").json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            view = asked(ws)  # (a bot may end a hand before Ops is asked: practice seeds are random)
            during = _samples(c.get("/metrics").text)
            assert during["caishen_connections"] == before["caishen_connections"] + 1
            ws.send_text(act_json(view, choose(view)))
            nxt = ws.receive_json()
            while nxt["type"] == "event":  # each move is told as its own event first
                nxt = ws.receive_json()
            assert nxt["type"] == "state", nxt
        after = _samples(c.get("/metrics").text)
        assert after["caishen_live_tables"] >= 1
        assert after["caishen_connections"] == before["caishen_connections"]
        assert after["caishen_moves_total"] >= before["caishen_moves_total"] + 1
        assert after["caishen_commit_seconds_count"] > before["caishen_commit_seconds_count"]
        assert after["caishen_storage_ok"] == 1


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_strict_messages_are_refused_and_change_nothing(kind: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``"hand": "0"``, ``"hand": false`` and ``"on": "yes"`` were taken as 0, 0 and true
    (pydantic's lax mode); now each is a ``bad_message`` and the table stays as it was."""
    monkeypatch.setattr(core, "new_seed", lambda: NINE_TERMINALS_SEED)  # hand 0 asks the person at once
    with database(kind, tmp_path) as url, TestClient(create_app(url)) as c:
        app = c.app
        assert c.post("/api/me", json={"name": "Kim"}).status_code == 200
        code = c.post("/api/practice?pace=instant").json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            view = asked(ws)
            assert view["hand"] == 0  # this seed's first hand asks Kim at once
            live = app.state.tables.live[code]  # type: ignore[attr-defined]
            before = (live.session.hand_index, len(live.session.moves), live.stored.moves)
            move = choose(view)
            for bad in ({"type": "act", "action": move, "hand": "0", "step": view["step"]},
                        {"type": "act", "action": move, "hand": False, "step": view["step"]},
                        {"type": "act", "action": move, "hand": 0, "step": float(view["step"])},
                        {"type": "help", "on": "yes"}):
                ws.send_text(json.dumps(bad))
                msg = ws.receive_json()
                assert msg["type"] == "error" and msg["code"] == "bad_message", (bad, msg)
                ws.send_text('{"type":"ping"}')
                assert ws.receive_json() == {"type": "pong"}  # no state in between: nothing changed
            assert (live.session.hand_index, len(live.session.moves), live.stored.moves) == before
            ws.send_text(act_json(view, move))  # the same move, well formed, is played
            nxt = ws.receive_json()
            while nxt["type"] == "event":  # each move is told as its own event first
                nxt = ws.receive_json()
            assert nxt["type"] == "state" and (nxt["hand"], nxt["step"]) > (view["hand"], view["step"])


@pytest.mark.parametrize("body", [{"hands": "8"}, {"hands": 8.0}, {"friends": True}, {"help_allowed": "yes"},
                                  {"turn_seconds": "0"}])
def test_room_bodies_are_strict(body: dict[str, object], tmp_path: Path) -> None:
    with database("sqlite", tmp_path) as url, TestClient(create_app(url)) as c:
        assert c.post("/api/me", json={"name": "Sam"}).status_code == 200
        r = c.post("/api/rooms", content=json.dumps({"friends": 1, **body}),
                   headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        assert c.post("/api/me", json={"name": 5}).status_code == 422


def test_a_table_connection_while_the_database_is_away_is_told_to_try_again(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The database away while a table's connection looks its room up (PostgreSQL blocked, a
    SQLite file locked): the connection is accepted and closed with 1013 "storage_unavailable",
    which the page answers by connecting again, not an application error (a 500 in the
    handshake, and a traceback in the log). Once the database is back, the same page gets in."""
    from sqlalchemy.exc import OperationalError  # noqa: PLC0415
    from starlette.websockets import WebSocketDisconnect  # noqa: PLC0415

    from caishen.server.store import Store  # noqa: PLC0415

    with database("sqlite", tmp_path) as url, TestClient(create_app(url)) as c:
        assert c.post("/api/me", json={"name": "Kim"}).status_code == 200
        code = c.post("/api/practice?pace=instant").json()["code"]
        room = Store.room

        def away(self: Store, code: str) -> object:
            raise OperationalError("SELECT rooms", {}, ConnectionRefusedError("the database is away"))

        monkeypatch.setattr(Store, "room", away)
        with c.websocket_connect(f"/ws/{code}") as ws, pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert (closed.value.code, closed.value.reason) == (1013, "storage_unavailable")
        monkeypatch.setattr(Store, "room", room)
        with c.websocket_connect(f"/ws/{code}") as ws:
            assert next(m for m in iter(ws.receive_json, None) if m["type"] == "state")["hand"] == 0


def test_every_labelled_counter_is_exported_under_every_label_before_its_first_count() -> None:
    """A refused request's counter is on ``/metrics`` at 0 from the start under each label the
    server counts it by (a series that appears at its first count has no rate() then, and an
    alert on it misses that count); the labels are every one the sources count under."""
    import re  # noqa: PLC0415

    from caishen.server import metrics  # noqa: PLC0415

    text = metrics.render().decode()
    for counter, values in metrics.LABELS.items():
        for value in values:
            assert re.search(rf'^{counter._name}_total{{[a-z]+="{value}"}} ', text, re.M), (counter._name, value)
    # the labels in the sources: each .labels(x="...") of these counters is in LABELS
    src = Path(metrics.__file__).parent
    used: set[tuple[str, str]] = set()
    for path in src.rglob("*.py"):
        for name, value in re.findall(r'metrics\.(\w+)\.labels\(\w+=f?"([^"]+)"\)', path.read_text(encoding="utf-8")):
            if "{" in value:  # a label built from a word: each of the words it is built from
                for who in ("user", "ip"):
                    used.add((name, value.replace("{who}", who)))
            else:
                used.add((name, value))
    assert used, "no labelled count found in the sources"
    declared = {(c._name.removeprefix("caishen_"), v) for c, vs in metrics.LABELS.items() for v in vs}
    assert used <= declared, used - declared
