"""Profiles and recent players (issue 30, item 4), on SQLite and PostgreSQL: a profile's numbers
are those of the stored hands (checked against the result pages' score tables, which replay the
records, and against the hand rows read here); who may see a profile (an account's: anyone; a
guest's: the guest); a deleted account is "deleted player"; the people you last played with,
most recent first, without bots; each match's players' profile links; clear refusals."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from caishen.server import core
from caishen.server.app import create_app
from caishen.server.profiles.counting import Seat, count, hand_part, stats_of
from caishen.table.match import selfplay
from helpers_server import PG_SLOW, act_json, choose, next_state, url_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

url = url_fixture("sqlite", PG_SLOW)  # PostgreSQL in the slow stage (whole matches played)

PASSWORD = "correct horse battery"
SEED = bytes(range(32))  # every room's master seed in the counting test: a fixed match


def _person(client: TestClient, name: str) -> str:
    r = client.post("/api/me", json={"name": name})
    assert r.status_code == 200
    uid: str = r.json()["id"]
    return uid


def _claim(client: TestClient, login: str) -> None:
    r = client.post("/api/account", json={"login": login, "password": PASSWORD})
    assert r.status_code == 200, r.text


def _room(client: TestClient, **body: Any) -> str:
    r = client.post("/api/rooms", json={"turn_seconds": 0, "pace": "instant", **body})
    assert r.status_code == 200, r.text
    code: str = r.json()["code"]
    return code


def _play(client: TestClient, code: str, hands: int | None) -> None:
    """Play the person's seat of room ``code`` (bots at the other seats) until ``hands`` hands
    have ended (None: the whole match), then leave: with no timer the table waits for us."""
    ended: set[int] = set()
    with client.websocket_connect(f"/ws/{code}") as ws:
        v = next_state(ws)
        while True:
            if v["hand_end"] is not None:
                ended.add(v["hand"])
            if v["match_over"] or (hands is not None and len(ended) >= hands):
                return
            if v["hand_end"] is not None:
                ws.send_text(json.dumps({"type": "next", "hand": v["hand"]}))
            elif v["choices"]:
                ws.send_text(act_json(v, choose(v)))
            v = next_state(ws)


def _from_results(client: TestClient, code: str, name: str) -> tuple[int, int, int]:
    """Hands, wins and chips of player ``name`` in match ``code``, from its result page's
    score tables (the record replayed): each hand's line of that name."""
    res = client.get(f"/api/matches/{code}").json()
    hands = wins = chips = 0
    for end in res["hands"]:
        line = next(ln for ln in end["lines"] if ln["name"] == name)
        hands += 1
        wins += end["winner"] == line["seat"]
        chips += line["chips"]
    return hands, wins, chips


def _from_rows(app: Any, uid: str) -> tuple[int, int, int]:
    """The same from the stored hand rows, read with SQL here: the seat of the person's player
    index (``seats``), the winner's seat and the chips by seat of each finished hand."""
    hands = wins = chips = 0
    with app.state.store.engine.connect() as conn:
        rows = conn.execute(text('SELECT m.player, h.record FROM hands h JOIN members m ON m.room = h.room '
                                 'WHERE m."user" = :u AND h.record IS NOT NULL'), {"u": uid})
        for player, record in rows:
            hand = json.loads(record)
            seat = hand["seats"].index(player)
            hands += 1
            wins += hand["result"]["winner"] == seat
            chips += hand["result"]["chips"][seat]
    return hands, wins, chips


def test_a_profile_counts_the_stored_hands(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "new_seed", lambda: SEED)  # the same deals every run
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as other:
        uid = _person(ann, "Ann")
        longgang = _room(ann)
        _play(ann, longgang, None)  # the whole match: 8 hands
        gangci = _room(ann, variant="luoyang-gangci")
        _play(ann, gangci, 1)  # in play: its finished hand counts
        _room(ann, friends=1)  # waiting for a friend: not a match yet
        lg, gc = _from_results(ann, longgang, "Ann"), _from_results(ann, gangci, "Ann")
        # the whole match: 8 hands, or fewer if someone went broke (L25)
        assert gc[0] == 1 and lg[0] > gc[0], "the fixed seed ends the Longgang match at once: choose another"
        assert ann.get(f"/api/matches/{longgang}").json()["status"] == "over"
        hands, wins, chips = lg[0] + gc[0], lg[1] + gc[1], lg[2] + gc[2]
        assert _from_rows(app, uid) == (hands, wins, chips)
        r = ann.get("/api/players/me/profile")
        assert r.status_code == 200, r.text
        mine = r.json()
        assert ann.get(f"/api/players/{uid}/profile").json() == mine
        assert (mine["id"], mine["name"], mine["account"], mine["mine"], mine["deleted"]) == (uid, "Ann", False, True, False)
        st = mine["stats"]
        assert (st["matches"], st["finished"], st["hands"], st["wins"], st["chips"]) == (2, 1, hands, wins, chips)
        assert st["win_rate"] == pytest.approx(wins / hands)
        assert st["chips_per_hand"] == pytest.approx(chips / hands)
        # one match of each: the one with more hands is the favourite
        assert st["favourite_variant"] == "longgang"
        assert st["variants"] == [
            {"variant": "longgang", "matches": 1, "hands": lg[0], "wins": lg[1], "chips": lg[2]},
            {"variant": "luoyang-gangci", "matches": 1, "hands": 1, "wins": gc[1], "chips": gc[2]},
        ]
        # a guest's profile is the guest's own: to anyone else, as to an unknown id
        for who in (other, TestClient(app)):
            r = who.get(f"/api/players/{uid}/profile")
            assert r.status_code == 404 and r.json()["code"] == "no_profile"
        _person(other, "Bob")
        r = other.get(f"/api/players/{uid}/profile")
        assert r.status_code == 404 and r.json()["code"] == "no_profile"
        assert other.get("/api/players/unknown-id/profile").json()["code"] == "no_profile"
        # an account's profile is public: the same numbers for everyone
        _claim(ann, "ann-login")
        seen = other.get(f"/api/players/{uid}/profile").json()
        assert seen == {**mine, "account": True, "mine": False}
        another = _room(ann, variant="luoyang-gangci")
        _play(ann, another, 1)
        st = ann.get("/api/players/me/profile").json()["stats"]
        assert st["favourite_variant"] == "luoyang-gangci"  # two matches now
        assert (st["matches"], st["hands"]) == (3, hands + _from_results(ann, another, "Ann")[0])


def test_recent_players_most_recent_first_without_bots(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as cy, TestClient(app) as di:
        ids = {n: _person(c, n) for n, c in (("Ann", ann), ("Bob", bob), ("Cy <i>x</i>", cy), ("Di", di))}
        _claim(bob, "bob-login")
        first = _room(ann, friends=1)
        assert bob.post(f"/api/rooms/{first}/join").json()["status"] == "playing"
        second = _room(ann, friends=2, variant="luoyang-gangci", hands=16)
        assert cy.post(f"/api/rooms/{second}/join").status_code == 200
        assert ann.post(f"/api/rooms/{second}/start").json()["status"] == "playing"  # a bot takes the other seat
        third = _room(ann, friends=1)
        assert bob.post(f"/api/rooms/{third}/join").json()["status"] == "playing"
        waiting = _room(ann, friends=2)
        assert di.post(f"/api/rooms/{waiting}/join").json()["status"] == "waiting"  # not played with yet
        recent = ann.get("/api/my/recent-players").json()
        assert recent == [
            {"name": "Bob", "profile": ids["Bob"], "last_match": third, "variant": "longgang", "hands": 8,
             "when": recent[0]["when"]},
            {"name": "Cy <i>x</i>", "profile": None, "last_match": second, "variant": "luoyang-gangci", "hands": 16,
             "when": recent[1]["when"]},
        ]
        assert recent[0]["when"] >= recent[1]["when"] and recent[0]["when"].endswith("Z")
        assert [p["name"] for p in bob.get("/api/my/recent-players").json()] == ["Ann"]
        assert bob.get("/api/my/recent-players").json()[0]["profile"] is None  # Ann is a guest
        assert [p["name"] for p in cy.get("/api/my/recent-players").json()] == ["Ann"]
        assert di.get("/api/my/recent-players").json() == []
        # a deleted account is nobody to invite
        _claim(cy, "cy-login")
        assert ann.get("/api/my/recent-players").json()[1]["profile"] == ids["Cy <i>x</i>"]
        assert cy.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
        assert [p["name"] for p in ann.get("/api/my/recent-players").json()] == ["Bob"]
        r = TestClient(app).get("/api/my/recent-players")
        assert r.status_code == 401 and r.json()["code"] == "not_signed_in"


def test_a_deleted_account_shows_as_deleted_player(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as hana, TestClient(app) as other:
        uid = _person(hana, "Hana Secretname")
        _claim(hana, "hana-login")
        code = _room(hana)
        _play(hana, code, 1)
        assert hana.get(f"/api/matches/{code}/profiles").json() == [uid, None, None, None]
        assert other.get(f"/api/players/{uid}/profile").json()["stats"]["hands"] == 1
        assert hana.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
        r = other.get(f"/api/players/{uid}/profile")
        assert r.status_code == 200
        assert r.json() == {"id": uid, "name": "deleted player", "account": False, "mine": False, "deleted": True,
                            "stats": None}
        assert "Secretname" not in r.text
        assert other.get(f"/api/matches/{code}/profiles").json() == [None, None, None, None]


def test_a_matchs_profile_links_only_where_the_viewer_may_open_them(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as nobody:
        ann_id, bob_id = _person(ann, "Ann"), _person(bob, "<b>Bob</b>")
        _claim(ann, "ann-login")
        code = _room(ann, friends=1)
        bob.post(f"/api/rooms/{code}/join")
        assert ann.get(f"/api/matches/{code}/profiles").json() == [ann_id, None, None, None]  # Bob: a guest
        assert bob.get(f"/api/matches/{code}/profiles").json() == [ann_id, bob_id, None, None]  # his own
        assert nobody.get(f"/api/matches/{code}/profiles").json() == [ann_id, None, None, None]
        assert bob.get(f"/api/players/{bob_id}/profile").json()["name"] == "<b>Bob</b>"  # as typed: text
        for bad in ("nosuchroom", "bad%20code", "x" * 40):
            r = nobody.get(f"/api/matches/{bad}/profiles")
            assert r.status_code == 404 and r.json()["code"] == "no_room", bad


def test_clear_refusals_never_a_500(url: str) -> None:
    app = create_app(url)
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.get("/api/players/me/profile")
        assert r.status_code == 401 and r.json()["code"] == "not_signed_in"
        for bad in ("a%20b", "x" * 41, "%3Cscript%3E"):
            assert c.get(f"/api/players/{bad}/profile").status_code == 422, bad
        assert c.get("/api/players/nobody/profile").status_code == 404
        assert c.get("/profile/nobody").status_code == 200  # the page says so itself
        assert c.get("/profile/me").headers["content-type"].startswith("text/html")


def _hand(seats: list[int], winner: int | None, chips: list[int]) -> str:
    return json.dumps({"seats": seats, "result": {"winner": winner, "chips": chips}})


def test_counting_reads_each_hand_by_seat_and_orders_the_favourite() -> None:
    t0, t1, t2 = (datetime(2026, 12, d) for d in (1, 2, 3))
    seats = [Seat("a", "longgang", "over", t1, 2), Seat("b", "luoyang-gangci", "playing", t2, 0),
             Seat("c", "longgang", "damaged", t0, 1)]
    hands = [("a", _hand([1, 2, 3, 0], 1, [-10, 30, -10, -10])),  # player 2 in seat 1 wins 30
             ("a", _hand([2, 3, 0, 1], 2, [-5, 0, 5, 0])),  # player 2 in seat 0 pays 5
             ("b", _hand([0, 1, 2, 3], None, [0, 0, 0, 0])),  # a draw
             ("b", "not a record"), ("c", _hand([0, 2, 3, 0], 0, [1, 2, 3, 4])),  # left out: no seat of player 1
             ("elsewhere", _hand([0, 1, 2, 3], 0, [9, -3, -3, -3]))]  # not a room of the person
    st = stats_of(count(seats, hands))
    assert (st.matches, st.finished, st.hands, st.wins, st.chips) == (3, 1, 3, 1, 25)
    assert st.win_rate == pytest.approx(1 / 3) and st.chips_per_hand == pytest.approx(25 / 3)
    assert st.favourite_variant == "longgang"
    assert [(v.variant, v.matches, v.hands, v.wins, v.chips) for v in st.variants] == [
        ("longgang", 2, 2, 1, 25), ("luoyang-gangci", 1, 1, 0, 0)]
    # equal matches and hands: the one played last
    tied = stats_of(count([Seat("x", "longgang", "over", t0, 0), Seat("y", "luoyang-gangci", "over", t1, 0)], []))
    assert tied.favourite_variant == "luoyang-gangci" and tied.win_rate is None and tied.chips_per_hand is None
    assert stats_of(count([], [])).favourite_variant is None


def test_a_hands_part_is_read_as_from_the_whole_record() -> None:
    """hand_part reads two fields of a stored hand without parsing the rest: the same answer as
    the whole hand parsed, for every seat of real hands of both variants, and for a hand written
    with its keys in another order (read whole)."""
    checked = 0
    for variant in ("longgang", "luoyang-gangci"):
        for h in selfplay(core.build_ruleset(variant, {}, 8), b"profile parts", hands=8).hands:
            text = h.json_text()
            whole = json.loads(text)
            for player in range(4):
                seat = whole["seats"].index(player)
                want = (whole["result"]["winner"] == seat, whole["result"]["chips"][seat])
                assert hand_part(text, player) == want
                reordered = json.dumps({"result": whole["result"], "seats": whole["seats"]}, separators=(",", ":"))
                assert hand_part(reordered, player) == want
                checked += want[0]
    assert checked > 0  # some hands were won
    assert hand_part("{}", 0) is None and hand_part('{"seats": [1, 2, 3, 0], "result": 5}', 0) is None
