"""The game centre's web app (FastAPI): pages, the JSON API and the table's WebSocket.

:func:`create_app` opens the database (creating or upgrading its schema), resumes every
unfinished match, and returns the app; ``caishen serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Body, FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware

from caishen.server import collector, core
from caishen.server.db import make_engine, upgrade
from caishen.server.protocol import (
    MAX_MESSAGE_BYTES,
    MatchSummaryOut,
    MeOut,
    NameBody,
    ReplayOut,
    ResultOut,
    RoomBody,
    RoomOut,
    SeatOut,
    VariantOut,
    VerifyOut,
)
from caishen.server.relay import HandedOff, relay
from caishen.server.store import RoomInfo, Store
from caishen.server.tables import Client, Tables, WorkerPlan

STATIC = Path(__file__).resolve().parent / "static"
MAX_RECORD_BYTES = 5_000_000
_CODE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def clean_name(name: str) -> str:
    """A display name without control characters or surrounding space (shown escaped anyway)."""
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip()
    if not name:
        raise HTTPException(422, "the name is empty")
    return name[:24]


def create_app(db_url: str, plan: WorkerPlan | None = None, handed_off: HandedOff | None = None) -> FastAPI:
    """The app on ``db_url``; ``plan``: which of several server processes this is
    (``caishen serve --workers``), by default the only one; ``handed_off``: the connections
    other processes handed to this one."""
    engine = make_engine(db_url)
    upgrade(engine)
    store = Store(engine)
    tables = Tables(store, plan)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # What start-up made (modules, rule tables) lives as long as the process, and what has
        # lived a second mostly does too: frozen, a full collection no longer stops every table
        # for up to half a second (caishen.server.collector).
        collector.settle()
        tables.resume_all()
        collecting = asyncio.ensure_future(collector.keep_collecting())
        yield
        collecting.cancel()
        collector.release()
        store.close()
        engine.dispose()

    app = FastAPI(
        title="caishen game centre", version="1", lifespan=lifespan,
        description="Rooms, tables, records and fairness checks of the caishen (财神) mahjong game centre.",
    )
    app.add_middleware(
        SessionMiddleware, secret_key=store.secret(), session_cookie="caishen", max_age=365 * 24 * 3600,
        same_site="lax",
    )
    app.state.store = store
    app.state.tables = tables
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------ helpers

    def uid_of(request: Request) -> str | None:
        uid = request.session.get("uid")
        return uid if isinstance(uid, str) and store.user(uid) is not None else None

    def need_user(request: Request) -> str:
        uid = uid_of(request)
        if uid is None:
            raise HTTPException(401, "pick a name first (POST /api/me)")
        return uid

    def room_or_404(code: str) -> RoomInfo:
        room = store.room(code) if _CODE.match(code) else None
        if room is None:
            raise HTTPException(404, "no such room")
        return room

    def room_out(room: RoomInfo, request: Request, uid: str | None) -> RoomOut:
        return RoomOut(
            code=room.code, link=str(request.base_url).rstrip("/") + f"/r/{room.code}", variant=room.variant,
            status=room.status, hands=room.hands, turn_seconds=room.turn_seconds, help_allowed=room.help_allowed,
            seats=[SeatOut(player=i, name=p.name, bot=p.bot, mine=uid is not None and p.user == uid)
                   for i, p in enumerate(room.players)],
            owner=uid == room.owner, rules=core.changed_rules(room.variant, room.ruleset),
        )

    def start_if_full(room: RoomInfo) -> RoomInfo:
        if room.status == "waiting" and not any(p.open for p in room.players):
            started = store.fill_and_start(room.code, "greedy")
            assert started is not None
            tables.start(started)
            return started
        return room

    def record_json(room: RoomInfo) -> str:
        if room.record is not None:
            return room.record
        session = tables.session_of(room)
        if session is None:
            raise HTTPException(404, "this match has not started")
        return core.record_text(session)

    # ------------------------------------------------------------ pages

    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / name, media_type="text/html")

    @app.get("/", include_in_schema=False)
    def lobby_page() -> FileResponse:
        return page("index.html")

    @app.get("/r/{code}", include_in_schema=False)
    def table_page(code: str) -> FileResponse:
        return page("table.html")

    @app.get("/m/{code}", include_in_schema=False)
    def result_page(code: str) -> FileResponse:
        return page("result.html")

    @app.get("/replay/{code}/{hand}", include_in_schema=False)
    def replay_page(code: str, hand: int) -> FileResponse:
        return page("replay.html")

    # ------------------------------------------------------------ API

    @app.get("/api/variants")
    def get_variants() -> list[VariantOut]:
        """Every variant with its house-rule switches, grouped, with rule IDs and explanations."""
        return core.variants()

    @app.get("/api/me")
    def get_me(request: Request) -> MeOut:
        uid = uid_of(request)
        u = store.user(uid)
        return MeOut(id=uid, name=None if u is None else u.name)

    @app.post("/api/me")
    def set_me(request: Request, body: NameBody) -> MeOut:
        """Pick (or change) the display name; a signed cookie remembers you."""
        name = clean_name(body.name)
        uid = store.save_user(uid_of(request), name)
        request.session["uid"] = uid
        return MeOut(id=uid, name=name)

    def make_room(request: Request, body: RoomBody) -> RoomOut:
        uid = need_user(request)
        user = store.user(uid)
        assert user is not None
        try:
            ruleset = core.build_ruleset(body.variant, body.switches, body.hands)
            core.check_bot(body.bot)
        except core.RoomError as exc:
            raise HTTPException(422, str(exc)) from None
        room = store.create_room(
            uid, user.name, body.variant, core.ruleset_json(ruleset), body.hands, body.turn_seconds,
            body.help_allowed, body.friends, body.bot, code=tables.new_code(),
        )
        return room_out(start_if_full(room), request, uid)

    @app.post("/api/rooms")
    def create_room(request: Request, body: RoomBody) -> RoomOut:
        """Create a room: variant, switches, hands, seats for friends, bot level, turn timer."""
        return make_room(request, body)

    @app.post("/api/practice")
    def practice(request: Request) -> RoomOut:
        """One click: a Longgang table against three greedy bots, 8 hands, no timer."""
        return make_room(request, RoomBody(turn_seconds=0))

    @app.get("/api/rooms/{code}")
    def get_room(request: Request, code: str) -> RoomOut:
        return room_out(room_or_404(code), request, uid_of(request))

    @app.post("/api/rooms/{code}/join")
    def join_room(request: Request, code: str) -> RoomOut:
        """Take an open seat (a friend's); the match starts when every seat is taken."""
        uid = need_user(request)
        room_or_404(code)
        user = store.user(uid)
        assert user is not None
        room = store.join(code, uid, user.name)
        assert room is not None
        if room.player_of(uid) is None:
            raise HTTPException(409, "no open seat in this room")
        return room_out(start_if_full(room), request, uid)

    @app.post("/api/rooms/{code}/start")
    def start_room(request: Request, code: str) -> RoomOut:
        """The owner starts now: open seats get bots."""
        uid = need_user(request)
        room = room_or_404(code)
        if room.owner != uid:
            raise HTTPException(403, "only the room's owner can start it")
        if room.status == "waiting":
            started = store.fill_and_start(code, next((b for b in room.bots if b), "greedy"))
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
                                       hands_played=hands, players=list(r.names), chips=chips))
        return out

    @app.get("/api/matches/{code}")
    def match_result(code: str) -> ResultOut:
        """The public result of a match: standings, every finished hand's score, fairness rows."""
        room = room_or_404(code)
        if room.status == "waiting":
            return ResultOut(code=code, variant=room.variant, status=room.status, players=list(room.names),
                             standings=[], hands=[], fairness=[])
        session = tables.session_of(room) if room.record is None else None
        players, ends, fair_rows, chips = core.result_hands(
            record_json(room) if session is None else core.record_text(session))
        if session is not None:
            fair_rows = core.fairness(session)
            chips = list(session.match.table.ledger.chips)
        return ResultOut(code=code, variant=room.variant, status=room.status, players=players,
                         standings=core.standings(players, chips), hands=ends, fairness=fair_rows)

    @app.get("/api/matches/{code}/record")
    def match_record(code: str) -> Response:
        """The record of the finished hands as JSON (``caishen verify`` accepts it)."""
        text = record_json(room_or_404(code))
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="caishen-{code}.json"'})

    @app.get("/api/matches/{code}/verify")
    def match_verify(code: str) -> VerifyOut:
        """``caishen verify`` run on this match's record."""
        return core.verify_text(record_json(room_or_404(code)))

    @app.post("/api/verify")
    async def verify_upload(request: Request, body: Annotated[dict[str, object], Body()]) -> VerifyOut:
        """``caishen verify`` on an uploaded record."""
        raw = await request.body()
        if len(raw) > MAX_RECORD_BYTES:
            raise HTTPException(413, "record too large")
        return core.verify_text(raw.decode("utf-8", "replace"))

    @app.get("/api/matches/{code}/hands/{hand}/replay")
    def replay(code: str, hand: int, seat: Annotated[int | None, Query(ge=0, le=3)] = None) -> ReplayOut:
        """A finished hand move by move, from one seat or from above (no seat)."""
        room = room_or_404(code)
        try:
            frames = core.replay_frames(record_json(room), hand, seat, code)
        except core.RoomError as exc:
            raise HTTPException(404, str(exc)) from None
        return ReplayOut(code=code, hand=hand, seat=seat, frames=frames)

    # ------------------------------------------------------------ the table

    @app.websocket("/ws/{code}")
    async def table_socket(ws: WebSocket, code: str) -> None:
        origin = ws.headers.get("origin")
        host = ws.headers.get("host", "")
        if origin is not None and urlsplit(origin).netloc != host:
            await ws.close(code=1008, reason="bad origin")
            return
        uid = ws.session.get("uid") if "session" in ws.scope else None
        room = store.room(code) if _CODE.match(code) else None
        if room is not None and not tables.owns(code):
            await relay(ws, tables.plan.socket_of(code), code)
            return
        live = tables.open(room) if room is not None else None
        player = room.player_of(uid) if room is not None and isinstance(uid, str) else None
        if room is None or live is None or player is None:
            await ws.close(code=1008, reason="not a player at this table")
            return
        peer = (ws.client.host, ws.client.port) if ws.client is not None else None
        handed = handed_off is not None and handed_off.take(peer)
        await ws.accept(headers=[(b"x-caishen-handed-off", b"1")] if handed else None)
        client = Client(player=player, send=ws.send_text)
        await live.join(client)
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                text = msg.get("text")
                if text is None:
                    data = msg.get("bytes") or b""
                    text = data.decode("utf-8", "replace") if len(data) <= MAX_MESSAGE_BYTES else "x" * (
                        MAX_MESSAGE_BYTES + 1)
                await live.receive(client, text)
        except WebSocketDisconnect:
            pass
        finally:
            await live.leave(client)

    return app

