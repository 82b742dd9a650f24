"""The tables a process runs (:class:`Tables`): opening and resuming them from the database,
the sweep that lets idle ones go and expires unopened rooms, and the rooms whose stored moves
do not replay (damaged). Which process runs a table, where there are several (nodes, or the
nodes of ``--workers N``), the node layer decides by lease (:mod:`caishen.server.nodes`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import NamedTuple

from caishen.server import collector, core, metrics
from caishen.server.conns import (
    CLOSE_SIGNED_OUT,
    PERSON_RATES,
    Budgets,
)
from caishen.server.db import now
from caishen.server.logs import fields, log
from caishen.server.store import RoomInfo, Store, Stored, unavailable
from caishen.server.tables.live import (
    EVICT_SECONDS,
    EXPIRE_SECONDS,
    SWEEP_SECONDS,
    UNOPENED_HOURS,
    LiveTable,
    rebuild,
)
from caishen.table.record import Mix


def _prefix(hands: list[list[core.StoredMove]], n: int) -> list[list[core.StoredMove]]:
    """The first ``n`` stored moves of a match, by hand."""
    out: list[list[core.StoredMove]] = []
    for h in hands:
        if n < len(h):
            out.append(h[:n])
            return out
        out.append(list(h))
        n -= len(h)
    return out


class TableRead(NamedTuple):
    """What a table is rebuilt from: the stored moves of each hand, what was mixed into each
    hand's wall, how much of the session is stored."""

    moves: list[list[core.StoredMove]]
    mixes: list[Mix | None]
    stored: Stored


class Tables:
    """Every live table of this process, by room code (with nodes, the tables it holds the
    leases of); it reads any other from the database."""

    def __init__(self, store: Store, evict_after: float = EVICT_SECONDS,
                 unopened_hours: float = UNOPENED_HOURS) -> None:
        self.store = store
        self.live: dict[str, LiveTable] = {}
        self.evict_after = evict_after
        self.unopened_hours = unopened_hours
        self.clock: Callable[[], float] = time.monotonic  # when tables went idle (tests set it)
        self.wall: Callable[[], datetime] = now  # when rooms were made, as stored
        metrics.live_tables.set_function(lambda: len(self.live))
        metrics.damaged_rooms.set_function(self._damaged_count)
        # each person's budgets, shared by their connections (and how many they have open)
        self._persons: dict[str, tuple[Budgets, int]] = {}
        # told the code of each table that leaves memory (a node lets go of its lease)
        self.on_leave: Callable[[str], None] | None = None

    def person(self, uid: str) -> Budgets:
        """The budgets of person ``uid``'s messages, for one more connection of theirs."""
        budgets, n = self._persons.get(uid) or (Budgets(PERSON_RATES), 0)
        self._persons[uid] = (budgets, n + 1)
        return budgets

    def sign_out(self, uid: str) -> None:
        """Close every table connection of person ``uid`` (logged out everywhere)."""
        for live in self.live.values():
            for c in live.clients:
                if c.uid == uid:
                    c.outbox.give_up(CLOSE_SIGNED_OUT, "signed out")
            for w in live.watching.watchers:
                if w.uid == uid:
                    w.outbox.give_up(CLOSE_SIGNED_OUT, "signed out")

    def release(self, uid: str) -> None:
        """One connection of ``uid`` closed (the budgets go with the last one)."""
        budgets, n = self._persons.get(uid) or (Budgets(PERSON_RATES), 1)
        if n <= 1:
            self._persons.pop(uid, None)
        else:
            self._persons[uid] = (budgets, n - 1)

    def start(self, room: RoomInfo) -> None:
        """A room has just started playing. Its first hand is dealt when its table is first
        opened (:meth:`open`), by the process that opens it: a room nobody opens costs no memory,
        and expires (:meth:`sweep`)."""

    def open(self, room: RoomInfo, epoch: int | None = None) -> LiveTable | None:
        """The live table of a playing room, rebuilt from the database if it
        is not live (not opened yet, left memory while idle, dealt elsewhere, or after a
        restart); None otherwise (a room whose moves do not replay is marked damaged).
        ``epoch``: a node's fencing number for the table (:mod:`caishen.server.nodes`)."""
        return self._open(room, epoch)

    async def open_soon(self, room: RoomInfo, epoch: int | None = None) -> LiveTable | None:
        """:meth:`open`, with the database reads in a thread: the event loop runs every other
        table meanwhile. Read in the loop, a table opened as a room's page connected stalled
        every table of the process for 30-100 ms at 100 busy tables (each read gives the GIL
        up, and getting it back from the request threads took up to the 5 ms switch interval
        a statement; issue 31: the slowest 1 % of moves came in such stalls)."""
        if room.code in self.live or room.status != "playing":
            return self.open(room, epoch)
        read = await asyncio.to_thread(self._read, room.code)
        return self._open(room, epoch, read)  # a table opened meanwhile by another page is kept

    def _read(self, code: str, moves: list[list[core.StoredMove]] | None = None) -> TableRead:
        """What rebuilding room ``code``'s table reads: its moves (unless given), its mixes, how
        much is stored."""
        return TableRead(self.store.moves(code) if moves is None else moves, self.store.mixes(code),
                         self.store.stored_state(code))

    def _open(self, room: RoomInfo, epoch: int | None = None, read: TableRead | None = None) -> LiveTable | None:
        """The live table, or rebuilt from ``read`` (read here if None)."""
        live = self.live.get(room.code)
        if live is None and room.status == "playing":
            hands = self.store.moves(room.code) if read is None else read.moves
            try:
                live = self._resume(room, read if read is not None else self._read(room.code, hands), epoch)
            except Exception as exc:
                if unavailable(exc):
                    raise
                self.damage(room, exc, hands)
                return None
        return live

    def session_of(self, room: RoomInfo) -> core.Session | None:
        """The match of a playing room, to read: the live one, or one rebuilt from the stored
        moves (nothing is written, and nothing is kept in memory)."""
        if room.status == "damaged":
            return self.consistent(room)
        live = self.live.get(room.code)
        if live is not None:
            return live.session
        if room.status != "playing":
            return None
        try:
            return self._session(room, self.store.moves(room.code))
        except Exception:  # noqa: BLE001 - its owner marks it damaged; until then, what replays
            return self.consistent(room)

    def sweep(self, expire: bool = True, leaving: list[LiveTable] | None = None) -> tuple[int, int]:
        """Tables nobody has been connected to for ``evict_after`` seconds leave memory (an
        unfinished match is rebuilt from its moves when next opened), and a finished match,
        all of it stored, as soon as nobody is connected (it is served from its stored record);
        with ``expire``, rooms whose table nobody opened within ``unopened_hours`` expire.
        ``leaving``: the evicted tables are put there for the caller to let go of (their
        objects are freed when the last reference goes). Returns (tables evicted, rooms expired)."""
        t = self.clock()
        evicted = 0
        for code, live in list(self.live.items()):
            if live.clients or live.watching.watchers:  # a watched table stays
                live.idle_since = None
                continue
            if live.idle_since is None:
                live.idle_since = t
            # finished matches left for minutes, some 300 KiB each: at a busy centre hundreds
            # of them at once, a peak of play the process's memory never gave back (issue 26,
            # docs/server.md "Memory: what stays loaded")
            over = live.session.over and live.stored.match_done
            if (over or t - live.idle_since >= self.evict_after) and not live.lock.locked() and not live.paused:
                live.evict()
                del self.live[code]
                if leaving is not None:
                    leaving.append(live)
                evicted += 1
                if self.on_leave is not None:
                    self.on_leave(code)
        if evicted:
            collector.ask_for_sweep()
        if not expire:
            return evicted, 0
        expired = self.store.expire_unopened(self.wall() - timedelta(hours=self.unopened_hours))
        return evicted, expired

    async def keep_sweeping(self, also: Callable[[], object] | None = None) -> None:
        """:meth:`sweep` every SWEEP_SECONDS, for as long as the app runs; the rooms' expiry
        (a write) and ``also``, the app's other sweeps, every EXPIRE_SECONDS."""
        every = max(1, round(EXPIRE_SECONDS / SWEEP_SECONDS))
        rounds = 0
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            rounds += 1
            slow = rounds % every == 0
            leaving: list[LiveTable] = []
            try:
                self.sweep(expire=slow, leaving=leaving)
                if slow and also is not None:
                    also()
            except Exception:  # noqa: BLE001 - the database away: the next sweep tries again
                logging.getLogger("caishen.server").exception("sweeping the tables failed")
            # Let go of the evicted tables one at a time, each in a turn of the event loop of
            # its own: freeing a finished match's objects takes about 2 ms, and the tens that a
            # sweep evicts at 100 busy tables, freed at once, stopped every table for 20-80 ms
            # (issue 31: the slowest 1 % of the moves).
            while leaving:
                leaving.pop()
                await asyncio.sleep(0)

    def resume_all(self) -> int:
        """Rebuild every unfinished match from its stored moves (one process, after a
        restart; a node takes tables by lease instead); rooms nobody opened are left in the database (:meth:`open` deals them).
        A room whose moves do not replay is marked damaged (:meth:`damage`) and the others
        are resumed all the same: one room never keeps the centre down."""
        n = 0
        for room, hands in self.store.playing():
            try:
                self._resume(room, self._read(room.code, hands))
            except Exception as exc:
                if unavailable(exc):
                    raise
                self.damage(room, exc, hands)
                continue
            n += 1
        return n

    def check(self) -> list[RoomInfo]:
        """``caishen serve --check``: replay every unfinished match (writing nothing), mark the
        ones that do not replay damaged; every damaged room."""
        for room, hands in self.store.playing():
            try:
                self.rebuild(room, hands, self.store.mixes(room.code))
            except Exception as exc:  # noqa: BLE001 - any failure to replay is damage
                self.damage(room, exc, hands)
        return self.store.damaged()

    def damage(self, room: RoomInfo, exc: BaseException, hands: list[list[core.StoredMove]] | None = None) -> None:
        """Mark ``room`` damaged: logged with its code and the reason (and where its stored
        moves stop replaying), stored, counted."""
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        if hands is not None:
            try:
                good, _ = self._consistent(room, hands)
            except Exception:  # noqa: BLE001 - not even the deal replays: the reason says why
                good = -1
            for i, h in enumerate(hands):
                if 0 <= good < len(h):
                    at, action = h[good][:2]
                    # counted as the pages count hands, and where it is in the table ``moves``
                    reason = f"hand {i + 1} (moves.hand {i}, seq {good}: {action!r} by player {at}): {reason}"
                    break
                good -= len(h)
        log.error("stored moves do not replay: room marked damaged",
                  extra=fields(event="room_damaged", room=room.code, reason=reason))
        self.store.mark_damaged(room.code, reason)
        if self.live.pop(room.code, None) is not None and self.on_leave is not None:
            self.on_leave(room.code)

    def _damaged_count(self) -> float:
        """The rooms marked damaged, counted in the database (shared by every process) at
        each scrape; NaN while it does not answer."""
        try:
            return float(self.store.damaged_count())
        except Exception:  # noqa: BLE001 - a scrape must not fail with the database
            return float("nan")

    def consistent(self, room: RoomInfo) -> core.Session:
        """A damaged room's match up to its last consistent move."""
        return self._consistent(room, self.store.moves(room.code))[1]

    def _consistent(self, room: RoomInfo, hands: list[list[core.StoredMove]]) -> tuple[int, core.Session]:
        """How many of the stored moves replay, and the match they make: the longest prefix
        that replays (a binary search: a prefix of a prefix that replays replays)."""
        total = sum(len(h) for h in hands)
        mixes = self.store.mixes(room.code)
        good, bad = 0, total + 1
        best = self.rebuild(room, _prefix(hands, 0), mixes)
        while bad - good > 1:
            mid = (good + bad) // 2
            try:
                session = self.rebuild(room, _prefix(hands, mid), mixes)
            except Exception:  # noqa: BLE001 - not consistent that far
                bad = mid
                continue
            good, best = mid, session
        return good, best

    def _resume(self, room: RoomInfo, read: TableRead, epoch: int | None = None) -> LiveTable:
        # Bots may have moved on from the last stored move (a crash before the write): _live
        # writes what the stored moves lead to.
        # A fresh room's first hand is not dealt yet: the people contribute to its wall first.
        session = self.rebuild(room, read.moves, read.mixes, deal=False)
        return self._live(room, session, read.stored, read.moves, read.mixes, epoch)

    def _session(self, room: RoomInfo, hands: list[list[core.StoredMove]]) -> core.Session:
        return self.rebuild(room, hands, self.store.mixes(room.code))

    rebuild = staticmethod(rebuild)  # (the live tables' own, for the tests and callers of Tables)

    def _live(self, room: RoomInfo, session: core.Session, stored: Stored,
              hands: list[list[core.StoredMove]] | None = None, mixes: list[Mix | None] | None = None,
              epoch: int | None = None) -> LiveTable:
        """Write what ``session`` (rebuilt from ``hands``) did beyond ``stored``, and keep it
        as a live table (with a node's fencing number ``epoch``)."""
        batch = self.store.sync(room.code, session, stored, epoch)
        t = LiveTable(self.store, room, session, stored, [list(h) for h in hands or []], list(mixes or []),
                      epoch)
        t._stored(batch)
        self.live[room.code] = t
        return t
