"""The people's randomness in every wall (caishen-fair-2, docs/fairness.md): a table's
contribution window.

Once the table has published a hand's commitment (the first hand's when the table opens, the
next one's as soon as a hand ends), every page that contributes (it connected with
``?contribute=1``) is sent ``{"type": "fair", "open": true, ...}`` and answers with 32 random
bytes (``{"type": "contribute"}``). The hand is dealt when it is due (the table opened; every
person present pressed "next", or the timer did) and either every contributing page of a
person seated in it has sent its value, or :func:`window_seconds` have passed since the
commitment went out. What arrived by then is mixed in; a seat that sent nothing is ``timeout``
(its page was asked) or ``none`` (no contributing page), a bot's seat ``bot``. A contribution
after the deal is refused: the window is closed. The server never sees a contribution before
its commitment is out, and the commitment fixes the seed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Final

from caishen import fair
from caishen.server.protocol import FairMessage
from caishen.table.record import Mix

WINDOW_SECONDS: Final = 3.0  # docs/fairness.md: a seat that sends nothing in this time contributes nothing


def window_seconds() -> float:
    """``$CAISHEN_CONTRIBUTE_SECONDS`` (default 3): how long a deal waits for the pages that
    contribute. Tests may shorten it."""
    try:
        return max(0.0, float(os.environ.get("CAISHEN_CONTRIBUTE_SECONDS", str(WINDOW_SECONDS))))
    except ValueError:
        return WINDOW_SECONDS


def mix_json(mix: Mix) -> str:
    """What is stored with a hand (``hands.mix``): contributions by seat (hex, or why none)
    and the events up to the deal."""
    return json.dumps({"contributions": [c.hex() if isinstance(c, bytes) else c for c in mix.contributions],
                       "timeline": list(mix.timeline)}, separators=(",", ":"))


def mix_from_json(text: str | None) -> Mix | None:
    """A stored mix (``None`` for hands stored before there were any)."""
    if text is None:
        return None
    d = json.loads(text)
    contributions = tuple(c if c in fair.NO_CONTRIBUTION else bytes.fromhex(c) for c in d["contributions"])
    return Mix(contributions, tuple(d["timeline"]))


@dataclass(slots=True)
class Window:
    """Contributions to hand ``hand``, whose ``commitment`` is out since ``opened`` (the
    event loop's clock). ``values`` and ``asked`` are by engine seat of that hand."""

    hand: int
    commitment: str
    opened: float
    seats: tuple[int, int, int, int]  # the player in each seat of that hand
    people: tuple[bool, bool, bool, bool]  # the seat is a person's
    values: dict[int, bytes] = field(default_factory=dict)
    timeline: list[str] = field(default_factory=lambda: ["commit"])
    asked: set[int] = field(default_factory=set)  # seats whose contributing page was open
    due: bool = False  # the deal is due: it waits only for the window

    def seat_of(self, player: int) -> int | None:
        return self.seats.index(player) if player in self.seats else None

    def ask(self, player: int) -> None:
        """A contributing page of ``player`` is connected while the window is open."""
        seat = self.seat_of(player)
        if seat is not None and self.people[seat]:
            self.asked.add(seat)

    def take(self, player: int, value: bytes) -> bool:
        """``player``'s contribution: kept if it is the first of its seat (``True``)."""
        seat = self.seat_of(player)
        if seat is None or not self.people[seat] or seat in self.values:
            return False
        self.values[seat] = value
        self.timeline.append(f"contribute {seat}")
        return True

    def mine(self, player: int) -> bytes | None:
        seat = self.seat_of(player)
        return None if seat is None else self.values.get(seat)

    def complete(self, contributors: set[int], now: float, seconds: float, expected: frozenset[int] = frozenset()) -> bool:
        """Every person seated whose contributing page is connected (``contributors``: their
        player indices) has sent its value, or the time is up. ``expected``: people not
        connected yet whose page is awaited all the same (a match's first deal: the person who
        opened a friends room comes from the waiting page a moment after the last friend sat)."""
        if now - self.opened >= seconds:
            return True
        if any(self.seat_of(p) is not None for p in expected):
            return False
        for p in contributors:
            seat = self.seat_of(p)
            if seat is not None and self.people[seat] and seat not in self.values:
                return False
        return True

    def mix(self) -> Mix:
        """What the deal mixes in; the timeline ends with ``deal``."""
        out: list[bytes | str] = []
        for s in range(4):
            if not self.people[s]:
                out.append("bot")
            elif s in self.values:
                out.append(self.values[s])
            else:
                out.append("timeout" if s in self.asked else "none")
        return Mix(tuple(out), (*self.timeline, "deal"))


def fair_message(hand: int, commitment: str, *, open: bool, dealt: bool, mine: bytes | None) -> str:
    """The ``{"type": "fair"}`` message to a contributing page."""
    return FairMessage(hand=hand, commitment=commitment, open=open, dealt=dealt,
                       mine=None if mine is None else mine.hex()).model_dump_json()
