"""The group-commit writer stores every move row of many tables in one transaction, however
many rows (they go in INSERTs of up to ``MOVES_PER_INSERT`` rows), on SQLite and PostgreSQL,
with the same values and times SQLAlchemy reads back. The tables that move in one turn of the
event loop share one commit, made by the event loop on SQLite and by the writer thread on
PostgreSQL, and a failed commit reaches every table that waits for it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from caishen.server.db import MoveRow, make_engine, now, upgrade
from caishen.server.store import MOVES_PER_INSERT, Batch, Store
from helpers_server import database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with database(request.param, tmp_path) as url:
        engine = make_engine(url)
        upgrade(engine)
        yield Store(engine)
        engine.dispose()


def test_many_tables_many_moves_in_one_commit(store: Store) -> None:
    uid = store.save_user(None, "w")
    codes = [store.create_room(uid, "w", "longgang", "{}", 8, 0, True, 0, "random").code for _ in range(3)]
    at = now().replace(microsecond=123456)
    counts = (1, MOVES_PER_INSERT, 2 * MOVES_PER_INSERT + 7)  # one statement, a full one, three
    batches = [
        Batch(code, hand={"room": code, "index": 0, "commitment": "c", "started_at": at},
              moves=[(code, 0, seq, seq % 4, f"discard {1 + seq % 9}p") for seq in range(n)], at=at)
        for code, n in zip(codes, counts, strict=True)
    ]
    store.write(batches)
    with Session(store.engine) as db:
        rows = db.execute(select(MoveRow.room, MoveRow.seq, MoveRow.seat, MoveRow.action, MoveRow.at)
                          .order_by(MoveRow.room, MoveRow.seq)).all()
    got = {code: [(r.seq, r.seat, r.action) for r in rows if r.room == code] for code in codes}
    for code, n in zip(codes, counts, strict=True):
        assert got[code] == [(seq, seq % 4, f"discard {1 + seq % 9}p") for seq in range(n)]
    assert {r.at for r in rows} == {at}
    assert store.stored_state(codes[2]).moves == 2 * MOVES_PER_INSERT + 7


def test_one_commit_per_turn_made_by_the_event_loop_on_sqlite_and_by_the_writer_thread_on_postgresql(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    uid = store.save_user(None, "w")
    codes = [store.create_room(uid, "w", "longgang", "{}", 8, 0, True, 0, "random").code for _ in range(3)]
    at = now()
    commits: list[tuple[int, list[str]]] = []
    write = store.write

    def spy(batches: list[Batch]) -> None:
        commits.append((threading.get_ident(), [b.code for b in batches]))
        write(batches)

    monkeypatch.setattr(store, "write", spy)

    def first_move(code: str) -> Batch:
        return Batch(code, hand={"room": code, "index": 0, "commitment": "c", "started_at": at},
                     moves=[(code, 0, 0, 1, "discard 5p")], at=at)

    async def turn(batches: list[Batch]) -> int:
        await asyncio.gather(*(store.commit(b) for b in batches))
        return threading.get_ident()

    loop_thread = asyncio.run(turn([first_move(c) for c in codes]))
    assert [sorted(c) for _, c in commits] == [sorted(codes)]
    assert (commits[0][0] == loop_thread) is (store.engine.dialect.name == "sqlite")
    assert [store.stored_state(c).moves for c in codes] == [1, 1, 1]
    # the same move again breaks the primary key: both tables of that commit hear of it
    again = Batch(codes[0], moves=[(codes[0], 0, 0, 1, "discard 5p")], at=at)
    nxt = Batch(codes[1], moves=[(codes[1], 0, 1, 2, "discard 6p")], at=at)

    async def failing() -> list[BaseException | None]:
        return list(await asyncio.gather(store.commit(again), store.commit(nxt), return_exceptions=True))

    got = asyncio.run(failing())
    assert [type(e) for e in got] == [IntegrityError, IntegrityError]
    assert [store.stored_state(c).moves for c in codes] == [1, 1, 1]  # nothing of that commit stored
