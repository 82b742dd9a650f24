"""The table's fast view text (``core.table_view_json``, JSON put together from fragments)
is exactly the pydantic reference ``core.table_view(...).model_dump_json()``: for every
player at every state of whole matches of both variants, with people, five or six players at
Longgang (a player waiting out a hand), concealed kongs (backs to the others), help, away seats,
timers and the score table of each hand."""

from __future__ import annotations

import json
import random

import pytest

from caishen.engine.actions import Action, ActionKind
from caishen.server import core
from caishen.server.protocol import EventView, TableView

_KONGS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG, ActionKind.EXPOSED_KONG)


def _collector(session: core.MatchSession, seat: int, rng: random.Random) -> Action:
    """A person who collects sets: a kong or a pong whenever offered, else discards a tile
    it holds fewest of (so concealed kongs come up, which others must see as backs)."""
    legal = session.legal_actions(seat)
    for kinds in (_KONGS, (ActionKind.PONG,)):
        got = [a for a in legal if a.kind in kinds]
        if got:
            return got[0]
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    if not discards or rng.random() < 0.2:
        return rng.choice(legal)
    held = session.observation(seat).hand.concealed
    fewest = min(held.count(a.tile) for a in discards)
    return rng.choice([a for a in discards if held.count(a.tile) == fewest])


def _reference(session: core.MatchSession, player: int, people: core.SeatPeople, extras: core.ViewExtras,
               done: list[core.Move]) -> str:
    seat = session.seat_of(player)
    extras.events = [e for m in done if (e := core.public_event(m, seat)) is not None]
    text = core.table_view(session, player, people, extras).model_dump_json()
    extras.events = []
    return text


def _check_all(session: core.MatchSession, people: core.SeatPeople, extras: core.ViewExtras,
               done: list[core.Move]) -> int:
    n = 0
    for p in range(len(people.names)):
        seat = session.seat_of(p)
        fast = core.table_view_json(session, p, people, extras, core.public_events(done, seat))
        assert fast == _reference(session, p, people, extras, done)
        n += 1 + 1_000_000 * ('"back"' in fast)  # a concealed kong seen from another seat
    return n


def _play(variant: str, bots: tuple[str | None, ...], hands: int, rng: random.Random) -> tuple[int, int, int]:
    """A whole match, the people playing random legal actions; returns (views checked, hands,
    views of a finished hand)."""
    ruleset = core.build_ruleset(variant, {}, hands)
    names = tuple(f"玩家 {i} \"q\"" for i in range(len(bots)))
    session = core.new_session(ruleset, bots, rng.randbytes(16), names, seat_draw=True)
    people_ids = [i for i, b in enumerate(bots) if b is None]
    checked = ends = 0
    done: list[core.Move] = []
    asked = random.Random(len(bots))  # its own stream: the match plays as it did before
    while True:
        connected = frozenset(p for p in people_ids if rng.random() < 0.8)
        away = frozenset(p for p in people_ids if rng.random() < 0.2)
        ready = frozenset(p for p in people_ids if asked.random() < 0.5)  # (between hands: asked for the next)
        people = core.SeatPeople(names, bots, connected, away, ready=ready)
        extras = core.ViewExtras(code="AbC-_12", variant=variant, hands_total=hands or None,
                                 deadline_ms=rng.choice([None, 0, 12345]), help_on=rng.random() < 0.3,
                                 help_allowed=rng.random() < 0.8)
        checked += _check_all(session, people, extras, done)
        if session.over:
            return checked, len(session.match.hands), ends
        if session.hand_over:
            ends += 1
            done = session.next_hand()
            continue
        seat = session.waiting_for()[0]
        done = session.act(seat, _collector(session, seat, rng))


@pytest.mark.parametrize(("variant", "bots", "hands"), [
    ("longgang", (None, "random", "random", "random"), 8),
    ("longgang", (None, None, "random", "greedy"), 8),
    ("longgang", (None, "random", None, "random", "random"), 8),       # someone waits out each hand
    ("longgang", (None, "random", "random", "random", None, "random"), 8),
    ("luoyang-gangci", (None, "random", None, "random"), 8),
    ("luoyang-gangci", (None, None, None, None), 8),
])
def test_fast_view_text_is_the_pydantic_view(variant: str, bots: tuple[str | None, ...], hands: int) -> None:
    checked, played, ends = _play(variant, bots, hands, random.Random(f"{variant}{bots}"))
    assert 2 <= played <= hands and ends == played - 1  # the last hand ends the match (or someone goes broke)
    views, backs = checked % 1_000_000, checked // 1_000_000
    assert views > 80 * len(bots)  # (the deals of caishen-fair-2 end one of these matches early)
    if variant == "luoyang-gangci":
        assert backs > 0  # a person's concealed kong, hidden from the other people


def test_fast_view_text_parses_as_the_wire_type() -> None:
    """The text is a TableView for the client: the wire type reads it back field for field."""
    ruleset = core.build_ruleset("longgang", {}, 8)
    session = core.new_session(ruleset, (None, "random", "random", "random"), b"seed", ("a", "b", "c", "d"))
    people = core.SeatPeople(("a", "b", "c", "d"), (None, "random", "random", "random"), frozenset({0}))
    extras = core.ViewExtras(code="X", variant="longgang", hands_total=8)
    text = core.table_view_json(session, 0, people, extras, [])
    view = TableView.model_validate_json(text)
    assert view.me == session.seat_of(0) and len(view.tiles) >= 13 and view.choices
    assert json.loads(text) == json.loads(view.model_dump_json())
    assert all(isinstance(e, EventView) for e in view.events)
