"""Races end in a clear answer (issue 26), on SQLite and PostgreSQL: two people taking the
last seat at once, two people taking two open seats at once, and the owner's "start now"
against the last join. Each request is sent by its own thread at the same moment, to a real
server (uvicorn, in this process, with the HTTP limits set out of the way). Over every trial:
no answer is a 500, the loser of a race gets 409 with a message, and no seat is lost (every
200 to a join is a seat in the room as stored, and a started room has no open seat).
The fast suite runs 10 trials of each; 100 of each are marked slow."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn

from caishen.server.app import create_app
from caishen.server.conns import Rate
from caishen.server.limits import HttpLimits
from helpers_server import database, free_port

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

UNLIMITED = HttpLimits(rates={k: (Rate(1e6, 1e6), Rate(1e6, 1e6)) for k in HttpLimits().rates}, open_rooms=10**6)


@contextmanager
def _served(url: str) -> Iterator[str]:
    """The app on ``url`` served by uvicorn in a thread; its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(url, limits=UNLIMITED), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # up to 60 s for start-up (polled, not timed)
            if server.started:
                break
            thread.join(0.1)
        assert server.started, "server did not start"
        yield base
    finally:
        server.should_exit = True
        thread.join(60)


def _person(base: str, name: str) -> httpx.Client:
    c = httpx.Client(base_url=base, timeout=60)
    assert c.post("/api/me", json={"name": name}).status_code == 200
    return c


def _at_once(*calls: Callable[[], httpx.Response]) -> list[httpx.Response]:
    """Run the calls in threads released together; their answers, in order."""
    barrier = threading.Barrier(len(calls))
    out: list[httpx.Response | None] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        out[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


def _seated(room: dict[str, object], who: httpx.Client) -> bool:
    seats = who.get(f"/api/rooms/{room['code']}").json()["seats"]
    return any(s["mine"] for s in seats)


def _races(kind: str, tmp: Path, trials: int) -> Counter[str]:
    """Every trial of the three races; the answers counted by race and status."""
    seen: Counter[str] = Counter()
    with database(kind, tmp) as url, _served(url) as base:
        owner, ann, bob = (_person(base, n) for n in ("Owner", "Ann", "Bob"))
        try:
            for _ in range(trials):
                # the last seat: one of two gets it, the other a 409
                code = owner.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "pace": "instant"}).json()["code"]
                a, b = _at_once(lambda c=code: ann.post(f"/api/rooms/{c}/join"),
                                lambda c=code: bob.post(f"/api/rooms/{c}/join"))
                seen.update(f"last seat {r.status_code}" for r in (a, b))
                assert sorted((a.status_code, b.status_code)) == [200, 409], (a.text, b.text)
                loser = a if a.status_code == 409 else b
                assert "seat" in loser.json()["detail"] and loser.json()["code"] == "no_seat"
                room = owner.get(f"/api/rooms/{code}").json()
                assert room["status"] == "playing"
                assert _seated(room, ann) is (a.status_code == 200) and _seated(room, bob) is (b.status_code == 200)
                assert all(s["name"] for s in room["seats"])

                # two seats for two: both seated, no seat lost
                code = owner.post("/api/rooms", json={"friends": 2, "turn_seconds": 0}).json()["code"]
                a, b = _at_once(lambda c=code: ann.post(f"/api/rooms/{c}/join"),
                                lambda c=code: bob.post(f"/api/rooms/{c}/join"))
                seen.update(f"two seats {r.status_code}" for r in (a, b))
                assert (a.status_code, b.status_code) == (200, 200), (a.text, b.text)
                room = owner.get(f"/api/rooms/{code}").json()
                assert room["status"] == "playing" and _seated(room, ann) and _seated(room, bob)
                assert [s["bot"] is None for s in room["seats"]] == [True, True, True, False]

                # "start now" against the last join: the joiner is seated if and only if told 200
                code = owner.post("/api/rooms", json={"friends": 1, "turn_seconds": 0, "pace": "instant"}).json()["code"]
                s, j = _at_once(lambda c=code: owner.post(f"/api/rooms/{c}/start"),
                                lambda c=code: ann.post(f"/api/rooms/{c}/join"))
                seen.update(f"start {s.status_code}" for _ in (0,))
                seen.update(f"start-join {j.status_code}" for _ in (0,))
                assert s.status_code == 200, s.text
                assert j.status_code in (200, 409), j.text
                room = owner.get(f"/api/rooms/{code}").json()
                assert room["status"] == "playing"
                assert _seated(room, ann) is (j.status_code == 200)
                assert all(x["name"] for x in room["seats"])  # no seat left open
        finally:
            for c in (owner, ann, bob):
                c.close()
    assert not any(k.endswith(" 500") for k in seen)
    return seen


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_races_end_in_a_clear_answer(kind: str, tmp_path: Path) -> None:
    seen = _races(kind, tmp_path, 10)
    assert seen["last seat 200"] == seen["last seat 409"] == 10
    assert seen["two seats 200"] == 20


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_races_100_trials_each(kind: str, tmp_path: Path) -> None:
    seen = _races(kind, tmp_path, 100)
    assert seen["last seat 200"] == seen["last seat 409"] == 100
    assert seen["two seats 200"] == 200
    print(dict(seen))
