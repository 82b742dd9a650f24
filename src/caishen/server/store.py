"""What the game centre reads and writes: people, rooms, hands and moves (over :mod:`.db`).

Every function opens its own short transaction. :meth:`Store.sync` is the durability point:
it writes the moves, hand starts and hand ends a live session has made since the last call,
in one transaction, before the table tells anyone (``caishen.server.tables``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import queue
import secrets
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, event, exists, func, insert, select, update
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from caishen.errors import CaishenError
from caishen.server import contrib, core, metrics
from caishen.server.db import (
    SQLITE_BUSY_SECONDS,
    HandRow,
    Member,
    MoveRow,
    Room,
    SessionRow,
    Setting,
    User,
    now,
    sqlite_path,
)
from caishen.server.logs import error_line, fields, log
from caishen.table.record import Mix

if sys.platform != "win32":  # the writers' lock file (one process per database on Windows)
    import fcntl

PROBE_BUSY_MS = 500  # Store.probe: an SQLite file still locked after this is "not answering"
SQLITE_BUSY_MS = SQLITE_BUSY_SECONDS * 1000  # every other SQLite transaction (db.make_engine)
LOOP_BUSY_MS = 50  # the event loop's commit on SQLite waits this long for a lock, then the writer thread takes it
WRITE_BUSY_MS = 2_000  # the writer thread's commit on SQLite: past this, the tables pause (storage_unavailable)
WATCH_SECONDS = 5.0  # Store.keep_watching: the database is probed this often, tables or none
CHECKPOINT_SECONDS = 1.0  # SQLite: the write-ahead log is copied into the database this often, off the event loop
RETRY_SECONDS = 0.25  # a paused table's first probe of the database; then twice as long each time...
RETRY_MAX_SECONDS = 4.0  # ... up to this
TAKE_OVER_LOCK_MS = 3_000  # Store.take_over waits this long for a room row another writer holds
# Room codes: 13 characters of 31 (64 random bits: cannot be enumerated) that are easy to read
# out and type: small letters and digits with no 0/o, 1/l/i look-alikes, no "_" or "-" (a
# review: "PO_vksFS2o7B" was hard to say or type). Older codes (URL-safe base64) still open.
CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
CODE_LENGTH = 13


def new_code() -> str:
    """A new room code: random, unguessable, easy to type."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


@dataclass(frozen=True, slots=True)
class PlayerSlot:
    """Player ``i`` of a room: a person (``user``), a bot (``bot`` level), or an open seat."""

    name: str | None
    user: str | None
    bot: str | None
    # the room's owner removed this person from the table (issue 30, same-address warning): a
    # bot plays the seat to the end and the person may not come back to it
    removed: bool = False

    @property
    def open(self) -> bool:
        return self.user is None and self.bot is None


@dataclass(frozen=True, slots=True)
class RoomInfo:
    code: str
    owner: str
    variant: str
    ruleset: str  # JSON of every switch
    hands: int
    turn_seconds: int
    help_allowed: bool
    players: tuple[PlayerSlot, ...]
    seed: bytes
    status: str
    created: str
    record: str | None
    seat_draw: bool = False  # seated by the draw 校位定莊 (L2)
    damage: str | None = None  # status "damaged": why its stored moves cannot be replayed
    pace: str = "normal"  # how fast the bots move: normal, fast, instant
    stand_in: str = "discard"  # what an away person's stand-in plays (托管): discard or full
    spectators: bool = False  # friends may watch (public information only, one move behind)
    chat: bool = False  # the people at the table may write free text (plain, length-limited)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name or f"seat {i + 1}" for i, p in enumerate(self.players))

    @property
    def bots(self) -> tuple[str | None, ...]:
        return tuple(p.bot for p in self.players)

    def player_of(self, user: str) -> int | None:
        return next((i for i, p in enumerate(self.players) if p.user == user), None)


@dataclass(slots=True)
class Stored:
    """How much of a live session is in the database: hands dealt, moves of the hand in play,
    whether that hand's end and the match's end are written."""

    hands: int = 0
    moves: int = 0
    hand_done: bool = False
    match_done: bool = False


def _slots(text: str) -> tuple[PlayerSlot, ...]:
    return tuple(PlayerSlot(p.get("name"), p.get("user"), p.get("bot"), bool(p.get("removed"))) for p in json.loads(text))


def _slots_json(players: Sequence[PlayerSlot]) -> str:
    return json.dumps([{"name": p.name, "user": p.user, "bot": p.bot} | ({"removed": True} if p.removed else {})
                       for p in players], ensure_ascii=False)


def _info(r: Room) -> RoomInfo:
    return RoomInfo(
        code=r.code, owner=r.owner, variant=r.variant, ruleset=r.ruleset, hands=r.hands,
        turn_seconds=r.turn_seconds, help_allowed=r.help_allowed, players=_slots(r.players),
        seed=bytes.fromhex(r.seed), status=r.status, created=r.created_at.isoformat(timespec="seconds"),
        record=r.record, seat_draw=r.seat_draw, damage=r.damage, pace=r.pace, stand_in=r.stand_in,
        spectators=r.spectators, chat=r.chat,
    )


@dataclass(slots=True)
class Batch:
    """The rows one table's change adds: a new hand, moves, a finished hand, the match's end."""

    code: str
    hand: dict[str, object] | None = None
    # room, hand, seq, seat, action, and who vouches for it: sig (a signature, "server",
    # "unsigned"), signer (the signature's public key)
    moves: list[tuple[str, int, int, int, str, str | None, str | None]] = field(default_factory=list)
    at: datetime = field(default_factory=now)
    finished: tuple[int, dict[str, object]] | None = None
    over: dict[str, object] | None = None
    stored: Stored = field(default_factory=Stored)  # how much is stored once this batch is
    # the writer's fencing number (a node's: docs/server.md, "Nodes"); None: one process, no fence
    epoch: int | None = None


class StoreError(RuntimeError):
    """A write that would leave a gap in a room's stored moves (never sent to the database)."""


class Fenced(CaishenError):
    """A write refused because its epoch is no longer the room's: another node has taken the
    table over since this one did (docs/server.md, "Nodes"). Nothing of the batch is stored."""

    code = "fenced"


def _settle(futures: Sequence[asyncio.Future[None]], errors: Sequence[BaseException | None]) -> None:
    for fut, error in zip(futures, errors, strict=True):
        if fut.done():
            continue
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(error)


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database is away or busy (unreachable, connection lost, file
    locked past the timeout, disk full), not that the rows were wrong: try again later."""
    return isinstance(exc, (OperationalError, OSError, TimeoutError)) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated)


def _locked(exc: BaseException) -> bool:
    """An SQLite file locked by another writer (not: the database away)."""
    return isinstance(exc, OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


MOVES_PER_INSERT = 120  # 960 parameters (8 a row): under SQLite's oldest limit (999)


def _no_autocheckpoint(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
    """SQLite copies its write-ahead log into the database file when a commit finds it past
    1,000 pages (an automatic checkpoint), and waits for the disk twice doing so: 25-50 ms
    inside the event loop's group commit, or inside a request's transaction that holds the
    writers' turn the loop's commit waits for; every table waited (issue 31: the slowest 1 % of
    moves at 100 tables came in such stalls). The centre's connections leave it to
    :meth:`Store.checkpoint`, run in a thread every ``CHECKPOINT_SECONDS``."""
    if not record.info.get("checkpoints_elsewhere"):
        dbapi_conn.execute("PRAGMA wal_autocheckpoint = 0")
        record.info["checkpoints_elsewhere"] = True


def _param_mark(engine: Engine) -> str | None:
    """The placeholder of the engine's driver in SQL written here, or None (another style:
    SQLAlchemy Core writes the statement)."""
    return {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(engine.dialect.paramstyle)


def _insert_moves_sql(engine: Engine) -> list[str] | None:
    """``sql[n]``: the INSERT of ``n`` move rows in one statement, in the driver's own parameter
    style (None: a style not written here; the writer then goes through SQLAlchemy Core)."""
    mark = _param_mark(engine)
    if mark is None:
        return None
    row = f"({', '.join([mark] * 8)})"
    return [f"INSERT INTO moves (room, hand, seq, seat, action, sig, signer, at) VALUES {', '.join([row] * n)}"
            for n in range(MOVES_PER_INSERT + 1)]


def _moves_of(db: Session, code: str) -> list[list[core.StoredMove]]:
    hands = list(db.scalars(select(HandRow.index).where(HandRow.room == code).order_by(HandRow.index)))
    moves: list[list[core.StoredMove]] = [[] for _ in hands]
    for m in db.scalars(select(MoveRow).where(MoveRow.room == code).order_by(MoveRow.hand, MoveRow.seq)):
        moves[m.hand].append((m.seat, m.action, m.sig, m.signer))
    return moves


class Store:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._queue: queue.SimpleQueue[tuple[list[tuple[Batch, asyncio.Future[None]]], asyncio.AbstractEventLoop]] = (
            queue.SimpleQueue())
        # batches waiting for the end of the event loop's turn, by loop
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[Batch, asyncio.Future[None]]]] = {}
        self._writer: threading.Thread | None = None
        # The move rows go to the driver as plain values, many rows to one INSERT statement:
        # SQLAlchemy's per-row parameter handling cost more than the database's own work
        # (measured: 0.64 against 0.36 ms of CPU for 60 moves of 12 tables on SQLite), and
        # the driver lets go of the GIL for every statement it runs; getting it back while
        # the event loop is busy takes up to the 5 ms switch interval, so an executemany of
        # 170 rows made a commit take 8 ms (median) to 130 ms at 100 tables. The time column
        # is converted once per batch, the way SQLAlchemy would store it.
        self._insert_moves = _insert_moves_sql(engine)
        self._at = MoveRow.__table__.c.at.type.dialect_impl(engine.dialect).bind_processor(engine.dialect)
        # The same for a hand's row, written when it is dealt and when it ends: building the
        # statement through SQLAlchemy Core (its cache key, each value's coercion) cost about
        # 0.5 ms a statement, more than the database's own work.
        self._mark = _param_mark(engine)
        self._hand_sql: dict[tuple[str, ...], str] = {}
        # SQLite lets one process write at a time, and one that finds the file locked sleeps
        # and tries again (1, 2, 5, 10 ms... up to the busy timeout), which made the tail of
        # the latency with two worker processes. Their writers take turns on a lock file
        # instead: the next one wakes as soon as the lock is let go.
        path = sqlite_path(engine.url.render_as_string(hide_password=False))
        # Where commits run. A thread that lets go of the GIL (the driver does, for every
        # statement, and so does the writers' lock) gets it back only after the event loop's
        # 5 ms switch interval when the loop is busy: at 100 tables a move then waited 31 ms
        # (median) for a commit that is a few ms of work. An SQLite commit does not wait for the
        # disk (WAL, synchronous=NORMAL), so the event loop does it itself: p99 at 100 tables
        # fell from 108-122 to 73-84 ms (docs/server.md). A database server's commit waits
        # for the server's own disk, which the loop should not: that stays in the thread.
        self._sqlite = engine.dialect.name == "sqlite"
        self._in_loop = self._sqlite
        if self._sqlite and not event.contains(engine, "checkout", _no_autocheckpoint):
            event.listen(engine, "checkout", _no_autocheckpoint)  # once, however many stores share the engine
        # the SQLite writers of this process take turns too (the lock file is one per process)
        self._local_turn = threading.Lock()
        self._up: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
        self._turns = (open(path + "-writers", "a+b")  # noqa: SIM115 - held as long as the store
                       if path and path != ":memory:" and sys.platform != "win32" else None)

    def probe(self) -> None:
        """Raise unless the database answers now: on SQLite, the write lock is taken, a write
        that changes nothing is made and all is let go (a file locked by another writer past
        ``PROBE_BUSY_MS`` fails, and so does a file that cannot be written: SQLite opens it
        read-only and takes the lock all the same); elsewhere a query."""
        with self.engine.connect() as conn:
            if self.engine.dialect.name == "sqlite":
                conn.exec_driver_sql(f"PRAGMA busy_timeout = {PROBE_BUSY_MS}")
                try:
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                    try:
                        conn.exec_driver_sql("UPDATE rooms SET epoch = epoch WHERE 0")
                    finally:
                        conn.exec_driver_sql("ROLLBACK")
                finally:
                    conn.exec_driver_sql(f"PRAGMA busy_timeout = {SQLITE_BUSY_MS}")
            else:
                conn.exec_driver_sql("SELECT 1")

    def checkpoint(self) -> None:
        """SQLite: copy the write-ahead log into the database file as far as no reader still
        needs it (``PASSIVE``: it never waits for a reader or a writer, and commits go on
        meanwhile); the centre's commits do not (``_no_autocheckpoint``). Called from a thread every
        ``CHECKPOINT_SECONDS`` by :meth:`keep_checkpointing`. Elsewhere: nothing."""
        if self._sqlite:
            with self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    async def keep_checkpointing(self, seconds: float = CHECKPOINT_SECONDS) -> None:
        """:meth:`checkpoint` every ``seconds``, in a thread, until cancelled; a database away
        or busy is tried again next time."""
        if not self._sqlite:
            return
        while True:
            await asyncio.sleep(seconds)  # the checkpoints' pace, not a wait for a state
            try:
                await asyncio.to_thread(self.checkpoint)
            except Exception:  # noqa: BLE001 - away or locked: the next one copies what this did not
                continue

    async def keep_watching(self, seconds: float = WATCH_SECONDS) -> None:
        """:meth:`probe` every ``seconds``, in a thread, until cancelled, and log when the
        database stops answering (``database_unavailable``, with the reason) and when it answers
        again (``database_available``, with the seconds it was away): the tables log only when
        one of them writes, and a centre with no table playing said nothing (an operator's
        review). A probe still running (a database that hangs) is not started again."""
        lost: float | None = None
        probe: asyncio.Future[None] | None = None
        while True:
            await asyncio.sleep(seconds)  # the probes' pace, not a wait for a state
            if probe is None or probe.done():
                probe = asyncio.ensure_future(asyncio.to_thread(self.probe))
            done, _ = await asyncio.wait({probe}, timeout=seconds)
            failed = probe.exception() if done else TimeoutError(f"no answer in {seconds:g} s")
            if failed is not None and lost is None:
                lost = time.monotonic()
                metrics.storage_ok.set(0)
                log.warning("the database does not answer", extra=fields(
                    event="database_unavailable", error=error_line(failed)))
            elif failed is None and lost is not None:
                metrics.storage_ok.set(1)
                log.warning("the database answers again", extra=fields(
                    event="database_available", seconds=round(time.monotonic() - lost, 1)))
                lost = None

    def close(self) -> None:
        """Let go of the writers' lock file (the engine is the caller's)."""
        if self._turns is not None:
            self._turns.close()
            self._turns = None

    # ------------------------------------------------------------ settings, people

    def secret(self) -> str:
        """The cookie-signing key, made once and kept in the database."""
        with Session(self.engine) as db, db.begin():
            row = db.get(Setting, "cookie_secret")
            if row is None:
                row = Setting(key="cookie_secret", value=secrets.token_urlsafe(32))
                db.add(row)
            return row.value

    def user(self, uid: str | None) -> User | None:
        if not uid:
            return None
        with Session(self.engine) as db:
            u = db.get(User, uid)
            if u is not None:
                db.expunge(u)
            return u

    def save_user(self, uid: str | None, name: str) -> str:
        """Create a person (new id) or rename one; returns the id."""
        with Session(self.engine) as db, db.begin():
            u = db.get(User, uid) if uid else None
            if u is None:
                uid = secrets.token_urlsafe(18)
                db.add(User(id=uid, name=name, created_at=now()))
            else:
                u.name = name
            assert uid is not None
            return uid

    # ------------------------------------------------------------ sessions

    def new_session(self, uid: str) -> str:
        """A new session of person ``uid``: its id, for the signed cookie."""
        sid = secrets.token_urlsafe(32)
        at = now()
        with Session(self.engine) as db, db.begin():
            db.add(SessionRow(id=sid, user=uid, created_at=at, last_seen=at))
        return sid

    def session_user(self, sid: str, since: datetime, touch_before: datetime) -> str | None:
        """The person of session ``sid`` if it was used since ``since`` (else None); its use is
        written down when last written before ``touch_before`` (not on every request)."""
        with Session(self.engine) as db, db.begin():
            row = db.get(SessionRow, sid)
            if row is None or row.last_seen < since:
                return None
            if row.last_seen < touch_before:
                row.last_seen = now()
            return row.user

    def cookie_without_session_ok(self, uid: str) -> bool:
        """A cookie from before sessions (0003) names only ``uid``: good while the person exists
        and has not logged out everywhere since."""
        with Session(self.engine) as db:
            u = db.get(User, uid)
            return u is not None and u.revoked_at is None

    def revoke_sessions(self, uid: str) -> int:
        """Log ``uid`` out everywhere: every session of theirs ends, and so do their cookies
        from before sessions. How many sessions ended."""
        with Session(self.engine) as db, db.begin():
            rows = list(db.scalars(select(SessionRow).where(SessionRow.user == uid)))
            for row in rows:
                db.delete(row)
            u = db.get(User, uid)
            if u is not None:
                u.revoked_at = now()
            return len(rows)

    # ------------------------------------------------------------ rooms

    def create_room(
        self, owner: str, owner_name: str, variant: str, ruleset: str, hands: int, turn_seconds: int,
        help_allowed: bool, friends: int, bot: str, code: str | None = None, pace: str = "normal",
        stand_in: str = "discard", spectators: bool = False, chat: bool = False,
    ) -> RoomInfo:
        """A new waiting room, with ``code`` if given (the tests' choice), else a :func:`new_code`."""
        players = [PlayerSlot(owner_name, owner, None)]
        players += [PlayerSlot(None, None, None) for _ in range(friends)]
        players += [PlayerSlot(f"{bot} bot {i + 1}", None, bot) for i in range(3 - friends)]
        with Session(self.engine) as db, db.begin():
            code = code or new_code()
            room = Room(
                code=code, owner=owner, variant=variant, ruleset=ruleset, hands=hands,
                turn_seconds=turn_seconds, help_allowed=help_allowed, players=_slots_json(players),
                seed=core.new_seed().hex(), status="waiting", created_at=now(), seat_draw=True, pace=pace, stand_in=stand_in,
                spectators=spectators, chat=chat,
            )
            db.add(room)
            db.flush()
            db.add(Member(room=code, player=0, user=owner))
            return _info(room)

    def room(self, code: str) -> RoomInfo | None:
        with Session(self.engine) as db:
            r = db.get(Room, code)
            return None if r is None else _info(r)

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """One writer at a time for a read-then-write transaction on a room. PostgreSQL locks
        the room's row (``FOR UPDATE``); SQLite has no row locks, and two transactions that
        read the same seats and then both write made "database is locked" (a 500) or gave one
        seat to two people, losing the other's. On SQLite they take the writers' turn instead
        (this process's lock, then the lock file all processes share): the second reads what
        the first wrote."""
        if not self._sqlite:
            yield
            return
        with self._local_turn:
            if self._turns is None or sys.platform == "win32":
                yield
                return
            fcntl.flock(self._turns, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(self._turns, fcntl.LOCK_UN)

    def join(self, code: str, uid: str, name: str) -> RoomInfo | None:
        """Take the first open seat of a waiting room (nothing if already seated or full):
        one transaction, the room's row locked (:meth:`_turn`)."""
        with self._turn(), Session(self.engine) as db, db.begin():
            r = db.get(Room, code, with_for_update=True)
            if r is None:
                return None
            players = list(_slots(r.players))
            if r.status == "waiting" and all(p.user != uid for p in players):
                i = next((i for i, p in enumerate(players) if p.open), None)
                if i is not None:
                    players[i] = PlayerSlot(name, uid, None)
                    r.players = _slots_json(players)
                    db.add(Member(room=code, player=i, user=uid))
            return _info(r)

    def remove_player(self, code: str, player: int) -> RoomInfo | None:
        """Person ``player`` of a playing room is removed from its table for good (the owner's
        choice after a same-address warning): one transaction, the room's row locked."""
        with self._turn(), Session(self.engine) as db, db.begin():
            r = db.get(Room, code, with_for_update=True)
            if r is None:
                return None
            players = list(_slots(r.players))
            if r.status == "playing" and players[player].user is not None:
                players[player] = dataclasses.replace(players[player], removed=True)
                r.players = _slots_json(players)
            return _info(r)

    def fill_and_start(self, code: str, bot: str) -> RoomInfo | None:
        """Open seats get bots; the room is playing from now on (a room no longer waiting is
        left as it is: whoever started it first did). One transaction, the row locked."""
        with self._turn(), Session(self.engine) as db, db.begin():
            r = db.get(Room, code, with_for_update=True)
            if r is None:
                return None
            if r.status != "waiting":
                return _info(r)
            # numbered after the room's own bots (``create_room``'s 1, 2, ...): every bot's
            # number differs, whatever its level (a seat's number was a duplicate before)
            slots = _slots(r.players)
            numbers = iter(range(sum(p.bot is not None for p in slots) + 1, 5))
            players = [PlayerSlot(f"{bot} bot {next(numbers)}", None, bot) if p.open else p for p in slots]
            r.players = _slots_json(players)
            r.status = "playing"
            return _info(r)

    def playing(self) -> list[tuple[RoomInfo, list[list[core.StoredMove]]]]:
        """Every unfinished match with a hand dealt, with the moves of each hand, to resume them
        (a room whose table nobody opened has none: it is dealt when first opened)."""
        dealt = exists().where(HandRow.room == Room.code)
        with Session(self.engine) as db:
            return [(_info(r), _moves_of(db, r.code))
                    for r in db.scalars(select(Room).where(Room.status == "playing", dealt).order_by(Room.created_at))]

    def expire_unopened(self, before: datetime) -> int:
        """Rooms made before ``before`` whose table nobody opened (still waiting for players, or
        playing with no hand dealt) become ``expired``: they are never loaded again. How many."""
        dealt = exists().where(HandRow.room == Room.code)
        with Session(self.engine) as db, db.begin():
            result = db.execute(update(Room).where(
                Room.created_at < before,
                (Room.status == "waiting") | ((Room.status == "playing") & ~dealt),
            ).values(status="expired").execution_options(synchronize_session=False))
            return int(getattr(result, "rowcount", 0) or 0)

    def open_rooms(self, uid: str, since: datetime) -> list[datetime]:
        """When each room that ``uid`` owns and that waits or plays was created, if since ``since``."""
        with Session(self.engine) as db:
            return list(db.scalars(select(Room.created_at).where(
                Room.owner == uid, Room.status.in_(("waiting", "playing")), Room.created_at >= since)))

    def mark_damaged(self, code: str, reason: str) -> None:
        """Room ``code``'s stored moves cannot be replayed: it is no longer resumed (status
        ``damaged``, with the reason)."""
        with Session(self.engine) as db, db.begin():
            db.execute(update(Room).where(Room.code == code).values(status="damaged", damage=reason[:2000]))

    def damaged_count(self) -> int:
        with Session(self.engine) as db:
            return int(db.scalar(select(func.count()).select_from(Room).where(Room.status == "damaged")) or 0)

    def damaged(self) -> list[RoomInfo]:
        """Every room marked damaged, oldest first."""
        with Session(self.engine) as db:
            return [_info(r) for r in db.scalars(select(Room).where(Room.status == "damaged").order_by(Room.created_at))]

    def playing_codes(self, dealt: bool = False) -> list[str]:
        """The codes of every unfinished match (``dealt``: only those with a hand dealt, the
        ones a restarted server resumes)."""
        query = select(Room.code).where(Room.status == "playing")
        if dealt:
            query = query.where(exists().where(HandRow.room == Room.code))
        with Session(self.engine) as db:
            return list(db.scalars(query))

    def moves(self, code: str) -> list[list[core.StoredMove]]:
        """The moves of each hand dealt in room ``code``, to rebuild its match."""
        with Session(self.engine) as db:
            return _moves_of(db, code)

    def mixes(self, code: str) -> list[Mix | None]:
        """What was mixed into each hand dealt in room ``code`` (``None``: dealt before 0006)."""
        with Session(self.engine) as db:
            rows = db.scalars(select(HandRow.mix).where(HandRow.room == code).order_by(HandRow.index))
            return [contrib.mix_from_json(m) for m in rows]

    def stored_state(self, code: str) -> Stored:
        with Session(self.engine) as db:
            hands = list(db.scalars(select(HandRow).where(HandRow.room == code).order_by(HandRow.index)))
            if not hands:
                return Stored()
            last = hands[-1]
            n = len(list(db.scalars(select(MoveRow.seq).where(MoveRow.room == code, MoveRow.hand == last.index))))
            r = db.get(Room, code)
            return Stored(len(hands), n, last.record is not None, r is not None and r.status == "over")

    def take_over(self, code: str) -> int:
        """Raise room ``code``'s epoch by one, in a transaction of its own, and return the new
        epoch: from its commit on, every write of the room's moves with an older epoch is
        refused (:class:`Fenced`). A node calls this once it holds the room's lease, before it
        reads the room's moves to rebuild the table (docs/server.md, "Nodes"). On PostgreSQL
        it waits at most ``TAKE_OVER_LOCK_MS`` for a write in flight that holds the room's row
        (an old owner frozen mid-transaction): then it fails, and the node tries again later."""
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = {TAKE_OVER_LOCK_MS}")
            done = conn.execute(update(Room).where(Room.code == code).values(epoch=Room.epoch + 1))
            if done.rowcount != 1:
                raise CaishenError(f"no room {code}", code="no_room")
            return int(conn.execute(select(Room.epoch).where(Room.code == code)).scalar_one())

    def epoch(self, code: str) -> int:
        """Room ``code``'s epoch now (0: never taken over by a node)."""
        with Session(self.engine) as db:
            return int(db.scalar(select(Room.epoch).where(Room.code == code)) or 0)

    def plan(self, code: str, session: core.Session, st: Stored, epoch: int | None = None) -> Batch:
        """What ``session`` did since ``st``, as rows to write; ``batch.stored`` is how much is
        stored once they are. ``st`` itself is left alone: the caller moves it on only when the
        commit has succeeded, so a failed write leaves no gap (issue 26: the write counter was
        moved before the write, and the next move was stored after a hole). ``epoch``: the
        writer's fencing number, checked in the write's transaction (None: no check)."""
        if not session.dealt:  # the first hand waits for the people's contributions: nothing to write
            return Batch(code, stored=dataclasses.replace(st), epoch=epoch)
        hi = session.hand_index
        at = now()
        new_hand = st.hands <= hi
        if hi != st.hands - (0 if new_hand else 1):
            raise StoreError(f"room {code}: hand {hi} in play, {st.hands} hands stored")
        first = 0 if new_hand else st.moves
        if first > len(session.moves):
            raise StoreError(f"room {code}: {len(session.moves)} moves in play, {first} stored")
        batch = Batch(code, epoch=epoch)
        if new_hand:
            batch.hand = {"room": code, "index": hi, "commitment": core.commitment(session), "started_at": at,
                          "mix": contrib.mix_json(session.match.mix)}
        batch.at = at
        batch.moves = [(code, hi, seq, *core.move_row(session.moves[seq])) for seq in range(first, len(session.moves))]
        h = session.last_hand
        if session.hand_over and (new_hand or not st.hand_done) and h is not None:
            batch.finished = (hi, {"seed": h.seed.hex() if h.seed else None,
                                   "record": h.json_text(), "finished_at": at})
        if session.over and not st.match_done:
            batch.over = {"status": "over", "finished_at": at, "record": core.record_text(session)}
        batch.stored = Stored(
            hands=hi + 1 if new_hand else st.hands, moves=len(session.moves),
            hand_done=(st.hand_done and not new_hand) or batch.finished is not None,
            match_done=st.match_done or batch.over is not None,
        )
        return batch

    def write(self, batches: Sequence[Batch], busy_ms: int | None = None, turn: bool = True) -> None:
        """Write batches (of any tables) in one transaction. SQLAlchemy Core, not the ORM:
        this runs on every move. ``busy_ms``: on SQLite, how long to wait for another
        writer's lock before failing (default: the engine's); ``turn``: take the writers'
        turn (the lock file) first. The writer thread's fallback does not: it waits for a
        foreign writer's lock, and the event loops' commits must not wait behind it."""
        start = time.perf_counter()
        try:
            if self._turns is None or sys.platform == "win32" or not turn:
                self._write(batches, busy_ms)
            else:
                with self._local_turn:
                    fcntl.flock(self._turns, fcntl.LOCK_EX)
                    try:
                        self._write(batches, busy_ms)
                    finally:
                        fcntl.flock(self._turns, fcntl.LOCK_UN)
        except Fenced:
            metrics.commit_seconds.observe(time.perf_counter() - start)
            metrics.fenced_writes.inc()
            raise
        except Exception:
            metrics.commit_seconds.observe(time.perf_counter() - start)
            metrics.commit_failures.inc()
            metrics.storage_ok.set(0)
            raise
        metrics.commit_seconds.observe(time.perf_counter() - start)
        metrics.moves.inc(sum(len(b.moves) for b in batches))
        metrics.storage_ok.set(1)

    def _write(self, batches: Sequence[Batch], busy_ms: int | None) -> None:
        with self.engine.connect() as conn:
            raw = conn.connection.dbapi_connection if busy_ms is not None and self._sqlite else None
            if raw is not None:
                raw.execute(f"PRAGMA busy_timeout = {int(busy_ms or 0)}")
            try:
                with conn.begin():
                    self._rows(conn, batches)
            finally:
                if raw is not None:
                    raw.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_MS}")

    def _hand_row(self, conn: Connection, values: dict[str, object], where: tuple[str, int] | None = None) -> None:
        """Insert a hand's row (``values``: column to value), or with ``where`` (room, index)
        update it: in the driver's own parameter style where it is one written here, else
        through SQLAlchemy Core."""
        mark = self._mark
        if mark is None:
            if where is None:
                conn.execute(insert(HandRow).values(**values))
            else:
                conn.execute(update(HandRow).where(HandRow.room == where[0], HandRow.index == where[1])
                             .values(**values))
            return
        keys = tuple(values)
        shape = (*keys, "" if where is None else "?")
        sql = self._hand_sql.get(shape)
        if sql is None:
            q = conn.dialect.identifier_preparer.quote
            if where is None:
                sql = f"INSERT INTO hands ({', '.join(q(k) for k in keys)}) VALUES ({', '.join([mark] * len(keys))})"
            else:
                sql = (f"UPDATE hands SET {', '.join(f'{q(k)} = {mark}' for k in keys)} "
                       f"WHERE room = {mark} AND {q('index')} = {mark}")
            self._hand_sql[shape] = sql
        at = self._at
        params = [at(v) if at is not None and isinstance(v, datetime) else v for v in values.values()]
        conn.exec_driver_sql(sql, (*params, *(where or ())))

    def _fence(self, conn: Connection, batches: Sequence[Batch]) -> None:
        """Refuse the transaction (:class:`Fenced`) if a batch's epoch is not its room's. The
        check is an UPDATE of the room's row that changes nothing: on PostgreSQL it holds the
        row's lock until the commit, so a takeover's raise of the epoch (:meth:`take_over`)
        waits for this commit, or this check waits for the takeover's and then finds the new
        epoch (READ COMMITTED re-reads the row it waited for); SQLite has one writer at a time.
        The rows are taken in the order of their codes, so two writers never wait for each other."""
        for b in sorted(batches, key=lambda b: b.code):
            if b.epoch is None:
                continue
            mark = self._mark
            if mark is None:
                done = conn.execute(update(Room).where(Room.code == b.code, Room.epoch == b.epoch)
                                    .values(epoch=Room.epoch))
            else:
                done = conn.exec_driver_sql(
                    f"UPDATE rooms SET epoch = epoch WHERE code = {mark} AND epoch = {mark}", (b.code, b.epoch))
            if done.rowcount != 1:
                raise Fenced(f"room {b.code}: epoch {b.epoch} is no longer the room's (another node took the "
                             "table over): nothing written")

    def _rows(self, conn: Connection, batches: Sequence[Batch]) -> None:
        self._fence(conn, batches)
        for b in batches:
            if b.hand is not None:
                self._hand_row(conn, b.hand)
        if self._insert_moves is not None:
            rows = [(*m, at) for b in batches if b.moves
                    for at in (b.at if self._at is None else self._at(b.at),) for m in b.moves]
            for i in range(0, len(rows), MOVES_PER_INSERT):
                chunk = rows[i:i + MOVES_PER_INSERT]
                conn.exec_driver_sql(self._insert_moves[len(chunk)], tuple(v for r in chunk for v in r))
        else:
            moves = [dict(zip(("room", "hand", "seq", "seat", "action", "sig", "signer"), m, strict=True), at=b.at)
                     for b in batches for m in b.moves]
            if moves:
                conn.execute(insert(MoveRow), moves)
        for b in batches:
            if b.finished is not None:
                index, values = b.finished
                self._hand_row(conn, values, (b.code, index))
            if b.over is not None:
                conn.execute(update(Room).where(Room.code == b.code).values(**b.over))

    def sync(self, code: str, session: core.Session, st: Stored, epoch: int | None = None) -> Batch:
        """Write what ``session`` did since ``st`` now (start-up, new tables); the batch written
        (``.stored``: what is stored now). ``epoch``: as for :meth:`plan`."""
        batch = self.plan(code, session, st, epoch)
        # from a request's thread: waits for the lock in SQLite, not in the writers' turn
        self.write([batch], WRITE_BUSY_MS if self._sqlite else None, turn=False)
        return batch

    async def commit(self, batch: Batch) -> None:
        """Write ``batch``; returns once it is committed, or raises what the write raised.
        The batches of all tables that moved in one turn of the event loop are committed
        together in one transaction (group commit), once that turn is over: on SQLite by the
        event loop itself, elsewhere by the writer thread (why: ``__init__``). On SQLite a
        file another writer holds locked is waited for in the writer thread, not in the event
        loop, up to ``WRITE_BUSY_MS``: the other tables go on meanwhile."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        pending = self._pending.setdefault(loop, [])
        if not pending:
            loop.call_soon(self._hand_over, loop)
        pending.append((batch, done))
        await done

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        items = self._pending.pop(loop, [])
        if not items:
            return
        # Another process's writer holds the writers' turn: the writer thread waits for it, not
        # the event loop. A join or start of this process holds it (a read-then-write of a room's
        # seats, issue 26): the loop writes without it, SQLite's own lock keeping the two apart
        # for the few statements they overlap; the turn, held by a request thread that gets the
        # GIL only between the loop's turns, lasted 30-70 ms at 100 busy tables, and a third of
        # the commits went to the writer thread, where each waited 25-100 ms for the GIL (the
        # slowest 1 % of the moves, issue 31).
        turn = self._turn_now() if self._in_loop else None
        if turn is not None and turn != "elsewhere":
            try:
                errors = self._write_all([b for b, _ in items], LOOP_BUSY_MS, turn=False)
            finally:
                if turn == "taken":
                    self._end_turn()
            if not any(e is not None and _locked(e) for e in errors):
                _settle([fut for _, fut in items], errors)
                return
        if self._writer is None or not self._writer.is_alive():
            self._writer = threading.Thread(target=self._write_loop, name="caishen-db-writer", daemon=True)
            self._writer.start()
        self._queue.put((items, loop))

    def _turn_now(self) -> str:
        """Take the writers' turn (this process's lock, then the lock file) if nobody holds it
        now: ``"taken"``; else, holding nothing, ``"here"`` (a thread of this process holds it)
        or ``"elsewhere"`` (another process does)."""
        if not self._local_turn.acquire(blocking=False):
            return "here"
        if self._turns is None or sys.platform == "win32":
            return "taken"
        try:
            fcntl.flock(self._turns, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._local_turn.release()
            return "elsewhere"
        return "taken"

    def _end_turn(self) -> None:
        """Let go of the turn :meth:`_turn_now` took."""
        if self._turns is not None and sys.platform != "win32":
            fcntl.flock(self._turns, fcntl.LOCK_UN)
        self._local_turn.release()

    def _write_all(self, batches: list[Batch], busy_ms: int | None, turn: bool = True) -> list[BaseException | None]:
        """:meth:`write`; what it raised for each batch, to be handed to its table. A commit
        that fails for its rows (not for the database being away) is made again batch by
        batch: one table's bad batch does not stop the others."""
        try:
            self.write(batches, busy_ms, turn)
        except Exception as exc:  # noqa: BLE001 - handed to every waiting table
            if len(batches) == 1 or unavailable(exc):
                return [exc] * len(batches)
        else:
            return [None] * len(batches)
        errors: list[BaseException | None] = []
        for b in batches:
            try:
                self.write([b], busy_ms, turn)
            except Exception as exc:  # noqa: BLE001 - handed to that table
                errors.append(exc)
            else:
                errors.append(None)
        return errors

    def _write_loop(self) -> None:
        while True:
            groups = [self._queue.get()]
            while True:
                try:
                    groups.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            items = [item for its, _ in groups for item in its]
            try:
                errors = iter(self._write_all([b for b, _ in items], WRITE_BUSY_MS if self._sqlite else None,
                                              turn=not self._sqlite))
            except BaseException as exc:  # noqa: BLE001 - every waiting table hears of it; the thread goes on
                errors = iter([exc] * len(items))
            # one wake-up of each event loop for the whole commit, not one per table
            by_loop: dict[asyncio.AbstractEventLoop, tuple[list[asyncio.Future[None]], list[BaseException | None]]] = {}
            for its, loop in groups:
                futures, errs = by_loop.setdefault(loop, ([], []))
                for _, fut in its:
                    futures.append(fut)
                    errs.append(next(errors))
            for loop, (futures, errs) in by_loop.items():
                try:
                    loop.call_soon_threadsafe(_settle, futures, errs)
                except RuntimeError:  # that event loop has closed (a server shutting down): nobody waits
                    pass

    async def until_up(self) -> None:
        """Return once the database answers again (:meth:`probe`), tried every
        ``RETRY_SECONDS`` doubling up to ``RETRY_MAX_SECONDS``; every paused table of this
        event loop waits on the same probes."""
        loop = asyncio.get_running_loop()
        task = self._up.get(loop)
        if task is None or task.done():
            task = self._up[loop] = loop.create_task(self._probe_until_up())
        await asyncio.shield(task)

    async def _probe_until_up(self) -> None:
        delay = RETRY_SECONDS
        while True:
            await asyncio.sleep(delay)  # the pace of the retries, not a wait for a state
            try:
                await asyncio.to_thread(self.probe)
            except Exception:  # noqa: BLE001 - still away
                delay = min(2 * delay, RETRY_MAX_SECONDS)
                continue
            metrics.storage_ok.set(1)
            return

    # ------------------------------------------------------------ history

    def my_rooms(self, uid: str) -> list[RoomInfo]:
        with Session(self.engine) as db:
            rows = db.scalars(
                select(Room).join(Member, Member.room == Room.code).where(Member.user == uid)
                .order_by(Room.created_at.desc()).limit(100)
            )
            return [_info(r) for r in rows]

    def finished_hands(self, code: str) -> list[str]:
        """The JSON of every finished hand's record, in order."""
        with Session(self.engine) as db:
            return [h for h in db.scalars(
                select(HandRow.record).where(HandRow.room == code, HandRow.record.is_not(None)).order_by(HandRow.index)
            ) if h is not None]
