"""The table's WebSocket protocol: every bad message is refused with an error and changes
nothing; each seat only ever receives what it may see. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.websockets import WebSocketDisconnect

from caishen.hand import MeldKind
from caishen.server import core as core_module
from caishen.server import tables as tables_module
from caishen.server.app import create_app
from caishen.server.core import Observation, iter_hand, loads  # the engine's, through the adapter
from caishen.server.db import MoveRow
from caishen.server.protocol import MAX_MESSAGE_BYTES
from caishen.server.switch_zh import SWITCH_DOC_ZH
from caishen.tiles import tile_name
from helpers_server import NINE_TERMINALS_SEED, act_json, choose, database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(params=["sqlite", "postgresql"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FastAPI]:
    with database(request.param, tmp_path) as url:
        yield create_app(url)


def _client(app: FastAPI, name: str) -> TestClient:
    c = TestClient(app)
    assert c.post("/api/me", json={"name": name}).status_code == 200
    return c


def _stored_moves(app: FastAPI, code: str) -> int:
    with Session(app.state.store.engine) as db:
        return int(db.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.room == code)) or 0)


def _state_of(app: FastAPI, code: str) -> tuple[int, int, int]:
    s = app.state.tables.live[code].session
    return s.hand_index, len(s.moves), _stored_moves(app, code)


def _next_state(ws: Any) -> dict[str, Any]:
    while True:
        msg = ws.receive_json()
        if msg["type"] == "state":
            return msg


def _expect_error(ws: Any, code: str) -> dict[str, Any]:
    """The next message is an error with ``code``; a ping then answers with a pong, so no
    state was broadcast in between (nothing changed)."""
    msg = ws.receive_json()
    assert msg["type"] == "error" and msg["code"] == code, msg
    ws.send_text('{"type":"ping"}')
    assert ws.receive_json() == {"type": "pong"}
    return msg


def test_bad_messages_are_refused_and_change_nothing(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    with _client(app, "Ann") as ann, _client(app, "Bob") as bob:
        room = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "hands": 8}).json()
        code = room["code"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "playing"
        with ann.websocket_connect(f"/ws/{code}") as wa, bob.websocket_connect(f"/ws/{code}") as wb:
            _next_state(wa)  # Ann's view on joining; then Bob's arrival is broadcast
            va, vb = _next_state(wa), _next_state(wb)
            # Play until exactly one of the two people must act (the other is the intruder).
            while True:
                if va["choices"] and not vb["choices"]:
                    mover, mv, other = wa, va, wb
                    break
                if vb["choices"] and not va["choices"]:
                    mover, mv, other = wb, vb, wa
                    break
                if va["hand_end"] is not None and va["hand"] == vb["hand"] and vb["hand_end"] is not None:
                    # a bot ended the hand before either person had to act (no more states come
                    # until both say next): both go on to the next hand
                    h = va["hand"]
                    assert not va["match_over"]
                    for ws in (wa, wb):
                        ws.send_text(json.dumps({"type": "next", "hand": h}))
                    va, vb = _next_state(wa), _next_state(wb)
                    while va["hand"] == h:
                        va = _next_state(wa)
                    while vb["hand"] == h:
                        vb = _next_state(wb)
                    continue
                if not va["choices"] and not vb["choices"]:
                    # neither must act in the states read so far: read on where a later state
                    # is due (the one behind, or both while a bot moves), never past a turn
                    at_a, at_b = (va["hand"], va["step"]), (vb["hand"], vb["step"])
                    if at_a <= at_b:
                        va = _next_state(wa)
                    if at_b <= at_a:
                        vb = _next_state(wb)
                    continue
                ws, v = (wa, va) if va["choices"] else (wb, vb)
                ws.send_text(act_json(v, choose(v)))
                va, vb = _next_state(wa), _next_state(wb)
            before = _state_of(app, code)
            legal = [c["action"] for c in mv["choices"]]

            mover.send_text("{not json")
            _expect_error(mover, "bad_json")
            mover.send_text('{"type": "teleport"}')
            _expect_error(mover, "unknown_type")
            mover.send_text(json.dumps({"type": "act", "action": "x" * (MAX_MESSAGE_BYTES + 10), "hand": 0, "step": 0}))
            _expect_error(mover, "too_big")
            mover.send_text(json.dumps({"type": "act", "action": legal[0], "hand": mv["hand"], "step": mv["step"],
                                        "seat": (mv["me"] + 1) % 4}))
            _expect_error(mover, "bad_message")  # no message names a seat: you act for your own
            other.send_text(act_json(mv, legal[0]))
            _expect_error(other, "not_your_turn")  # the other person cannot act in the mover's place
            hand_tiles = set(mv["tiles"])
            absent = next(tile_name(k) for k in range(34) if tile_name(k) not in hand_tiles)
            mover.send_text(act_json(mv, f"discard {absent}"))
            _expect_error(mover, "illegal")
            mover.send_text(act_json(mv, "discard 0x"))
            _expect_error(mover, "bad_action")
            mover.send_text(act_json({**mv, "step": mv["step"] + 1}, legal[0]))
            _expect_error(mover, "stale")
            assert _state_of(app, code) == before

            # A real move, then the same message again: a replay is refused.
            mover.send_text(act_json(mv, legal[-1]))
            after = _next_state(mover)
            assert after["step"] > mv["step"] or after["hand_end"] is not None
            moved = _state_of(app, code)
            assert moved[1] > before[1] and moved[2] == moved[1]  # stored as applied
            mover.send_text(act_json(mv, legal[-1]))
            err = mover.receive_json()
            while err["type"] == "state":  # the other person's view changes may still arrive
                err = mover.receive_json()
            assert err["code"] in ("stale", "hand_over")
            assert _state_of(app, code) == moved

            # A flood: with the clock held still, the burst allowance passes and the rest is refused.
            monkeypatch.setattr(tables_module.time, "monotonic", lambda: 1e9)
            for _ in range(3 * int(tables_module.RATE_BURST)):
                other.send_text('{"type":"ping"}')
            replies = [other.receive_json() for _ in range(3 * int(tables_module.RATE_BURST))]
            got = Counter(r["type"] if r["type"] != "error" else r["code"] for r in replies)
            assert got["rate_limited"] >= 2 * int(tables_module.RATE_BURST) - 1
            other.send_text(act_json(mv, legal[0]))
            assert other.receive_json()["code"] == "rate_limited"
            assert _state_of(app, code) == moved


def _visible(obs: Observation) -> Counter[str]:
    """Every tile ``obs.seat`` may see: its own, discards, open melds (not others' concealed
    kongs), open flowers and the indicator."""
    seen: Counter[str] = Counter(tile_name(k) for k in (*obs.hand.concealed, *obs.hand.flowers))
    for s in range(4):
        seen.update(tile_name(k) for k in obs.discards[s])
        if s != obs.seat:
            seen.update(tile_name(k) for k in obs.flowers[s])
        for m in obs.melds[s]:
            if s == obs.seat or m.kind is not MeldKind.CONCEALED_KONG:
                seen.update(tile_name(k) for k in m.tiles)
    if obs.indicator is not None:
        seen[tile_name(obs.indicator)] += 1
    return seen


def _tiles_in(x: Any, skip: frozenset[str]) -> Counter[str]:
    """Every tile name anywhere in a JSON value, except under the keys ``skip``."""
    names = {tile_name(k) for k in range(38)}
    out: Counter[str] = Counter()
    if isinstance(x, dict):
        for k, v in x.items():
            if k not in skip:
                out += _tiles_in(v, skip)
    elif isinstance(x, list):
        for v in x:
            out += _tiles_in(v, skip)
    elif isinstance(x, str) and x in names:
        out[x] += 1
    return out


def test_one_seat_receives_no_tile_it_may_not_see(app: FastAPI) -> None:
    """All traffic to one seat over whole hands, checked against an independent replay."""
    with _client(app, "Eve") as eve:
        code = eve.post("/api/practice").json()["code"]
        received: list[dict[str, Any]] = []
        with eve.websocket_connect(f"/ws/{code}") as ws:
            while True:
                msg = ws.receive_json()
                received.append(msg)
                if msg["type"] != "state":
                    continue
                if msg["hand_end"] is not None:
                    if sum(1 for m in received if m["type"] == "state") >= 20 or msg["match_over"]:
                        break
                    ws.send_text(json.dumps({"type": "next", "hand": msg["hand"]}))
                elif msg["choices"]:
                    ws.send_text(act_json(msg, choose(msg)))
        record = loads(eve.get(f"/api/matches/{code}/record").text)
    observations: dict[tuple[int, int], Observation] = {}
    seat_in: dict[int, int] = {}
    for hand in record.hands:
        seat = seat_in[hand.index] = hand.seats.index(0)
        for game, step in iter_hand(hand, record.ruleset):
            observations[hand.index, 0 if step is None else step.index + 1] = game.observation(seat)
    checked = 0
    for msg in received:
        if msg["type"] != "state" or msg["hand_end"] is not None:
            continue
        obs = observations[msg["hand"], msg["step"]]
        seat = seat_in[msg["hand"]]
        assert msg["me"] == seat and msg["all_tiles"] is None
        assert Counter(msg["tiles"]) == Counter(tile_name(k) for k in obs.hand.concealed) + Counter(
            msg["my_flowers"])
        for sv in msg["seats"]:
            s = sv["seat"]
            assert sv["discards"] == [tile_name(k) for k in obs.discards[s]]
            assert sv["concealed"] == obs.concealed_counts[s]
            for m, mv in zip(obs.melds[s], sv["melds"], strict=True):
                hidden = s != seat and m.kind is MeldKind.CONCEALED_KONG
                assert mv["tiles"] == (["back"] * 4 if hidden else [tile_name(k) for k in m.tiles])
        # Nothing in the message names more copies of a tile than the seat can see (wild
        # kinds, choices and the discard being claimed refer to tiles counted elsewhere).
        shown = _tiles_in(msg, frozenset(
            {"wilds", "own_flower", "choices", "help", "events", "indicator", "last_discard", "my_flowers"}))
        assert not shown - _visible(obs), (msg["step"], shown - _visible(obs))
        checked += 1
    assert checked >= 10


def test_resume_after_restart_gives_the_same_table(app: FastAPI, tmp_path: Path) -> None:
    """A second app on the same database resumes the match at the same move (DB tests)."""
    with _client(app, "Kim") as kim:
        code = kim.post("/api/practice").json()["code"]
        with kim.websocket_connect(f"/ws/{code}") as ws:
            v = _next_state(ws)
            for _ in range(4):
                ws.send_text(act_json(v, choose(v)))
                v = _next_state(ws)
                if v["hand_end"]:
                    break
        cookies = dict(kim.cookies)
        url = str(app.state.store.engine.url.render_as_string(hide_password=False))
    again = create_app(url)
    with TestClient(again, cookies=cookies) as kim2, kim2.websocket_connect(f"/ws/{code}") as ws:
        v2 = _next_state(ws)
        assert (v2["hand"], v2["step"], v2["tiles"]) == (v["hand"], v["step"], v["tiles"])
        assert v2["choices"] == v["choices"]


def test_timeout_hands_the_seat_to_a_bot_until_the_person_is_back(app: FastAPI) -> None:
    with _client(app, "Tim") as tim:
        code = tim.post("/api/rooms", json={"friends": 0, "turn_seconds": 30, "hands": 8}).json()["code"]
        with tim.websocket_connect(f"/ws/{code}") as ws:
            v = _next_state(ws)
            assert v["choices"] and v["deadline_ms"] is not None and 0 < v["deadline_ms"] <= 30_000
            live = app.state.tables.live[code]
            s = live.session
            # The timer firing now, instead of waiting 30 s: the stand-in bot plays this seat
            # (and keeps playing it), so the hand runs to its end.
            assert tim.portal is not None
            tim.portal.call(live._timeout, (s.hand_index, len(s.moves), s.hand_over))
            v = _next_state(ws)
            assert v["away"] and v["hand_end"] is not None
            me = v["me"]
            assert any(m.seat == me for m in s.moves)
            ws.send_text('{"type":"back"}')
            v = _next_state(ws)
            assert not v["away"]
            assert _stored_moves(app, code) == len(s.moves)


def test_origin_room_codes_and_learner_help(app: FastAPI) -> None:
    with _client(app, "Lee") as lee, _client(app, "Mo") as mo:
        codes = {lee.post("/api/practice").json()["code"] for _ in range(3)}
        assert len(codes) == 3 and all(len(c) == 12 for c in codes)  # 72 random bits each
        mine = lee.get("/api/my/matches").json()
        assert {m["code"] for m in mine} == codes and all(m["players"][0] == "Lee" for m in mine)
        assert mo.get("/api/my/matches").json() == []
        code = codes.pop()
        assert lee.get("/api/rooms/AAAAAAAAAAAA").status_code == 404
        assert lee.get("/api/rooms/../../etc").status_code == 404
        with pytest.raises(WebSocketDisconnect) as refused, lee.websocket_connect(
            f"/ws/{code}", headers={"origin": "http://evil.example"}
        ) as ws:
            ws.receive_json()
        assert refused.value.code == 1008
        with pytest.raises(WebSocketDisconnect), mo.websocket_connect(f"/ws/{code}") as ws:
            ws.receive_json()  # not a player at this table: no view at all
        with lee.websocket_connect(f"/ws/{code}", headers={"origin": "http://testserver"}) as ws:
            v = _next_state(ws)
            assert v["help"] is None  # off by default
            # The bots may still be moving (states on their way) and the hand may end before
            # Lee acts (no help then): wait until the table waits for Lee in a live hand, so
            # the next state is the answer to the toggle.
            while not v["choices"] or v["hand_end"] is not None:
                if v["hand_end"] is not None:
                    assert not v["match_over"]
                    ws.send_text(json.dumps({"type": "next", "hand": v["hand"]}))
                v = _next_state(ws)
            ws.send_text('{"type":"help","on":true}')
            v = _next_state(ws)
            # -1: a complete hand (the practice room's seed is random; some deals are complete at once)
            assert v["help"] is not None and v["help"]["shanten"] >= -1
            assert isinstance(v["help"]["waits"], list)
        strict = lee.post("/api/rooms", json={"friends": 0, "turn_seconds": 0, "help_allowed": False}).json()
        with lee.websocket_connect(f"/ws/{strict['code']}") as ws:
            assert _next_state(ws)["help_allowed"] is False
            ws.send_text('{"type":"help","on":true}')
            assert ws.receive_json()["code"] == "help_off"


def test_declare_draw_only_where_the_room_allows_it_l17(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    """叫和局 (九么九和, L17): offered and accepted in a room with the switch on, when the person
    holds nine kinds of terminals and honours in the first go-round; refused as illegal in the
    same deal under the default rules."""
    monkeypatch.setattr(core_module, "new_seed", lambda: NINE_TERMINALS_SEED)
    with _client(app, "Ann") as ann:
        plain = ann.post("/api/rooms", json={"friends": 0, "turn_seconds": 0}).json()
        with ann.websocket_connect(f"/ws/{plain['code']}") as ws:
            v = _next_state(ws)
            assert v["choices"] and "declare_draw" not in [c["action"] for c in v["choices"]]
            ws.send_text(act_json(v, "declare_draw"))
            _expect_error(ws, "illegal")
        room = ann.post("/api/rooms", json={"friends": 0, "turn_seconds": 0,
                                            "switches": {"draw_on_nine_terminals": True}}).json()
        with ann.websocket_connect(f"/ws/{room['code']}") as ws:
            v = _next_state(ws)
            declare = [c for c in v["choices"] if c["action"] == "declare_draw"]
            assert declare == [{"action": "declare_draw", "kind": "declare_draw", "tile": None, "tiles": []}]
            ws.send_text(act_json(v, "declare_draw"))
            end = _next_state(ws)["hand_end"]
            assert end["winner"] is None and end["draw"] == "declared"
            assert end["draw_type"] == "nine_terminals" and end["declared_by"] == v["me"]
            assert all(line["chips"] == 0 for line in end["lines"])


def test_every_switch_has_a_chinese_explanation_for_the_lobby() -> None:
    """The lobby in Chinese explains each house rule in Chinese (switch_zh): every switch of
    every registered variant has its line, with the switch's Chinese term where its doc has one,
    and no line names a switch that no longer exists."""
    names = set()
    for variant in core_module.variants():
        for sw in variant.switches:
            names.add(sw.name)
            assert sw.name in SWITCH_DOC_ZH, sw.name
            assert sw.doc_zh == SWITCH_DOC_ZH[sw.name] != sw.doc
            term = sw.doc.split(":")[0]
            if ":" in sw.doc and all("\u4e00" <= ch <= "\u9fff" or ch in " /" for ch in term):
                assert sw.doc_zh.startswith(term), (sw.name, term)  # 九么九和: … → 九么九和：…
    assert names == set(SWITCH_DOC_ZH)
