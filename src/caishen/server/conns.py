"""What one WebSocket connection may cost the centre: its outgoing queue and its budgets.

**The outgoing queue** (:class:`Outbox`). A table never waits for a socket: under its lock it
only puts each seat's message into that connection's queue, and a writer task per connection
sends from it. The queue keeps two kinds of message apart:

- a *state* (the seat's whole view) supersedes every earlier state not yet sent: an unsent
  state is dropped when a newer one is put, and the new one goes to the end of the queue,
  so a seat that reads slowly gets the latest state, not a backlog;
- every other message (an error, a pong, a per-move event) is kept, in the order it was
  put: none is dropped or moved, and a state put after it is sent after it.

The queue is bounded (:data:`QUEUE_MESSAGES` messages, :data:`QUEUE_BYTES` bytes) and each
send has :data:`SEND_TIMEOUT_SECONDS`. A connection past either bound has fallen too far
behind: its writer gives up, and the handler closes it with :data:`CLOSE_BEHIND`, after
which the page reconnects and is sent the present state. The table and the other seats are
not held up by it at any point.

**Budgets** (:class:`Budgets`). Every kind of message a client sends counts against a token
bucket of its kind, per connection and per person (all of one person's connections to
the tables of this process). A state sent is no refill. A move that the table accepts (an
``act`` or a ``next`` that changes the table) gives its token back: the game itself bounds
how many of those there are, one per state the person answers; a refused one (stale, not
your turn, illegal) does not. docs/server.md, "Faults", gives the figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

from caishen.server import metrics

QUEUE_MESSAGES: Final = 256        # messages waiting for one connection (states coalesce to one)
QUEUE_BYTES: Final = 1 << 20       # ... and their size
SEND_TIMEOUT_SECONDS: Final = 5.0  # one send may take this long (the socket's buffers full)

# Close codes the table page knows (static/table.js): 1008, 4002 and 4003 send it back to the
# room's page; every other code reconnects, CLOSE_REPLACED only after asking.
CLOSE_NOT_A_PLAYER: Final = 1008
CLOSE_BEHIND: Final = 4000    # fell too far behind: reconnect now, the present state follows
CLOSE_REPLACED: Final = 4001  # more connections for this seat than allowed: this, the oldest, closed
CLOSE_SIGNED_OUT: Final = 4002  # the session was revoked ("log out everywhere")
CLOSE_REMOVED: Final = 4003  # the room's owner removed this person from the table: not again
# game-centre nodes (caishen.server.nodes): both reconnect, the page's default
CLOSE_MOVED: Final = 1012      # this node stopped running the table (its lease lost): reconnect
CLOSE_ELSEWHERE: Final = 1013  # another node runs the table (no relay yet): try again later
# The scope key under which the server's WebSocket protocol leaves a way to drop the
# connection outright (caishen.server.hygiene): a closing handshake with a peer that does not
# read never ends, and its socket would stay open.
ABORT_KEY: Final = "caishen.abort"
ABORT_SECONDS: Final = 5.0
SOCKETS_PER_SEAT: Final = 4   # a phone, a desktop, a reload or two; the fifth closes the oldest


clock: Callable[[], float] = time.monotonic  # the budgets' clock (tests hold it still)


def now_seconds() -> float:
    """The budgets' time in seconds (:data:`clock`, looked up at each call)."""
    return clock()




class Outbox:
    """The outgoing queue of one connection and the writer that empties it (:meth:`run`)."""

    def __init__(self, send: Callable[[str], Awaitable[None]]) -> None:
        self._send = send
        self._items: deque[tuple[bool, str]] = deque()  # (is a state, text)
        self._bytes = 0
        self._wake = asyncio.Event()
        self.closed: int | None = None  # the close code once the writer has given up
        self.reason = ""

    def __len__(self) -> int:
        return len(self._items)

    def put(self, text: str, state: bool = False) -> None:
        """Queue ``text``; ``state``: a whole view, which supersedes any unsent one."""
        if self.closed is not None:
            return
        if state and self._items:
            kept = deque(item for item in self._items if not item[0])
            for _ in range(len(self._items) - len(kept)):
                metrics.send_queue_drops.labels(reason="superseded").inc()
            self._items = kept
            self._bytes = sum(len(t) for _, t in kept)
        self._items.append((state, text))
        self._bytes += len(text)
        if len(self._items) > QUEUE_MESSAGES or self._bytes > QUEUE_BYTES:
            metrics.send_queue_drops.labels(reason="overflow").inc(len(self._items))
            self.give_up(CLOSE_BEHIND, "too far behind: reconnecting")
            return
        self._wake.set()

    def give_up(self, code: int, reason: str) -> None:
        """Stop sending: the connection is to be closed with ``code``."""
        if self.closed is None:
            self.closed, self.reason = code, reason
            self._items.clear()
            self._bytes = 0
        self._wake.set()

    async def run(self) -> None:
        """Send until :meth:`give_up` or a send fails or takes longer than the timeout."""
        while self.closed is None:
            if not self._items:
                self._wake.clear()
                await self._wake.wait()
                continue
            _, text = self._items.popleft()
            self._bytes -= len(text)
            try:
                # a timeout scope, not wait_for: wait_for wraps every send in a task of its own
                # (Python 3.11): 12% of the server's CPU per move at 100 busy tables
                async with asyncio.timeout(SEND_TIMEOUT_SECONDS):
                    await self._send(text)
            except TimeoutError:
                metrics.send_queue_drops.labels(reason="timeout").inc(len(self._items) + 1)
                self.give_up(CLOSE_BEHIND, "too far behind: reconnecting")
            except Exception:  # noqa: BLE001 - the socket is gone: its reader ends the connection
                self.give_up(1006, "gone")


@dataclass(frozen=True, slots=True)
class Rate:
    """A token bucket's size: ``per_second`` sustained, ``burst`` at once."""

    per_second: float
    burst: float


# Per connection, then per person (all of one person's connections). A person who plays
# answers at most one state with one act or next; the pages send help and back when clicked,
# and one contribution to each hand's wall.
CONNECTION_RATES: Final = {
    "act": Rate(20.0, 40.0), "next": Rate(2.0, 5.0), "back": Rate(1.0, 3.0),
    "help": Rate(2.0, 5.0), "ping": Rate(2.0, 10.0), "other": Rate(2.0, 10.0),
    "takeover": Rate(1.0, 3.0),
    # one per hand from a page (docs/fairness.md); a reload or a second window sends again
    "contribute": Rate(1.0, 4.0),
    # the page's move key (docs/fairness.md, "Signed moves"): once per connection
    "key": Rate(1.0, 4.0),
    # quick phrases and stickers: a few at once, then one every 3 seconds
    "say": Rate(1 / 3, 3.0),
    # free-text chat, where the room allows it: as the phrases
    "chat": Rate(1 / 3, 3.0),
    # the room's owner removing a seat after a same-address warning
    "remove": Rate(0.5, 5.0),
    # votes (caishen.server.tables.votes): a table takes one a minute anyway; answers and resume
    # are clicks
    "vote": Rate(1 / 10, 4.0), "ballot": Rate(1.0, 4.0), "resume": Rate(1 / 2, 3.0),
}
PERSON_RATES: Final = {k: Rate(r.per_second * 2, r.burst * 2) for k, r in CONNECTION_RATES.items()}


@dataclass(slots=True)
class Bucket:
    rate: Rate
    tokens: float
    last: float

    def take(self, t: float) -> bool:
        self.tokens = min(self.rate.burst, self.tokens + (t - self.last) * self.rate.per_second)
        self.last = t
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def give_back(self) -> None:
        self.tokens = min(self.rate.burst, self.tokens + 1)

    def wait(self, t: float) -> float:
        """Seconds until a token is there."""
        have = min(self.rate.burst, self.tokens + (t - self.last) * self.rate.per_second)
        return 0.0 if have >= 1 else (1 - have) / self.rate.per_second


@dataclass(slots=True)
class Budgets:
    """One token bucket per message kind."""

    rates: dict[str, Rate]
    clock: Callable[[], float] = now_seconds
    buckets: dict[str, Bucket] = field(default_factory=dict)

    def bucket(self, kind: str) -> Bucket:
        b = self.buckets.get(kind)
        if b is None:
            rate = self.rates.get(kind) or self.rates["other"]
            b = self.buckets[kind] = Bucket(rate, rate.burst, self.clock())
        return b


def allow(kind: str, connection: Budgets, person: Budgets) -> bool:
    """Take a token of ``kind`` from the connection's budget and the person's, or from neither."""
    if not connection.bucket(kind).take(connection.clock()):
        metrics.rate_limited.labels(limit="ws_connection").inc()
        return False
    if not person.bucket(kind).take(person.clock()):
        connection.bucket(kind).give_back()
        metrics.rate_limited.labels(limit="ws_user").inc()
        return False
    return True


def give_back(kind: str, *budgets: Budgets) -> None:
    """A message of ``kind`` that the table accepted costs nothing (moves: see the module's doc)."""
    for budget in budgets:
        budget.bucket(kind).give_back()


async def close_socket(close: Callable[[int, str], Awaitable[None]], code: int, reason: str) -> None:
    """Close a WebSocket with ``code``, not waiting long for a peer that does not read."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(close(code, reason), 2.0)
