"""The game centre plays Luoyang Gangci (issues 9 and 11): a room of the variant with its own
switches, played to the end over the WebSocket; every hand's score table lists the G2
payments, the record verifies, and 断筹 is refused for a variant without going broke."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from helpers_server import act_json, app_fixture, choose, next_state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


app = app_fixture("sqlite")


def test_lobby_offers_gangci_with_its_own_switches(app: FastAPI) -> None:
    with TestClient(app) as c:
        variants = {v["name"]: v for v in c.get("/api/variants").json()}
        gc = variants["luoyang-gangci"]
        assert gc["playable"] and not gc["to_break"] and variants["longgang"]["to_break"]
        names = {s["name"] for s in gc["switches"]}
        assert {"gang_base", "bomb_base", "ci_base", "seat_count", "dealer_keeps_deal_on_win"} <= names
        assert "bulldozer" not in names  # only this variant's switches
        assert c.post("/api/me", json={"name": "Lu"}).status_code == 200
        bad = c.post("/api/rooms", json={"variant": "luoyang-gangci", "hands": 0})
        assert bad.status_code == 422 and "8, 16, 24 for luoyang-gangci" in bad.text
        odd = c.post("/api/rooms", json={"variant": "luoyang-gangci", "hands": 8, "switches": {"ci_base": 601}})
        assert odd.status_code == 422 and "ci_base must be even" in odd.text
        # a switch of words is offered as its choices, and set by one of them (G3.1, U1)
        seat_count = next(s for s in gc["switches"] if s["name"] == "seat_count")
        assert seat_count["choices"] == ["turn_order", "clockwise"] and seat_count["editable"]
        bad_word = c.post("/api/rooms", json={"variant": "luoyang-gangci", "switches": {"seat_count": "widdershins"}})
        assert bad_word.status_code == 422 and "seat_count = widdershins is not one of turn_order | clockwise" in bad_word.text
        wrong_type = c.post("/api/rooms", json={"variant": "luoyang-gangci", "switches": {"gang_base": "100"}})
        assert wrong_type.status_code == 422 and "gang_base must be int, not str" in wrong_type.text
        room = c.post("/api/rooms", json={"variant": "luoyang-gangci", "switches": {"seat_count": "clockwise"}})
        assert room.status_code == 200


def test_a_gangci_room_plays_to_the_end_with_payments_g2(app: FastAPI) -> None:
    with TestClient(app) as c:
        assert c.post("/api/me", json={"name": "Lu"}).status_code == 200
        body = {"variant": "luoyang-gangci", "hands": 8, "bot": "strong", "turn_seconds": 0,
                "switches": {"gang_base": 1000, "bomb_base": 2000, "ci_base": 6000}}
        room = c.post("/api/rooms", json=body).json()
        code = room["code"]
        ends: list[dict[str, Any]] = []
        with c.websocket_connect(f"/ws/{code}") as ws:
            v = next_state(ws)
            assert v["variant"] == "luoyang-gangci" and v["wilds"] == [] and v["indicator"]
            while True:
                if v["hand_end"] and (not ends or ends[-1]["index"] != v["hand_end"]["index"]):
                    ends.append(v["hand_end"])
                    if len(ends) == 1:  # mid-match: the record so far (no master seed yet) verifies
                        mid = c.get(f"/api/matches/{code}/verify").json()
                        assert mid["ok"] is True, mid
                if v["match_over"]:
                    break
                if v["hand_end"]:
                    ws.send_text(json.dumps({"type": "next", "hand": v["hand"]}))
                elif v["choices"]:
                    assert all(ch["action"].split()[0] != "chow" for ch in v["choices"])  # G1.3
                    ws.send_text(act_json(v, choose(v)))
                v = next_state(ws)
        assert len(ends) == 8
        for end in ends:
            chips = [line["chips"] for line in end["lines"]]
            assert sum(chips) == 0
            net = [0, 0, 0, 0]
            for p in end["payments"]:
                assert p["rule"].startswith("G2.") and p["amount"] in (1000, 2000, 3000, 6000, 7000, 13000)
                net[p["payer"]] -= p["amount"]
                net[p["payee"]] += p["amount"]
            assert net == chips
            if end["winner"] is not None:
                assert end["win_type"] in {"tian_hu", "tian_ci", "an_ci", "zhi_ci", "xu_ci", "zha_dan"}
        verdict = c.get(f"/api/matches/{code}/verify").json()
        assert verdict["ok"] is True, verdict
        record = json.loads(c.get(f"/api/matches/{code}/record").text)
        assert record["variant"] == "luoyang-gangci"
        # the game centre seats its players by the seat draw 校位定莊 (L2), verified with the walls
        draw = record["seat_draw"]
        assert record["hands"][0]["seats"] == draw["seats"] and sorted(draw["tiles"]) == sorted("ESWN")
