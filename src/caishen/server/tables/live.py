"""Live tables: one :class:`LiveTable` per playing room, owning its ``MatchSession``.

All changes to a table happen under its lock, in this order: check the message, apply it to
the session (a paced session: one move; the table plays the bots at the room's pace, each
move told as its own event), write every new move to the
database (:meth:`Store.sync`), and only then put each connected seat's own view into that
connection's outgoing queue. Sending happens outside the lock, in one writer task per
connection (:class:`caishen.server.conns.Outbox`): a seat that reads slowly never holds up the
table. A seat whose timer runs out is played by a stand-in bot until its person acts again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import ipaddress
import json
import os
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field

from caishen.server import contrib, core, metrics
from caishen.server.conns import (
    CLOSE_MOVED,
    CLOSE_REMOVED,
    CLOSE_REPLACED,
    CONNECTION_RATES,
    PERSON_RATES,
    SOCKETS_PER_SEAT,
    Budgets,
    Outbox,
    allow,
    give_back,
)
from caishen.server.logs import error_line, fields, log
from caishen.server.protocol import (
    PONG,
    ActMessage,
    BackMessage,
    BallotMessage,
    ChatMessage,
    ContributeMessage,
    ErrorMessage,
    HelpMessage,
    KeyMessage,
    NextMessage,
    PingMessage,
    ProtocolError,
    RemovedMessage,
    RemoveMessage,
    ResumeMessage,
    SaidMessage,
    SameAddressMessage,
    SayMessage,
    StorageMessage,
    TakeoverMessage,
    VoteMessage,
    parse_client_message,
)
from caishen.server.store import Batch, Fenced, RoomInfo, Store, Stored, unavailable
from caishen.server.tables import votes
from caishen.server.tables.chat import ChatLog
from caishen.server.tables.watchers import Watching
from caishen.table.record import Mix

SERVER, UNSIGNED = "server", "unsigned"  # who vouches for a move (caishen.table.movesig)
NEXT_HAND_SECONDS = 30.0  # with a turn timer: the next hand starts by itself after this
EVICT_SECONDS = 180.0     # an unfinished table nobody is connected to leaves memory after this (--evict-after)
TAKEOVER_SECONDS = 180.0  # without a turn timer: the others may hand an absent person's seat to a bot after this
UNOPENED_HOURS = 24.0     # a room whose table nobody opened expires after this (--unopened-hours)
SWEEP_SECONDS = 5.0       # how often the tables are looked over for leaving memory
EXPIRE_SECONDS = 30.0     # ... and the rooms nobody opened for expiry
HISTORY_EVENTS = 40       # the moves told that a table keeps, for a page that reconnects (?since=H:S)


@dataclass(eq=False)
class Client:
    """One WebSocket connection of player ``player`` (a room's player index): its outgoing
    queue, its budgets and its person's (``person``, shared by all of that person's
    connections)."""

    player: int
    outbox: Outbox
    uid: str = ""
    help_on: bool = False
    last_state: str = ""  # the last state queued: the same again is not sent
    budgets: Budgets = field(default_factory=lambda: Budgets(CONNECTION_RATES))
    person: Budgets = field(default_factory=lambda: Budgets(PERSON_RATES))
    contributes: bool = False  # the page sends its randomness to every wall (?contribute=1)
    key: str | None = None  # the public key this connection's page signs its moves with
    since: tuple[int, int] | None = None  # the last (hand, step) its page saw (?since=H:S): told what it missed
    # the last move not told yet that its state shows already (the state that asked it about a
    # discard, or its first): the next telling leaves out that move and those before it
    shown_to: tuple[int, int] | None = None
    addr: str = ""  # its network address as a token of the room (address_token), "" when not known


def address_token(seed: bytes, host: str | None) -> str:
    """What a table keeps of a connection's network address (the same-address warning): a
    keyed hash under the room's secret seed, the same on every node and process of the centre
    and unlike any other room's; ``""`` for no address, a name that is not an address (a test
    client) or a loopback one (the machine itself, or a proxy that did not say who connected:
    every person would share it). The address itself is neither kept nor told."""
    if not host:
        return ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return ""
    if ip.is_loopback or ip.is_unspecified:
        return ""
    return hashlib.blake2b(ip.packed, key=seed[:64], digest_size=12, person=b"caishen-addr").hexdigest()


STORAGE_LOST = "connection to storage lost, retrying"
TABLE_MOVED = "this table moved to another node: reconnecting"


# How long a bot takes over a move, by the room's pace (docs/server.md, "Paced play").
BOT_SECONDS: dict[str, float] = {"normal": 0.6, "fast": 0.2, "instant": 0.0}
# The claim pause: after every discard (and added kong) every seat waits this long, whether or
# not anyone may claim (docs/server.md, "What the timing tells").
CLAIM_PAUSE_SECONDS = 0.8


def pace_scale() -> float:
    """``$CAISHEN_PACE_SCALE`` (default 1): every pace and pause times this. Tests and demos
    play the same events, spaced closer; 0 keeps their order with no wait at all."""
    try:
        return max(0.0, float(os.environ.get("CAISHEN_PACE_SCALE", "1")))
    except ValueError:
        return 1.0


@dataclass(slots=True)
class _Untold:
    """A move applied and stored, not told yet: its hand, the step after it, whether it was an
    answer in a claim window, and whether it is told (a claim that lost never is)."""

    move: core.Move
    hand: int
    step: int
    in_window: bool
    tell: bool


def _window_answers(session: core.Session) -> list[_Untold]:
    """A session made inside a claim window (a table rebuilt from storage: taken over from
    another node, or back to its stored state after a failed write): the answers stored in the
    window so far, untold until it closes like those given here (only the claims that took
    effect are told then)."""
    return [_Untold(m, session.hand_index, step, True, True) for m, step in core.window_answers(session)]


@dataclass(slots=True)
class _Told:
    """A move told, kept for pages that reconnect: the hand in play when it was told and each
    player's seat then, so that it is told again exactly as it was."""

    move: _Untold
    hand: int
    seats: tuple[int | None, ...]

    def text(self, player: int) -> str | None:
        u = self.move
        return core.event_json(u.move, self.seats[player] if u.hand == self.hand else None, u.hand, u.step)


def _outboxes(table: weakref.ReferenceType[LiveTable]) -> list[Outbox]:
    """The outgoing queues of a table's players' connections (none once the table is gone)."""
    live = table()
    return [] if live is None else [c.outbox for c in live.clients]


class LiveTable:
    """One playing room's table. The match is played here a move at a time (a paced
    session): a person's move when it comes, a bot's when the room's pace says, each told to
    every seat as its own event; after every discard a claim pause that is the same whoever
    may claim (docs/server.md)."""

    def __init__(self, store: Store, room: RoomInfo, session: core.Session, stored: Stored,
                 log: list[list[core.StoredMove]], mixes: list[Mix | None] | None = None,
                 epoch: int | None = None) -> None:
        self.store = store
        # a node's fencing number for this table (docs/server.md, "Nodes"): every write carries
        # it; None: one process, no fence
        self.epoch = epoch
        self.on_lost: Callable[[str], None] | None = None  # told when a write is fenced off
        self.room = room
        self.session = session
        self.stored = stored
        self.log = log  # the stored moves of each hand: what the table goes back to if a write fails
        self.mixes = mixes if mixes is not None else []  # ... and what was mixed into each hand's wall
        self.window: contrib.Window | None = None  # the people's contributions to the next deal
        self.window_seconds = contrib.window_seconds()
        self.paused = False  # the database could not be written: nothing moves until it can
        self.lock = asyncio.Lock()
        self.clients: list[Client] = []
        # The table's parts hold it weakly: a table that refers to itself through them is a
        # cycle, which the server's collector, freezing what lives a second
        # (caishen.server.collector), frees only at its next sweep. Every table that left memory
        # then stayed there, whole, until that sweep: at a busy centre hundreds of them at once
        # (some 2,300 objects each), a peak the process's memory never gave back (issue 26).
        me = weakref.ref(self)
        self.watching = Watching(room, functools.partial(_outboxes, me))  # spectators (watchers.py)
        self.addresses: dict[int, set[str]] = {}  # player -> the address tokens of its connections
        self._told_addresses: frozenset[frozenset[int]] = frozenset()
        self.told: dict[int, str] = {}  # player -> the last state its pages were sent (_send_told)
        self.away: set[int] = set()
        # away people who connected again: the stand-in leaves them their next prompt (it plays
        # on if their timer runs out again); acting or "back" ends 托管 altogether
        self.spared: set[int] = set()
        self.ready: set[int] = set()
        self.help_ok = room.help_allowed
        self.stand_ins = {i: core.stand_in(session.ruleset) for i, b in enumerate(room.bots) if b is None}
        self._timer: asyncio.TimerHandle | None = None
        self._deadline: float | None = None
        self._armed: tuple[int, int, bool] | None = None
        self._recovery: asyncio.Task[None] | None = None
        self.idle_since: float | None = None  # since when nobody is connected (Tables' clock)
        # people with no connection, since when (time.monotonic), and those whose seat the others
        # handed to the stand-in bot (they take it back when they come back)
        t = time.monotonic()
        self.gone_since = {p: t for p, b in enumerate(room.bots) if b is None}
        self.handed: set[int] = set()
        # people the room's owner removed (same-address warning): a bot plays them, for good
        self.removed = {p for p, slot in enumerate(room.players) if slot.removed}
        self.away |= self.removed
        self._offer: asyncio.TimerHandle | None = None
        self.evicted = False  # out of memory: nothing may change here any more
        scale = pace_scale()
        self.people = sum(1 for b in room.bots if b is None)
        pace = room.pace if room.pace in BOT_SECONDS else "normal"
        self.bot_seconds = BOT_SECONDS[pace] * scale
        self.instant = pace == "instant"  # bots move at once, their turns not told apart
        # only one person with bots at the instant pace skips the pause: nobody else to tell
        self.pause_seconds = 0.0 if pace == "instant" and self.people <= 1 else CLAIM_PAUSE_SECONDS * scale
        self.pausing = not (pace == "instant" and self.people <= 1)
        self._holding = False                  # a claim pause runs: nothing more is told until it ends
        self._untold = _window_answers(session)
        self._asked: set[int] = set()          # seats shown their claim choices in this window
        self._bot_at: tuple[int, int] | None = None  # the state a bot's move is scheduled for
        self._tasks: set[asyncio.Task[None]] = set()
        self._later_handles: set[asyncio.TimerHandle] = set()  # the timers of _later not fired yet
        # The last moves told, numbered by (hand, step): a page that reconnects says the last it
        # saw and is told the ones after it before its state. Complete from ``history_from``
        # (the table's position when it was made, or the oldest move dropped since).
        self.history: deque[_Told] = deque(maxlen=HISTORY_EVENTS)
        self.history_from = (session.hand_index, core.public_step(session))
        self.chat = ChatLog()  # free text (rooms with chat on), in memory only: docs/server.md
        self.votes = votes.Votes(weakref.proxy(self))  # dismiss and pause (votes.py); held: paused by a vote
        self._remember_before_window()

    def evict(self) -> None:
        """Leave memory: the timer stops, and a timeout already on its way changes nothing."""
        self.evicted = True
        self.votes.stop()
        for timer in (self._timer, self._offer):
            if timer is not None:
                timer.cancel()
        self._timer = self._offer = None
        for handle in self._later_handles:  # each holds the table until it fires
            handle.cancel()
        self._later_handles.clear()

    def drop(self) -> None:
        """Stop acting for this table at once (a node lost its lease, or a write was fenced
        off): it leaves memory, and every connection is closed with CLOSE_MOVED, which the page
        answers by connecting again (to whichever node runs the table now)."""
        if self.paused:
            self.paused = False
            metrics.tables_paused.dec()
        self.evict()
        self._untold.clear()
        self._holding = False
        for c in self.clients:
            c.outbox.give_up(CLOSE_MOVED, TABLE_MOVED)
        self.watching.give_up(CLOSE_MOVED, TABLE_MOVED)

    async def settle(self) -> None:
        """A node drains (docs/server.md, "Nodes"): once a write on its way is done (the lock is
        free), what the session did beyond it is stored, and the table stops: nothing moves
        here any more. Its connections are the caller's to close."""
        async with self.lock:
            if not self.evicted and not self.paused:
                with contextlib.suppress(ProtocolError):  # fenced or the database away: nothing more
                    await self._store()
            if self.paused:
                self.paused = False
                metrics.tables_paused.dec()
            self.evict()

    async def run_on(self) -> None:
        """A table taken over with nobody connected (a node's sweep): its bots and timers go
        on as they would once a page joined (a person's turn timer, then the stand-in)."""
        async with self.lock:
            if self.evicted or self.paused:
                return
            with contextlib.suppress(ProtocolError):  # storage_unavailable: paused, goes on when it is back
                await self._go()
            self._arm()

    def _fenced(self) -> None:
        """A write was refused for its epoch: another node runs the table now."""
        log.warning("write fenced off: another node took the table over", extra=fields(
            event="fenced", room=self.room.code, epoch=self.epoch))
        self.drop()
        if self.on_lost is not None:
            self.on_lost(self.room.code)

    # ------------------------------------------------------------ connections

    def _present(self, player: int) -> bool:
        return any(c.player == player for c in self.clients)

    async def serve(self, client: Client, messages: Callable[[], Awaitable[str | None]]) -> None:
        """One connection at this table, a page's own or relayed from another node, until
        either side ends it: joined first, each of its messages (``messages()``: the next, None
        once the page has gone) taken in turn, what the table tells it sent through its outbox,
        and left last."""
        loop = asyncio.get_running_loop()
        writer = loop.create_task(client.outbox.run())

        async def read() -> None:
            while (text := await messages()) is not None:
                await self.receive(client, text)

        reader = loop.create_task(read())
        try:
            await self.join(client)
            await asyncio.wait((reader, writer), return_when=asyncio.FIRST_COMPLETED)
        finally:
            reader.cancel()
            writer.cancel()
            await self.leave(client)

    async def join(self, client: Client) -> None:
        """A new connection: it gets the table at once; the others hear of it only when the
        person was not connected before. A seat has at most SOCKETS_PER_SEAT connections:
        one more closes the oldest."""
        async with self.lock:
            if self.evicted:  # a sweep took it out of memory between the lookup and this join
                client.outbox.give_up(CLOSE_MOVED, TABLE_MOVED)
                return
            if client.player in self.removed:
                client.outbox.give_up(CLOSE_REMOVED, "the room's owner removed you from this table")
                return
            arrived = not self._present(client.player)
            mine = [c for c in self.clients if c.player == client.player]
            for old in mine[:max(0, len(mine) + 1 - SOCKETS_PER_SEAT)]:
                self.clients.remove(old)
                old.outbox.give_up(CLOSE_REPLACED, "this seat is open in too many windows")
            self.clients.append(client)
            self._same_address(client)
            self.idle_since = None
            self.gone_since.pop(client.player, None)
            if client.player in self.handed:  # back: the seat is theirs again
                self.handed.discard(client.player)
                self.away.discard(client.player)
            elif client.player in self.away:  # 托管 goes on, but the next prompt is theirs
                self.spared.add(client.player)
            if client.contributes:  # asked for its randomness while a window is open
                if not self.session.dealt and not self.paused:
                    self._open_window(due=True, tell=False)  # the first deal waits for this page too
                if self.window is not None:
                    self.window.ask(client.player)
                self._tell_fair(client)
            if client.contributes and not self.session.dealt:
                pass  # dealt once it has sent its value, or the window's time is up
            elif not self.paused:
                # the table catches up first (a fresh or resumed table's bots): whoever is
                # here already hears of those moves; the new connection starts from the present
                self.clients.remove(client)
                try:
                    await self._go()
                except ProtocolError:  # storage_unavailable: paused, told below
                    pass
                self.clients.append(client)
            self._arm()
            if self._may_see(client):  # else the state it was told last, and the moves since (_send_told)
                self._tell_missed(client)
            for line in self.chat.again():  # the table's latest chat, told again
                client.outbox.put(line)
            self.watching.greet(client.outbox)
            if arrived:
                self._broadcast()  # (only the people asked while a discard is decided on)
            elif self._may_see(client):
                self._send_view(client)
            if not self._may_see(client):
                self._send_told(client)
            elif shown := self._shown_untold():  # its first state is the present: told them already
                client.shown_to = (shown[-1].hand, shown[-1].step)
            if self.paused:
                self._send_storage(client, ok=False)
            self.votes.tell_joined(client)

    async def leave(self, client: Client) -> None:
        async with self.lock:
            if client not in self.clients:
                return
            self.clients.remove(client)
            if not self._present(client.player):
                self.gone_since[client.player] = time.monotonic()
                if self.room.turn_seconds <= 0 and not self.evicted:
                    # the others hear when the seat may be handed to a bot
                    loop = asyncio.get_running_loop()
                    if self._offer is not None:
                        self._offer.cancel()
                    self._offer = loop.call_later(TAKEOVER_SECONDS + 0.5, lambda: loop.create_task(self._offered()))
                self._broadcast()

    async def _offered(self) -> None:
        async with self.lock:
            if not self.evicted and self.clients:
                self._broadcast()

    def _takeover_players(self) -> frozenset[int]:
        """People whose seat the others may hand to a stand-in bot now: no turn timer in the
        room, no connection for TAKEOVER_SECONDS, not away already, the match not over."""
        if self.room.turn_seconds > 0 or self.session.over:
            return frozenset()
        t = time.monotonic()
        return frozenset(p for p, since in self.gone_since.items()
                         if t - since >= TAKEOVER_SECONDS and p not in self.away and not self._present(p))

    async def receive(self, client: Client, text: str) -> None:
        """One message from a client: refused with an error (nothing changes) or applied.
        Each kind of message counts against its budgets (caishen.server.conns); a move the
        table accepts gives its token back."""
        try:
            msg = parse_client_message(text)
        except ProtocolError as exc:
            if allow("other", client.budgets, client.person):
                self._error(client, exc.code, str(exc))
            else:
                self._error(client, "rate_limited", "too many messages: slow down")
            return
        kind = msg.type
        if not allow(kind, client.budgets, client.person):
            self._error(client, "rate_limited", "too many messages: slow down")
            return
        if isinstance(msg, PingMessage):
            client.outbox.put(PONG)
            return
        async with self.lock:
            if self.evicted:  # left memory meanwhile: a move here would be made nowhere, and never told
                client.outbox.give_up(CLOSE_MOVED, TABLE_MOVED)  # the page connects again, to the table as stored
                return
            try:
                if self.paused and isinstance(msg, ActMessage | NextMessage):
                    raise ProtocolError("storage_unavailable", f"{STORAGE_LOST}: send it again once the table resumes")
                if self.votes.held and isinstance(msg, ActMessage | NextMessage):
                    raise ProtocolError("table_paused", "the table is paused by a vote: resume it first")
                if isinstance(msg, ActMessage):
                    await self._act(client, msg)
                    give_back(kind, client.budgets, client.person)
                elif isinstance(msg, NextMessage):
                    await self._next(client, msg)
                    give_back(kind, client.budgets, client.person)
                elif isinstance(msg, BackMessage):
                    if client.player in self.away:
                        self.away.discard(client.player)
                        self.spared.discard(client.player)
                        self._broadcast()
                    elif self._may_see(client):  # nothing changed: only this connection hears so
                        client.last_state = ""  # asked for: answered even if nothing changed
                        self._send_view(client)
                elif isinstance(msg, TakeoverMessage):
                    await self._takeover(client, msg.seat)
                elif isinstance(msg, ContributeMessage):
                    await self._contribute(client, msg)
                elif isinstance(msg, KeyMessage):
                    client.key = msg.key  # checked on the curve already; each signed move is checked by it
                elif isinstance(msg, SayMessage):
                    self._say(client, msg)
                elif isinstance(msg, ChatMessage):
                    self._chat(client, msg)
                elif isinstance(msg, RemoveMessage):
                    await self._remove(client, msg.player)
                elif isinstance(msg, VoteMessage | BallotMessage | ResumeMessage):
                    await self.votes.receive(client.player, msg)
                elif isinstance(msg, HelpMessage):
                    if msg.on and not self.help_ok:
                        raise ProtocolError("help_off", "this room does not allow learner help")
                    client.help_on = msg.on
                    if self._may_see(client):
                        client.last_state = ""  # asked for: answered even if nothing changed
                        self._send_view(client)
            except ProtocolError as exc:
                self._error(client, exc.code, str(exc))

    def _same_address(self, client: Client) -> None:
        """The same-address warning: players of the room seen at one address (a token of it,
        :func:`address_token`, kept in memory while the table is) are told to every page when
        a group forms or grows; a page that connects while one stands is told it."""
        if client.addr:
            self.addresses.setdefault(client.player, set()).add(client.addr)
        by_token: dict[str, set[int]] = {}
        for player, tokens in self.addresses.items():
            for token in tokens:
                by_token.setdefault(token, set()).add(player)
        groups = sorted({frozenset(g) for g in by_token.values() if len(g) > 1}, key=sorted)
        if not groups:
            return
        names = self.room.names
        out = SameAddressMessage(groups=[[names[p] for p in sorted(g)] for g in groups],
                                 players=[sorted(g) for g in groups]).model_dump_json()
        told = frozenset(groups)
        self._tell_all(out, self.clients if told != self._told_addresses else (client,))
        self._told_addresses = told

    @property
    def _stopped(self) -> bool:
        """Nothing moves at this table now: the database cannot be written (``paused``, it goes
        on by itself when it can), the table has left this node's memory (``evicted``), or the
        people at it voted a pause (``votes.held``)."""
        return self.paused or self.evicted or self.votes.held

    def _tell_all(self, out: str, to: Iterable[Client] | None = None) -> None:
        """Message ``out`` (JSON) to every page at the table, or to the pages ``to``."""
        for c in self.clients if to is None else to:
            c.outbox.put(out)

    def _say(self, client: Client, msg: SayMessage) -> None:
        """A quick phrase or a sticker, shown at the sender's seat on every page at the table
        (the sender's too). Only a seated person says anything; it tells nothing of the hand."""
        seat = self.session.seat_of(client.player)
        if seat is None:
            raise ProtocolError("not_seated", "only the people at the table send phrases and stickers")
        self._tell_all(SaidMessage(seat=seat, say=msg.say).model_dump_json())

    async def _remove(self, client: Client, player: int) -> None:
        """The room's owner removes a person told in a same-address group (not himself): the
        removal is stored first, then the person's pages are closed for good and a bot plays
        the seat to the end of the match (docs/server.md, "Same-address warning")."""
        if client.uid != self.room.owner:
            raise ProtocolError("not_owner", "only the room's owner removes a seat")
        if player == client.player or not any(player in g for g in self._told_addresses) or player in self.removed:
            raise ProtocolError("no_remove", "only a person of a same-address group can be removed")
        try:
            room = await asyncio.to_thread(self.store.remove_player, self.room.code, player)
        except Exception as exc:
            if unavailable(exc):
                raise ProtocolError("storage_unavailable", f"{STORAGE_LOST}: try again once the table resumes") from None
            raise
        if room is None or not room.players[player].removed:
            raise ProtocolError("no_remove", "this table is not playing any more")
        self.room = room
        self.removed.add(player)
        self.away.add(player)
        self.addresses.pop(player, None)
        for c in [c for c in self.clients if c.player == player]:
            self.clients.remove(c)
            c.outbox.give_up(CLOSE_REMOVED, "the room's owner removed you from this table")
        self._tell_all(RemovedMessage(player=player, name=room.names[player]).model_dump_json())
        await self._go()

    def _chat(self, client: Client, msg: ChatMessage) -> None:
        """A line of free text (rooms with ``chat`` on), told to every page at the table."""
        if not self.room.chat:
            raise ProtocolError("chat_off", "this room has no free-text chat: use the phrases and stickers")
        seat = self.session.seat_of(client.player)
        if seat is None:
            raise ProtocolError("not_seated", "only the people at the table chat")
        self._tell_all(self.chat.add(seat, self.room.players[client.player].name or "", msg.text).model_dump_json())

    # ------------------------------------------------------------ votes (votes.py)

    def electorate(self) -> dict[int, int]:
        """Who votes now (player -> seat): seated people not gone for TAKEOVER_SECONDS, nor
        removed by the room's owner."""
        return votes.electorate(self.session, frozenset(c.player for c in self.clients), self.gone_since,
                                time.monotonic(), TAKEOVER_SECONDS, frozenset(self.removed))

    async def end_match(self) -> bool:
        """A dismissal voted for: the match ends here (a hand in play unscored), is stored as
        over (``ended_by`` "dismissed") and every page told; False if it could not be stored
        (the table is then back at its last stored move, paused until the database answers)."""
        self.session.dismiss()
        self._holding = False
        self.window = None  # no next hand: a deal already due finds no window
        if self._timer is not None:  # nobody is to move any more (a failed write arms it again on return)
            self._timer.cancel()
        self._timer = self._deadline = None
        try:
            await self._tell()
        except ProtocolError:
            return False
        return True

    async def hold(self, on: bool) -> None:
        """A pause voted for begins (no move clock, bot, deal or time-out until it ends: the
        pages lose their countdown) or ends (the table goes on, the one to move has a whole
        turn again)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._deadline = self._armed = None
        if not on:
            self._bot_at = None  # a bot's turn that came to nothing while held is scheduled again
            try:
                if self.window is not None and self.window.due:
                    await self._deal_when_complete()
                await self._go()
            except ProtocolError:  # storage_unavailable: paused, goes on when it is back
                pass
            self._arm()
        self._broadcast()

    # ------------------------------------------------------------ moves

    async def _act(self, client: Client, msg: ActMessage) -> None:
        s = self.session
        if not s.dealt:
            raise ProtocolError("stale", "the hand is not dealt yet")
        if s.over or s.hand_over:
            raise ProtocolError("hand_over", "the hand is over")
        step = core.public_step(s)  # passes not counted: each person asked answers the same state
        if msg.hand != s.hand_index or msg.step != step:
            raise ProtocolError("stale", f"that move was for hand {msg.hand} step {msg.step}; "
                                f"the table is at hand {s.hand_index} step {step}")
        seat = s.seat_of(client.player)
        waiting = seat is not None and seat in s.waiting_for()
        try:
            action = core.action_of(msg.action) if waiting else None
        except ValueError as exc:
            raise ProtocolError("bad_action", str(exc)) from None
        if seat is None or action is None or action not in s.legal_actions(seat):
            if seat is not None and core.passed_at_this_step(s, seat):  # a pass is no step
                raise ProtocolError("stale", f"you passed at hand {msg.hand} step {msg.step} already")
            if not waiting:
                raise ProtocolError("not_your_turn", "it is not your turn to act")
            raise ProtocolError("illegal", f"{msg.action!r} is not a legal action now")
        # who vouches for the move (docs/fairness.md, "Signed moves"): checked before it is applied
        sig, key = movesig_of(client, msg, self.room.code, s.hand_index, step, action)
        self.away.discard(client.player)
        self.spared.discard(client.player)
        await self._apply(seat, action, sig, key)
        await self._go()

    async def _apply(self, seat: int, action: core.Action, sig: str = SERVER, key: str | None = None) -> None:
        """One move (a person's, a bot's or a stand-in's), kept to be told. A move others may
        answer opens a claim window, and with it the claim pause: the move is told now, and
        nothing more until the pause is over. ``sig`` and ``key``: who vouches for it (a
        person's signature and key, ``"unsigned"``; a bot's or a stand-in's: ``"server"``)."""
        s = self.session
        was = core.in_window(s)
        # the sets laid down when the window opened: none are while it is open (claims take
        # effect when it closes), so they are read now, also in a table just rebuilt from
        # storage inside a window (a node taking it over), which never saw the window open
        melds_before = core.meld_counts(s) if was else ()
        for m in s.act(seat, action, sig, key):  # a paced session: this move only
            self._untold.append(_Untold(m, s.hand_index, core.public_step(s), was, True))
        if was and not core.in_window(s):  # the window closed: tell only the claims that happened
            answers = [u for u in self._untold if u.in_window]
            for u in answers:
                u.tell = core.took_effect(u.move, s, melds_before)
                u.in_window = False
            # an answer's step was the window's while it was open: the claims told count from
            # there on, the last at the step now
            step = core.public_step(s)
            for u in reversed([u for u in answers if u.tell]):
                u.step, step = step, step - 1
        if not was and self._untold and core.opens_window(self._untold[-1].move):
            self._asked = set()
            if self.pausing:
                await self._tell(states=False)
                self._holding = True
                self._later(self.pause_seconds, self._pause_over)

    def _later(self, seconds: float, job: Callable[[], Coroutine[object, object, None]]) -> None:
        """Run ``job()`` after ``seconds`` on the event loop (the pace's and the pause's timers).
        The coroutine is made only when the timer fires: a loop that closes first (a server
        stopping) leaves no coroutine never awaited."""
        loop = asyncio.get_running_loop()

        def start() -> None:
            self._later_handles.discard(handle)
            task = loop.create_task(job())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        handle = loop.call_later(seconds, start)
        self._later_handles.add(handle)

    async def _pause_over(self) -> None:
        async with self.lock:
            self._holding = False
            if self._stopped:
                return
            try:
                await self._go()
            except ProtocolError:  # storage_unavailable: the table is paused and goes on when it is back
                pass

    def _auto_to_move(self) -> tuple[int, core.Player, str] | None:
        """A seat a bot moves now, and how: a bot's (``full``), or an away person's stand-in
        (托管, the room's ``stand_in`` policy), unless the person came back since and this
        prompt is theirs to answer (``spared``)."""
        s = self.session
        got = s.bot_to_move()
        if got is not None:
            return got[0], got[1], "full"
        for seat in s.waiting_for():
            p = s.seats[seat]
            if p in self.removed:
                return seat, self.stand_ins[p], "full"
            if p in self.away and p not in self.spared:
                return seat, self.stand_ins[p], self.room.stand_in
        return None

    async def _go(self) -> None:
        """Play the table on as far as it may go now: bots answer a discard at once (unseen),
        a bot's own turn waits for the pace, a person is told and asked. Every seat is sent
        its state unless a discard is being decided on."""
        s = self.session
        if self._stopped or s.dismissed:
            return
        if not s.dealt:  # the first hand: dealt once the window lets it
            self._open_window(due=True)
            await self._deal_when_complete()
            return
        while True:
            if s.hand_over:
                if not self._holding:
                    self._arm()
                    await self._tell()
                    if not s.over:
                        self._open_window(due=False)
                return
            auto = self._auto_to_move()
            if core.in_window(s):
                if auto is not None:  # a bot's answer to a discard: made now, told when the window closes
                    await self._apply(auto[0], core.stand_in_action(auto[1], s, auto[0], auto[2]))
                    continue
                self._arm()
                await self._ask()  # the people asked see their own choices, nobody else anything
                return
            if self._holding:
                return  # the pause runs: what follows is told when it ends
            if auto is None or self.instant:
                if auto is not None:
                    await self._apply(auto[0], core.stand_in_action(auto[1], s, auto[0], auto[2]))
                    continue
                self._arm()
                await self._tell()
                return
            # a bot's own turn at the room's pace: told where it stands, then it moves
            self._arm()
            await self._tell()
            at = (s.hand_index, len(s.moves))
            if self._bot_at != at:
                self._bot_at = at
                self._later(self.bot_seconds, functools.partial(self._bot_turn, at))
            return

    async def _bot_turn(self, at: tuple[int, int]) -> None:
        async with self.lock:
            s = self.session
            if (s.hand_index, len(s.moves)) != at or self._holding or s.hand_over or self._stopped:
                return
            auto = self._auto_to_move()
            if auto is None:
                return
            try:
                await self._apply(auto[0], core.stand_in_action(auto[1], s, auto[0], auto[2]))
                await self._go()
            except ProtocolError:  # storage_unavailable: the table is paused and goes on when it is back
                pass

    async def _takeover(self, client: Client, seat: int) -> None:
        """A seated person hands an absent person's seat to the stand-in bot (TAKEOVER_SECONDS
        away, no turn timer); it plays until that person comes back."""
        player = self.session.seats[seat]
        if player == client.player or player not in self._takeover_players():
            raise ProtocolError("no_takeover", "that seat cannot be handed to a bot now")
        self.away.add(player)
        self.handed.add(player)
        await self._go()

    async def _next(self, client: Client, msg: NextMessage) -> None:
        s = self.session
        if not s.dealt or not s.hand_over or s.over or msg.hand != s.hand_index:
            raise ProtocolError("stale", "no hand to start")
        self.ready.add(client.player)
        present = {c.player for c in self.clients} - self.away
        if present <= self.ready:
            await self._deal_next()
        else:
            self._broadcast()

    async def _deal_next(self) -> None:
        self.ready.clear()
        self._open_window(due=True)
        await self._deal_when_complete()

    # ------------------------------------------------------------ the people's randomness

    def _contributors(self) -> set[int]:
        return {c.player for c in self.clients if c.contributes}

    def _open_window(self, due: bool, tell: bool = True) -> None:
        """The next hand's commitment is out: the pages that contribute are asked for their
        randomness (docs/fairness.md). ``due``: the deal waits only for the window now."""
        s = self.session
        index = s.match.next_index
        w = self.window
        if w is None or w.hand != index:
            seats = s.match.seats
            w = self.window = contrib.Window(
                index, s.match.next_commitment, asyncio.get_running_loop().time(), seats,
                (s.is_person(seats[0]), s.is_person(seats[1]), s.is_person(seats[2]), s.is_person(seats[3])))
            for c in self.clients:
                if c.contributes and tell:
                    w.ask(c.player)
                    self._tell_fair(c)
        if due and not w.due:
            w.due = True
            wait = w.opened + self.window_seconds - asyncio.get_running_loop().time()
            self._later(max(0.0, wait), functools.partial(self._window_over, index))

    async def _window_over(self, index: int) -> None:
        async with self.lock:
            w = self.window
            if w is None or w.hand != index or not w.due or self._stopped:
                return
            try:
                await self._deal_when_complete()
            except ProtocolError:  # storage_unavailable: the table is paused, dealt again on return
                pass

    async def _deal_when_complete(self) -> None:
        """Deal the hand the window is for, if it is due and complete: every person seated
        whose contributing page is here has sent its value, or the time is up."""
        w = self.window
        if w is None or not w.due or self._stopped:
            return
        s = self.session
        # where pages contribute, the first deal also waits (within the window) for the people
        # who have not come yet: the one who opened a friends room comes from the waiting page a
        # moment after the last friend sat (plain WebSocket clients are never waited for)
        contributors = self._contributors()
        expected = frozenset() if s.dealt or not contributors else frozenset(
            p for p in s.match.seats if s.is_person(p) and all(c.player != p for c in self.clients))
        if not w.complete(contributors, asyncio.get_running_loop().time(), self.window_seconds, expected):
            return
        self.window = None
        mix = w.mix()
        s = self.session
        if s.dealt:
            s.next_hand(mix)
        else:
            s.start(mix)
        dealt = s.hand_index
        self._remember_deal()
        await self._go()
        # stored: what was mixed in, told of the hand just dealt (the bots may have ended it
        # within _go, and the next hand's window, told then, is not what was mixed in here)
        for c in self.clients:
            if c.contributes:
                self._tell_fair(c, dealt)

    async def _contribute(self, client: Client, msg: ContributeMessage) -> None:
        w = self.window
        if not client.contributes:
            raise ProtocolError("not_contributing", "connect with ?contribute=1 to send randomness")
        if w is not None and msg.hand == w.hand:
            w.ask(client.player)
            if w.take(client.player, bytes.fromhex(msg.value)):
                for c in self.clients:
                    if c.player == client.player and c.contributes:
                        self._tell_fair(c)
                await self._deal_when_complete()
                return
        if not self._tell_fair(client, msg.hand):  # closed (dealt) or taken already: what the table holds
            raise ProtocolError("stale", f"no contributions are taken for hand {msg.hand} now")

    def _tell_fair(self, client: Client, hand: int | None = None) -> bool:
        """Tell a contributing page where the contributions stand: the open window, or what
        was mixed into hand ``hand`` (default: the hand in play)."""
        w = self.window
        if w is not None and (hand is None or hand == w.hand):
            client.outbox.put(contrib.fair_message(w.hand, w.commitment, open=True, dealt=False,
                                                   mine=w.mine(client.player)))
            return True
        s = self.session
        if not s.dealt:
            return False
        if hand is None or hand == s.hand_index:
            mix, commitment, seat = s.match.mix, s.commitment, s.seat_of(client.player)
        elif 0 <= hand < len(s.match.hands):
            h = s.match.hands[hand]
            mix = Mix(h.contributions, h.timeline)
            commitment = h.commitment
            seat = h.seats.index(client.player) if client.player in h.seats else None
        else:
            return False
        value = mix.contributions[seat] if seat is not None and seat < len(mix.contributions) else None
        client.outbox.put(contrib.fair_message(s.hand_index if hand is None else hand, commitment, open=False,
                                               dealt=True, mine=value if isinstance(value, bytes) else None))
        return True

    async def _store(self) -> None:
        """The durability point: what the session did beyond the stored state is written
        before anyone is told. A write that fails takes the table back to its last stored
        state and pauses it until the database answers again (:meth:`_recover`); the sender
        hears ``storage_unavailable`` and nobody hears of the moves."""
        # The write is made once this turn of the event loop is over, with every other table's
        # of the turn; this table's lock is held, so nothing here moves and nobody hears of
        # it before it is stored.
        if self.evicted:  # dropped (another node runs it) or out of memory: writes nothing
            raise ProtocolError("table_moved", TABLE_MOVED)
        batch = self.store.plan(self.room.code, self.session, self.stored, self.epoch)
        try:
            await self.store.commit(batch)
        except Fenced:  # another node took the table over: nothing was stored, nobody is told
            self._fenced()
            raise ProtocolError("table_moved", TABLE_MOVED) from None
        except Exception as exc:
            self._rollback()
            self._holding = False
            self._pause(exc)
            self._tell_storage(ok=False)
            raise ProtocolError("storage_unavailable", f"{STORAGE_LOST}: send your move again once the table resumes"
                                ) from None
        self._stored(batch)

    # ------------------------------------------------------------ telling

    def _hidden(self) -> bool:
        """A claim pause runs or a discard is being decided on: only the people asked may be
        sent a state (anyone else's would tell whether someone may claim)."""
        return self._holding or (self.session.dealt and core.in_window(self.session))

    def _asked_now(self, client: Client) -> bool:
        if not self.session.dealt:
            return False
        seat = self.session.seat_of(client.player)
        return seat is not None and core.in_window(self.session) and seat in self.session.waiting_for()

    def _may_see(self, client: Client) -> bool:
        """Whether ``client`` may be sent its state now: not while a discard is being decided
        on, unless it is asked, or the decision waits for someone whose seat the others may
        hand to a bot (away TAKEOVER_SECONDS in a room without a timer: the table's long wait
        has told everyone so already, and they must be offered the takeover, or the table
        would wait for ever)."""
        return not self._hidden() or self._asked_now(client) or self._held_by_absent()

    def _held_by_absent(self) -> bool:
        s = self.session
        waiting = s.waiting_for() if core.in_window(s) else ()
        return any(s.seat_of(p) in waiting for p in self._takeover_players())

    async def _tell(self, states: bool = True) -> None:
        """The durability point: moves are stored, then told (each its own event, in order),
        then every seat gets its state."""
        await self._store()
        told = [u for u in self._untold if u.tell and not u.in_window]
        self._untold = [u for u in self._untold if u.in_window]
        if not told and not states:
            return
        s = self.session
        if told:
            seats = tuple(s.seat_of(p) for p in range(len(self.room.names)))
            for u in told:
                if len(self.history) == HISTORY_EVENTS:
                    oldest = self.history[0].move
                    self.history_from = (oldest.hand, oldest.step)
                self.history.append(_Told(u, s.hand_index, seats))
        people = self._people()
        # one person and bots at the instant pace: the moves since the last state come inside
        # the state that follows them (its "events"), one message a turn instead of one a move
        # (docs/server.md, "Paced play"); such a state is never superseded in the queue
        inside = (states and self.instant and not self.pausing and s.dealt
                  and all(u.hand == s.hand_index for u in told))
        for c in list(self.clients):
            seat = s.seat_of(c.player)
            mine = told
            if c.shown_to is not None:  # in a state of its own already (_ask, join): not again
                after, c.shown_to = c.shown_to, None
                mine = [u for u in told if (u.hand, u.step) > after]
            if inside:
                self._send_view(c, people, core.public_events([u.move for u in mine], seat))
                continue
            for u in mine:
                text = core.event_json(u.move, seat if u.hand == s.hand_index else None, u.hand, u.step)
                if text is not None:
                    c.outbox.put(text)
            if states:
                self._send_view(c, people)
        if states:
            self.watch_public(people)

    def _tell_missed(self, client: Client) -> None:
        """A page back on a new connection: the moves told after the last (hand, step) it saw,
        each its own event as they were told, when the table still keeps them all; its state
        follows either way (docs/server.md, "Reconnecting")."""
        self._tell_after(client, client.since)

    def _tell_after(self, client: Client, since: tuple[int, int] | None) -> None:
        """The moves told after (hand, step) ``since``, each its own event as it was told, when
        the table still keeps them all."""
        if since is None or since < self.history_from:
            return
        for told in self.history:
            if (told.move.hand, told.move.step) > since and (text := told.text(client.player)) is not None:
                client.outbox.put(text)

    async def _ask(self) -> None:
        """Show the people asked on a discard their choices (each once per window). One person
        at the instant pace (no claim pause): the moves before the window, the discard asked
        about the last of them, come inside the state that asks (its events), as they come
        inside every other state; else the page showed them without their moves and played
        them after its answer, on a table that had them already (an operator's review)."""
        await self._store()
        s = self.session
        waiting = s.waiting_for()
        people = self._people()
        early = [] if self.pausing else self._shown_untold()
        for c in list(self.clients):
            seat = s.seat_of(c.player)
            if seat is not None and seat in waiting and seat not in self._asked:
                after = c.shown_to
                mine = [u for u in early if after is None or (u.hand, u.step) > after]
                self._send_view(c, people, core.public_events([u.move for u in mine], seat))
                if early:  # (a second window before anything was told: only the moves since the first)
                    c.shown_to = (early[-1].hand, early[-1].step)
        self._asked.update(waiting)

    def _shown_untold(self) -> list[_Untold]:
        """The moves of the hand in play made and not told yet that a state sent now shows (not
        a window's answers: those are told when it closes)."""
        s = self.session
        shown = [u for u in self._untold if u.tell and not u.in_window]
        return shown if all(u.hand == s.hand_index for u in shown) else []

    # ------------------------------------------------------------ storage faults

    def _stored(self, batch: Batch) -> None:
        """``batch`` is committed: the table's stored state moves on with it."""
        self.stored = batch.stored
        if batch.hand is not None:
            self.log.append([])
            self.mixes.append(self.session.match.mix)
        for _, hand, seq, seat, text, sig, key in batch.moves:
            assert seq == len(self.log[hand]), (self.room.code, hand, seq)
            self.log[hand].append((seat, text, sig, key))

    def _rollback(self) -> None:
        """Back to the last stored state: the session rebuilt from the stored moves (memory
        only: the database may be away)."""
        self.session = rebuild(self.room, self.log, self.mixes, deal=False)
        self._untold = _window_answers(self.session)
        self.ready.clear()
        self.window = None

    def _pause(self, exc: BaseException) -> None:
        if self.paused:
            return
        self.paused = True
        metrics.tables_paused.inc()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        log.warning(STORAGE_LOST, extra=fields(event="storage_lost", room=self.room.code,
                                               error=error_line(exc),
                                               unavailable=unavailable(exc)))
        self._recovery = asyncio.get_running_loop().create_task(self._recover())

    async def _recover(self) -> None:
        """Wait for the database, rebuild the table from it (a commit whose answer was lost may
        have been stored after all), write what the bots did beyond it, and go on."""
        lost = time.monotonic()
        while not self.evicted:  # a dropped table (another node took it over) stops trying
            await self.store.until_up()
            code = self.room.code
            try:
                hands = await asyncio.to_thread(self.store.moves, code)
                mixes = await asyncio.to_thread(self.store.mixes, code)
                stored = await asyncio.to_thread(self.store.stored_state, code)
            except Exception:  # noqa: BLE001 - away again: wait again
                continue
            async with self.lock:
                if self.evicted:
                    return
                try:
                    session = rebuild(self.room, hands, mixes, deal=False)
                except Exception as exc:  # noqa: BLE001 - the stored moves no longer replay
                    reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                    log.error("stored moves do not replay: room marked damaged",
                              extra=fields(event="room_damaged", room=code, reason=reason))
                    await asyncio.to_thread(self.store.mark_damaged, code, reason)
                    return  # paused for good: the room is served from its consistent moves
                self.session, self.stored, self.log, self.mixes = session, stored, hands, mixes
                self._untold = _window_answers(session)
                batch = self.store.plan(code, session, stored, self.epoch)
                try:
                    await self.store.commit(batch)
                except Fenced:  # another node took the table over meanwhile
                    self._fenced()
                    return
                except Exception:  # noqa: BLE001 - away again
                    self.session = rebuild(self.room, self.log, self.mixes, deal=False)
                    self._untold = _window_answers(self.session)
                    continue
                self._stored(batch)
                self.paused = False
                metrics.tables_paused.dec()
                log.warning("storage back", extra=fields(event="storage_back", room=code,
                                                         paused_seconds=round(time.monotonic() - lost, 3)))
                self._arm()
                self._tell_storage(ok=True)
                for c in self.clients:
                    c.last_state = ""  # the table as it is again, for everyone, even if it looks the same
                self._broadcast()
                try:
                    await self._go()
                except ProtocolError:  # away again: paused again
                    pass
                return

    def _tell_storage(self, ok: bool) -> None:
        for c in list(self.clients):
            self._send_storage(c, ok)

    def _send_storage(self, client: Client, ok: bool) -> None:
        """``{"type": "storage", "ok": false}``: the page shows "connection to storage lost,
        retrying" in its language until ``ok`` is true again."""
        client.outbox.put(StorageMessage(ok=ok, message="" if ok else STORAGE_LOST).model_dump_json())

    # ------------------------------------------------------------ timer

    def _arm(self) -> None:
        """(Re)start the countdown for the people who must act now, or for the next hand; a
        countdown already running for this same state keeps going (joins do not reset it)."""
        s = self.session
        if not s.dealt:
            return
        version = self._clock_version()
        if self._timer is not None and version == self._armed:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._deadline = None
        self._armed = version
        if self.room.turn_seconds <= 0 or s.over or self.votes.held or (not s.hand_over and not s.waiting_for()):
            return
        loop = asyncio.get_running_loop()
        wait = NEXT_HAND_SECONDS if s.hand_over else float(self.room.turn_seconds)
        self._deadline = loop.time() + wait
        self._timer = loop.call_later(wait, lambda: loop.create_task(self._timeout(version)))

    def _clock_version(self) -> tuple[int, int, bool]:
        """The state a countdown is for: the hand, its moves and whether it is over. The answers
        given in an open claim window are left out: everyone asked has the whole turn from the
        discard (or added kong) on, and an answer restarted the others' clocks, past what their
        pages showed (and a clock that did not end when shown told them someone else was asked)."""
        s = self.session
        return s.hand_index, core.moves_but_answers(s), s.hand_over

    async def _timeout(self, version: tuple[int, int, bool]) -> None:
        async with self.lock:
            if self.evicted:  # left memory since: the rebuilt table has its own timer
                return
            s = self.session
            if self._clock_version() != version or s.over or self._stopped:
                return
            self._timer = None
            try:
                if s.hand_over:
                    await self._deal_next()
                    return
                for seat in s.waiting_for():
                    self.away.add(s.seats[seat])
                    self.spared.discard(s.seats[seat])
                await self._go()
            except ProtocolError:  # storage_unavailable: the table is paused, the timer set again on return
                pass

    # ------------------------------------------------------------ sending

    def _people(self) -> core.SeatPeople:
        return core.SeatPeople(
            self.room.names, self.room.bots, frozenset(c.player for c in self.clients), frozenset(self.away),
            self._takeover_players(), frozenset(self.ready),
        )

    def _send_view(self, client: Client, people: core.SeatPeople | None = None, events: list[str] | None = None) -> None:
        """Queue ``client``'s state unless it is the same as the last one queued; ``events``
        (JSON objects, :func:`core.public_events`): the moves told inside it, which makes it a
        message that keeps its place in the queue (no later state supersedes it)."""
        s = self.session
        if not s.dealt:  # nothing to show before the first deal
            return
        seat = s.seat_of(client.player)
        deadline = None
        # the countdown goes only to whoever must act (and to all between hands): a running
        # clock anywhere else would tell that someone holds a claim
        if self._deadline is not None and (s.hand_over or (seat is not None and seat in s.waiting_for())):
            deadline = max(0, int((self._deadline - asyncio.get_running_loop().time()) * 1000))
        extras = self._extras(deadline, client.help_on)
        text = core.table_view_json(s, client.player, people or self._people(), extras, events or [])
        if text == client.last_state:
            return
        client.last_state = text
        self.told[client.player] = text
        client.outbox.put(text, state=not events)

    def _extras(self, deadline_ms: int | None, help_on: bool) -> core.ViewExtras:
        """What a state says beside the table: the room, the countdown, the help switch."""
        return core.ViewExtras(
            code=self.room.code, variant=self.room.variant,
            hands_total=None if self.room.hands == 0 else self.room.hands, deadline_ms=deadline_ms,
            help_on=help_on, help_allowed=self.help_ok,
        )

    def _remember_deal(self) -> None:
        """Each person's state as dealt is the state that seat was told last (:meth:`_send_told`),
        whether or not a page of theirs is open: the bots may play on at once to a discard
        someone else may claim, and a page that opens then must show the hand as dealt, not the
        last hand's score table. (A view per person per hand: nothing sent.)"""
        s = self.session
        people = self._people()
        for player in s.match.seats:
            if s.is_person(player):
                extras = self._extras(None, any(c.help_on for c in self.clients if c.player == player))
                self.told[player] = core.table_view_json(s, player, people, extras, [])

    def _remember_before_window(self) -> None:
        """A table rebuilt inside a claim window (a restart, a node taking it over) has told its
        seats nothing: each person's last state is the table before the move that opened the
        window (every seat was told that move already), for a page that opens before the window
        closes (:meth:`_send_told`). A view per person, once per rebuild in a window."""
        s = self.session
        if not s.dealt or not core.in_window(s) or not self.log or len(self.log[-1]) != len(s.moves):
            return
        hand = self.log[-1]
        before = len(hand) - len(self._untold) - 1  # the moves before the window's opening (_untold: its answers)
        earlier = rebuild(self.room, [*self.log[:-1], hand[:before]], self.mixes, deal=False)
        people = self._people()
        for player in earlier.match.seats:
            if earlier.is_person(player):
                self.told.setdefault(player, core.table_view_json(earlier, player, people, self._extras(None, False), []))
        # ... and the move that opened the window, told to all already: the history starts with it
        step = core.public_step(earlier)
        opened = _Untold(s.moves[before], s.hand_index, step + 1, False, True)
        seats = tuple(s.seat_of(p) for p in range(len(self.room.names)))
        self.history.append(_Told(opened, s.hand_index, seats))
        self.history_from = (s.hand_index, step)

    def _send_told(self, client: Client) -> None:
        """A page that opens while others decide on a discard (a reload, a second window) is
        sent nothing of the present (:meth:`_may_see`): it gets the state its seat was told last,
        which tells nobody anything new, without the moves in it (played already) and without
        choices (made already) or a countdown. The present follows once the discard is decided.
        Without it the page showed an empty table for as long as a friend thought about a pong.
        The moves told since that state follow it, as events the page plays on it: the discard
        being decided on among them (told to every seat when it was made), which the discarder's
        page otherwise showed back in her hand."""
        text = self.told.get(client.player)
        if text is None:
            return
        view = json.loads(text)
        # whether the seat is away is the person's own and of now: a page back from a dropped
        # connection reads it in its first state to say what the stand-in did (the state told
        # last was from before the drop)
        view.update(events=[], choices=[], deadline_ms=None, help=None, away=client.player in self.away)
        client.last_state = json.dumps(view, ensure_ascii=False, separators=(",", ":"))
        client.outbox.put(client.last_state)
        self._tell_after(client, (view["hand"], view["step"]))

    def _broadcast(self) -> None:
        """Every seat its state; while a discard is being decided on, only the people asked."""
        people = self._people()
        for c in list(self.clients):
            if self._may_see(c):
                self._send_view(c, people)
        self.watch_public(people)

    def watch_public(self, people: core.SeatPeople | None = None) -> None:
        """The spectators hear of a state every player may be sent (one state behind: tables/watchers.py)."""
        if not self._hidden() and self.watching.watchers:
            self.watching.see(self.session, people or self._people())

    def _error(self, client: Client, code: str, message: str) -> None:
        client.outbox.put(ErrorMessage(code=code, message=message).model_dump_json())


def movesig_of(client: Client, msg: ActMessage, room: str, hand: int, step: int,
               action: core.Action) -> tuple[str, str | None]:
    """Who vouches for a person's move (docs/fairness.md, "Signed moves"): its signature and the
    key this connection registered, checked over the move's canonical bytes, or ``unsigned``
    (no ``sig``). A signature without a registered key, or one that does not verify, is refused
    (``no_key``, ``bad_signature``): the move is not applied."""
    if msg.sig is None:
        return UNSIGNED, None
    if client.key is None:
        raise ProtocolError("no_key", "a signed move needs the key it is signed by: send {\"type\": \"key\"} first")
    if not core.signed_by(client.key, msg.sig, room, hand, step, action):
        raise ProtocolError("bad_signature", f"the signature is not this page's key's over {action.text()!r} "
                            f"at hand {hand} step {step} of room {room}")
    return msg.sig, client.key


def rebuild(room: RoomInfo, hands: list[list[core.StoredMove]], mixes: Sequence[Mix | None] = (),
            deal: bool = True) -> core.Session:
    """Room ``room``'s match rebuilt from the stored moves of each hand dealt, each hand
    dealt with what was mixed into its wall (``mixes``, stored with it). No hands: the first
    hand just dealt with nothing mixed in, or (``deal=False``) waiting to be dealt."""
    ruleset = core.ruleset_from_json(room.ruleset, room.variant)
    if not hands:
        return core.new_session(ruleset, room.bots, room.seed, room.names, room.seat_draw, paced=True, deal=deal,
                                room=room.code)
    return core.resume_session(ruleset, room.bots, room.seed, room.names, hands, room.seat_draw, paced=True,
                               mixes=mixes, room=room.code)
