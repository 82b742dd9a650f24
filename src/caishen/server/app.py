"""The game centre's web app (FastAPI): pages, the JSON API and the table's WebSocket.

:func:`create_app` opens the database (creating or upgrading its schema), resumes every
unfinished match, and returns the app; ``caishen serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.middleware.sessions import SessionMiddleware
from starlette.websockets import WebSocketState

from caishen.bots import caches
from caishen.server import accounts, clubs, collector, core, metrics, profiles
from caishen.server.conns import (
    ABORT_KEY,
    ABORT_SECONDS,
    CLOSE_ELSEWHERE,
    CLOSE_REMOVED,
    Outbox,
    close_socket,
)
from caishen.server.db import make_engine, now, upgrade
from caishen.server.hygiene import ServeOptions
from caishen.server.limits import Gate, HttpLimits, SharedBuckets
from caishen.server.logs import error_line, fields, log
from caishen.server.nodes import Node, NodeError
from caishen.server.protocol import (
    MAX_MESSAGE_BYTES,
    ApiError,
    LoggedOutOut,
    MeOut,
    NameBody,
    RoomClubOut,
    SigningKeyOut,
    VariantOut,
    clean_name,
    parse_since,
)
from caishen.server.store import RoomInfo, Store, unavailable
from caishen.server.tables import STORAGE_LOST, Client, Tables, address_token, watchers
from caishen.server.tables import routes as rooms

STATIC = Path(__file__).resolve().parent / "static"
READY_SECONDS = 3.0  # /readyz: a database that does not answer in this time is not ready
SESSION_DAYS = 30  # a cookie unused this long has expired; every answer renews it
_CODE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def peer_host(ws: WebSocket) -> str:
    """The network address of the person behind ``ws`` (for the same-address warning)."""
    return ws.client.host or "" if ws.client is not None else ""


def create_app(db_url: str, limits: HttpLimits | None = None, options: ServeOptions | None = None,
               redis: str | None = None) -> FastAPI:
    """The app on ``db_url``; ``limits``: the HTTP limits (:mod:`caishen.server.limits`);
    ``options``: ``caishen serve``'s (:class:`caishen.server.hygiene.ServeOptions`); ``redis``: a
    Redis URL, which makes this process a game-centre node (:mod:`caishen.server.nodes`)."""
    engine = make_engine(db_url)
    upgrade(engine)
    store = Store(engine)
    options = options or ServeOptions()
    tables = Tables(store, evict_after=options.evict_after, unopened_hours=options.unopened_hours)
    gate = Gate(limits, SharedBuckets(redis) if redis else None)  # a node: one budget on every node
    node = Node(redis, tables, store) if redis else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # What start-up made (modules, rule tables) lives as long as the process, and what has
        # lived a second mostly does too: frozen, a full collection no longer stops every table
        # for up to half a second (caishen.server.collector).
        caches.set_cache_share(options.bot_cache_share)  # a peak that does not grow with the matches served
        collector.settle()
        if node is None:
            tables.resume_all()
        else:  # a node takes tables over when their connections come (no node may take them all)
            node.start()
        collecting = asyncio.ensure_future(collector.keep_collecting())
        sweeping = asyncio.ensure_future(tables.keep_sweeping(also=gate.sweep))
        checkpointing = asyncio.ensure_future(store.keep_checkpointing())
        watching = asyncio.ensure_future(store.keep_watching())
        yield
        watching.cancel()
        if node is not None:  # drained already on SIGTERM under `caishen serve` (main.py), else now
            await node.stop()  # the leases let go of: other nodes may take the tables at once
        sweeping.cancel()
        collecting.cancel()
        checkpointing.cancel()
        collector.release()
        store.close()
        engine.dispose()

    app = FastAPI(
        title="caishen game centre", version="1", lifespan=lifespan,
        description="Rooms, tables, records and fairness checks of the caishen (财神) mahjong game centre.",
    )
    app.add_middleware(
        SessionMiddleware, secret_key=store.secret(), session_cookie="caishen", max_age=SESSION_DAYS * 24 * 3600,
        same_site="lax",
    )
    app.state.store = store
    # a node drains before the server closes its connections (caishen.server.main); None: one
    # process, which stops as it always has (uvicorn closes the pages with 1012, then the lifespan ends)
    app.state.drain = node.drain if node is not None else None

    @app.exception_handler(DBAPIError)
    async def storage_error(request: Request, exc: DBAPIError) -> Response:
        """The database away (503, try again) or a row taken by a concurrent request (409):
        a clear answer, never a 500 (docs/server.md, "Faults")."""
        if unavailable(exc):
            return JSONResponse({"detail": f"storage_unavailable: {STORAGE_LOST}"}, status_code=503,
                                headers={"Retry-After": "5"})
        return JSONResponse({"detail": "conflict: another request changed this at the same time; try again"},
                            status_code=409)
    @app.exception_handler(ApiError)
    async def refused(request: Request, exc: Exception) -> Response:
        """A request a part of the centre refused (accounts, clubs, profiles): its status and
        ``{"detail", "code"}``."""
        assert isinstance(exc, ApiError)
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
        return JSONResponse({"detail": str(exc), "code": exc.code}, status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        """422 with the errors, as FastAPI answers, but as ASCII JSON: a lone surrogate the
        client sent (``"\\ud800"``) is echoed escaped instead of failing the answer (a 500)."""
        body = json.dumps({"detail": jsonable_encoder(exc.errors())}, ensure_ascii=True)
        return Response(body, status_code=422, media_type="application/json")
    app.state.tables = tables
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------ helpers

    def uid_of(request: Request) -> str | None:
        uid = person_of(request.session)
        if uid is not None and "sid" not in request.session:  # a cookie from before sessions: one now
            request.session["sid"] = store.new_session(uid)
        day = now().date().toordinal()
        if uid is not None and request.session.get("day") != day:
            request.session["day"] = day  # the cookie is sent again: 30 more days from today
        return uid

    def person_of(session: dict[str, object]) -> str | None:
        """The person a signed cookie names: through its session (used in the last 30 days and
        not revoked), or, for a cookie from before sessions, the person itself unless they
        logged out everywhere since. A cookie that names nobody any more is emptied."""
        sid, uid = session.get("sid"), session.get("uid")
        t = now()
        if isinstance(sid, str):
            owner = store.session_user(sid, t - timedelta(days=SESSION_DAYS), t - timedelta(hours=1))
            if owner is not None and owner == uid:
                return owner
        elif isinstance(uid, str) and store.cookie_without_session_ok(uid):
            return uid
        session.clear()
        return None

    def limit(request: Request, kind: str, uid: str | None) -> None:
        """429 past the person's or the address's budget for ``kind`` (caishen.server.limits)."""
        gate.check(kind, uid, request.client.host if request.client is not None else None)

    def need_user(request: Request) -> str:
        uid = uid_of(request)
        if uid is None:
            raise ApiError("pick a name first (POST /api/me)", code="not_signed_in", status=401)
        return uid

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

    @app.get("/api/signing-key")
    def get_signing_key() -> SigningKeyOut:
        """The key every record this centre serves is signed with: check a downloaded record
        against it (`caishen verify --key KEY record.json`), not against the key the record names."""
        return SigningKeyOut(key=core.centre_key())

    @app.get("/api/variants")
    def get_variants() -> list[VariantOut]:
        """Every variant with its house-rule switches, grouped, with rule IDs and explanations."""
        return core.variants()

    @app.get("/api/bot-levels")
    def get_bot_levels() -> list[str]:
        """The bot levels a room may choose: random, greedy, strong, learned, then the operator's
        (``caishen serve --players``)."""
        return list(core.bot_levels())

    @app.get("/api/me")
    def get_me(request: Request) -> MeOut:
        uid = uid_of(request)
        u = store.user(uid)
        return MeOut(id=uid, name=None if u is None else u.name)

    @app.post("/api/me")
    def set_me(request: Request, body: NameBody) -> MeOut:
        """Pick (or change) the display name; a signed cookie remembers you."""
        limit(request, "names", uid_of(request))
        name = clean_name(body.name)
        known = uid_of(request)
        uid = store.save_user(known, name)
        if uid != known:
            request.session.clear()
            request.session.update(uid=uid, sid=store.new_session(uid), day=now().date().toordinal())
        return MeOut(id=uid, name=name)

    accounts.install(app, store, gate, tables, uid_of)  # claim, log in and out, sessions (issue 30)
    profiles.install(app, store, uid_of)  # profiles, recent players (issue 30)

    @app.post("/api/logout-everywhere")
    def logout_everywhere(request: Request) -> LoggedOutOut:
        """End every session of yours, on every device (this one too): each must pick the name
        again, and their open tables close (4002). Your matches stay yours: a new name on a
        new session is a new person, though."""
        uid = need_user(request)
        limit(request, "sessions", uid)
        ended = store.revoke_sessions(uid)
        tables.sign_out(uid)
        request.session.clear()
        return LoggedOutOut(sessions=ended)

    def seat_check(code: str, uid: str, written: bool) -> None:
        """A club's room seats only its members (clubs.check_seat); once a seat is ``written``,
        a member removed meanwhile loses it (clubs.recheck_seat)."""
        (clubs.recheck_seat if written else clubs.check_seat)(club_store, code, uid)

    def club_of(code: str) -> RoomClubOut | None:
        """The club room ``code`` belongs to, if any (clubs.room_club)."""
        return clubs.room_club(club_store, code)

    make_room = rooms.install(app, store, gate, tables, uid_of, need_user, limit, seat_check, club_of)  # rooms, matches
    club_store = clubs.install(app, store, gate, uid_of, make_room)  # clubs, their tables (issue 30)

    # ------------------------------------------------------------ health

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        """The process is up (it answers): for a liveness check."""
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> Response:
        """The database answers (a write lock and a write on SQLite, a query elsewhere), and a
        node's Redis, within ``READY_SECONDS``: 200, else 503; 503 too for a node that drains
        (it is stopping).
        For a load balancer's readiness check."""
        if node is not None and node.draining:
            return Response('{"status":"draining"}', status_code=503, media_type="application/json")
        try:
            await asyncio.wait_for(asyncio.to_thread(store.probe), READY_SECONDS)
        except Exception as exc:  # noqa: BLE001 - any failure, a timeout too, is "not ready"
            metrics.storage_ok.set(0)
            reason = error_line(exc)
            return Response(f'{{"status":"storage_unavailable","reason":{json.dumps(reason)}}}', status_code=503,
                            media_type="application/json")
        if node is not None:  # a node plays no table without its Redis (the leases)
            try:
                await asyncio.wait_for(node.leases.redis.ping(), READY_SECONDS)
            except Exception as exc:  # noqa: BLE001 - any failure, a timeout too, is "not ready"
                reason = error_line(exc)
                return Response(f'{{"status":"redis_unavailable","reason":{json.dumps(reason)}}}', status_code=503,
                                media_type="application/json")
        return Response('{"status":"ready"}', media_type="application/json")

    @app.get("/metrics", include_in_schema=False)
    def prometheus_metrics() -> Response:
        """Every metric of this process in the Prometheus text format (:mod:`caishen.server.metrics`)."""
        return Response(metrics.render(), media_type=metrics.CONTENT_TYPE)

    # ------------------------------------------------------------ the table

    @app.websocket("/ws/{code}")
    async def table_socket(ws: WebSocket, code: str) -> None:
        """A table's connection (:func:`serve_table`); the database away while it is looked
        up or served (a room, a session, a person read) closes it with 1013, "try again later",
        as the page understands (it connects again), never an application error."""
        try:
            await serve_table(ws, code)
        except Exception as exc:
            if not unavailable(exc):
                raise
            log.warning("a table's connection met the database away", extra=fields(
                event="ws_storage_unavailable", room=code, error=type(exc).__name__))
            with contextlib.suppress(Exception):
                if ws.client_state == WebSocketState.CONNECTING:
                    await ws.accept()
                await ws.close(code=CLOSE_ELSEWHERE, reason="storage_unavailable")

    async def serve_table(ws: WebSocket, code: str) -> None:
        origin = ws.headers.get("origin")
        host = ws.headers.get("host", "")
        if origin is not None and urlsplit(origin).netloc != host:
            await ws.close(code=1008, reason="bad origin")
            return
        # the person and the room are read in a thread, as the table is opened (Tables.open_soon):
        # the event loop runs every other table meanwhile
        uid = await asyncio.to_thread(person_of, ws.session) if "session" in ws.scope else None
        room = await asyncio.to_thread(store.room, code) if _CODE.match(code) else None
        if room is not None and room.status == "damaged":
            await ws.accept()  # the close's code and reason reach the client (before it, HTTP 403)
            await ws.close(code=1008, reason="room damaged")
            return
        player = room.player_of(uid) if room is not None and isinstance(uid, str) else None
        if room is not None and player is not None and room.players[player].removed:
            await ws.accept()  # told why, and the page does not come back (static/table.js)
            await ws.close(code=CLOSE_REMOVED, reason="removed from this table by its owner")
            return
        if room is not None and player is None and ws.query_params.get("watch") == "1":
            await watch(ws, room, uid)  # a spectator (caishen.server.tables.watchers)
            return
        try:
            if node is not None:  # a stranger never makes a node take a table over
                live = await node.open(room) if room is not None and player is not None else None
            else:
                live = await tables.open_soon(room) if room is not None else None
        except NodeError as exc:  # another node runs it: relayed there; else the page tries again (1013)
            if exc.code == "owned_elsewhere" and node is not None and isinstance(uid, str) and player is not None:
                await ws.accept(headers=[(b"x-caishen-relayed", b"node")])
                await node.relay(code, uid, player, ws.query_params.get("contribute") == "1",
                                 ws.query_params.get("since"), functools.partial(relayed_message, ws), ws.send_text,
                                 functools.partial(close_socket, ws.close), peer=peer_host(ws))
                return
            await ws.accept()
            await ws.close(code=CLOSE_ELSEWHERE, reason=exc.code)
            return
        if room is None or live is None or player is None:
            await ws.close(code=1008, reason="not a player at this table")
            return
        await ws.accept()
        assert isinstance(uid, str)
        client = Client(player=player, outbox=Outbox(ws.send_text), uid=uid, person=tables.person(uid),
                        contributes=ws.query_params.get("contribute") == "1",
                        since=parse_since(ws.query_params.get("since")), addr=address_token(room.seed, peer_host(ws)))
        metrics.connections.inc()
        try:
            await live.serve(client, functools.partial(relayed_message, ws))
        finally:
            metrics.connections.dec()
            tables.release(uid)
        if client.outbox.closed is not None and client.outbox.closed != 1006:
            await close_socket(ws.close, client.outbox.closed, client.outbox.reason)
            abort = ws.scope.get(ABORT_KEY)
            if callable(abort):  # a peer that does not read would hold its socket open
                asyncio.get_running_loop().call_later(ABORT_SECONDS, abort)

    async def watch(ws: WebSocket, room: RoomInfo, uid: str | None) -> None:
        """A spectator's connection (``/ws/CODE?watch=1``): at the table where it runs, through
        the node relay if another node runs it; it never makes a node take a table over.
        Refused (an error, then 1008 with the code as the reason): ``not_signed_in``,
        ``spectators_off``, ``not_playing``, ``too_many_spectators``."""
        user = await asyncio.to_thread(store.user, uid) if isinstance(uid, str) else None
        live = tables.live.get(room.code)
        if live is None and node is None and room.status == "playing":
            live = await tables.open_soon(room)  # one process: its owner rebuilds the table, as for anyone who connects
        refused = watchers.refusal(room, live.watching if live is not None else None)
        if user is None:
            refused = ("not_signed_in", "pick a name first (POST /api/me)")
        if refused is not None:
            await ws.accept()
            with contextlib.suppress(Exception):
                await ws.send_text(watchers.error_json(*refused))
            await close_socket(ws.close, 1008, refused[0])
            return
        assert user is not None and isinstance(uid, str)
        if live is None:  # another node runs it (relayed there), or none does now (the page tries again)
            try:
                holder = await node.leases.holder(room.code) if node is not None else None
            except Exception:  # noqa: BLE001 - Redis away: try again
                holder = None
            if node is not None and holder is not None and holder != node.leases.token:
                await ws.accept(headers=[(b"x-caishen-relayed", b"node")])
                await node.relay(room.code, uid, -1, False, None, functools.partial(relayed_message, ws), ws.send_text,
                                 functools.partial(close_socket, ws.close), peer=peer_host(ws), watch=user.name)
                return
            await ws.accept()
            await close_socket(ws.close, CLOSE_ELSEWHERE, "not_running")
            return
        await ws.accept()
        w = watchers.Watcher(uid=uid, name=user.name, outbox=Outbox(ws.send_text), person=tables.person(uid))
        metrics.connections.inc()
        try:
            await watchers.serve(live.watching, w, functools.partial(relayed_message, ws),
                                 lambda: None if live.lock.locked() else live.watch_public())
        finally:
            metrics.connections.dec()
            tables.release(uid)
        if w.outbox.closed is not None and w.outbox.closed != 1006:
            await close_socket(ws.close, w.outbox.closed, w.outbox.reason)

    async def relayed_message(ws: WebSocket) -> str | None:
        """The page's next message (None once it has gone), for its table here or a relay to
        another node."""
        try:
            msg = await ws.receive()
        except (WebSocketDisconnect, RuntimeError):
            return None
        if msg["type"] == "websocket.disconnect":
            return None
        text = msg.get("text")
        if text is None:
            data = msg.get("bytes") or b""
            text = data.decode("utf-8", "replace") if len(data) <= MAX_MESSAGE_BYTES else "x" * (MAX_MESSAGE_BYTES + 1)
        return str(text)

    return app

