"""Votes of the people at a table (issue 30, table manners): dismiss the room (解散房间) or
pause the game. docs/server.md, "Votes (解散房间 and pause)", gives the rule and why.

Who votes (:func:`electorate`): the people seated in the hand in play, except one who has had
no connection for the table's ``absent_after`` (3 minutes: the wait after which the others may
hand an absent person's seat to a bot); bots and stand-ins never vote. One of them opens a vote
(``{"type": "vote", "kind": "dismiss"}``; their own yes counts) and every page at the table is
told where it stands (:class:`VoteStateMessage`) at each answer. It ends (:func:`decide`):

* passed at once when every voter said yes;
* failed at once on any no;
* at its time-out (``VOTE_SECONDS``): passed when more than half of the voters said yes,
  else failed (silence is not yes).

Then the table takes no new vote for ``COOLDOWN_SECONDS``. A dismissal that passes ends the
match (:meth:`Host.end_match`); a pause holds the table (:meth:`Host.hold`: no move clock, no
bot, no deal) until a seated person resumes it or ``PAUSE_MAX_SECONDS`` pass. All of this lives
in the memory of the process that runs the table: a table rebuilt elsewhere (its node died)
goes on unpaused, with no vote open.
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from caishen.server import core
from caishen.server.conns import Outbox
from caishen.server.protocol import (
    BallotMessage,
    PausedMessage,
    ProtocolError,
    ResumeMessage,
    VoteKind,
    VoteMessage,
    VoterView,
    VoteStateMessage,
)
from caishen.server.store import RoomInfo

VOTE_SECONDS: Final = 30.0        # a vote times out after this ($CAISHEN_VOTE_SECONDS)
COOLDOWN_SECONDS: Final = 60.0    # no new vote at a table for this long after one ended ($CAISHEN_VOTE_COOLDOWN_SECONDS)
PAUSE_MAX_SECONDS: Final = 300.0  # a pause ends by itself after this ($CAISHEN_PAUSE_MAX_SECONDS)

Outcome = Literal["passed", "failed"]


def _seconds(name: str, default: float) -> float:
    """``$name`` as seconds (tests and demos shorten the waits), else ``default``."""
    try:
        return max(0.0, float(os.environ.get(name, default)))
    except ValueError:
        return default


def decide(voters: int, yes: int, no: int, timed_out: bool) -> Outcome | None:
    """The outcome of a vote of ``voters`` people with ``yes`` and ``no`` answers so far
    (``None``: still open): all yes passes at once, a no fails at once, and at the time-out
    more than half of the voters saying yes passes."""
    if no:
        return "failed"
    if yes >= voters:
        return "passed"
    if timed_out:
        return "passed" if 2 * yes > voters else "failed"
    return None


def electorate(session: core.Session, present: frozenset[int], gone_since: dict[int, float], now: float,
               absent_after: float, removed: frozenset[int] = frozenset()) -> dict[int, int]:
    """Who votes now, as player -> engine seat: the people seated in the hand in play who are
    connected (``present``) or have been gone for less than ``absent_after`` seconds
    (``gone_since``: since when, on the clock ``now`` reads), but not one the room's owner
    removed from the table (``removed``: a bot plays the seat)."""
    out: dict[int, int] = {}
    for seat, player in enumerate(session.seats):
        if player in removed:
            continue
        if session.is_person(player) and (player in present or now - gone_since.get(player, now) < absent_after):
            out[player] = seat
    return out


class Conn(Protocol):
    """A page at the table (caishen.server.tables.live.Client)."""

    @property
    def player(self) -> int: ...

    @property
    def outbox(self) -> Outbox: ...


class Host(Protocol):
    """What the votes need of their table (caishen.server.tables.live.LiveTable)."""

    @property
    def lock(self) -> asyncio.Lock: ...

    @property
    def evicted(self) -> bool: ...

    @property
    def paused(self) -> bool: ...  # the database could not be written

    @property
    def room(self) -> RoomInfo: ...

    @property
    def session(self) -> core.Session: ...

    @property
    def clients(self) -> Sequence[Conn]: ...

    def electorate(self) -> dict[int, int]: ...

    async def end_match(self) -> bool: ...

    async def hold(self, on: bool) -> None: ...


@dataclass(slots=True)
class Vote:
    """One vote: its number at the table, what it is on, who opened it and who is asked
    (players, in seat order), when it times out (the event loop's clock) and the answers."""

    number: int
    kind: VoteKind
    starter: int
    voters: tuple[int, ...]
    deadline: float
    yes: set[int] = field(default_factory=set)
    no: set[int] = field(default_factory=set)
    outcome: Outcome | None = None


class Votes:
    """A table's votes and its pause. Every method runs under the table's lock (the timers'
    take it)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.seconds = _seconds("CAISHEN_VOTE_SECONDS", VOTE_SECONDS)
        self.cooldown = _seconds("CAISHEN_VOTE_COOLDOWN_SECONDS", COOLDOWN_SECONDS)
        self.pause_max = _seconds("CAISHEN_PAUSE_MAX_SECONDS", PAUSE_MAX_SECONDS)
        self.vote: Vote | None = None  # the open vote, or the last one
        self.quiet_until = -math.inf   # no new vote before this (the loop's clock)
        self.held_until: float | None = None  # paused by a vote: it resumes by itself then
        self._pauses = 0  # numbers each pause, so that an old pause's timer ends nothing
        self._timers: list[asyncio.TimerHandle] = []
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def held(self) -> bool:
        """The table is paused by a vote: nothing moves until it resumes."""
        return self.held_until is not None

    @property
    def open(self) -> bool:
        return self.vote is not None and self.vote.outcome is None

    def stop(self) -> None:
        """The table leaves memory: no timer of a vote or a pause fires any more."""
        for t in self._timers:
            t.cancel()
        self._timers.clear()

    # ------------------------------------------------------------ messages in

    async def receive(self, player: int, msg: VoteMessage | BallotMessage | ResumeMessage) -> None:
        """A page's vote, answer or resume; refused with a :class:`ProtocolError` (its code
        says why; nothing changes) or applied and told to every page."""
        if self.host.paused:
            raise ProtocolError("storage_unavailable", "connection to storage lost, retrying: try again later")
        if isinstance(msg, VoteMessage):
            await self._start(player, msg.kind)
        elif isinstance(msg, BallotMessage):
            await self._answer(player, msg.vote, msg.yes)
        else:
            await self._resume(player)

    async def _start(self, player: int, kind: VoteKind) -> None:
        s = self.host.session
        voters = self.host.electorate()
        if player not in voters:
            raise ProtocolError("not_seated", "only the people seated at the table vote")
        if not s.dealt or s.over:
            raise ProtocolError("no_match", "there is no match in play to vote on")
        if self.open:
            raise ProtocolError("vote_open", "a vote is open at this table: answer it first")
        now = _now()
        if now < self.quiet_until:
            raise ProtocolError("vote_cooldown", f"a vote ended a moment ago: the next may start in "
                                f"{math.ceil(self.quiet_until - now)} s")
        if kind == "pause" and self.held:
            raise ProtocolError("paused_already", "the table is paused already")
        number = (self.vote.number + 1) if self.vote is not None else 0
        order = sorted(voters, key=lambda p: voters[p])
        vote = self.vote = Vote(number, kind, player, tuple(order), now + self.seconds, yes={player})
        self._after(self.seconds, functools.partial(self.time_out, number))
        await self._settle(vote, timed_out=False)  # alone at the table: passed at once

    async def _answer(self, player: int, number: int, yes: bool) -> None:
        vote = self.vote
        if vote is None or vote.number != number or vote.outcome is not None:
            raise ProtocolError("no_vote", f"vote {number} is not open")
        if player not in vote.voters:
            raise ProtocolError("not_seated", "only the people seated at the table when the vote opened answer it")
        if player in vote.yes or player in vote.no:
            raise ProtocolError("already_voted", "you have answered this vote")
        (vote.yes if yes else vote.no).add(player)
        await self._settle(vote, timed_out=False)

    async def _resume(self, player: int) -> None:
        if not self.held:
            raise ProtocolError("not_paused", "the table is not paused")
        if self.host.session.seat_of(player) is None:
            raise ProtocolError("not_seated", "only the people seated at the table resume it")
        await self._unhold(player)

    # ------------------------------------------------------------ timers

    def _after(self, seconds: float, job: Callable[[], Coroutine[object, object, None]]) -> None:
        loop = asyncio.get_running_loop()

        async def guarded() -> None:
            try:
                await job()
            except ReferenceError:  # the table left memory meanwhile (it is held weakly: live.py)
                pass

        def start() -> None:
            task = loop.create_task(guarded())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        self._timers = [t for t in self._timers if not t.cancelled() and t.when() > loop.time()]
        self._timers.append(loop.call_later(seconds, start))

    async def time_out(self, number: int) -> None:
        """Vote ``number``'s time is up (its timer calls this): decided on the answers given."""
        async with self.host.lock:
            vote = self.vote
            if self.host.evicted or vote is None or vote.number != number or vote.outcome is not None:
                return
            await self._settle(vote, timed_out=True)

    async def pause_over(self, pause: int) -> None:
        """Pause number ``pause`` has lasted its longest (its timer calls this): the table goes on."""
        async with self.host.lock:
            if not self.host.evicted and self.held and self._pauses == pause:
                await self._unhold(None)

    # ------------------------------------------------------------ outcomes

    async def _settle(self, vote: Vote, timed_out: bool) -> None:
        outcome = decide(len(vote.voters), len(vote.yes), len(vote.no), timed_out)
        if outcome is None:
            self.tell()
            return
        if self.host.session.over:  # the match ended meanwhile: nothing left to dismiss or pause
            outcome = "failed"
        self.quiet_until = _now() + self.cooldown
        if outcome == "passed" and vote.kind == "dismiss":
            if self.held:
                self._pauses += 1
                self.held_until = None
                self._tell_all(PausedMessage(on=False).model_dump_json())
            if not await self.host.end_match():  # not stored (the database away): the match goes on
                outcome = "failed"
        vote.outcome = outcome
        self.tell()
        if outcome == "passed" and vote.kind == "pause":
            self._pauses += 1
            self.held_until = _now() + self.pause_max
            self._after(self.pause_max, functools.partial(self.pause_over, self._pauses))
            await self.host.hold(True)
            self._tell_all(self._paused_text())

    async def _unhold(self, by: int | None) -> None:
        self._pauses += 1
        self.held_until = None
        self._tell_all(PausedMessage(on=False, by=None if by is None else self.host.room.names[by]).model_dump_json())
        await self.host.hold(False)

    # ------------------------------------------------------------ telling

    def state_text(self, player: int) -> str | None:
        """The vote as player ``player``'s pages are told it (None: no vote yet)."""
        vote = self.vote
        if vote is None:
            return None
        s, names, now = self.host.session, self.host.room.names, _now()
        voters = [VoterView(name=names[p], seat=s.seat_of(p),
                            vote="yes" if p in vote.yes else "no" if p in vote.no else None) for p in vote.voters]
        ended = vote.outcome is not None
        return VoteStateMessage(
            vote=vote.number, kind=vote.kind, starter=names[vote.starter], voters=voters,
            mine=not ended and player in vote.voters and player not in vote.yes and player not in vote.no,
            ms_left=0 if ended else max(0, int((vote.deadline - now) * 1000)), outcome=vote.outcome,
            cooldown_ms=max(0, int((self.quiet_until - now) * 1000)) if ended else 0,
        ).model_dump_json()

    def _paused_text(self) -> str:
        left = 0 if self.held_until is None else max(0, int((self.held_until - _now()) * 1000))
        return PausedMessage(on=True, ms_left=left).model_dump_json()

    def tell(self) -> None:
        """Every page at the table: where the vote stands."""
        for c in list(self.host.clients):
            text = self.state_text(c.player)
            if text is not None:
                c.outbox.put(text)

    def _tell_all(self, text: str) -> None:
        for c in list(self.host.clients):
            c.outbox.put(text)

    def tell_joined(self, client: Conn) -> None:
        """A page that has just connected: the open vote and the pause, if there are."""
        if self.open:
            text = self.state_text(client.player)
            if text is not None:
                client.outbox.put(text)
        if self.held:
            client.outbox.put(self._paused_text())


def _now() -> float:
    return asyncio.get_running_loop().time()
