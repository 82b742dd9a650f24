"""What stopped every table of a process at once (issue 31: the slowest 1 % of the moves at 100
busy tables, docs/performance.md "sixth pass"), each shown gone:

- the loop's group commit sent to the writer thread whenever a room's join held the writers'
  turn, where it waited 25-100 ms for the GIL;
- SQLite's automatic checkpoint (two waits for the disk) inside the loop's commit;
- the database reads of a table being opened, made in the event loop;
- the tens of tables a sweep evicts, freed at once;
- a reference cycle made by every loser's hand scored (mypyc's closures), freed only by the
  collector.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from caishen.notation import parse_hand, parse_tile
from caishen.server import db
from caishen.server.app import create_app
from caishen.server.store import Batch, Store
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.longgang.scoring import score_hand
from helpers_server import asked, database, store_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

store = store_fixture("sqlite")


def test_the_loops_commit_goes_on_while_a_join_holds_the_writers_turn(store: Store) -> None:
    """A request thread of this process holds the writers' turn (a join's read-then-write of a
    room's seats): the loop's commit is made in the loop all the same, not handed to the
    writer thread."""
    held, release = threading.Event(), threading.Event()

    def join() -> None:
        with store._turn():  # as Store.join does
            held.set()
            release.wait(30)

    t = threading.Thread(target=join)
    t.start()
    try:
        assert held.wait(30)

        async def commit() -> None:
            await asyncio.wait_for(store.commit(Batch("ABCDEF")), 30)

        asyncio.run(commit())
        assert store._writer is None  # never needed: the commit was the loop's own
    finally:
        release.set()
        t.join(30)


def test_sqlite_checkpoints_off_the_loop(store: Store) -> None:
    """The centre's SQLite connections make no automatic checkpoint (25-50 ms of waiting for
    the disk inside a commit); :meth:`Store.checkpoint`, run in a thread, copies the log."""
    asyncio.run(store.commit(Batch("ABCDEF")))
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one() == 0
    for _ in range(5):
        asyncio.run(store.commit(Batch("ABCDEF")))
    store.checkpoint()
    with store.engine.connect() as conn:
        busy, log, done = conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
    assert busy == 0 and log == done  # every page of the log is in the database file


def test_the_logs_file_is_cut_back_after_a_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's write-ahead log kept the largest size it ever reached (202 MB after minutes of
    30 busy tables): once a checkpoint has copied it and it starts over, its file is cut back
    to ``SQLITE_WAL_KEPT_BYTES`` (here 1 MiB)."""
    monkeypatch.setattr(db, "SQLITE_WAL_KEPT_BYTES", 1024 * 1024)
    path = tmp_path / "centre.sqlite3"
    store = Store(db.make_engine(f"sqlite:///{path}"))
    wal = Path(str(path) + "-wal")
    with store.engine.begin() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_size_limit").scalar_one() == 1024 * 1024
        conn.exec_driver_sql("CREATE TABLE filler (x BLOB)")
        conn.exec_driver_sql("INSERT INTO filler VALUES " + ",".join(["(randomblob(4000))"] * 1500))
    assert wal.stat().st_size > 4 * 1024 * 1024  # the log holds the 6 MB written
    store.checkpoint()
    with store.engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO filler VALUES (x'00')")  # the log starts over
    assert wal.stat().st_size <= 1024 * 1024
    store.close()


def test_a_table_is_opened_with_its_reads_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's WebSocket opens the table: the person, the room and the table's moves are read
    in a thread, not in the event loop's."""
    with database("sqlite", tmp_path) as url:
        app = create_app(url)
        threads: dict[str, str] = {}
        store_: Store = app.state.store
        for name in ("room", "moves", "mixes", "stored_state", "session_user"):
            real = getattr(store_, name)

            def spy(*args: Any, _real: Any = real, _name: str = name) -> Any:
                threads[_name] = threading.current_thread().name
                return _real(*args)

            monkeypatch.setattr(store_, name, spy)
        with TestClient(app) as ann:
            assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
            code = ann.post("/api/rooms", json={"pace": "instant", "friends": 0, "turn_seconds": 0,
                                                "hands": 8}).json()["code"]
            threads.clear()
            with ann.websocket_connect(f"/ws/{code}") as ws:
                v = asked(ws)
                assert v["type"] == "state"
                loop_name = ann.portal.call(lambda: threading.current_thread().name)
    assert {"room", "moves", "mixes", "stored_state", "session_user"} <= set(threads), threads
    assert loop_name not in set(threads.values()), (loop_name, threads)


def test_a_sweep_hands_its_evicted_tables_to_the_caller(tmp_path: Path) -> None:
    """The tables a sweep evicts are handed to ``leaving`` (the app lets go of them one turn of
    the event loop at a time), and are freed once let go of."""
    with database("sqlite", tmp_path) as url:
        app = create_app(url)
        with TestClient(app) as ann:
            assert ann.post("/api/me", json={"name": "Ann"}).status_code == 200
            code = ann.post("/api/rooms", json={"pace": "instant", "friends": 0, "turn_seconds": 0,
                                                "hands": 8}).json()["code"]
            with ann.websocket_connect(f"/ws/{code}") as ws:
                asked(ws)
            tables = app.state.tables
            live = tables.live[code]
            gone = weakref.ref(live)
            tables.evict_after = 0.0
            leaving: list[Any] = []
            ann.portal.call(lambda: tables.sweep(expire=False, leaving=leaving))
            ann.portal.call(lambda: tables.sweep(expire=False, leaving=leaving))  # idle since the first
            assert code not in tables.live
            assert leaving == [live]
            del live
            leaving.clear()
            gc.collect()
            assert gone() is None


def test_scoring_a_losers_hand_makes_no_reference_cycle() -> None:
    """Scored with mypyc's closures, every loser's hand left a cycle (the closures' shared
    environment and the closures), freed only by a collection of the young generation, which the
    game centre no longer makes every few thousand objects."""
    hand = parse_hand("{1m2m3m} {1s2s3s} {1p2p3p} 7z 2z 123m f12")  # a loser's hand of the rules' examples
    wild = parse_tile("f3")
    score_hand(hand, 0, 0, wild, LONGGANG)  # the caches warm
    gc.collect()
    gc.disable()
    try:
        for seat in range(4):
            score_hand(hand, seat, 0, wild, LONGGANG)
        assert gc.collect() == 0
    finally:
        gc.enable()
