"""Clubs (issue 30, item 2), on SQLite and PostgreSQL: create a club, invite by its code, join
or ask to join; roles (owner, admins, members) and every action refused to a person who lacks
the role; removed members may rejoin, blacklisted ones may not; rule templates checked as the
lobby's rooms are; tables from a template for members only; the season's leaderboard; a
database from before clubs upgrades."""

from __future__ import annotations

import dataclasses
import json
from datetime import date, timedelta
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from sqlalchemy import text, update
from sqlalchemy.orm import Session

from caishen.server import core
from caishen.server.app import create_app
from caishen.server.clubs.store import ASK_AGAIN_AFTER, season_of
from caishen.server.db import MIGRATIONS, Club, ClubMember, ClubRoom, HandRow, Room, make_engine, now
from caishen.table.match import selfplay
from helpers_server import PG_SLOW, old_room, url_fixture

HEAD = ScriptDirectory(str(MIGRATIONS)).get_current_head()  # the newest migration

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

url = url_fixture("sqlite", PG_SLOW)  # PostgreSQL in the slow stage (whole matches played)

TEMPLATE = {"name": "周五局 Friday", "options": {"variant": "longgang", "hands": 8, "friends": 1, "bot": "greedy",
                                                 "turn_seconds": 0, "pace": "instant"}}


def _person(client: TestClient, name: str) -> str:
    r = client.post("/api/me", json={"name": name})
    assert r.status_code == 200
    uid: str = r.json()["id"]
    return uid


def _club(client: TestClient, name: str = "牌友圈 Friends", approval: bool = False) -> dict[str, Any]:
    r = client.post("/api/clubs", json={"name": name, "approval": approval})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _refused(r: Any, status: int, code: str) -> None:
    assert (r.status_code, r.json().get("code")) == (status, code), r.text


def _roles(client: TestClient, code: str) -> dict[str, str]:
    view = client.get(f"/api/clubs/{code}/view").json()
    return {m["name"]: m["role"] for m in view["members"]}


def test_create_a_club_invite_by_code_and_join(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as nobody:
        _person(ann, "Ann")
        bob_id = _person(bob, "Bob")
        club = _club(ann)
        code = club["code"]
        assert club["role"] == "owner" and club["members"] == 1 and club["link"].endswith(f"/club/{code}")
        assert len(code) == 6 and code.isalnum() and code.isupper()
        # the invite shows the club to anyone; its page is for members
        invite = bob.get(f"/api/clubs/{code}").json()
        assert invite["role"] is None and invite["owner"] == "Ann"  # the invite says whose club it is
        _refused(bob.get(f"/api/clubs/{code}/view"), 403, "not_a_member")
        _refused(nobody.get(f"/api/clubs/{code}/view"), 401, "not_signed_in")
        _refused(nobody.post(f"/api/clubs/{code}/join"), 401, "not_signed_in")
        _refused(nobody.post("/api/clubs", json={"name": "x"}), 401, "not_signed_in")
        _refused(bob.post(f"/api/clubs/{code}/templates", json=TEMPLATE), 403, "not_a_member")  # outsider as admin
        _refused(bob.post(f"/api/clubs/{code}/settings", json={"approval": True}), 403, "not_a_member")
        _refused(bob.get("/api/clubs/NOSUCH/view"), 404, "no_club")
        _refused(bob.get("/api/clubs/<b>x/view"), 404, "no_club")
        assert bob.post(f"/api/clubs/{code}/join").json()["role"] == "member"
        assert bob.post(f"/api/clubs/{code}/join").json()["role"] == "member"  # twice: the same
        view = bob.get(f"/api/clubs/{code}/view").json()
        assert [(m["name"], m["role"], m["online"]) for m in view["members"]] == [
            ("Ann", "owner", True), ("Bob", "member", True)]
        assert view["requests"] == [] and view["blacklist"] == []
        # online: had the page open in the last two minutes (written in the store: any process sees it)
        with Session(app.state.store.engine) as db, db.begin():
            db.execute(update(ClubMember).where(ClubMember.club == code).values(seen_at=now() - timedelta(minutes=5)))
        view = bob.get(f"/api/clubs/{code}/view").json()
        assert [(m["name"], m["online"], m["playing"]) for m in view["members"]] == [
            ("Ann", False, None), ("Bob", True, None)]
        assert [c["name"] for c in bob.get("/api/clubs").json()] == ["牌友圈 Friends"]
        assert nobody.get("/api/clubs").json() == []
        assert ann.get("/page-does-not-matter").status_code == 404
        assert ann.get(f"/club/{code}").status_code == 200 and ann.get("/clubs").status_code == 200
        # a code in small letters names the same club (its page sends there); one too long is no club's
        moved = ann.get(f"/club/{code.lower()}", follow_redirects=False)
        assert (moved.status_code, moved.headers["location"]) == (308, f"/club/{code}")
        _refused(bob.get(f"/api/clubs/{'A' * 40}"), 404, "no_club")  # was a 422 the page showed as "Unprocessable Entity"
        _refused(bob.post("/api/me", json={"name": " \t "}), 422, "empty_name")
        # names of characters that show nothing (the Braille blank, Hangul fillers) are empty too
        _refused(bob.post("/api/me", json={"name": "\u2800\u2800"}), 422, "empty_name")
        _refused(bob.post("/api/clubs", json={"name": " \u3164\u2800 "}), 422, "empty_name")
        assert bob.post("/api/me", json={"name": "\u2800Bob\u3164"}).json()["name"] == "Bob"
        # a member leaves; the owner cannot
        assert bob.post(f"/api/clubs/{code}/leave").json()["role"] is None
        _refused(bob.get(f"/api/clubs/{code}/view"), 403, "not_a_member")
        _refused(ann.post(f"/api/clubs/{code}/leave"), 409, "cannot_change")
        assert bob_id not in json.dumps(ann.get(f"/api/clubs/{code}/view").json()["members"])


def test_a_club_with_approval_and_who_may_approve(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as cy:
        _person(ann, "Ann")
        _person(bob, "Bob")
        cy_id = _person(cy, "Cy")
        code = _club(ann, approval=True)["code"]
        assert bob.post(f"/api/clubs/{code}/join").json()["role"] == "pending"
        bob_id = ann.get(f"/api/clubs/{code}/view").json()["requests"][0]["id"]
        _refused(bob.get(f"/api/clubs/{code}/view"), 403, "not_a_member")  # asked, not in yet
        _refused(bob.post(f"/api/clubs/{code}/requests/{bob_id}/approve"), 403, "not_a_member")
        assert ann.post(f"/api/clubs/{code}/requests/{bob_id}/approve").status_code == 200
        assert _roles(bob, code) == {"Ann": "owner", "Bob": "member"}
        assert bob.get(f"/api/clubs/{code}/view").json()["requests"] == []  # a member sees no requests
        assert cy.post(f"/api/clubs/{code}/join").json()["role"] == "pending"
        _refused(bob.post(f"/api/clubs/{code}/requests/{cy_id}/approve"), 403, "not_an_admin")  # member as admin
        _refused(bob.post(f"/api/clubs/{code}/requests/{cy_id}/reject"), 403, "not_an_admin")
        view = ann.post(f"/api/clubs/{code}/requests/{cy_id}/reject").json()
        assert view["requests"] == [] and [m["name"] for m in view["members"]] == ["Ann", "Bob"]
        _refused(ann.post(f"/api/clubs/{code}/requests/{bob_id}/approve"), 409, "cannot_change")  # not a request
        # Cy is told (her club page and her list of clubs), and may not ask again within a day
        told = cy.get(f"/api/clubs/{code}").json()
        assert told["role"] == "declined" and told["ask_again_at"] > now().isoformat(timespec="seconds")
        assert [(c["code"], c["role"]) for c in cy.get("/api/clubs").json()] == [(code, "declined")]
        assert ann.get(f"/api/clubs/{code}").json()["ask_again_at"] is None
        _refused(cy.post(f"/api/clubs/{code}/join"), 409, "declined")
        _refused(ann.post(f"/api/clubs/{code}/requests/{cy_id}/approve"), 409, "cannot_change")  # no longer asking
        # the owner turns approval off; a day after the no, Cy joins at once
        _refused(bob.post(f"/api/clubs/{code}/settings", json={"approval": False}), 403, "not_the_owner")
        assert ann.post(f"/api/clubs/{code}/settings", json={"approval": False}).json()["club"]["approval"] is False
        _refused(cy.post(f"/api/clubs/{code}/join"), 409, "declined")
        with Session(app.state.store.engine) as db, db.begin():
            db.execute(update(ClubMember).where(ClubMember.user == cy_id)
                       .values(joined_at=now() - ASK_AGAIN_AFTER - timedelta(seconds=1)))
        assert cy.post(f"/api/clubs/{code}/join").json()["role"] == "member"


def test_a_declined_person_may_ask_again_a_day_after(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as cy:
        _person(ann, "Ann")
        cy_id = _person(cy, "Cy")
        code = _club(ann, approval=True)["code"]
        assert cy.post(f"/api/clubs/{code}/join").json()["role"] == "pending"
        ann.post(f"/api/clubs/{code}/requests/{cy_id}/reject").raise_for_status()
        with Session(app.state.store.engine) as db, db.begin():
            db.execute(update(ClubMember).where(ClubMember.user == cy_id)
                       .values(joined_at=now() - ASK_AGAIN_AFTER + timedelta(minutes=1)))
        _refused(cy.post(f"/api/clubs/{code}/join"), 409, "declined")  # a minute short of a day
        # the admins see the no of the last day, and may take it back (a click on the wrong line)
        assert [(r["name"], r["role"]) for r in ann.get(f"/api/clubs/{code}/view").json()["declined"]] == [("Cy", "declined")]
        view = ann.post(f"/api/clubs/{code}/requests/{cy_id}/undecline").json()
        assert [r["name"] for r in view["requests"]] == ["Cy"] and view["declined"] == []
        assert cy.get(f"/api/clubs/{code}").json()["role"] == "pending"
        _refused(ann.post(f"/api/clubs/{code}/requests/{cy_id}/undecline"), 409, "cannot_change")  # not declined
        ann.post(f"/api/clubs/{code}/requests/{cy_id}/reject").raise_for_status()
        with Session(app.state.store.engine) as db, db.begin():
            db.execute(update(ClubMember).where(ClubMember.user == cy_id)
                       .values(joined_at=now() - ASK_AGAIN_AFTER + timedelta(minutes=1)))
        with Session(app.state.store.engine) as db, db.begin():
            db.execute(update(ClubMember).where(ClubMember.user == cy_id).values(joined_at=now() - ASK_AGAIN_AFTER))
        assert cy.post(f"/api/clubs/{code}/join").json()["role"] == "pending"  # approval is on: asked again
        assert [r["name"] for r in ann.get(f"/api/clubs/{code}/view").json()["requests"]] == ["Cy"]
        ann.post(f"/api/clubs/{code}/requests/{cy_id}/reject").raise_for_status()
        # leaving would make the no nothing: refused; after the day her list of clubs forgets it
        _refused(cy.post(f"/api/clubs/{code}/leave"), 409, "cannot_change")
        assert [c["role"] for c in cy.get("/api/clubs").json()] == ["declined"]
        with Session(app.state.store.engine) as db, db.begin():
            db.execute(update(ClubMember).where(ClubMember.user == cy_id).values(joined_at=now() - ASK_AGAIN_AFTER))
        assert cy.get("/api/clubs").json() == [] and cy.get(f"/api/clubs/{code}").json()["role"] == "declined"
        assert ann.get(f"/api/clubs/{code}/view").json()["declined"] == []  # and the admins' list of noes
        # an admin may blacklist a declined person
        assert [r["name"] for r in ann.post(f"/api/clubs/{code}/members/{cy_id}/blacklist").json()["blacklist"]] == ["Cy"]
        _refused(cy.post(f"/api/clubs/{code}/join"), 403, "blacklisted")


def test_roles_remove_and_blacklist_each_refused_without_the_role(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as cy, TestClient(app) as di:
        ann_id = _person(ann, "Ann")
        bob_id = _person(bob, "Bob")
        cy_id = _person(cy, "Cy")
        di_id = _person(di, "Di")
        code = _club(ann)["code"]
        for c in (bob, cy, di):
            assert c.post(f"/api/clubs/{code}/join").json()["role"] == "member"
        # a member acting as an admin, or as the owner
        _refused(bob.post(f"/api/clubs/{code}/members/{cy_id}/remove"), 403, "not_an_admin")
        _refused(bob.post(f"/api/clubs/{code}/members/{cy_id}/blacklist"), 403, "not_an_admin")
        _refused(bob.post(f"/api/clubs/{code}/members/{bob_id}/role", json={"role": "admin"}), 403, "not_the_owner")
        _refused(bob.post(f"/api/clubs/{code}/templates", json=TEMPLATE), 403, "not_an_admin")
        # the owner makes Bob an admin; an admin cannot promote, nor touch the owner or another admin
        r = ann.post(f"/api/clubs/{code}/members/{bob_id}/role", json={"role": "owner"})
        assert r.status_code == 422  # only admin or member
        assert ann.post(f"/api/clubs/{code}/members/{bob_id}/role", json={"role": "admin"}).status_code == 200
        assert _roles(cy, code)["Bob"] == "admin"
        _refused(bob.post(f"/api/clubs/{code}/members/{cy_id}/role", json={"role": "admin"}), 403, "not_the_owner")
        _refused(bob.post(f"/api/clubs/{code}/settings", json={"approval": True}), 403, "not_the_owner")  # admin as owner
        _refused(bob.post(f"/api/clubs/{code}/members/{ann_id}/remove"), 403, "owner_stays")
        _refused(bob.post(f"/api/clubs/{code}/members/{ann_id}/blacklist"), 403, "owner_stays")
        _refused(ann.post(f"/api/clubs/{code}/members/{ann_id}/remove"), 409, "cannot_change")
        assert ann.post(f"/api/clubs/{code}/members/{cy_id}/role", json={"role": "admin"}).status_code == 200
        _refused(bob.post(f"/api/clubs/{code}/members/{cy_id}/remove"), 403, "not_the_owner")  # admin on admin
        assert ann.post(f"/api/clubs/{code}/members/{cy_id}/role", json={"role": "member"}).status_code == 200
        # an admin removes Cy: Cy loses the page, and may join again by the code
        assert bob.post(f"/api/clubs/{code}/templates", json=TEMPLATE).status_code == 200
        assert bob.post(f"/api/clubs/{code}/members/{cy_id}/remove").status_code == 200
        _refused(cy.get(f"/api/clubs/{code}/view"), 403, "not_a_member")
        _refused(cy.get(f"/api/clubs/{code}/leaderboard"), 403, "not_a_member")
        _refused(cy.post(f"/api/clubs/{code}/tables", json={"template": TEMPLATE["name"]}), 403, "not_a_member")
        _refused(bob.post(f"/api/clubs/{code}/members/{cy_id}/remove"), 404, "not_in_club")
        assert cy.post(f"/api/clubs/{code}/join").json()["role"] == "member"
        # blacklisted: out, and cannot join again until an admin lifts it
        view = bob.post(f"/api/clubs/{code}/members/{di_id}/blacklist").json()
        assert [m["name"] for m in view["blacklist"]] == ["Di"]
        assert cy.get(f"/api/clubs/{code}/view").json()["blacklist"] == []  # a member does not see it
        _refused(di.post(f"/api/clubs/{code}/join"), 403, "blacklisted")
        _refused(di.get(f"/api/clubs/{code}/view"), 403, "not_a_member")
        _refused(di.post(f"/api/clubs/{code}/leave"), 409, "cannot_change")  # leaving does not lift it
        _refused(di.post(f"/api/clubs/{code}/join"), 403, "blacklisted")
        assert di.get("/api/clubs").json() == []
        _refused(cy.post(f"/api/clubs/{code}/members/{di_id}/unblacklist"), 403, "not_an_admin")
        assert bob.post(f"/api/clubs/{code}/members/{di_id}/unblacklist").status_code == 200
        assert di.post(f"/api/clubs/{code}/join").json()["role"] == "member"
        # the owner demotes an admin: Bob is a member again, with a member's rights
        assert ann.post(f"/api/clubs/{code}/members/{bob_id}/role", json={"role": "member"}).status_code == 200
        _refused(bob.post(f"/api/clubs/{code}/members/{di_id}/remove"), 403, "not_an_admin")


def test_templates_are_checked_and_open_tables_for_members_only(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as eve:
        _person(ann, "Ann")
        _person(bob, "Bob")
        _person(eve, "Eve")
        code = _club(ann)["code"]
        assert bob.post(f"/api/clubs/{code}/join").status_code == 200
        # checked as POST /api/rooms checks its options
        bad = {"name": "bad", "options": {**TEMPLATE["options"], "variant": "nope"}}  # type: ignore[dict-item]
        _refused(ann.post(f"/api/clubs/{code}/templates", json=bad), 422, "bad_template")
        bad["options"] = {**TEMPLATE["options"], "bot": "no-such-bot"}  # type: ignore[dict-item]
        _refused(ann.post(f"/api/clubs/{code}/templates", json=bad), 422, "bad_template")
        bad["options"] = {**TEMPLATE["options"], "hands": 7}  # type: ignore[dict-item]
        _refused(ann.post(f"/api/clubs/{code}/templates", json=bad), 422, "bad_template")
        bad["options"] = {**TEMPLATE["options"], "turn_seconds": "20"}  # type: ignore[dict-item]
        assert ann.post(f"/api/clubs/{code}/templates", json=bad).status_code == 422  # strict: no coercion
        bad["options"] = {**TEMPLATE["options"], "extra": 1}  # type: ignore[dict-item]
        assert ann.post(f"/api/clubs/{code}/templates", json=bad).status_code == 422
        saved = ann.post(f"/api/clubs/{code}/templates", json=TEMPLATE).json()
        assert [t["name"] for t in saved] == [TEMPLATE["name"]] and saved[0]["options"]["pace"] == "instant"
        assert bob.get(f"/api/clubs/{code}/view").json()["templates"] == saved
        _refused(bob.post(f"/api/clubs/{code}/tables", json={"template": "nope"}), 404, "no_template")
        _refused(eve.post(f"/api/clubs/{code}/tables", json={"template": TEMPLATE["name"]}), 403, "not_a_member")
        # a member opens a table from the template: one seat kept for a member, bots in the others
        room = bob.post(f"/api/clubs/{code}/tables", json={"template": TEMPLATE["name"]}).json()
        assert room["status"] == "waiting" and room["turn_seconds"] == 0 and room["pace"] == "instant"
        assert [s["bot"] is not None for s in room["seats"]] == [False, False, True, True]
        view = ann.get(f"/api/clubs/{code}/view").json()
        assert [(t["code"], t["template"], t["players"][:2]) for t in view["tables"]] == [
            (room["code"], TEMPLATE["name"], ["Bob", None])]
        # the room's code does not let an outsider in; the room says whose table it is (the
        # page names the club and links to its page: "join the club" said not which one)
        _refused(eve.post(f"/api/rooms/{room['code']}/join"), 403, "not_a_club_member")
        seen = eve.get(f"/api/rooms/{room['code']}").json()
        assert seen["seats"][1]["name"] is None  # the seat stays open
        assert seen["club"] == {"code": code, "name": ann.get(f"/api/clubs/{code}/view").json()["club"]["name"]}
        assert eve.post("/api/rooms", json={"friends": 1}).json()["club"] is None  # not a club's
        joined = ann.post(f"/api/rooms/{room['code']}/join").json()
        assert joined["status"] == "playing" and [s["name"] for s in joined["seats"]][:2] == ["Bob", "Ann"]
        view = ann.get(f"/api/clubs/{code}/view").json()
        assert {m["name"]: m["playing"] for m in view["members"]} == {"Ann": room["code"], "Bob": room["code"]}
        assert [m["code"] for m in view["matches"]] == [room["code"]]
        # bots for every empty seat if the opener wants: no seat kept, the match starts at once
        alone = bob.post(f"/api/clubs/{code}/tables", json={"template": TEMPLATE["name"], "friends": 0}).json()
        assert alone["status"] == "playing" and [s["bot"] is not None for s in alone["seats"]] == [
            False, True, True, True]
        # a member cannot delete a template; an admin can
        _refused(bob.delete(f"/api/clubs/{code}/templates/{TEMPLATE['name']}"), 403, "not_an_admin")
        assert ann.delete(f"/api/clubs/{code}/templates/{TEMPLATE['name']}").json() == []
        _refused(ann.delete(f"/api/clubs/{code}/templates/{TEMPLATE['name']}"), 404, "no_template")
        # a member removed cannot take a seat at the club's tables any more
        other = ann.post(f"/api/clubs/{code}/templates", json=TEMPLATE).json()
        assert other
        fresh = ann.post(f"/api/clubs/{code}/tables", json={"template": TEMPLATE["name"]}).json()
        bob_id = next(m["id"] for m in view["members"] if m["name"] == "Bob")
        assert ann.post(f"/api/clubs/{code}/members/{bob_id}/remove").status_code == 200
        _refused(bob.post(f"/api/rooms/{fresh['code']}/join"), 403, "not_a_club_member")


def _played_room(app: Any, club: str, owner: str, member: str, names: tuple[str, str], finished: Any) -> str:
    """A room of ``club`` with ``owner`` and ``member`` at players 0 and 1 (bots at 2, 3), over,
    its 3 hands (dealt by random players) stored as finished at ``finished``."""
    store = app.state.store
    ruleset = core.build_ruleset("longgang", {}, 8)
    room = store.create_room(owner, names[0], "longgang", core.ruleset_json(ruleset), 8, 0, True, 1, "greedy")
    store.join(room.code, member, names[1])
    record = dataclasses.replace(selfplay(ruleset, b"club season", hands=3), players=store.room(room.code).names)
    with Session(store.engine) as db, db.begin():
        db.execute(update(Room).where(Room.code == room.code).values(status="over", finished_at=finished,
                                                                        record=record.dumps()))
        db.add(ClubRoom(room=room.code, club=club, template=None, opened_by=owner))
        for h in record.hands:
            db.add(HandRow(room=room.code, index=h.index, commitment=h.commitment, seed=h.seed.hex() if h.seed else None,
                           record=json.dumps(h.to_json()), started_at=finished, finished_at=finished))
    return str(room.code)


def test_the_season_leaderboard_counts_the_members_hands(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as eve:
        ann_id = _person(ann, "Ann")
        bob_id = _person(bob, "Bob")
        _person(eve, "Eve")
        code = _club(ann)["code"]
        assert bob.post(f"/api/clubs/{code}/join").status_code == 200
        board = bob.get(f"/api/clubs/{code}/leaderboard").json()
        today = now().date()
        assert board["rows"] == [] and board["season_start"] == today.replace(day=1).isoformat()
        assert date.fromisoformat(board["season_end"]).month == today.month
        assert (date.fromisoformat(board["season_end"]) + timedelta(days=1)).day == 1  # the month's last day
        _refused(eve.get(f"/api/clubs/{code}/leaderboard"), 403, "not_a_member")
        _played_room(app, code, ann_id, bob_id, ("Ann", "Bob"), now())
        long_ago = now() - timedelta(days=400)
        _played_room(app, code, ann_id, bob_id, ("Ann", "Bob"), long_ago)  # another season
        # what the hands hold: each person's chips and wins, from the stored records themselves
        expected: dict[str, list[int]] = {"Ann": [0, 0], "Bob": [0, 0]}
        with Session(app.state.store.engine) as db:
            rows = list(db.execute(text("SELECT h.record FROM hands h JOIN club_rooms c ON c.room = h.room "
                                        "WHERE h.finished_at >= :since"), {"since": now() - timedelta(days=1)}))
        assert len(rows) == 3
        for (rec,) in rows:
            hand = json.loads(rec)
            for s, p in enumerate(hand["seats"]):
                if p < 2:
                    who = ("Ann", "Bob")[p]
                    expected[who][0] += hand["result"]["chips"][s]
                    expected[who][1] += int(hand["result"].get("winner") == s)
        rows_out = bob.get(f"/api/clubs/{code}/leaderboard").json()["rows"]
        got = {r["name"]: r for r in rows_out}
        assert set(got) == {"Ann", "Bob"}  # the bots are not ranked
        for who in ("Ann", "Bob"):
            r = got[who]
            assert (r["matches"], r["hands"]) == (1, 3)
            assert [r["chips"], r["wins"]] == expected[who]
            assert r["chips_per_hand"] == round(expected[who][0] / 3, 2)
            assert r["wins_per_hand"] == round(expected[who][1] / 3, 3)
        assert [r["chips"] for r in rows_out] == sorted((r["chips"] for r in rows_out), reverse=True)
        # the owner sets the season's dates (a member may not): now both rooms count
        season = {"season_start": (long_ago.date() - timedelta(days=1)).isoformat(), "season_end": today.isoformat()}
        _refused(bob.post(f"/api/clubs/{code}/settings", json=season), 403, "not_the_owner")
        _refused(ann.post(f"/api/clubs/{code}/settings", json={"season_start": today.isoformat(),
                                                                "season_end": (today - timedelta(days=1)).isoformat()}),
                 422, "bad_season")
        # a last day of 9999-12-31 was taken, and every look at the leaderboard then failed (500)
        for first, last in (("2026-01-01", "9999-12-31"), ("1999-12-31", "2026-01-01")):
            _refused(ann.post(f"/api/clubs/{code}/settings", json={"season_start": first, "season_end": last}),
                     422, "bad_season")
        with Session(app.state.store.engine) as db, db.begin():  # one stored before the check
            db.execute(update(Club).where(Club.code == code).values(season_start=date(2026, 1, 1),
                                                                    season_end=date(9999, 12, 31)))
        assert bob.get(f"/api/clubs/{code}/leaderboard").status_code == 200
        view = ann.post(f"/api/clubs/{code}/settings", json=season).json()
        assert view["season_set"] is True and view["season_start"] == season["season_start"]
        board = bob.get(f"/api/clubs/{code}/leaderboard").json()
        assert {(r["name"], r["matches"], r["hands"]) for r in board["rows"]} == {("Ann", 2, 6), ("Bob", 2, 6)}
        view = ann.post(f"/api/clubs/{code}/settings", json={"calendar_month": True}).json()
        assert view["season_set"] is False and view["season_start"] == today.replace(day=1).isoformat()


def test_the_calendar_month_season() -> None:
    club = Club(code="ABCDEF", name="x", owner="o", approval=False)
    assert season_of(club, date(2024, 2, 10)) == (date(2024, 2, 1), date(2024, 2, 29), False)
    assert season_of(club, date(2026, 12, 31)) == (date(2026, 12, 1), date(2026, 12, 31), False)
    club.season_start, club.season_end = date(2026, 3, 5), date(2026, 6, 4)
    assert season_of(club, date(2026, 12, 31)) == (date(2026, 3, 5), date(2026, 6, 4), True)


def test_names_with_html_come_back_as_they_were_and_the_pages_write_text_only(url: str) -> None:
    app = create_app(url)
    with TestClient(app) as ann:
        _person(ann, "<img src=x onerror=f()>")
        club = _club(ann, name="<script>alert(1)</script>")
        assert club["name"] == "<script>alert(1)</script>"
        view = ann.get(f"/api/clubs/{club['code']}/view").json()
        assert view["members"][0]["name"] == "<img src=x onerror=f()>"
        page = ann.get(f"/club/{club['code']}").text
        assert "<script>alert" not in page  # the page is static: the names come in through the API
    for js in ("club.js",):
        source = (core.__file__.rsplit("/", 1)[0] + "/static/" + js)
        with open(source, encoding="utf-8") as f:
            body = f.read()
        assert "innerHTML" not in body and "insertAdjacentHTML" not in body and "document.write" not in body


def test_a_database_from_before_clubs_upgrades(url: str) -> None:
    engine = make_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    ruleset = core.ruleset_json(core.build_ruleset("longgang", {}, 8))
    players = json.dumps([{"name": "Kai", "user": "old-kai", "bot": None}, {"name": None, "user": None, "bot": None}]
                         + [{"name": f"bot {i}", "user": None, "bot": "greedy"} for i in range(2, 4)])
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0009")
        conn.execute(text("INSERT INTO users (id, name, created_at) VALUES ('old-kai', 'Kai', :at)"), {"at": now()})
        old_room(conn, ruleset, players)
    engine.dispose()
    app = create_app(url)  # upgrades to clubs
    with app.state.store.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == HEAD
        assert conn.execute(text("SELECT count(*) FROM clubs")).scalar() == 0
    with TestClient(app) as c:
        _person(c, "New")
        code = _club(c)["code"]
        assert c.get(f"/api/clubs/{code}/view").status_code == 200
        old = c.get("/api/rooms/oldroom").json()
        assert old["status"] == "waiting"  # the old room is as it was
        assert old["stand_in"] == "full"  # 0011: a room from before keeps the stand-in it had
        assert old["spectators"] is False and old["chat"] is False  # 0012: neither is turned on for it
        assert c.post("/api/rooms/oldroom/join").status_code == 200  # not a club's room: anyone may join


both = url_fixture("sqlite", "postgresql")  # no match played: both in the quick suite


def _seats(client: TestClient, room: str) -> list[str | None]:
    return [s["name"] for s in client.get(f"/api/rooms/{room}").json()["seats"]]


def test_a_removed_or_blacklisted_member_loses_a_waiting_seat_and_keeps_a_playing_one(both: str) -> None:
    """A seat at a club table still waiting is free again once its holder is removed,
    blacklisted or leaves (they could not take it now); at a table playing they stay until its
    match ends (taking them out mid-hand would wreck the others' game). A waiting table its
    opener is removed from passes to the next person at it, or closes with nobody left."""
    app = create_app(both)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as cy, TestClient(app) as di:
        ids = {n: _person(c, n) for n, c in (("Ann", ann), ("Bob", bob), ("Cy", cy), ("Di", di))}
        code = _club(ann)["code"]
        for c in (bob, cy, di):
            assert c.post(f"/api/clubs/{code}/join").json()["role"] == "member"
        assert ann.post(f"/api/clubs/{code}/templates", json=TEMPLATE).status_code == 200
        three = {"template": TEMPLATE["name"], "friends": 3}  # every other seat kept: it waits
        waiting = ann.post(f"/api/clubs/{code}/tables", json=three).json()["code"]
        for c in (bob, cy, di):
            assert c.post(f"/api/rooms/{waiting}/join").status_code == 200
        assert app.state.store.room(waiting).status == "playing"  # full: it plays (Ann, Bob, Cy, Di)
        playing = waiting
        waiting = ann.post(f"/api/clubs/{code}/tables", json=three).json()["code"]
        for c in (bob, cy):
            assert c.post(f"/api/rooms/{waiting}/join").status_code == 200
        assert _seats(ann, waiting) == ["Ann", "Bob", "Cy", None]
        # Bob removed: his waiting seat is free, the playing table keeps him
        view = ann.post(f"/api/clubs/{code}/members/{ids['Bob']}/remove").json()
        assert _seats(ann, waiting) == ["Ann", None, "Cy", None]
        assert app.state.store.room(waiting).player_of(ids["Bob"]) is None
        assert _seats(ann, playing) == ["Ann", "Bob", "Cy", "Di"]
        assert app.state.store.room(playing).player_of(ids["Bob"]) == 1 and app.state.store.room(playing).status == "playing"
        assert [t["players"] for t in view["tables"] if t["code"] == waiting] == [["Ann", None, "Cy", None]]
        _refused(bob.post(f"/api/rooms/{waiting}/join"), 403, "not_a_club_member")
        # Cy blacklisted: the same
        assert ann.post(f"/api/clubs/{code}/members/{ids['Cy']}/blacklist").status_code == 200
        assert _seats(ann, waiting) == ["Ann", None, None, None]
        assert app.state.store.room(playing).player_of(ids["Cy"]) == 2
        _refused(cy.post(f"/api/rooms/{waiting}/join"), 403, "not_a_club_member")
        # Di leaves the club herself: her waiting seat is free too
        assert di.post(f"/api/rooms/{waiting}/join").status_code == 200
        assert di.post(f"/api/clubs/{code}/leave").status_code == 200
        assert _seats(ann, waiting) == ["Ann", None, None, None]
        assert app.state.store.room(playing).player_of(ids["Di"]) == 3
        # a removed opener: the waiting table passes to the next person at it ...
        assert bob.post(f"/api/clubs/{code}/join").status_code == 200
        bobs = bob.post(f"/api/clubs/{code}/tables", json=three).json()["code"]
        assert ann.post(f"/api/rooms/{bobs}/join").status_code == 200
        assert bob.get(f"/api/rooms/{bobs}").json()["owner"] is True
        assert ann.post(f"/api/clubs/{code}/members/{ids['Bob']}/remove").status_code == 200
        assert _seats(ann, bobs) == [None, "Ann", None, None]
        room = ann.get(f"/api/rooms/{bobs}").json()
        assert room["owner"] is True and room["status"] == "waiting"
        assert bob.post(f"/api/rooms/{bobs}/start").status_code == 403  # no longer his to start
        # ... or, with nobody left at it, closes (it leaves the club's open tables)
        assert bob.post(f"/api/clubs/{code}/join").status_code == 200
        alone = bob.post(f"/api/clubs/{code}/tables", json=three).json()["code"]
        assert ann.post(f"/api/clubs/{code}/members/{ids['Bob']}/blacklist").status_code == 200
        assert app.state.store.room(alone).status == "expired" and _seats(ann, alone) == [None] * 4
        assert alone not in {t["code"] for t in ann.get(f"/api/clubs/{code}/view").json()["tables"]}
        assert ann.post(f"/api/rooms/{alone}/join").status_code == 409  # not waiting any more
        # the playing table's match goes on with everyone who sat down
        assert app.state.store.room(playing).names == ("Ann", "Bob", "Cy", "Di")


def test_the_owner_hands_the_club_to_an_admin(both: str) -> None:
    app = create_app(both)
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as cy, TestClient(app) as di, \
            TestClient(app) as eve, TestClient(app) as nobody:
        ids = {n: _person(c, n) for n, c in (("Ann", ann), ("Bob", bob), ("Cy", cy), ("Di", di), ("Eve", eve))}
        code = _club(ann)["code"]
        for c in (bob, cy, di):
            assert c.post(f"/api/clubs/{code}/join").status_code == 200
        for who in ("Bob", "Cy"):
            assert ann.post(f"/api/clubs/{code}/members/{ids[who]}/role", json={"role": "admin"}).status_code == 200
        # only the owner may: not an admin, not a member, not an outsider, not nobody
        to_bob = f"/api/clubs/{code}/members/{ids['Bob']}/owner"
        _refused(cy.post(to_bob), 403, "not_the_owner")
        _refused(bob.post(to_bob), 403, "not_the_owner")  # nor the admin to themselves
        _refused(di.post(to_bob), 403, "not_the_owner")
        _refused(eve.post(to_bob), 403, "not_a_member")
        _refused(nobody.post(to_bob), 401, "not_signed_in")
        # only to an admin of the club
        _refused(ann.post(f"/api/clubs/{code}/members/{ids['Di']}/owner"), 409, "cannot_change")  # a member
        _refused(ann.post(f"/api/clubs/{code}/members/{ids['Eve']}/owner"), 404, "not_in_club")
        _refused(ann.post(f"/api/clubs/{code}/members/{ids['Ann']}/owner"), 409, "cannot_change")
        assert _roles(ann, code) == {"Ann": "owner", "Bob": "admin", "Cy": "admin", "Di": "member"}
        view = ann.post(to_bob).json()
        assert view["club"]["role"] == "admin" and view["club"]["owner"] == "Bob"  # Ann is an admin now
        assert [(m["name"], m["role"]) for m in view["members"]] == [
            ("Bob", "owner"), ("Ann", "admin"), ("Cy", "admin"), ("Di", "member")]
        with Session(app.state.store.engine) as db:
            assert db.get(Club, code).owner == ids["Bob"]  # type: ignore[union-attr]
        club = bob.get(f"/api/clubs/{code}").json()
        assert club["role"] == "owner" and club["owner"] == "Bob"  # the invite names the new owner
        # the new owner has the owner's rights, the old one an admin's
        _refused(ann.post(f"/api/clubs/{code}/settings", json={"approval": True}), 403, "not_the_owner")
        _refused(ann.post(f"/api/clubs/{code}/members/{ids['Bob']}/owner"), 403, "not_the_owner")
        _refused(ann.post(f"/api/clubs/{code}/members/{ids['Cy']}/remove"), 403, "not_the_owner")  # an admin on an admin
        _refused(ann.post(f"/api/clubs/{code}/members/{ids['Bob']}/remove"), 403, "owner_stays")
        assert bob.post(f"/api/clubs/{code}/settings", json={"approval": True}).json()["club"]["approval"] is True
        _refused(bob.post(f"/api/clubs/{code}/leave"), 409, "cannot_change")  # the owner cannot leave
        assert ann.post(f"/api/clubs/{code}/leave").status_code == 200  # the old owner, now an admin, can
        assert _roles(bob, code) == {"Bob": "owner", "Cy": "admin", "Di": "member"}
        # and hands it on again: one owner at every step
        assert bob.post(f"/api/clubs/{code}/members/{ids['Cy']}/owner").status_code == 200
        assert _roles(di, code) == {"Cy": "owner", "Bob": "admin", "Di": "member"}


# Every club route with the least role it needs: the check below fails when a route is added
# without a line here, so each is tried by a person who lacks the role.
ROUTES: list[tuple[str, str, Any, str]] = [  # method, path (CODE, WHO, TEMPLATE filled in), body, least role
    ("GET", "/api/clubs/CODE", None, "anyone"),
    ("POST", "/api/clubs/CODE/join", None, "signed_in"),
    ("POST", "/api/clubs/CODE/leave", None, "signed_in"),
    ("GET", "/api/clubs/CODE/view", None, "member"),
    ("GET", "/api/clubs/CODE/leaderboard", None, "member"),
    ("POST", "/api/clubs/CODE/tables", {"template": "TEMPLATE"}, "member"),
    ("POST", "/api/clubs/CODE/requests/WHO/approve", None, "admin"),
    ("POST", "/api/clubs/CODE/requests/WHO/reject", None, "admin"),
    ("POST", "/api/clubs/CODE/requests/WHO/undecline", None, "admin"),
    ("POST", "/api/clubs/CODE/members/WHO/remove", None, "admin"),
    ("POST", "/api/clubs/CODE/members/WHO/blacklist", None, "admin"),
    ("POST", "/api/clubs/CODE/members/WHO/unblacklist", None, "admin"),
    ("POST", "/api/clubs/CODE/templates", TEMPLATE, "admin"),
    ("DELETE", "/api/clubs/CODE/templates/TEMPLATE", None, "admin"),
    ("POST", "/api/clubs/CODE/settings", {"approval": True}, "owner"),
    ("POST", "/api/clubs/CODE/members/WHO/role", {"role": "admin"}, "owner"),
    ("POST", "/api/clubs/CODE/members/WHO/owner", None, "owner"),
]


def test_every_club_route_is_refused_to_a_person_without_its_role(both: str) -> None:
    """Each route of ``/api/clubs/CODE/...`` by nobody (401), an outsider, a person asking to
    join and a blacklisted one (``not_a_member``), a member (``not_an_admin`` or
    ``not_the_owner``) and an admin (``not_the_owner``): refused, and nothing changes."""
    app = create_app(both)
    listed = {(m, getattr(r, "path", "")) for r in app.routes if getattr(r, "path", "").startswith("/api/clubs/{code}")
              for m in getattr(r, "methods", ())}
    assert listed == {(m, p.replace("CODE", "{code}").replace("WHO", "{who}").replace("/TEMPLATE", "/{name}"))
                      for m, p, _, _ in ROUTES}
    with TestClient(app) as ann, TestClient(app) as bob, TestClient(app) as cy, TestClient(app) as di, \
            TestClient(app) as eve, TestClient(app) as pat, TestClient(app) as nobody:
        ids = {n: _person(c, n) for n, c in (("Ann", ann), ("Bob", bob), ("Cy", cy), ("Di", di), ("Eve", eve),
                                             ("Pat", pat))}
        code = _club(ann)["code"]
        for c in (bob, cy, di):
            assert c.post(f"/api/clubs/{code}/join").status_code == 200
        assert ann.post(f"/api/clubs/{code}/members/{ids['Bob']}/role", json={"role": "admin"}).status_code == 200
        assert ann.post(f"/api/clubs/{code}/templates", json=TEMPLATE).status_code == 200
        assert ann.post(f"/api/clubs/{code}/members/{ids['Di']}/blacklist").status_code == 200
        assert ann.post(f"/api/clubs/{code}/settings", json={"approval": True}).status_code == 200
        assert pat.post(f"/api/clubs/{code}/join").json()["role"] == "pending"
        assert ann.post(f"/api/clubs/{code}/settings", json={"approval": False}).status_code == 200
        before = ann.get(f"/api/clubs/{code}/view").json()
        rank = {"anyone": 0, "signed_in": 1, "member": 2, "admin": 3, "owner": 4}
        people = [("nobody", nobody, 0, "not_signed_in"), ("outsider", eve, 1, "not_a_member"),
                  ("pending", pat, 1, "not_a_member"), ("blacklisted", di, 1, "not_a_member"),
                  ("member", cy, 2, "not_an_admin"), ("admin", bob, 3, "not_the_owner")]
        tried = 0
        for method, path, body, least in ROUTES:
            if rank[least] < 2:
                continue  # the invite, joining and leaving: by themselves, below
            for who, client, has, code_expected in people:
                if has >= rank[least]:
                    continue
                why = "not_the_owner" if who == "member" and least == "owner" else code_expected
                status = 401 if who == "nobody" else 403
                target = ids["Cy"] if not any(w in path for w in ("approve", "reject", "undecline")) else ids["Pat"]
                filled = path.replace("CODE", code).replace("WHO", target).replace("TEMPLATE", str(TEMPLATE["name"]))
                sent = json.loads(json.dumps(body).replace("TEMPLATE", str(TEMPLATE["name"]))) if body else None
                r = client.request(method, filled, json=sent)
                assert (r.status_code, r.json().get("code")) == (status, why), (method, path, who, r.text)
                tried += 1
        assert tried == 3 * 4 + 8 * 5 + 3 * 6  # every member route by 4 people, admin's by 5, owner's by 6
        assert ann.get(f"/api/clubs/{code}/view").json() == before  # nothing changed
        # joining and leaving need a name; leaving needs to be in; the invite is anyone's
        _refused(nobody.post(f"/api/clubs/{code}/join"), 401, "not_signed_in")
        _refused(nobody.post(f"/api/clubs/{code}/leave"), 401, "not_signed_in")
        _refused(eve.post(f"/api/clubs/{code}/leave"), 404, "not_in_club")
        _refused(di.post(f"/api/clubs/{code}/join"), 403, "blacklisted")
        assert nobody.get(f"/api/clubs/{code}").json()["role"] is None
        assert ann.get(f"/api/clubs/{code}/view").json()["members"] == before["members"]


def test_a_member_removed_while_taking_a_seat_does_not_keep_it(both: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of a join and a removal: Bob passes the membership check, is removed before
    his seat is written (the removal's freeing finds no seat of his yet), and then his seat is
    written. The join looks again after writing: the seat is freed and Bob refused."""
    from caishen.server import clubs  # noqa: PLC0415

    app = create_app(both)
    with TestClient(app) as ann, TestClient(app) as bob:
        ids = {n: _person(c, n) for n, c in (("Ann", ann), ("Bob", bob))}
        code = _club(ann)["code"]
        assert bob.post(f"/api/clubs/{code}/join").json()["role"] == "member"
        assert ann.post(f"/api/clubs/{code}/templates", json=TEMPLATE).status_code == 200
        room = ann.post(f"/api/clubs/{code}/tables", json={"template": TEMPLATE["name"], "friends": 3}).json()["code"]
        check = clubs.check_seat

        def checked_then_removed(club_store: Any, at: str, uid: str) -> None:
            check(club_store, at, uid)  # passes: still a member ...
            if uid == ids["Bob"]:  # ... and removed at once, before the seat is written
                assert ann.post(f"/api/clubs/{code}/members/{ids['Bob']}/remove").status_code == 200

        monkeypatch.setattr(clubs, "check_seat", checked_then_removed)
        _refused(bob.post(f"/api/rooms/{room}/join"), 403, "not_a_club_member")
        assert _seats(ann, room) == ["Ann", None, None, None]
        assert app.state.store.room(room).player_of(ids["Bob"]) is None
