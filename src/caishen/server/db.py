"""Storage of the game centre (SQLAlchemy 2): people, rooms, hands and every move.

The schema is created and upgraded by the Alembic migrations shipped in
``caishen/server/migrations`` (:func:`upgrade`), on SQLite (the default, a file) or
PostgreSQL (``postgresql+psycopg://...``). A table's state is never stored as such: it is
rebuilt from the room's settings, its secret master seed and its moves
(``MatchSession.resume``), so a move is durable once its row is committed.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Boolean,
    Date,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    event,
    false,
    make_url,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from caishen.table.signing import data_dir

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
PG_TIMEOUTS: dict[str, object] = {"connect_timeout": 5, "keepalives": 1, "keepalives_idle": 5,
                                  "keepalives_interval": 2, "keepalives_count": 3, "tcp_user_timeout": 10_000}
SQLITE_BUSY_SECONDS = 30  # an SQLite transaction waits this long for another writer's lock
# The write-ahead log's file is cut back to this size when the log starts over after a
# checkpoint: without it the file keeps the largest size it ever reached (202 MB after a few
# minutes of 30 tables at the instant pace, for good).
SQLITE_WAL_KEPT_BYTES = 32 * 1024 * 1024
PG_LOCK_MS = 10_000  # a PostgreSQL statement waits this long for a lock (lock_timeout), then fails as busy


def now() -> datetime:
    """The time in UTC as the columns keep it (naive), from the fields: ``replace(tzinfo=None)``
    costs three times as much (1.9 against 0.76 µs; :meth:`Store.plan` asks on every move)."""
    d = datetime.now(UTC)
    return datetime(d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond)


class Base(DeclarativeBase):
    pass


class User(Base):
    """A person known by a signed cookie: no password, just a display name."""

    __tablename__ = "users"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=now)
    # when the person last logged out everywhere (0003): cookies from before 0003 stop then
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # when the person deleted their account (0009): their name is "deleted player" since
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class Account(Base):
    """A person who claimed a login (0009): the normalised login name and the password's
    argon2 hash, never the password (:mod:`caishen.server.accounts`)."""

    __tablename__ = "accounts"
    user: Mapped[str] = mapped_column(String(40), ForeignKey("users.id"), primary_key=True)
    login: Mapped[str] = mapped_column(String(40), unique=True)
    password: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=now)
    password_at: Mapped[datetime] = mapped_column(DateTime, default=now)


class SessionRow(Base):
    """A signed-in browser: its random id is in the signed cookie (0003). Deleting the rows of
    a person logs them out everywhere; a row unused for 30 days no longer counts."""

    __tablename__ = "sessions"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user: Mapped[str] = mapped_column(String(40), ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=now)
    last_seen: Mapped[datetime] = mapped_column(DateTime, default=now)


class Room(Base):
    """A room and its match. ``players`` is JSON: per player index ``{"name", "user", "bot"}``
    (``user`` None and ``bot`` None: a seat still open for a friend). ``seed`` is the secret
    master seed (hex); hand ``i`` is dealt from ``fair.hand_seed(seed, i)``, committed before."""

    __tablename__ = "rooms"
    code: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(40), ForeignKey("users.id"))
    variant: Mapped[str] = mapped_column(String(40))
    ruleset: Mapped[str] = mapped_column(Text)
    hands: Mapped[int] = mapped_column(Integer)
    turn_seconds: Mapped[int] = mapped_column(Integer)
    help_allowed: Mapped[bool] = mapped_column(Boolean)
    players: Mapped[str] = mapped_column(Text)
    seed: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), index=True)  # waiting, playing, over
    created_at: Mapped[datetime] = mapped_column(DateTime, default=now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)  # the whole record once over
    # the match seats its players by the seat draw 校位定莊 (L2); rooms before 0002 did not
    seat_draw: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # why the stored moves cannot be replayed (status "damaged"; 0004); None for a sound room
    damage: Mapped[str | None] = mapped_column(Text, nullable=True)
    # how fast the bots move: normal, fast or instant (docs/server.md, "Paced play"); 0005
    pace: Mapped[str] = mapped_column(String(16), default="normal", server_default="normal")
    # the fencing number (0008): raised by each node that takes the table over; a write of the
    # table's moves and hands with an older one is refused (docs/server.md, "Nodes")
    epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # what an away person's stand-in plays (托管, issue 30): "discard" (draws and discards
    # only) or "full" (as the bot would); rooms before 0011 played "full"
    stand_in: Mapped[str] = mapped_column(String(16), default="discard", server_default="full")
    # table manners (0012): friends may watch (public information, one move behind), and the
    # people at the table may write free text; both off unless the room's owner turns them on
    spectators: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    chat: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Member(Base):
    """Who plays in which room (for "my matches")."""

    __tablename__ = "members"
    room: Mapped[str] = mapped_column(String(32), ForeignKey("rooms.code"), primary_key=True)
    player: Mapped[int] = mapped_column(Integer, primary_key=True)
    user: Mapped[str] = mapped_column(String(40), ForeignKey("users.id"), index=True)


class HandRow(Base):
    """A hand dealt: its commitment from the start; seed and record once it is finished."""

    __tablename__ = "hands"
    room: Mapped[str] = mapped_column(String(32), ForeignKey("rooms.code"), primary_key=True)
    index: Mapped[int] = mapped_column(Integer, primary_key=True)
    commitment: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str | None] = mapped_column(String(128), nullable=True)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime, default=now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # what the people mixed into the wall (JSON: contributions by seat, the events up to the
    # deal; docs/fairness.md), stored with the deal (0006); None: hands dealt before 0006
    mix: Mapped[str | None] = mapped_column(Text, nullable=True)


class MoveRow(Base):
    """One move of a hand, in order: written before anyone is told of it. Move ``seq`` is
    stored only if move ``seq - 1`` of its hand is (a trigger, migration 0004): no gaps."""

    __tablename__ = "moves"
    room: Mapped[str] = mapped_column(String(32), primary_key=True)
    hand: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(40))
    at: Mapped[datetime] = mapped_column(DateTime, default=now)
    # who vouches for the move (caishen.table.movesig, 0007): the person's signature (128 hex)
    # with the public key it was made by (``signer``, 130 hex), "server" (a bot, a stand-in) or
    # "unsigned"; None: stored before 0007
    sig: Mapped[str | None] = mapped_column(String(128), nullable=True)
    signer: Mapped[str | None] = mapped_column(String(130), nullable=True)


class Club(Base):
    """A club 亲友圈 (0010, :mod:`caishen.server.clubs`): ``code`` is its invite code, ``approval``
    whether joining needs an admin's yes; a season runs from ``season_start`` to ``season_end``
    (both days included) when the owner set them, else it is the calendar month (UTC)."""

    __tablename__ = "clubs"
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    owner: Mapped[str] = mapped_column(String(40), ForeignKey("users.id"))
    approval: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=now)
    season_start: Mapped[date | None] = mapped_column(Date, nullable=True)
    season_end: Mapped[date | None] = mapped_column(Date, nullable=True)


class ClubMember(Base):
    """A person's place in a club (0010): ``role`` owner, admin, member, pending (asked to join),
    declined (an admin said no; ``joined_at`` is then when) or blacklisted (may not join again). A removed member has no row. ``seen_at``: when the
    person last had the club's page open (who is online)."""

    __tablename__ = "club_members"
    club: Mapped[str] = mapped_column(String(16), ForeignKey("clubs.code"), primary_key=True)
    user: Mapped[str] = mapped_column(String(40), ForeignKey("users.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16))
    joined_at: Mapped[datetime] = mapped_column(DateTime, default=now)
    seen_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class ClubTemplate(Base):
    """A club's named preset of house rules (0010): ``options`` is the JSON of the room options
    ``POST /api/rooms`` takes (``protocol.RoomBody``)."""

    __tablename__ = "club_templates"
    club: Mapped[str] = mapped_column(String(16), ForeignKey("clubs.code"), primary_key=True)
    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    options: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=now)


class ClubRoom(Base):
    """A room opened for a club's members (0010): only members may take its seats."""

    __tablename__ = "club_rooms"
    room: Mapped[str] = mapped_column(String(32), ForeignKey("rooms.code"), primary_key=True)
    club: Mapped[str] = mapped_column(String(16), ForeignKey("clubs.code"), index=True)
    template: Mapped[str | None] = mapped_column(String(40), nullable=True)
    opened_by: Mapped[str] = mapped_column(String(40), ForeignKey("users.id"))


class Setting(Base):
    """Server settings kept across restarts (the cookie-signing key)."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


def default_url() -> str:
    """``$CAISHEN_DB`` if set, else an SQLite file in the user's data directory
    (:func:`caishen.table.signing.data_dir`, where the signing key lies: on Linux
    ``$XDG_DATA_HOME/caishen/caishen.sqlite3``, by default ``~/.local/share/caishen/``)."""
    env = os.environ.get("CAISHEN_DB")
    if env:
        return env
    base = data_dir()  # the signing key's directory too (a relative $XDG_DATA_HOME is not used)
    base.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{base / 'caishen.sqlite3'}"


def database_url(given: str | None) -> str:
    """The database ``--db`` names: a URL as it is; a file's path (no ``://`` in it: ``--db
    centre.sqlite3``) an SQLite file there; none, :func:`default_url` (whose ``$CAISHEN_DB``
    may be a path as well)."""
    if given is not None and not given.strip():
        raise ValueError("--db is empty: give a database URL or an SQLite file's path, or leave --db out")
    url = given or default_url()
    return url if "://" in url else f"sqlite:///{Path(url).expanduser().resolve()}"


def sqlite_path(url: str) -> str | None:
    """The file an SQLite URL names (None: another database, or SQLite in memory)."""
    parsed = make_url(url)
    path = parsed.database
    if not parsed.drivername.startswith("sqlite") or path in (None, "", ":memory:"):
        return None
    if parsed.query.get("uri") == "true" and path.startswith("file:"):  # sqlite:///file:PATH?mode=ro&uri=true
        path = path[len("file:"):]
    return path


def make_engine(url: str) -> Engine:
    """An engine for ``url``. SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit
    survives the server process being killed (not the machine losing power); the log's file
    is cut back to ``SQLITE_WAL_KEPT_BYTES`` each time it starts over."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_SECONDS})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: object, _record: object) -> None:
            cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute(f"PRAGMA journal_size_limit={SQLITE_WAL_KEPT_BYTES}")
            cur.close()

        return engine
    if url.startswith("postgresql"):
        # A database that stops answering (a network that drops packets, a server gone) must
        # fail a connection or a commit within seconds, so the tables pause (docs/server.md,
        # "Faults") instead of waiting for the kernel's TCP timeout (minutes): libpq's own
        # connect timeout, TCP keep-alives, and a limit on unacknowledged data.
        engine = create_engine(url, pool_pre_ping=True, connect_args=PG_TIMEOUTS)

        # ... and a lock held elsewhere (another node's transaction, a takeover, a session left
        # open by hand) must not hold a commit for good either: nothing bounded a lock wait, and
        # a table whose write waited on one answered nothing at all. Past PG_LOCK_MS the
        # statement fails with LockNotAvailable, an OperationalError: the table pauses, tells
        # its people and tries again, as for a database away; a request answers
        # storage_unavailable (503).
        @event.listens_for(engine, "connect")
        def _lock_timeout(dbapi_conn: object, _record: object) -> None:
            cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
            cur.execute(f"SET lock_timeout = {PG_LOCK_MS}")
            cur.close()
            dbapi_conn.commit()  # type: ignore[attr-defined]  # else the pool's rollback undoes the SET

        return engine
    return create_engine(url, pool_pre_ping=True)


def schema_behind(engine: Engine) -> tuple[str | None, str] | None:
    """(the database's migration, the newest this package ships) when they differ, else None."""
    from alembic.runtime.migration import MigrationContext  # noqa: PLC0415 - only where asked
    from alembic.script import ScriptDirectory  # noqa: PLC0415

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    return None if current == head else (current, head)


def upgrade(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
