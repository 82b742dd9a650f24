"""Fencing (issue 28, docs/server.md "Nodes"): every write of a table's moves and hands made by
a game-centre node carries the epoch the node got when it took the table over, and the database
refuses one whose epoch is no longer the room's. A refused batch stores nothing, and the other
tables committed in the same group commit are stored all the same. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from caishen.errors import CaishenError
from caishen.server.db import make_engine, now, upgrade
from caishen.server.store import Batch, Fenced, Store
from helpers_server import database, store_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


store = store_fixture("sqlite", "postgresql")


def _move(code: str, seq: int, epoch: int | None, hand: bool = False) -> Batch:
    at = now()
    return Batch(code, hand={"room": code, "index": 0, "commitment": "c", "started_at": at} if hand else None,
                 moves=[(code, 0, seq, seq % 4, "discard 5p", "server", None)], at=at, epoch=epoch)


def test_a_write_with_an_old_epoch_is_refused_and_stores_nothing(store: Store) -> None:
    uid = store.save_user(None, "w")
    code = store.create_room(uid, "w", "longgang", "{}", 8, 0, True, 0, "random").code
    assert store.epoch(code) == 0
    assert store.take_over(code) == 1  # node A takes the table
    store.write([_move(code, 0, 1, hand=True)])
    assert store.take_over(code) == 2  # node B takes it over (A paused past its lease)
    with pytest.raises(Fenced) as got:
        store.write([_move(code, 1, 1)])  # A's late move
    assert isinstance(got.value, CaishenError) and got.value.code == "fenced"
    assert store.stored_state(code).moves == 1
    store.write([_move(code, 1, 2)])  # B's move, at B's epoch
    assert store.stored_state(code).moves == 2
    assert store.epoch(code) == 2  # the check changes nothing
    # no fence asked for (one process, no node): written as before
    store.write([_move(code, 2, None)])
    assert store.stored_state(code).moves == 3
    with pytest.raises(CaishenError) as missing:
        store.take_over("no-such-room")
    assert missing.value.code == "no_room"


def test_a_refused_table_does_not_stop_the_others_of_its_group_commit(store: Store) -> None:
    uid = store.save_user(None, "w")
    codes = [store.create_room(uid, "w", "longgang", "{}", 8, 0, True, 0, "random").code for _ in range(3)]
    epochs = [store.take_over(c) for c in codes]
    store.take_over(codes[1])  # the second table was taken over by another node since

    async def turn() -> list[BaseException | None]:
        return list(await asyncio.gather(*(store.commit(_move(c, 0, e, hand=True))
                                           for c, e in zip(codes, epochs, strict=True)), return_exceptions=True))

    got = asyncio.run(turn())
    assert [type(e) for e in got] == [type(None), Fenced, type(None)]
    assert [store.stored_state(c).hands for c in codes] == [1, 0, 1]


def test_on_postgresql_a_takeover_waits_for_a_write_in_flight_and_not_for_ever(tmp_path: Path) -> None:
    """A write in flight holds its room's row until it commits (the check of its epoch): a
    takeover made meanwhile raises the epoch only after it, so the write is stored before the
    new owner reads the moves. One held past TAKE_OVER_LOCK_MS makes the takeover fail (the
    node tries again later) instead of waiting for ever on an old owner frozen mid-write."""
    import threading  # noqa: PLC0415

    from sqlalchemy.exc import OperationalError  # noqa: PLC0415

    with database("postgresql", tmp_path) as url:
        engine = make_engine(url)
        upgrade(engine)
        store = Store(engine)
        uid = store.save_user(None, "w")
        code = store.create_room(uid, "w", "longgang", "{}", 8, 0, True, 0, "random").code
        assert store.take_over(code) == 1
        with engine.connect() as old, old.begin():  # the old owner's write, not committed yet
            store._rows(old, [_move(code, 0, 1, hand=True)])
            with pytest.raises(OperationalError, match="lock"):
                store.take_over(code)  # held past the lock timeout: fails, nothing raised
            assert store.epoch(code) == 1
            got: list[int] = []

            def take() -> None:  # as a node does: tried again after a lock timeout
                for _ in range(20):
                    try:
                        got.append(store.take_over(code))
                        return
                    except OperationalError:
                        continue

            taker = threading.Thread(target=take)
            taker.start()
        taker.join(60)  # the old owner committed: the takeover goes on
        assert got == [2]
        assert store.stored_state(code).moves == 1  # the write in flight was stored before the new epoch
        with pytest.raises(Fenced):
            store.write([_move(code, 1, 1)])
        engine.dispose()
