"""The rooms' and matches' routes (docs/server.md, "Pages and API"): create a room (or a
practice table), read it, take a seat, start early; my matches; a match's result, record,
verification and replays. The live tables these rooms play at are :mod:`.live`'s; the room
rows are the shared store's (:mod:`caishen.server.store`)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Annotated

from fastapi import Body, FastAPI, HTTPException, Query, Request, Response

from caishen.server import core, metrics
from caishen.server.db import now
from caishen.server.limits import Gate
from caishen.server.protocol import (
    ApiError,
    MatchSummaryOut,
    ReplayOut,
    ResultOut,
    RoomBody,
    RoomClubOut,
    RoomOut,
    SeatOut,
    StartBody,
    VerifyOut,
)
from caishen.server.store import RoomInfo, Store
from caishen.server.tables.registry import Tables

_CODE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
MAX_RECORD_BYTES = 5_000_000  # an uploaded record to verify


def install(app: FastAPI, store: Store, gate: Gate, tables: Tables, uid_of: Callable[[Request], str | None],
            need_user: Callable[[Request], str], limit: Callable[[Request, str, str | None], None],
            seat_check: Callable[[str, str, bool], None],
            club_of: Callable[[str], RoomClubOut | None]) -> Callable[[Request, RoomBody], RoomOut]:
    """Add the rooms' and matches' routes to ``app``; the app's helpers come as functions
    (``uid_of``: who a request's cookie names; ``need_user``: the same, or 401; ``limit``: the
    HTTP limits; ``seat_check``: a club's members-only seats; ``club_of``: the club a room
    belongs to). Returns how a room is made, which the clubs' tables use too."""

    def room_or_404(code: str) -> RoomInfo:
        room = store.room(code) if _CODE.match(code) else None
        if room is None and _CODE.match(code) and code != code.lower():  # a new code typed in capitals
            room = store.room(code.lower())
        if room is None:
            raise ApiError("no such room", code="no_room", status=404)  # the page says it in its language
        return room

    def room_out(room: RoomInfo, request: Request, uid: str | None) -> RoomOut:
        return RoomOut(
            code=room.code, link=str(request.base_url).rstrip("/") + f"/r/{room.code}", variant=room.variant,
            status=room.status, hands=room.hands, turn_seconds=room.turn_seconds, help_allowed=room.help_allowed,
            seats=[SeatOut(player=i, name=p.name, bot=p.bot, mine=uid is not None and p.user == uid, removed=p.removed)
                   for i, p in enumerate(room.players)],
            owner=uid == room.owner, rules=core.changed_rules(room.variant, room.ruleset), damage=room.damage,
            pace=room.pace, stand_in=room.stand_in, spectators=room.spectators, chat=room.chat,
            club=club_of(room.code),
        )

    def start_if_full(room: RoomInfo) -> RoomInfo:
        if room.status == "waiting" and not any(p.open for p in room.players):
            started = store.fill_and_start(room.code, "greedy")
            assert started is not None
            tables.start(started)
            return started
        return room

    def record_json(room: RoomInfo) -> str:
        """The room's record: stored once over; else the live match's (a damaged room's: up to
        its last consistent move)."""
        if room.record is not None:
            return core.signed_text(room.record)
        session = tables.session_of(room)
        if session is None:
            raise ApiError("this match has not started", code="not_started", status=404)
        return core.record_text(session)

    def make_room(request: Request, body: RoomBody) -> RoomOut:
        uid = need_user(request)
        limit(request, "rooms", uid)
        day_ago = now() - timedelta(days=1)
        mine = store.open_rooms(uid, day_ago)
        if len(mine) >= gate.limits.open_rooms:
            wait = (min(mine) - day_ago).total_seconds()
            metrics.rate_limited.labels(limit="open_rooms").inc()
            raise ApiError(f"you have {len(mine)} open rooms: finish one, or wait until a day has passed since the "
                           "oldest", code="too_many_rooms", status=429, retry_after=max(1, math.ceil(wait)))
        user = store.user(uid)
        assert user is not None
        try:
            ruleset = core.build_ruleset(body.variant, body.switches, body.hands)
            core.check_bot(body.bot, ruleset)
        except core.RoomError as exc:
            raise ApiError(str(exc), code="bad_room", status=422) from None
        room = store.create_room(
            uid, user.name, body.variant, core.ruleset_json(ruleset), body.hands, body.turn_seconds,
            body.help_allowed, body.friends, body.bot, pace=body.pace,
            stand_in=body.stand_in, spectators=body.spectators, chat=body.chat,
        )
        return room_out(start_if_full(room), request, uid)

    @app.post("/api/rooms")
    def create_room(request: Request, body: RoomBody) -> RoomOut:
        """Create a room: variant, switches, hands, seats for friends, bot level, turn timer."""
        return make_room(request, body)

    @app.post("/api/practice")
    def practice(request: Request, pace: Annotated[str, Query(pattern="^(normal|fast|instant)$")] = "normal") -> RoomOut:
        """One click: a Longgang table against three greedy bots, 8 hands, no timer, at the
        normal pace unless ``pace`` says otherwise."""
        return make_room(request, RoomBody(turn_seconds=0, pace=pace))  # type: ignore[arg-type]

    @app.get("/api/rooms/{code}")
    def get_room(request: Request, code: str) -> RoomOut:
        return room_out(room_or_404(code), request, uid_of(request))

    @app.post("/api/rooms/{code}/join")
    def join_room(request: Request, code: str) -> RoomOut:
        """Take an open seat (a friend's); the match starts when every seat is taken."""
        uid = need_user(request)
        limit(request, "joins", uid)
        room_or_404(code)
        seat_check(code, uid, False)  # a club's table: its members only
        user = store.user(uid)
        assert user is not None
        room = store.join(code, uid, user.name)
        assert room is not None
        if room.player_of(uid) is not None:
            seat_check(code, uid, True)  # removed from the club meanwhile: not seated
        if room.player_of(uid) is None:  # a lost race ends here: a clear answer, the seats as they are
            if room.status != "waiting":
                raise ApiError("the match has started: no open seat in this room", code="no_seat", status=409)
            raise ApiError("no open seat in this room", code="no_seat", status=409)
        return room_out(start_if_full(room), request, uid)

    @app.post("/api/rooms/{code}/start")
    def start_room(request: Request, code: str, body: StartBody | None = None) -> RoomOut:
        """The owner starts now: open seats get bots, of the level the body names (start early,
        issue 30) or else the room's own."""
        uid = need_user(request)
        limit(request, "joins", uid)
        room = room_or_404(code)
        if room.owner != uid:
            raise ApiError("only the room's owner can start it", code="not_room_owner", status=403)
        level = body.bot if body is not None and body.bot is not None else next((b for b in room.bots if b), "greedy")
        try:
            core.check_bot(level, core.ruleset_from_json(room.ruleset, room.variant))
        except core.RoomError as exc:
            raise ApiError(str(exc), code="bad_room", status=422) from None
        if room.status == "waiting":
            started = store.fill_and_start(code, level)
            assert started is not None
            tables.start(started)
            room = started
        return room_out(room, request, uid)

    @app.get("/api/my/matches")
    def my_matches(request: Request) -> list[MatchSummaryOut]:
        """Your matches, newest first, with hands played and chips."""
        uid = uid_of(request)
        if uid is None:
            return []
        out: list[MatchSummaryOut] = []
        for r in store.my_rooms(uid):
            session = tables.session_of(r) if r.record is None else None
            hands, chips = 0, [0] * len(r.players)
            if session is not None:
                hands = len(session.match.hands)
                chips = list(session.match.table.ledger.chips)
            elif r.record is not None:
                players, ends, _, final = core.result_hands(r.record)
                hands, chips = len(ends), final
            out.append(MatchSummaryOut(code=r.code, variant=r.variant, status=r.status, created=r.created,
                                       hands_played=hands, players=[p.name or None for p in r.players], chips=chips,
                                       me=r.player_of(uid)))
        return out

    @app.get("/api/matches/{code}")
    def match_result(code: str) -> ResultOut:
        """The public result of a match: standings, every finished hand's score, fairness rows."""
        room = room_or_404(code)
        if room.status == "waiting":
            return ResultOut(code=code, variant=room.variant, status=room.status, players=list(room.names),
                             standings=[], hands=[], fairness=[])
        session = tables.session_of(room) if room.record is None else None
        text = record_json(room) if session is None else core.record_text(session)
        players, ends, fair_rows, chips = core.result_hands(text)
        end = core.record_match_end(text)
        if session is not None:
            fair_rows = core.fairness(session)
            chips = list(session.match.table.ledger.chips)
            end = core.match_end_view(session, players)
        return ResultOut(code=code, variant=room.variant, status=room.status, players=players,
                         standings=core.standings(players, chips), hands=ends, fairness=fair_rows, match_end=end)

    @app.get("/api/matches/{code}/record")
    def match_record(code: str) -> Response:
        """The record of the finished hands as JSON (``caishen verify`` accepts it)."""
        text = record_json(room_or_404(code))
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="caishen-{code}.json"'})

    @app.get("/api/matches/{code}/verify")
    def match_verify(request: Request, code: str) -> VerifyOut:
        """``caishen verify`` run on this match's record."""
        limit(request, "verify", uid_of(request))
        return core.verify_text(record_json(room_or_404(code)))

    @app.post("/api/verify")
    async def verify_upload(request: Request, body: Annotated[dict[str, object], Body()]) -> VerifyOut:
        """``caishen verify`` on an uploaded record."""
        limit(request, "verify", uid_of(request))
        raw = await request.body()
        if len(raw) > MAX_RECORD_BYTES:
            raise HTTPException(413, "record too large")
        return core.verify_text(raw.decode("utf-8", "replace"))

    @app.get("/api/matches/{code}/hands/{hand}/replay")
    def replay(code: str, hand: int, seat: Annotated[int | None, Query(ge=0, le=3)] = None) -> ReplayOut:
        """A finished hand move by move, from one seat or from above (no seat)."""
        room = room_or_404(code)
        text = record_json(room)
        try:
            frames = core.replay_frames(text, hand, seat, code)
        except core.RoomError as exc:
            # the hand being played has no replay yet: said so, not "the match has no such hand"
            if room.status == "playing" and hand == len(json.loads(text).get("hands", [])):
                raise ApiError(f"hand {hand + 1} is being played: its replay comes once it ends",
                               code="hand_in_play", status=404) from None
            raise ApiError(str(exc), code="no_hand", status=404) from None
        return ReplayOut(code=code, hand=hand, seat=seat, frames=frames)

    return make_room
