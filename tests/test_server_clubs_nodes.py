"""Clubs (issue 30, item 2) on three game-centre nodes sharing one PostgreSQL database and one
Redis (docs/server.md, "Nodes" and "Clubs"): every club request reads and writes only the
database, so whichever node answers, it answers the same. A club is created through node A,
joined through B, a members-only table is opened from a template through C; an outsider is
refused on every node; a member removed through one node cannot take a seat through another
(and the seat they held at a waiting table is free on every node); who is online is the same
on every node; two members play the table's match (each through another node) and the
season's leaderboard and the recent matches are then the same from every node; the club is
handed to an admin through one node, and every node knows its new owner.

Skipped when PostgreSQL or Redis is not reachable on 127.0.0.1 (``CAISHEN_TEST_PG``,
``CAISHEN_TEST_REDIS``)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from caishen.server.db import ClubMember, HandRow, now
from helpers_nodes import BOUND, Cluster, Person, cluster, poll, require_services, sign_up
from helpers_server import ServerProcess

pytestmark = [pytest.mark.redis, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

TEMPLATE = {"name": "周五局", "options": {"variant": "longgang", "hands": 8, "friends": 1, "bot": "greedy",
                                          "turn_seconds": 0, "pace": "instant"}}


@pytest.fixture(autouse=True)
def _services() -> None:
    require_services()


def _api(node: ServerProcess, cookie: str) -> httpx.Client:
    return httpx.Client(base_url=node.base, cookies={"caishen": cookie}, timeout=BOUND)


def _call(node: ServerProcess, cookie: str, method: str, path: str, body: Any = None) -> httpx.Response:
    with _api(node, cookie) as http:
        return http.request(method, path, json=body)


def _ok(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    return r.json()


def _refused(r: httpx.Response, status: int, code: str) -> None:
    assert (r.status_code, r.json().get("code")) == (status, code), r.text


def _id(node: ServerProcess, cookie: str) -> str:
    return str(_ok(_call(node, cookie, "GET", "/api/me"))["id"])


@pytest.mark.slow  # three node starts and a match: 8-12 s on an idle machine, far more on busy cores (a node start took 27 s at load 11)
def test_a_club_on_three_nodes(tmp_path: Path) -> None:
    with cluster(tmp_path, 3) as c:
        _club_on_three_nodes(c)


def _club_on_three_nodes(c: Cluster) -> None:
    a, b, n3 = c.nodes
    ann, bob, cy, di, eve = (sign_up(node, name) for node, name in
                             ((a, "Ann"), (b, "Bob"), (n3, "Cy"), (n3, "Di"), (b, "Eve")))
    ids = {who: _id(a, cookie) for who, cookie in (("Ann", ann), ("Bob", bob), ("Cy", cy), ("Di", di))}
    # created through A, joined through B (and the others through C and A)
    club = _ok(_call(a, ann, "POST", "/api/clubs", {"name": "三节点圈"}))
    code = club["code"]
    assert _ok(_call(b, bob, "POST", f"/api/clubs/{code}/join"))["role"] == "member"
    assert _ok(_call(n3, cy, "POST", f"/api/clubs/{code}/join"))["role"] == "member"
    assert _ok(_call(a, di, "POST", f"/api/clubs/{code}/join"))["role"] == "member"
    for node in c.nodes:  # every node sees the same club and members
        got = _ok(_call(node, bob, "GET", f"/api/clubs/{code}"))
        assert (got["name"], got["members"], got["role"]) == ("三节点圈", 4, "member")
    assert _ok(_call(b, ann, "POST", f"/api/clubs/{code}/templates", TEMPLATE))[0]["name"] == "周五局"
    # a members-only table from the template, opened through C; another with two seats kept
    table = _ok(_call(n3, bob, "POST", f"/api/clubs/{code}/tables", {"template": "周五局"}))["code"]
    waiting = _ok(_call(a, ann, "POST", f"/api/clubs/{code}/tables", {"template": "周五局", "friends": 2}))["code"]
    assert _ok(_call(b, di, "POST", f"/api/rooms/{waiting}/join"))["seats"][1]["name"] == "Di"
    # an outsider is refused on every node: the club's page and actions, the tables' seats
    for node in c.nodes:
        _refused(_call(node, eve, "GET", f"/api/clubs/{code}/view"), 403, "not_a_member")
        _refused(_call(node, eve, "GET", f"/api/clubs/{code}/leaderboard"), 403, "not_a_member")
        _refused(_call(node, eve, "POST", f"/api/clubs/{code}/tables", {"template": "周五局"}), 403, "not_a_member")
        _refused(_call(node, eve, "POST", f"/api/rooms/{table}/join"), 403, "not_a_club_member")
        _refused(_call(node, eve, "POST", f"/api/rooms/{waiting}/join"), 403, "not_a_club_member")
        _refused(_call(node, bob, "POST", f"/api/clubs/{code}/members/{ids['Di']}/remove"), 403, "not_an_admin")
    # Di removed through A: Di's seat at the waiting table is free on every node, and no node seats Di
    _ok(_call(a, ann, "POST", f"/api/clubs/{code}/members/{ids['Di']}/remove"))
    for node in c.nodes:
        room = _ok(_call(node, ann, "GET", f"/api/rooms/{waiting}"))
        assert [s["name"] for s in room["seats"]][:3] == ["Ann", None, None] and room["status"] == "waiting"
        _refused(_call(node, di, "POST", f"/api/rooms/{table}/join"), 403, "not_a_club_member")
        _refused(_call(node, di, "POST", f"/api/rooms/{waiting}/join"), 403, "not_a_club_member")
        _refused(_call(node, di, "GET", f"/api/clubs/{code}/view"), 403, "not_a_member")
    # online: every member who had the page open (through any node) is online on every node
    for node, cookie in ((a, ann), (b, bob), (n3, cy)):
        _ok(_call(node, cookie, "GET", f"/api/clubs/{code}/view"))
    with Session(c.store.engine) as db, db.begin():  # Cy's last visit was five minutes ago
        db.execute(update(ClubMember).where(ClubMember.club == code, ClubMember.user == ids["Cy"])
                   .values(seen_at=now() - timedelta(minutes=5)))
    for node in c.nodes:
        view = _ok(_call(node, ann, "GET", f"/api/clubs/{code}/view"))
        assert [(m["name"], m["online"]) for m in view["members"]] == [("Ann", True), ("Bob", True), ("Cy", False)]
        assert {t["code"] for t in view["tables"]} == {table, waiting}
    # Cy takes the table's kept seat through A: the match starts; Bob plays through B, Cy through C
    assert _ok(_call(a, cy, "POST", f"/api/rooms/{table}/join"))["status"] == "playing"
    for node in c.nodes:
        view = _ok(_call(node, ann, "GET", f"/api/clubs/{code}/view"))
        assert {m["name"]: m["playing"] for m in view["members"]} == {"Ann": None, "Bob": table, "Cy": table}
    ports = [n.port for n in c.nodes]
    people = [Person(lambda: ports, table, bob, start_at=1).start(), Person(lambda: ports, table, cy, start_at=2).start()]
    try:
        def over() -> bool:
            for p in people:
                assert not p.failures, p.failures
            return bool(c.store.room(table).status == "over")

        poll(over, BOUND * 2, "the club table's match to end")
    finally:
        for p in people:
            p.stop()
    with Session(c.store.engine) as db:
        records = [json.loads(r or "") for r in db.scalars(select(HandRow.record).where(
            HandRow.room == table, HandRow.record.is_not(None)))]
    hands = len(records)
    assert hands >= 1
    expected = {"Bob": [0, 0], "Cy": [0, 0]}  # chips and wins, from the stored hands (Bob player 0, Cy 1)
    for hand in records:
        for s, player in enumerate(hand["seats"]):
            if player < 2:
                who = ("Bob", "Cy")[player]
                expected[who][0] += hand["result"]["chips"][s]
                expected[who][1] += int(hand["result"].get("winner") == s)
    boards = [_ok(_call(node, cookie, "GET", f"/api/clubs/{code}/leaderboard"))
              for node, cookie in ((a, ann), (b, bob), (n3, cy))]
    assert boards[0] == boards[1] == boards[2]
    assert {(r["name"], r["matches"], r["hands"]) for r in boards[0]["rows"]} == {("Bob", 1, hands), ("Cy", 1, hands)}
    assert {r["name"]: [r["chips"], r["wins"]] for r in boards[0]["rows"]} == expected
    views = [_ok(_call(node, ann, "GET", f"/api/clubs/{code}/view")) for node in c.nodes]
    assert [v["matches"] for v in views[1:]] == [views[0]["matches"]] * 2
    assert [(m["code"], m["status"]) for m in views[0]["matches"]] == [(table, "over")]
    assert len(views[0]["matches"][0]["chips"]) == 4
    # the club handed over through B (Bob made an admin through C): every node knows its new owner
    _ok(_call(n3, ann, "POST", f"/api/clubs/{code}/members/{ids['Bob']}/role", {"role": "admin"}))
    _ok(_call(b, ann, "POST", f"/api/clubs/{code}/members/{ids['Bob']}/owner"))
    for node in c.nodes:
        assert _ok(_call(node, bob, "GET", f"/api/clubs/{code}"))["role"] == "owner"
        _refused(_call(node, ann, "POST", f"/api/clubs/{code}/settings", {"approval": True}), 403, "not_the_owner")
