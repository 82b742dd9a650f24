"""Spectators (观战, issue 30 item 3; docs/server.md, "Spectators").

A room made with ``spectators`` on may be watched by any signed-in person who is not one of
its players: ``/ws/CODE?watch=1`` (the table page's "Watch" button). A spectator

- sees only what every player sees alike (:func:`caishen.server.core.public_view`: discards,
  open melds, flowers, each hand's tile count, the wall, whose turn, the scores; never a tile
  of a hand, a wild, a choice or a clock), and **one state behind**: each public state is
  kept until the next one is told, and only then sent (a hand's end is sent at once: the
  hand is over, every hand is laid open to the players then);
- is listed to the players: every page at the table is told the spectators' names
  (:class:`~caishen.server.protocol.WatchersMessage`) when one comes or goes;
- cannot act: any message but ``ping`` is refused with ``spectator`` and changes nothing
  (counted against the same budgets as a player's messages, :mod:`caishen.server.conns`).

A table takes at most :data:`MAX_WATCHERS` spectator connections (``too_many_spectators``).
A spectator never makes a node take a table over: it joins the table where it runs, through
the node relay when that is another node (:mod:`caishen.server.nodes.edge`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

from caishen.server import core
from caishen.server.conns import CONNECTION_RATES, PERSON_RATES, Budgets, Outbox, allow
from caishen.server.protocol import (
    PONG,
    ErrorMessage,
    ProtocolError,
    WatchersMessage,
    parse_client_message,
)
from caishen.server.store import RoomInfo

MAX_WATCHERS: Final = 20  # spectator connections per table
SPECTATORS_OFF: Final = "spectators_off"
TOO_MANY: Final = "too_many_spectators"
SPECTATOR: Final = "spectator"


@dataclass(eq=False)
class Watcher:
    """One spectator's connection: its person, the name listed to the players, its outgoing
    queue and its budgets (``person``: shared by all of that person's connections)."""

    uid: str
    name: str
    outbox: Outbox
    budgets: Budgets = field(default_factory=lambda: Budgets(CONNECTION_RATES))
    person: Budgets = field(default_factory=lambda: Budgets(PERSON_RATES))


def refusal(room: RoomInfo, watching: Watching | None) -> tuple[str, str] | None:
    """Why a non-player may not watch room ``room`` now (a code and a message), or None.
    ``watching``: the spectators of its live table here, if it runs here."""
    if not room.spectators:
        return SPECTATORS_OFF, "this room does not allow spectators"
    if room.status != "playing":
        return "not_playing", "this room's match is not being played"
    if watching is not None and len(watching.watchers) >= MAX_WATCHERS:
        return TOO_MANY, f"this table has {MAX_WATCHERS} spectators already"
    return None


def error_json(code: str, message: str) -> str:
    return ErrorMessage(code=code, message=message).model_dump_json()


class Watching:
    """The spectators of one live table and what they have been told. The table calls
    :meth:`see` whenever a state every player may be sent is told (never while a discard is
    being decided on), with the people at the table; ``players`` gives the outgoing queues of
    the players' connections (told the spectators' names)."""

    def __init__(self, room: RoomInfo, players: Callable[[], list[Outbox]]) -> None:
        self.extras = core.ViewExtras(code=room.code, variant=room.variant,
                                      hands_total=None if room.hands == 0 else room.hands,
                                      help_allowed=room.help_allowed)
        self.players = players
        self.watchers: list[Watcher] = []
        self._pending: tuple[tuple[int, int], str] | None = None  # (hand, step), the state not sent yet
        self.shown: str | None = None  # the last public state sent (a new spectator starts from it)

    # ------------------------------------------------------------ who watches

    def names(self) -> list[str]:
        """The spectators' names, one per person, in the order they came."""
        seen: dict[str, str] = {}
        for w in self.watchers:
            seen.setdefault(w.uid, w.name)
        return list(seen.values())

    def _tell_names(self) -> None:
        text = WatchersMessage(names=self.names()).model_dump_json()
        for out in [*self.players(), *(w.outbox for w in self.watchers)]:
            out.put(text)

    def greet(self, player: Outbox) -> None:
        """A player's page connected: told who watches, if anyone does."""
        if self.watchers:
            player.put(WatchersMessage(names=self.names()).model_dump_json())

    def join(self, w: Watcher) -> None:
        """A spectator comes: everyone hears its name; it gets the last public state sent."""
        self.watchers.append(w)
        self._tell_names()
        if self.shown is not None:
            w.outbox.put(self.shown, state=True)

    def leave(self, w: Watcher) -> None:
        if w in self.watchers:
            self.watchers.remove(w)
            self._tell_names()
        if not self.watchers:  # nobody watches: nothing kept (the next spectator starts from the next move)
            self._pending = self.shown = None

    def give_up(self, code: int, reason: str) -> None:
        """Close every spectator's connection (the table stopped here: they reconnect)."""
        for w in self.watchers:
            w.outbox.give_up(code, reason)

    # ------------------------------------------------------------ what they see

    def see(self, session: core.Session, people: core.SeatPeople) -> None:
        """A public state is told to the players: the one before it goes to the spectators
        (one state behind), and this one is kept until the next; a hand's end (or the match's)
        goes at once."""
        if not self.watchers or not session.dealt:  # nobody watches: nothing is built
            return
        text = core.public_view(session, people, self.extras).model_dump_json()
        at = (session.hand_index, core.public_step(session))
        if session.hand_over or session.over:  # (a match dismissed by a vote ends mid-hand)
            if self._pending is not None and self._pending[0] != at:
                self._send(self._pending[1])
            self._pending = None
            self._send(text)
            return
        if self._pending is not None and self._pending[0] != at:
            self._send(self._pending[1])
        self._pending = (at, text)

    def _send(self, text: str) -> None:
        if text == self.shown:
            return
        self.shown = text
        for w in self.watchers:
            w.outbox.put(text, state=True)

    def receive(self, w: Watcher, text: str) -> None:
        """A spectator's message: ``ping`` is answered; anything else is refused (``spectator``),
        counted against its budgets like any page's (``rate_limited`` past them)."""
        try:
            kind = parse_client_message(text).type
        except ProtocolError as exc:
            if allow("other", w.budgets, w.person):
                w.outbox.put(error_json(exc.code, str(exc)))
            else:
                w.outbox.put(error_json("rate_limited", "too many messages: slow down"))
            return
        if not allow(kind, w.budgets, w.person):
            w.outbox.put(error_json("rate_limited", "too many messages: slow down"))
        elif kind == "ping":
            w.outbox.put(PONG)
        else:
            w.outbox.put(error_json(SPECTATOR, "a spectator watches: it cannot play, say or decide anything"))


async def serve(watching: Watching, w: Watcher, receive: Callable[[], Awaitable[str | None]],
                present: Callable[[], None]) -> None:
    """One spectator's connection at its table until it closes (its page goes, or its queue
    gives up): ``receive``, its page's next message (None once gone); ``present``: the table
    tells :meth:`Watching.see` its present public state (kept, sent once the next is told)."""
    writer = asyncio.ensure_future(w.outbox.run())

    async def read() -> None:
        while (text := await receive()) is not None:
            watching.receive(w, text)

    reader = asyncio.ensure_future(read())
    watching.join(w)
    present()
    try:
        await asyncio.wait((reader, writer), return_when=asyncio.FIRST_COMPLETED)
    finally:
        reader.cancel()
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reader
        watching.leave(w)
