"""The clubs' routes: the pages ``/clubs`` and ``/club/CODE``, and ``/api/clubs/...``. Every
action checks the person's role in the club on the server (:func:`install`'s ``need``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path as PathLib
from typing import Annotated

from fastapi import FastAPI, Path, Request
from fastapi.responses import FileResponse, RedirectResponse

from caishen.server import core
from caishen.server.clubs.messages import (
    ClubError,
    ClubOut,
    ClubSettingsBody,
    ClubViewOut,
    LeaderboardOut,
    MatchOut,
    MemberOut,
    MyClubOut,
    NewClubBody,
    OpenTableBody,
    Role,
    RoleBody,
    TableOut,
    TemplateBody,
    TemplateOut,
)
from caishen.server.clubs.store import ADMINS, MEMBERS, ClubStore, season_of
from caishen.server.db import Club, now
from caishen.server.limits import Gate
from caishen.server.protocol import RoomBody, RoomClubOut, RoomOut, clean_name, signed_in
from caishen.server.store import Store

STATIC = PathLib(__file__).resolve().parent.parent / "static"
ONLINE_SECONDS = 120  # the club page asks every 30 s: seen in the last two minutes is online
RECENT_MATCHES = 20
_CLUB = re.compile(r"^[A-Z0-9]{4,16}$")

# no length limit here: a code too long is no club's (``club_or_404``: ``no_club``, 404), not a
# validation error the club page could only show as "Unprocessable Entity"
ClubCode = Annotated[str, Path()]
PersonId = Annotated[str, Path(max_length=40)]


def install(app: FastAPI, store: Store, gate: Gate, uid_of: Callable[[Request], str | None],
            make_room: Callable[[Request, RoomBody], RoomOut]) -> ClubStore:
    """Add the club routes to ``app``. ``uid_of``: the person a request's cookie names;
    ``make_room``: ``POST /api/rooms``'s room making (limits, checks, a bot start)."""
    clubs = ClubStore(store.engine)

    def limit(request: Request, kind: str, uid: str) -> None:
        gate.check(kind, uid, request.client.host if request.client is not None else None)

    def club_or_404(code: str) -> Club:
        club = clubs.club(code) if _CLUB.match(code) else None
        if club is None:
            raise ClubError("no such club", code="no_club", status=404)
        return club

    def need(request: Request, code: str, roles: tuple[str, ...]) -> tuple[Club, str, Role]:
        """The club, the person and their role, if the role is one of ``roles``; else 403
        (``not_a_member``, ``not_an_admin``, ``not_the_owner``)."""
        uid = signed_in(uid_of(request))
        club = club_or_404(code)
        role = clubs.role(code, uid)
        if role not in roles:
            if role not in MEMBERS:
                raise ClubError("only the club's members may do this", code="not_a_member", status=403)
            if "admin" in roles:
                raise ClubError("only the club's admins may do this", code="not_an_admin", status=403)
            raise ClubError("only the club's owner may do this", code="not_the_owner", status=403)
        assert role is not None
        return club, uid, role

    def club_out(request: Request, club: Club, role: Role | None) -> ClubOut:
        uid = uid_of(request) if role == "declined" else None
        again = clubs.ask_again_at(club.code, uid) if uid is not None else None
        owner = store.user(club.owner)
        return ClubOut(code=club.code, name=club.name, link=str(request.base_url).rstrip("/") + f"/club/{club.code}",
                       approval=club.approval, members=clubs.member_count(club.code), role=role,
                       owner="" if owner is None else owner.name,
                       ask_again_at=None if again is None else again.isoformat(timespec="seconds"))

    def template_body(options: str) -> RoomBody:
        return RoomBody.model_validate(json.loads(options))

    def check_options(options: RoomBody) -> None:
        """The checks ``POST /api/rooms`` makes of its options (variant, switches, hands, bot)."""
        try:
            core.check_bot(options.bot, core.build_ruleset(options.variant, options.switches, options.hands))
        except core.RoomError as exc:
            raise ClubError(str(exc), code="bad_template", status=422) from None

    # ------------------------------------------------------------ pages

    @app.get("/clubs", include_in_schema=False)
    def clubs_page() -> FileResponse:
        return FileResponse(STATIC / "clubs.html", media_type="text/html")

    @app.get("/club/{code}", include_in_schema=False, response_model=None)
    def club_page(code: str) -> FileResponse | RedirectResponse:
        # a code typed or read out in small letters names the same club (codes are capitals)
        if code != code.upper() and _CLUB.match(code.upper()):
            return RedirectResponse(f"/club/{code.upper()}", status_code=308)
        return FileResponse(STATIC / "club.html", media_type="text/html")

    # ------------------------------------------------------------ clubs and members

    @app.post("/api/clubs")
    def create_club(request: Request, body: NewClubBody) -> ClubOut:
        """A new club: you are its owner; its code is the invite."""
        uid = signed_in(uid_of(request))
        limit(request, "rooms", uid)
        code = clubs.create(uid, clean_name(body.name, 40, "club's name"), body.approval)
        return club_out(request, club_or_404(code), "owner")

    @app.get("/api/clubs")
    def my_clubs(request: Request) -> list[MyClubOut]:
        """Your clubs (and those you asked to join)."""
        uid = uid_of(request)
        return [] if uid is None else [MyClubOut(code=c, name=n, role=r, members=m) for c, n, r, m in clubs.mine(uid)]

    @app.get("/api/clubs/{code}")
    def get_club(request: Request, code: ClubCode) -> ClubOut:
        """A club as its code shows it to anyone (the invite), with your role in it."""
        club = club_or_404(code)
        return club_out(request, club, clubs.role(code, uid_of(request)))

    @app.post("/api/clubs/{code}/join")
    def join_club(request: Request, code: ClubCode) -> ClubOut:
        """Join by the code; a club that wants approval puts you on its list of requests."""
        uid = signed_in(uid_of(request))
        limit(request, "joins", uid)
        role = clubs.join(code, uid)
        return club_out(request, club_or_404(code), role)

    @app.post("/api/clubs/{code}/leave")
    def leave_club(request: Request, code: ClubCode) -> ClubOut:
        """Leave the club (or withdraw a request); the owner cannot leave (they hand the club
        to an admin first). A seat taken at a club table still waiting is free again."""
        uid = signed_in(uid_of(request))
        club = club_or_404(code)
        clubs.set_role(code, uid, None, ("admin", "member", "pending"))  # declined: the no stands its day
        clubs.unseat(code, uid)
        return club_out(request, club, None)

    @app.get("/api/clubs/{code}/view")
    def view_club(request: Request, code: ClubCode) -> ClubViewOut:
        """The club page: members (online, playing), its open tables, templates and recent
        matches; for admins also the requests to join and the blacklist. Members only."""
        club, uid, role = need(request, code, MEMBERS)
        t = now()
        clubs.seen(code, uid, t)
        live = clubs.rooms(code, ("waiting", "playing"), 50)
        playing = {s.user: r.code for r in live if r.status == "playing" for s in r.seats if s.user}
        people = clubs.people(code)

        def person(p: tuple[str, str, Role, object]) -> MemberOut:
            seen = p[3]
            online = seen is not None and seen >= t - timedelta(seconds=ONLINE_SECONDS)  # type: ignore[operator]
            return MemberOut(id=p[0], name=p[1], role=p[2], online=bool(online), playing=playing.get(p[0]))

        admin = role in ADMINS
        start, end, set_ = season_of(club, t.date())
        return ClubViewOut(
            club=club_out(request, club, role),
            members=[person(p) for p in people if p[2] in MEMBERS],
            requests=[person(p) for p in people if admin and p[2] == "pending"],
            declined=[person(p) for p in people if admin and p[2] == "declined"],
            blacklist=[person(p) for p in people if admin and p[2] == "blacklisted"],
            templates=[TemplateOut(name=n, options=template_body(o)) for n, o in clubs.templates(code)],
            tables=[TableOut(code=r.code, template=r.template, variant=r.variant, status=r.status, hands=r.hands,
                             players=[s.name if (s.user or s.name) else None for s in r.seats]) for r in live],
            matches=[MatchOut(code=r.code, template=r.template, variant=r.variant, status=r.status, created=r.created,
                              players=[s.name or "?" for s in r.seats],
                              chips=[int(c) for c in json.loads(r.record).get("result", {}).get("chips", [])]
                              if r.record else [])
                     for r in clubs.rooms(code, ("playing", "over"), RECENT_MATCHES)],
            season_start=start, season_end=end, season_set=set_,
        )

    @app.post("/api/clubs/{code}/settings")
    def club_settings(request: Request, code: ClubCode, body: ClubSettingsBody) -> ClubViewOut:
        """The owner's: whether joining needs approval; the season's dates."""
        need(request, code, ("owner",))
        clubs.settings(code, body.approval, body.season_start, body.season_end, body.calendar_month)
        return view_club(request, code)

    def act_on(request: Request, code: str, who: str, role: Role | None, from_roles: tuple[str, ...]) -> ClubViewOut:
        """An admin's action on person ``who``: admins act on members (and requests); only the
        owner on admins; nobody on the owner or on themselves."""
        _, uid, mine = need(request, code, ADMINS)
        if who == uid:
            raise ClubError("not on yourself", code="cannot_change", status=409)
        target = clubs.role(code, who)
        if target == "owner":
            raise ClubError("the owner cannot be removed or changed", code="owner_stays", status=403)
        if target == "admin" and mine != "owner":
            raise ClubError("only the owner may act on an admin", code="not_the_owner", status=403)
        clubs.set_role(code, who, role, from_roles)
        if target in MEMBERS and role not in MEMBERS:  # removed or blacklisted: out of the waiting tables
            clubs.unseat(code, who)
        return view_club(request, code)

    @app.post("/api/clubs/{code}/requests/{who}/approve")
    def approve(request: Request, code: ClubCode, who: PersonId) -> ClubViewOut:
        return act_on(request, code, who, "member", ("pending",))

    @app.post("/api/clubs/{code}/requests/{who}/reject")
    def reject(request: Request, code: ClubCode, who: PersonId) -> ClubViewOut:
        """Say no to a request: the person's club page tells them so, and they may ask again
        after a day (``ASK_AGAIN_AFTER``; sooner: ``declined``)."""
        return act_on(request, code, who, "declined", ("pending",))

    @app.post("/api/clubs/{code}/requests/{who}/undecline")
    def undecline(request: Request, code: ClubCode, who: PersonId) -> ClubViewOut:
        """Take a no back (a click on the wrong line): the request is open again."""
        return act_on(request, code, who, "pending", ("declined",))

    @app.post("/api/clubs/{code}/members/{who}/remove")
    def remove(request: Request, code: ClubCode, who: PersonId) -> ClubViewOut:
        """Remove a member: they may join again by the code. Their seat at a club table still
        waiting is free again; at a table playing they stay until its match ends."""
        return act_on(request, code, who, None, ("admin", "member"))

    @app.post("/api/clubs/{code}/members/{who}/blacklist")
    def blacklist(request: Request, code: ClubCode, who: PersonId) -> ClubViewOut:
        """Remove a member (or a request) for good: they cannot join again until unblocked."""
        return act_on(request, code, who, "blacklisted", ("admin", "member", "pending", "declined"))

    @app.post("/api/clubs/{code}/members/{who}/unblacklist")
    def unblacklist(request: Request, code: ClubCode, who: PersonId) -> ClubViewOut:
        return act_on(request, code, who, None, ("blacklisted",))

    @app.post("/api/clubs/{code}/members/{who}/role")
    def set_role(request: Request, code: ClubCode, who: PersonId, body: RoleBody) -> ClubViewOut:
        """The owner makes a member an admin, or an admin a member again."""
        need(request, code, ("owner",))
        return act_on(request, code, who, body.role, ("admin", "member"))

    @app.post("/api/clubs/{code}/members/{who}/owner")
    def hand_over(request: Request, code: ClubCode, who: PersonId) -> ClubViewOut:
        """The owner hands the club to one of its admins, and is an admin from then on."""
        _, uid, _ = need(request, code, ("owner",))
        if who == uid:
            raise ClubError("not on yourself", code="cannot_change", status=409)
        clubs.hand_over(code, uid, who)
        return view_club(request, code)

    # ------------------------------------------------------------ templates and tables

    @app.post("/api/clubs/{code}/templates")
    def save_template(request: Request, code: ClubCode, body: TemplateBody) -> list[TemplateOut]:
        """Add (or change) a named preset of room options, checked as ``POST /api/rooms`` checks them."""
        need(request, code, ADMINS)
        check_options(body.options)
        clubs.save_template(code, clean_name(body.name, 40, "template's name"), body.options.model_dump_json())
        return [TemplateOut(name=n, options=template_body(o)) for n, o in clubs.templates(code)]

    @app.delete("/api/clubs/{code}/templates/{name}")
    def delete_template(request: Request, code: ClubCode, name: Annotated[str, Path(max_length=40)]) -> list[TemplateOut]:
        need(request, code, ADMINS)
        if not clubs.delete_template(code, name):
            raise ClubError("no such template", code="no_template", status=404)
        return [TemplateOut(name=n, options=template_body(o)) for n, o in clubs.templates(code)]

    @app.post("/api/clubs/{code}/tables")
    def open_table(request: Request, code: ClubCode, body: OpenTableBody) -> RoomOut:
        """Open a table from a template, for the club's members only: ``friends`` seats kept for
        members (the template's number by default), bots in the others."""
        _, uid, _ = need(request, code, MEMBERS)
        options = clubs.template(code, body.template)
        if options is None:
            raise ClubError("no such template", code="no_template", status=404)
        room_body = template_body(options)
        if body.friends is not None:
            room_body = room_body.model_copy(update={"friends": body.friends})
        room = make_room(request, room_body)
        clubs.add_room(code, room.code, body.template, uid)
        return room

    @app.get("/api/clubs/{code}/leaderboard")
    def leaderboard(request: Request, code: ClubCode) -> LeaderboardOut:
        """The season's leaderboard (the dates the owner set, else this calendar month, UTC)."""
        club, _, _ = need(request, code, MEMBERS)
        start, end, _ = season_of(club, now().date())
        return LeaderboardOut(season_start=start, season_end=end, rows=clubs.leaderboard(code, start, end))

    app.state.clubs = clubs
    return clubs


def room_club(clubs: ClubStore, room: str) -> RoomClubOut | None:
    """The club ``room`` belongs to (its code and name), or None."""
    code = clubs.club_of_room(room)
    club = clubs.club(code) if code is not None else None
    return None if club is None else RoomClubOut(code=club.code, name=club.name)


def check_seat(clubs: ClubStore, room: str, uid: str) -> None:
    """A club's room seats only its members: else ``not_a_club_member`` (403)."""
    club = clubs.club_of_room(room)
    if club is not None and clubs.role(club, uid) not in MEMBERS:
        raise ClubError("this table is for the club's members only: join the club first", code="not_a_club_member",
                        status=403)


def recheck_seat(clubs: ClubStore, room: str, uid: str) -> None:
    """After a seat is taken at a club's room: a person removed from the club between
    :func:`check_seat` and the seat's write loses it again (the table still waits: the removal's
    own :meth:`ClubStore.unseat` may have run before the seat was written) and is refused."""
    club = clubs.club_of_room(room)
    if club is not None and clubs.role(club, uid) not in MEMBERS:
        clubs.unseat(club, uid)
        check_seat(clubs, room, uid)
