"""What the game centre reads and writes: people, rooms, hands and moves (over :mod:`.db`).

Every function opens its own short transaction. :meth:`Store.sync` is the durability point:
it writes the moves, hand starts and hand ends a live session has made since the last call,
in one transaction, before the table tells anyone (``caishen.server.tables``).
"""

from __future__ import annotations

import asyncio
import json
import queue
import secrets
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.orm import Session

from caishen.server import core
from caishen.server.db import HandRow, Member, MoveRow, Room, Setting, User, now

if sys.platform != "win32":  # the writers' lock file (one process per database on Windows)
    import fcntl

CODE_BYTES = 9  # room codes: 72 random bits, 12 URL-safe characters (cannot be enumerated)


def new_code() -> str:
    """A new room code: random, unguessable."""
    return secrets.token_urlsafe(CODE_BYTES)


@dataclass(frozen=True, slots=True)
class PlayerSlot:
    """Player ``i`` of a room: a person (``user``), a bot (``bot`` level), or an open seat."""

    name: str | None
    user: str | None
    bot: str | None

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
    return tuple(PlayerSlot(p.get("name"), p.get("user"), p.get("bot")) for p in json.loads(text))


def _slots_json(players: Sequence[PlayerSlot]) -> str:
    return json.dumps([{"name": p.name, "user": p.user, "bot": p.bot} for p in players], ensure_ascii=False)


def _info(r: Room) -> RoomInfo:
    return RoomInfo(
        code=r.code, owner=r.owner, variant=r.variant, ruleset=r.ruleset, hands=r.hands,
        turn_seconds=r.turn_seconds, help_allowed=r.help_allowed, players=_slots(r.players),
        seed=bytes.fromhex(r.seed), status=r.status, created=r.created_at.isoformat(timespec="seconds"),
        record=r.record, seat_draw=r.seat_draw,
    )


@dataclass(slots=True)
class Batch:
    """The rows one table's change adds: a new hand, moves, a finished hand, the match's end."""

    code: str
    hand: dict[str, object] | None = None
    moves: list[tuple[str, int, int, int, str]] = field(default_factory=list)  # room, hand, seq, seat, action
    at: datetime = field(default_factory=now)
    finished: tuple[int, dict[str, object]] | None = None
    over: dict[str, object] | None = None


def _settle(futures: Sequence[asyncio.Future[None]], error: BaseException | None) -> None:
    for fut in futures:
        if fut.done():
            continue
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(error)


MOVES_PER_INSERT = 150  # 900 parameters: under SQLite's oldest limit (999)


def _insert_moves_sql(engine: Engine) -> list[str] | None:
    """``sql[n]``: the INSERT of ``n`` move rows in one statement, in the driver's own parameter
    style (None: a style not written here; the writer then goes through SQLAlchemy Core)."""
    mark = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(engine.dialect.paramstyle)
    if mark is None:
        return None
    row = f"({', '.join([mark] * 6)})"
    return [f"INSERT INTO moves (room, hand, seq, seat, action, at) VALUES {', '.join([row] * n)}"
            for n in range(MOVES_PER_INSERT + 1)]


def _moves_of(db: Session, code: str) -> list[list[tuple[int, str]]]:
    hands = list(db.scalars(select(HandRow.index).where(HandRow.room == code).order_by(HandRow.index)))
    moves: list[list[tuple[int, str]]] = [[] for _ in hands]
    for m in db.scalars(select(MoveRow).where(MoveRow.room == code).order_by(MoveRow.hand, MoveRow.seq)):
        moves[m.hand].append((m.seat, m.action))
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
        # SQLite lets one process write at a time, and one that finds the file locked sleeps
        # and tries again (1, 2, 5, 10 ms... up to the busy timeout), which made the tail of
        # the latency with two worker processes. Their writers take turns on a lock file
        # instead: the next one wakes as soon as the lock is let go.
        path = engine.url.database if engine.dialect.name == "sqlite" else None
        # Where commits run. A thread that lets go of the GIL (the driver does, for every
        # statement, and so does the writers' lock) gets it back only after the event loop's
        # 5 ms switch interval when the loop is busy: at 100 tables a move then waited 31 ms
        # (median) for a commit that is a few ms of work. An SQLite commit does not wait for the
        # disk (WAL, synchronous=NORMAL), so the event loop does it itself: p99 at 100 tables
        # fell from 108-122 to 73-84 ms (docs/server.md). A database server's commit waits
        # for the server's own disk, which the loop should not: that stays in the thread.
        self._in_loop = engine.dialect.name == "sqlite"
        self._turns = (open(path + "-writers", "a+b")  # noqa: SIM115 - held as long as the store
                       if path and path != ":memory:" and sys.platform != "win32" else None)

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

    # ------------------------------------------------------------ rooms

    def create_room(
        self, owner: str, owner_name: str, variant: str, ruleset: str, hands: int, turn_seconds: int,
        help_allowed: bool, friends: int, bot: str, code: str | None = None,
    ) -> RoomInfo:
        """A new waiting room, with ``code`` if given (the server's choice of owner:
        :meth:`caishen.server.tables.Tables.new_code`), else a :func:`new_code`."""
        players = [PlayerSlot(owner_name, owner, None)]
        players += [PlayerSlot(None, None, None) for _ in range(friends)]
        players += [PlayerSlot(f"{bot} bot {i + 1}", None, bot) for i in range(3 - friends)]
        with Session(self.engine) as db, db.begin():
            code = code or new_code()
            room = Room(
                code=code, owner=owner, variant=variant, ruleset=ruleset, hands=hands,
                turn_seconds=turn_seconds, help_allowed=help_allowed, players=_slots_json(players),
                seed=core.new_seed().hex(), status="waiting", created_at=now(), seat_draw=True,
            )
            db.add(room)
            db.flush()
            db.add(Member(room=code, player=0, user=owner))
            return _info(room)

    def room(self, code: str) -> RoomInfo | None:
        with Session(self.engine) as db:
            r = db.get(Room, code)
            return None if r is None else _info(r)

    def join(self, code: str, uid: str, name: str) -> RoomInfo | None:
        """Take the first open seat of a waiting room (nothing if already seated or full)."""
        with Session(self.engine) as db, db.begin():
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

    def fill_and_start(self, code: str, bot: str) -> RoomInfo | None:
        """Open seats get bots; the room is playing from now on."""
        with Session(self.engine) as db, db.begin():
            r = db.get(Room, code, with_for_update=True)
            if r is None:
                return None
            players = [PlayerSlot(f"{bot} bot {i + 1}", None, bot) if p.open else p
                       for i, p in enumerate(_slots(r.players))]
            r.players = _slots_json(players)
            r.status = "playing"
            return _info(r)

    def playing(self) -> list[tuple[RoomInfo, list[list[tuple[int, str]]]]]:
        """Every unfinished match with the moves of each hand dealt, to resume them."""
        with Session(self.engine) as db:
            return [(_info(r), _moves_of(db, r.code))
                    for r in db.scalars(select(Room).where(Room.status == "playing").order_by(Room.created_at))]

    def playing_codes(self) -> list[str]:
        """The codes of every unfinished match."""
        with Session(self.engine) as db:
            return list(db.scalars(select(Room.code).where(Room.status == "playing")))

    def moves(self, code: str) -> list[list[tuple[int, str]]]:
        """The moves of each hand dealt in room ``code``, to rebuild its match."""
        with Session(self.engine) as db:
            return _moves_of(db, code)

    def stored_state(self, code: str) -> Stored:
        with Session(self.engine) as db:
            hands = list(db.scalars(select(HandRow).where(HandRow.room == code).order_by(HandRow.index)))
            if not hands:
                return Stored()
            last = hands[-1]
            n = len(list(db.scalars(select(MoveRow.seq).where(MoveRow.room == code, MoveRow.hand == last.index))))
            r = db.get(Room, code)
            return Stored(len(hands), n, last.record is not None, r is not None and r.status == "over")

    def plan(self, code: str, session: core.Session, st: Stored) -> Batch:
        """What ``session`` did since ``st``, as rows to write; ``st`` is moved on to match
        (the caller writes the batch before anything else happens at this table)."""
        hi = session.hand_index
        at = now()
        new_hand = st.hands <= hi
        first = 0 if new_hand else st.moves
        batch = Batch(code)
        if new_hand:
            batch.hand = {"room": code, "index": hi, "commitment": core.commitment(session), "started_at": at}
        batch.at = at
        batch.moves = [
            (code, hi, seq, seat, text)
            for seq in range(first, len(session.moves))
            for seat, text in (core.move_text(session.moves[seq]),)
        ]
        h = session.last_hand
        if session.hand_over and (new_hand or not st.hand_done) and h is not None:
            batch.finished = (hi, {"seed": h.seed.hex() if h.seed else None,
                                   "record": h.json_text(), "finished_at": at})
        if session.over and not st.match_done:
            batch.over = {"status": "over", "finished_at": at, "record": session.record().dumps()}
        if new_hand:
            st.hands, st.hand_done = hi + 1, False
        st.moves = len(session.moves)
        st.hand_done = st.hand_done or batch.finished is not None
        st.match_done = st.match_done or batch.over is not None
        return batch

    def write(self, batches: Sequence[Batch]) -> None:
        """Write batches (of any tables) in one transaction. SQLAlchemy Core, not the ORM:
        this runs on every move."""
        if self._turns is None or sys.platform == "win32":
            self._write(batches)
            return
        fcntl.flock(self._turns, fcntl.LOCK_EX)
        try:
            self._write(batches)
        finally:
            fcntl.flock(self._turns, fcntl.LOCK_UN)

    def _write(self, batches: Sequence[Batch]) -> None:
        with self.engine.begin() as conn:
            for b in batches:
                if b.hand is not None:
                    conn.execute(insert(HandRow).values(**b.hand))
            if self._insert_moves is not None:
                rows = [(*m, at) for b in batches if b.moves
                        for at in (b.at if self._at is None else self._at(b.at),) for m in b.moves]
                for i in range(0, len(rows), MOVES_PER_INSERT):
                    chunk = rows[i:i + MOVES_PER_INSERT]
                    conn.exec_driver_sql(self._insert_moves[len(chunk)], tuple(v for r in chunk for v in r))
            else:
                moves = [dict(zip(("room", "hand", "seq", "seat", "action"), m, strict=True), at=b.at)
                         for b in batches for m in b.moves]
                if moves:
                    conn.execute(insert(MoveRow), moves)
            for b in batches:
                if b.finished is not None:
                    index, values = b.finished
                    conn.execute(update(HandRow).where(HandRow.room == b.code, HandRow.index == index).values(**values))
                if b.over is not None:
                    conn.execute(update(Room).where(Room.code == b.code).values(**b.over))

    def sync(self, code: str, session: core.Session, st: Stored) -> None:
        """Write what ``session`` did since ``st`` now (start-up, new tables)."""
        self.write([self.plan(code, session, st)])

    async def sync_async(self, code: str, session: core.Session, st: Stored) -> None:
        """Write what ``session`` did since ``st``; returns once it is committed."""
        await self.commit(self.plan(code, session, st))

    async def commit(self, batch: Batch) -> None:
        """Write ``batch``; returns once it is committed, or raises what the write raised.
        The batches of all tables that moved in one turn of the event loop are committed
        together in one transaction (group commit), once that turn is over: on SQLite by the
        event loop itself, elsewhere by the writer thread (why: ``__init__``)."""
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
        if self._in_loop:
            _settle([fut for _, fut in items], self._write_or_error([b for b, _ in items]))
            return
        if self._writer is None or not self._writer.is_alive():
            self._writer = threading.Thread(target=self._write_loop, name="caishen-db-writer", daemon=True)
            self._writer.start()
        self._queue.put((items, loop))

    def _write_or_error(self, batches: list[Batch]) -> BaseException | None:
        """:meth:`write`; what it raised, to be handed to every table waiting on the commit."""
        try:
            self.write(batches)
        except Exception as exc:  # noqa: BLE001 - handed to every waiting table
            return exc
        return None

    def _write_loop(self) -> None:
        while True:
            groups = [self._queue.get()]
            while True:
                try:
                    groups.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            error = self._write_or_error([b for items, _ in groups for b, _ in items])
            # one wake-up of each event loop for the whole commit, not one per table
            by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
            for items, loop in groups:
                by_loop.setdefault(loop, []).extend(fut for _, fut in items)
            for loop, futures in by_loop.items():
                loop.call_soon_threadsafe(_settle, futures, error)

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
