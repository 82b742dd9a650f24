"""The group-commit writer stores every move row of many tables in one transaction, however
many rows (they go in INSERTs of up to ``MOVES_PER_INSERT`` rows), on SQLite and PostgreSQL,
with the same values and times SQLAlchemy reads back. The tables that move in one turn of the
event loop share one commit, made by the event loop on SQLite and by the writer thread on
PostgreSQL, and a failed commit reaches every table that waits for it."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from caishen.server.db import MoveRow, make_engine, now, upgrade
from caishen.server.store import MOVES_PER_INSERT, Batch, Store
from helpers_server import database, store_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


store = store_fixture("sqlite", "postgresql")


def test_many_tables_many_moves_in_one_commit(store: Store) -> None:
    uid = store.save_user(None, "w")
    codes = [store.create_room(uid, "w", "longgang", "{}", 8, 0, True, 0, "random").code for _ in range(3)]
    at = now().replace(microsecond=123456)
    counts = (1, MOVES_PER_INSERT, 2 * MOVES_PER_INSERT + 7)  # one statement, a full one, three
    # who vouches for each move (migration 0007): a signature with its key, the server, nobody
    marks = [("ab" * 64, "04" + "cd" * 64), ("server", None), ("unsigned", None)]
    batches = [
        Batch(code, hand={"room": code, "index": 0, "commitment": "c", "started_at": at},
              moves=[(code, 0, seq, seq % 4, f"discard {1 + seq % 9}p", *marks[seq % 3]) for seq in range(n)], at=at)
        for code, n in zip(codes, counts, strict=True)
    ]
    store.write(batches)
    with Session(store.engine) as db:
        rows = db.execute(select(MoveRow.room, MoveRow.seq, MoveRow.seat, MoveRow.action, MoveRow.sig,
                                 MoveRow.signer, MoveRow.at).order_by(MoveRow.room, MoveRow.seq)).all()
    got = {code: [(r.seq, r.seat, r.action, r.sig, r.signer) for r in rows if r.room == code] for code in codes}
    for code, n in zip(codes, counts, strict=True):
        assert got[code] == [(seq, seq % 4, f"discard {1 + seq % 9}p", *marks[seq % 3]) for seq in range(n)]
    assert store.moves(codes[1])[0][:3] == [(0, "discard 1p", *marks[0]), (1, "discard 2p", *marks[1]),
                                            (2, "discard 3p", *marks[2])]
    assert {r.at for r in rows} == {at}
    assert store.stored_state(codes[2]).moves == 2 * MOVES_PER_INSERT + 7


def test_one_commit_per_turn_made_by_the_event_loop_on_sqlite_and_by_the_writer_thread_on_postgresql(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    uid = store.save_user(None, "w")
    codes = [store.create_room(uid, "w", "longgang", "{}", 8, 0, True, 0, "random").code for _ in range(3)]
    at = now()
    commits: list[tuple[int, list[str]]] = []
    write = store.write

    def spy(batches: list[Batch], *args: object) -> None:
        commits.append((threading.get_ident(), [b.code for b in batches]))
        write(batches, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "write", spy)

    def first_move(code: str) -> Batch:
        return Batch(code, hand={"room": code, "index": 0, "commitment": "c", "started_at": at},
                     moves=[(code, 0, 0, 1, "discard 5p", "server", None)], at=at)

    async def turn(batches: list[Batch]) -> int:
        await asyncio.gather(*(store.commit(b) for b in batches))
        return threading.get_ident()

    loop_thread = asyncio.run(turn([first_move(c) for c in codes]))
    assert [sorted(c) for _, c in commits] == [sorted(codes)]
    assert (commits[0][0] == loop_thread) is (store.engine.dialect.name == "sqlite")
    assert [store.stored_state(c).moves for c in codes] == [1, 1, 1]
    # the same move again breaks the primary key, a move after a gap the sequence (migration
    # 0004): those tables hear of it; the commit is made again table by table, so the third
    # table of the turn is stored all the same
    again = Batch(codes[0], moves=[(codes[0], 0, 0, 1, "discard 5p", "server", None)], at=at)
    gap = Batch(codes[1], moves=[(codes[1], 0, 2, 2, "discard 6p", "server", None)], at=at)
    nxt = Batch(codes[2], moves=[(codes[2], 0, 1, 2, "discard 6p", "server", None)], at=at)

    async def failing() -> list[BaseException | None]:
        return list(await asyncio.gather(store.commit(again), store.commit(gap), store.commit(nxt),
                                         return_exceptions=True))

    got = asyncio.run(failing())
    assert [type(e) for e in got] == [IntegrityError, IntegrityError, type(None)]
    assert "out of sequence" in str(got[1])
    assert [store.stored_state(c).moves for c in codes] == [1, 1, 2]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_database_of_the_revision_before_upgrades_and_then_refuses_a_gap(kind: str, tmp_path: Path) -> None:
    """Migration 0004 on a database with rooms and moves in it (one hand of them left with a
    gap, as the old bug made): the upgrade keeps every row, adds ``rooms.damage``, and from
    then on a move that does not follow the last stored one of its hand is refused."""
    from alembic import command  # noqa: PLC0415
    from alembic.config import Config  # noqa: PLC0415
    from sqlalchemy import text  # noqa: PLC0415

    from caishen.server.db import MIGRATIONS  # noqa: PLC0415

    with database(kind, tmp_path) as url:
        engine = make_engine(url)
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0003")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO users (id, name, created_at) VALUES ('u', 'w', CURRENT_TIMESTAMP)"))
            conn.execute(text(
                "INSERT INTO rooms (code, owner, variant, ruleset, hands, turn_seconds, help_allowed, players, seed, "
                "status, created_at, seat_draw) VALUES ('r', 'u', 'longgang', '{}', 8, 0, true, '[]', '00', 'playing', "
                "CURRENT_TIMESTAMP, true)"))
            for seq in (0, 1, 3):  # move 2 missing
                conn.execute(text("INSERT INTO moves (room, hand, seq, seat, action, at) "
                                  "VALUES ('r', 0, :s, 0, 'pass', CURRENT_TIMESTAMP)"), {"s": seq})
        upgrade(engine)
        store = Store(engine)
        assert store.room("r") is not None and store.room("r").damage is None  # type: ignore[union-attr]
        with engine.connect() as conn:
            assert [r[0] for r in conn.execute(text("SELECT seq FROM moves ORDER BY seq"))] == [0, 1, 3]
        # the moves stored before 0007 say nobody vouches for them; the trigger of 0004 stays
        with engine.connect() as conn:
            assert list(conn.execute(text("SELECT DISTINCT sig, signer FROM moves"))) == [(None, None)]
        with pytest.raises(IntegrityError, match="out of sequence"):
            store.write([Batch("r", moves=[("r", 0, 5, 0, "pass", None, None)], at=now())])
        store.write([Batch("r", moves=[("r", 0, 2, 0, "pass", "unsigned", None)], at=now())])  # the gap may be filled
        store.write([Batch("r", moves=[("r", 1, 0, 0, "pass", "server", None), ("r", 1, 1, 1, "pass", None, None)],
                           at=now())])
        with pytest.raises(IntegrityError):
            store.write([Batch("r", moves=[("r", 1, 1, 1, "pass", None, None)], at=now())])  # no move twice
        engine.dispose()
