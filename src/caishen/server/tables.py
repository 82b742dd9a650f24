"""Live tables: one :class:`LiveTable` per playing room, owning its ``MatchSession``.

All changes to a table happen under its lock, in this order: check the message, apply it to
the session (the bots answer inside :meth:`MatchSession.act`), write every new move to the
database (:meth:`Store.sync`), and only then send each connected seat its own view.
A seat whose timer runs out is played by a stand-in bot until its person acts again.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from caishen.server import core
from caishen.server.protocol import (
    ActMessage,
    BackMessage,
    ErrorMessage,
    HelpMessage,
    NextMessage,
    PingMessage,
    ProtocolError,
    parse_client_message,
)
from caishen.server.store import RoomInfo, Store, Stored, new_code

RATE_PER_SECOND = 10.0  # sustained messages a connection may send
RATE_BURST = 20.0       # and in a burst; each new state sent to it also allows one answer
NEXT_HAND_SECONDS = 30.0  # with a turn timer: the next hand starts by itself after this


@dataclass(eq=False)
class Client:
    """One WebSocket connection of player ``player`` (a room's player index)."""

    player: int
    send: Callable[[str], Awaitable[None]]
    help_on: bool = False
    tokens: float = RATE_BURST
    last: float = field(default_factory=time.monotonic)

    def allow(self) -> bool:
        """Token bucket: RATE_PER_SECOND sustained, RATE_BURST at once."""
        t = time.monotonic()
        self.tokens = min(RATE_BURST, self.tokens + (t - self.last) * RATE_PER_SECOND)
        self.last = t
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class LiveTable:
    def __init__(self, store: Store, room: RoomInfo, session: core.Session, stored: Stored) -> None:
        self.store = store
        self.room = room
        self.session = session
        self.stored = stored
        self.lock = asyncio.Lock()
        self.clients: list[Client] = []
        self.away: set[int] = set()
        self.ready: set[int] = set()
        self.help_ok = room.help_allowed
        self.stand_ins = {i: core.stand_in(session.ruleset) for i, b in enumerate(room.bots) if b is None}
        self._timer: asyncio.TimerHandle | None = None
        self._deadline: float | None = None
        self._armed: tuple[int, int, bool] | None = None

    # ------------------------------------------------------------ connections

    async def join(self, client: Client) -> None:
        async with self.lock:
            self.clients.append(client)
            self._arm()
            await self._broadcast([])

    async def leave(self, client: Client) -> None:
        async with self.lock:
            if client in self.clients:
                self.clients.remove(client)
            await self._broadcast([])

    async def receive(self, client: Client, text: str) -> None:
        """One message from a client: refused with an error (nothing changes) or applied."""
        if not client.allow():
            await self._error(client, "rate_limited", "too many messages: slow down")
            return
        try:
            msg = parse_client_message(text)
        except ProtocolError as exc:
            await self._error(client, exc.code, str(exc))
            return
        if isinstance(msg, PingMessage):
            await client.send('{"type":"pong"}')
            return
        async with self.lock:
            try:
                if isinstance(msg, ActMessage):
                    await self._act(client, msg)
                elif isinstance(msg, NextMessage):
                    await self._next(client, msg)
                elif isinstance(msg, BackMessage):
                    self.away.discard(client.player)
                    await self._broadcast([])
                elif isinstance(msg, HelpMessage):
                    if msg.on and not self.help_ok:
                        raise ProtocolError("help_off", "this room does not allow learner help")
                    client.help_on = msg.on
                    await self._send_view(client, [])
            except ProtocolError as exc:
                await self._error(client, exc.code, str(exc))

    # ------------------------------------------------------------ moves

    async def _act(self, client: Client, msg: ActMessage) -> None:
        s = self.session
        if s.over or s.hand_over:
            raise ProtocolError("hand_over", "the hand is over")
        if msg.hand != s.hand_index or msg.step != len(s.moves):
            raise ProtocolError("stale", f"that move was for hand {msg.hand} step {msg.step}; "
                                f"the table is at hand {s.hand_index} step {len(s.moves)}")
        seat = s.seat_of(client.player)
        if seat is None or seat not in s.waiting_for():
            raise ProtocolError("not_your_turn", "it is not your turn to act")
        try:
            action = core.action_of(msg.action)
        except ValueError as exc:
            raise ProtocolError("bad_action", str(exc)) from None
        if action not in s.legal_actions(seat):
            raise ProtocolError("illegal", f"{msg.action!r} is not a legal action now")
        done = s.act(seat, action)
        self.away.discard(client.player)
        done += self._stand_ins()
        await self._commit(done)

    def _stand_ins(self) -> list[core.Move]:
        """Moves of the stand-in bots for the seats of people who are away."""
        s = self.session
        done: list[core.Move] = []
        while not s.hand_over:
            seats = [x for x in s.waiting_for() if s.seats[x] in self.away]
            if not seats:
                break
            seat = seats[0]
            done += s.act(seat, core.auto_action(self.stand_ins[s.seats[seat]], s, seat))
        return done

    async def _next(self, client: Client, msg: NextMessage) -> None:
        s = self.session
        if not s.hand_over or s.over or msg.hand != s.hand_index:
            raise ProtocolError("stale", "no hand to start")
        self.ready.add(client.player)
        present = {c.player for c in self.clients} - self.away
        if present <= self.ready:
            await self._deal_next()
        else:
            await self._broadcast([])

    async def _deal_next(self) -> None:
        self.ready.clear()
        done = self.session.next_hand()
        done += self._stand_ins()
        await self._commit(done)

    async def _commit(self, done: list[core.Move]) -> None:
        """The durability point: moves are stored, then told, then the timer is set."""
        # The write is made once this turn of the event loop is over, with every other table's
        # of the turn; this table's lock is held, so nothing here moves and nobody hears of
        # it before it is stored.
        await self.store.sync_async(self.room.code, self.session, self.stored)
        self._arm()
        await self._broadcast(done)

    # ------------------------------------------------------------ timer

    def _arm(self) -> None:
        """(Re)start the countdown for the people who must act now, or for the next hand; a
        countdown already running for this same state keeps going (joins do not reset it)."""
        s = self.session
        version = (s.hand_index, len(s.moves), s.hand_over)
        if self._timer is not None and version == self._armed:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._deadline = None
        self._armed = version
        if self.room.turn_seconds <= 0 or s.over or (not s.hand_over and not s.waiting_for()):
            return
        loop = asyncio.get_running_loop()
        wait = NEXT_HAND_SECONDS if s.hand_over else float(self.room.turn_seconds)
        self._deadline = loop.time() + wait
        self._timer = loop.call_later(wait, lambda: loop.create_task(self._timeout(version)))

    async def _timeout(self, version: tuple[int, int, bool]) -> None:
        async with self.lock:
            s = self.session
            if (s.hand_index, len(s.moves), s.hand_over) != version or s.over:
                return
            self._timer = None
            if s.hand_over:
                await self._deal_next()
                return
            for seat in s.waiting_for():
                self.away.add(s.seats[seat])
            await self._commit(self._stand_ins())

    # ------------------------------------------------------------ sending

    def _people(self) -> core.SeatPeople:
        return core.SeatPeople(
            self.room.names, self.room.bots, frozenset(c.player for c in self.clients), frozenset(self.away)
        )

    async def _send_view(self, client: Client, done: list[core.Move], people: core.SeatPeople | None = None) -> None:
        s = self.session
        events = core.public_events(done, s.seat_of(client.player))
        deadline = None
        if self._deadline is not None:
            deadline = max(0, int((self._deadline - asyncio.get_running_loop().time()) * 1000))
        extras = core.ViewExtras(
            code=self.room.code, variant=self.room.variant,
            hands_total=None if self.room.hands == 0 else self.room.hands, deadline_ms=deadline,
            help_on=client.help_on, help_allowed=self.help_ok,
        )
        text = core.table_view_json(s, client.player, people or self._people(), extras, events)
        client.tokens = min(RATE_BURST, client.tokens + 1)  # a client may answer every state at once
        try:
            await client.send(text)
        except Exception:  # noqa: BLE001 - a closed socket: its handler removes the client
            pass

    async def _broadcast(self, done: list[core.Move]) -> None:
        people = self._people()
        for c in list(self.clients):
            await self._send_view(c, done, people)

    async def _error(self, client: Client, code: str, message: str) -> None:
        try:
            await client.send(ErrorMessage(code=code, message=message).model_dump_json())
        except Exception:  # noqa: BLE001
            pass


@dataclass(frozen=True)
class WorkerPlan:
    """Which of the server's processes this is: ``index`` of ``count``; with more than one,
    ``sockets`` is the directory of the processes' own Unix sockets (``w0.sock``, …), where a
    process that does not own a table passes its WebSocket on (docs/server.md)."""

    index: int = 0
    count: int = 1
    sockets: str | None = None

    def owner_of(self, code: str) -> int:
        """The process that owns room ``code``'s table: a hash of the code, so every process
        agrees without asking, and a restarted process finds its own rooms again."""
        if self.count == 1:
            return 0
        return int.from_bytes(hashlib.sha256(code.encode()).digest()[:4], "big") % self.count

    def code_of(self, owner: int) -> str:
        """A new room code that process ``owner`` owns: random codes drawn until the hash fits,
        ``count`` draws on average. The code stays as unguessable as any (72 random bits); its
        owner is no secret."""
        while True:
            code = new_code()
            if self.owner_of(code) == owner:
                return code

    def socket_of(self, code: str) -> str:
        """The Unix socket of the process that owns room ``code``."""
        assert self.sockets is not None
        return str(Path(self.sockets) / f"w{self.owner_of(code)}.sock")

    def inbox_of(self, index: int) -> str:
        """The Unix datagram socket where process ``index`` takes connections handed to it."""
        assert self.sockets is not None
        return str(Path(self.sockets) / f"h{index}.sock")


class Tables:
    """Every live table of this process, by room code. With several processes (``plan``) a
    process runs only the tables it owns; it reads any other from the database."""

    def __init__(self, store: Store, plan: WorkerPlan | None = None) -> None:
        self.store = store
        self.plan = plan or WorkerPlan()
        self.live: dict[str, LiveTable] = {}

    def new_code(self) -> str:
        """The code of a new room. With several processes, one that the process with the
        fewest unfinished matches owns (counted in the database, which they share; ties
        drawn at random). A hash of a random code alone spread the tables blindly: at 100
        tables on two processes, 61 live tables against 41, and the busier one's moves took
        1.4 times as long. Neither the process that took the request (the first to accept
        it: 286 tables against 115 at 400) nor each process handing its rooms round in turn
        (matches end at random) kept them even (docs/server.md)."""
        if self.plan.count == 1:
            return new_code()
        load = [0] * self.plan.count
        for code in self.store.playing_codes():
            load[self.plan.owner_of(code)] += 1
        least = min(load)
        return self.plan.code_of(secrets.choice([i for i, n in enumerate(load) if n == least]))

    def owns(self, code: str) -> bool:
        return self.plan.owner_of(code) == self.plan.index

    def start(self, room: RoomInfo) -> LiveTable | None:
        """Deal the first hand of a room that has just started playing; in a process that does
        not own it, nothing: its owner deals when the table is first opened (:meth:`open`)."""
        if not self.owns(room.code):
            return None
        return self._live(room, self._session(room, []), Stored())

    def open(self, room: RoomInfo) -> LiveTable | None:
        """The live table of a playing room this process owns, rebuilt from the database if it
        is not live yet (dealt elsewhere, or after a restart); None otherwise."""
        live = self.live.get(room.code)
        if live is None and room.status == "playing" and self.owns(room.code):
            live = self._resume(room, self.store.moves(room.code))
        return live

    def session_of(self, room: RoomInfo) -> core.Session | None:
        """The match of a playing room, to read: the live one, or for a table another process
        owns, one rebuilt from the stored moves (nothing is written)."""
        live = self.open(room)
        if live is not None:
            return live.session
        if room.status != "playing":
            return None
        return self._session(room, self.store.moves(room.code))

    def resume_all(self) -> int:
        """Rebuild every unfinished match this process owns from its stored moves (after a
        restart)."""
        n = 0
        for room, hands in self.store.playing():
            if self.owns(room.code):
                self._resume(room, hands)
                n += 1
        return n

    def _resume(self, room: RoomInfo, hands: list[list[tuple[int, str]]]) -> LiveTable:
        # Bots may have moved on from the last stored move (a crash before the write): _live
        # writes what the stored moves lead to.
        return self._live(room, self._session(room, hands), self.store.stored_state(room.code))

    def _session(self, room: RoomInfo, hands: list[list[tuple[int, str]]]) -> core.Session:
        """Room ``room``'s match rebuilt from the stored moves of each hand dealt (none: the
        first hand just dealt)."""
        ruleset = core.ruleset_from_json(room.ruleset, room.variant)
        if not hands:
            return core.new_session(ruleset, room.bots, room.seed, room.names, room.seat_draw)
        return core.resume_session(ruleset, room.bots, room.seed, room.names, hands, room.seat_draw)

    def _live(self, room: RoomInfo, session: core.Session, stored: Stored) -> LiveTable:
        """Write what ``session`` did beyond ``stored``, and keep it as a live table."""
        self.store.sync(room.code, session, stored)
        t = self.live[room.code] = LiveTable(self.store, room, session, stored)
        return t
