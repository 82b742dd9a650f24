"""Start early (issue 30, "Table manners"): the room's owner fills the open seats with bots of
a chosen level and the match starts; without a level, the room's own; nobody else may start
it, and a level the centre does not have is refused before anything changes."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from helpers_server import app_fixture, person

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

app = app_fixture("sqlite", "postgresql")


def test_the_owner_starts_early_with_bots_of_a_chosen_level(app: FastAPI) -> None:
    with person(app, "Ann") as ann, person(app, "Bob") as bob:
        room = ann.post("/api/rooms", json={"friends": 2, "turn_seconds": 0, "hands": 8, "bot": "greedy"}).json()
        code = room["code"]
        assert [s["bot"] for s in room["seats"]] == [None, None, None, "greedy"]
        assert bob.post(f"/api/rooms/{code}/join").json()["status"] == "waiting"

        r = bob.post(f"/api/rooms/{code}/start", json={"bot": "random"})
        assert r.status_code == 403 and "owner" in r.json()["detail"] and r.json()["code"] == "not_room_owner"
        r = ann.post(f"/api/rooms/{code}/start", json={"bot": "grandmaster"})
        assert r.status_code == 422 and "unknown bot level 'grandmaster'" in r.json()["detail"]
        assert r.json()["code"] == "bad_room"  # a code the page says in its language
        r = ann.post(f"/api/rooms/{code}/start", json={"bot": "random", "extra": 1})
        assert r.status_code == 422  # strict: nothing but the level
        waiting = ann.get(f"/api/rooms/{code}").json()
        assert waiting["status"] == "waiting" and [s["name"] for s in waiting["seats"]][:2] == ["Ann", "Bob"]
        assert waiting["seats"][2]["name"] is None  # nothing changed
        # my matches: the open seat is no name ("seat 3" reached a Chinese lobby in English)
        assert ann.get("/api/my/matches").json()[0]["players"] == ["Ann", "Bob", None, "greedy bot 1"]

        started = ann.post(f"/api/rooms/{code}/start", json={"bot": "random"}).json()
        assert started["status"] == "playing"
        # the open seat took the chosen level; the room's own bot kept its level
        assert [s["bot"] for s in started["seats"]] == [None, None, "random", "greedy"]
        assert [s["name"] for s in started["seats"]][2:] == ["random bot 2", "greedy bot 1"]


def test_without_a_level_the_rooms_own(app: FastAPI) -> None:
    with person(app, "Ann") as ann:
        code = ann.post("/api/rooms", json={"friends": 2, "turn_seconds": 0, "hands": 8, "bot": "random"}).json()["code"]
        started = ann.post(f"/api/rooms/{code}/start").json()
        assert started["status"] == "playing"
        assert [s["bot"] for s in started["seats"]] == [None, "random", "random", "random"]
        assert [s["name"] for s in started["seats"]] == ["Ann", "random bot 2", "random bot 3", "random bot 1"]


def test_every_bot_has_its_own_name_when_one_friend_seat_is_filled(app: FastAPI) -> None:
    """The lobby's default, one seat for a friend, then "start now": the open seat's bot was
    named after its seat ("bot 2"), as the room's second bot already was: two "bot 2" at the
    table, on the score table and in the results."""
    with person(app, "Ann") as ann:
        code = ann.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "hands": 8}).json()["code"]
        started = ann.post(f"/api/rooms/{code}/start").json()
        assert [s["name"] for s in started["seats"]] == ["Ann", "greedy bot 3", "greedy bot 1", "greedy bot 2"]
