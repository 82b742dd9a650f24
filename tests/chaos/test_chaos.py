"""The chaos test of issue 28 (docs/server.md, "Nodes"): three nodes behind HAProxy, on a fresh
PostgreSQL schema (reached through a :class:`helpers_nodes.Proxy` the test can cut) and a
redis-server of the test's own (restartable without touching the shared one). Bot tables (three
bots and a quick scripted person each) and slower scripted "humans" play through the balancer
and reconnect as the page does (``since=``). Meanwhile a random node is SIGKILLed every
``KILL_EVERY`` seconds and started again, Redis is restarted once and PostgreSQL is blocked for
3 s once. Then: every table moved on after the last fault (the full version: every match
finished), no move a client was told of is missing from the database, and every record
verifies with ``caishen verify --key`` and the nodes' shared key (``$CAISHEN_KEY``).

The short version runs by hand (``-m chaos``; not yet in CI: see below); ``CAISHEN_CHAOS=full`` runs the issue's: 100 bot
tables, 10 humans, 3 minutes, a kill every 20 s. ``CAISHEN_CHAOS_TABLES``, ``_PERSONS``,
``_SECONDS``, ``_KILL_EVERY``, ``_HANDS`` override each figure. The report (longest stall of a table,
reconnects, moves per second per 10 s) is printed (``-s``)."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from caishen.cli import main as cli_main
from caishen.table.signing import load_or_create_key, public_key_hex
from helpers_balancer import BalancedNodes, balanced_nodes, services_or_skip
from helpers_nodes import BOUND, Person, Proxy, new_room, poll, sign_up
from helpers_server import PG_BASE, ServerProcess, free_port

FULL = os.environ.get("CAISHEN_CHAOS") == "full"
# Not in CI yet (marker ``chaos``: ``pytest -m chaos tests/chaos``): on a machine at load 11
# with two more busy loops one run in three had a table that had not moved on 90 s after the
# last fault (docs/server.md, "Nodes", "Chaos test"). Bounded: the short version takes 1-2
# minutes, 6 on a loaded machine; the full one up to 15.
pytestmark = [pytest.mark.chaos, pytest.mark.redis, pytest.mark.timeout(1500 if FULL else 900)]
TABLES = int(os.environ.get("CAISHEN_CHAOS_TABLES", 100 if FULL else 7))
PERSONS = int(os.environ.get("CAISHEN_CHAOS_PERSONS", 10 if FULL else 3))
SECONDS = float(os.environ.get("CAISHEN_CHAOS_SECONDS", 180 if FULL else 60))
KILL_EVERY = float(os.environ.get("CAISHEN_CHAOS_KILL_EVERY", 20))
# hands per match: the short version's few tables would finish 8 hands before the faults; the
# full version's hundred tables are slower, and must finish their matches
HANDS = int(os.environ.get("CAISHEN_CHAOS_HANDS", 8 if FULL else 24))
# seconds a bot table's scripted person and a "human" think before each move: the short
# version's tables must still play when the last fault comes (a match may end early, 断筹)
THINK = float(os.environ.get("CAISHEN_CHAOS_THINK", 0.1 if FULL else 0.3))
HUMAN_THINK = 1.0
PG_BLOCK = 3.0  # seconds PostgreSQL answers nothing
REDIS_SERVER = "/usr/bin/redis-server"


class RedisServer:
    """A redis-server of the test's own on a free loopback port, without persistence."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        import redis  # noqa: PLC0415 - only with the services

        self.proc = subprocess.Popen([REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url, socket_timeout=2)

        def answers() -> bool:
            assert self.proc is not None and self.proc.poll() is None, "redis-server exited"
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        try:
            poll(answers, BOUND, "redis-server to answer")
        finally:
            client.close()
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(BOUND)


@contextmanager
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.stop()


def through(proxy: Proxy, db: str) -> str:
    """Database URL ``db`` with its host and port replaced by ``proxy``'s."""
    parts = urlsplit(db)
    user = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{proxy.port}"))


class Logs:
    """The nodes' standard error (each ``ServerProcess`` reads its own as it comes, over its
    restarts), searched for tracebacks at the end."""

    def __init__(self) -> None:
        self.nodes: list[ServerProcess] = []

    def follow(self, node: ServerProcess) -> None:
        if node not in self.nodes:
            self.nodes.append(node)

    def about(self, code: str) -> list[str]:
        """Every node's log lines that name room ``code`` (the logs are one JSON object a line)."""
        return [f"{node.port}: {line}" for node in self.nodes for line in node.log().splitlines() if code in line]

    def tracebacks(self) -> list[str]:
        """Each traceback a node printed, with the 40 lines after it (what raised, and where)."""
        found = []
        for node in self.nodes:
            lines = node.log().splitlines()
            found += [f"node {node.port}: " + "\n".join(lines[i:i + 40]) for i, line in enumerate(lines) if "Traceback" in line]
        return found


def _verify(dep: BalancedNodes, code: str, key: str, tmp: Path) -> tuple[int, str]:
    got = httpx.get(dep.base + f"/api/matches/{code}/record", timeout=BOUND)
    assert got.status_code == 200, (code, got.status_code, got.text[:300])
    path = tmp / f"{code}.json"
    path.write_text(got.text, encoding="utf-8")
    return cli_main(["verify", "--key", key, str(path)]), got.text


def _state(p: Person, dep: BalancedNodes) -> str:
    """What a stuck table's person saw, and who holds its lease (the failure's message)."""
    last = round(time.monotonic() - p.times[-1], 1) if p.times else None
    holder = dep.owner(p.code)
    return (f"seen {p.seen}, last step {last} s ago, closes {p.closes[-8:]}, refused {p.refused}, "
            f"errors {p.errors[-8:]}, states {p.states}, moves {p.moves}, lease holder "
            f"{holder.port if holder is not None else None}, lease ms {dep.cluster.lease_ms(p.code)}")


def _report(people: list[Person], t0: float, t_end: float) -> dict[str, Any]:
    stalls = []
    for p in people:
        marks = [t0, *p.times] if p.times else [t0]
        end = marks[-1] if p.over else t_end
        points = [*marks, end]
        gaps = [(b - a, a) for a, b in zip(points, points[1:], strict=False)]
        gap, began = max(gaps)
        stalls.append((round(gap, 2), p.code, round(began - t0, 1)))  # (seconds, room, from when)
    buckets: dict[int, int] = {}
    for p in people:
        for t in p.times:
            if t <= t_end:
                buckets[int((t - t0) // 10)] = buckets.get(int((t - t0) // 10), 0) + 1
    return {
        "longest_stall": max(stalls),
        "reconnects": sum(len(p.closes) + p.refused for p in people),
        "closes": sorted({c for p in people for c in p.closes}),
        "errors": sorted({e for p in people for e in p.errors}),
        "steps_per_s": [round(buckets.get(b, 0) / 10, 1) for b in range(int((t_end - t0) // 10) + 1)],
        "over": sum(p.over for p in people),
        "over_at_s": sorted(round(p.times[-1] - t0) for p in people if p.over and p.times),
    }


def test_three_nodes_behind_the_balancer_survive_kills_a_redis_restart_and_a_database_block(tmp_path: Path) -> None:
    services_or_skip()
    if not Path(REDIS_SERVER).exists():
        pytest.skip("no redis-server to run")
    key = public_key_hex(load_or_create_key())  # made before the nodes: they share it ($CAISHEN_KEY)
    rng = random.Random()
    pg = Proxy(("127.0.0.1", urlsplit(PG_BASE.replace("postgresql+psycopg", "postgresql")).port or 5432))
    logs = Logs()
    people: list[Person] = []
    try:
        with own_redis() as rs, balanced_nodes(tmp_path, 3, redis_url=rs.url, db_url=lambda db: through(pg, db)) as dep:
            for node in dep.nodes:
                logs.follow(node)
            front = dep.balancer.port  # type: ignore[attr-defined]
            for i in range(TABLES + PERSONS):
                human = i >= TABLES
                node = dep.nodes[i % 3]
                address = f"198.18.{i // 250}.{i % 250 + 1}"  # each an address (the nodes share their limits)
                cookie = sign_up(node, f"{'human' if human else 'bot'}{i}", address)
                code = new_room(node, cookie, address, pace="fast", hands=HANDS)
                people.append(Person(lambda: [front], code, cookie, think=HUMAN_THINK if human else THINK,
                                     page_like=True).start())
            t0 = time.monotonic()
            stop = threading.Event()
            faults: list[tuple[float, str, float]] = []
            plan = sorted([(k * KILL_EVERY, "kill") for k in range(1, int(SECONDS // KILL_EVERY) + 1)
                           if k * KILL_EVERY < SECONDS]
                          + [(SECONDS * 0.4 + 1, "redis"), (SECONDS * 0.7 + 1, "pg")])
            for at, what in plan:
                stop.wait(max(0.0, t0 + at - time.monotonic()))  # the scenario's clock, not a wait for a state
                began = time.monotonic() - t0
                if what == "kill":
                    node = rng.choice(dep.nodes)
                    node.kill()
                    node.start()
                    logs.follow(node)
                elif what == "redis":
                    rs.stop()
                    rs.start()
                else:
                    pg.open.clear()
                    stop.wait(PG_BLOCK)  # the block's length
                    pg.open.set()
                faults.append((began, what, time.monotonic() - t0 - began))  # (from when, what, how long)
            t_fault = time.monotonic()
            # every table moves on after the last fault (or its match is over); the full
            # version: every match finishes
            at_fault = {p.code: p.seen for p in people}
            for p in people:
                try:
                    poll(lambda p=p: p.over or p.failures or (p.seen is not None and p.seen != at_fault[p.code]),
                         BOUND, f"table {p.code} to move on after the last fault")
                except AssertionError as exc:  # what the person and the nodes saw, read now
                    raise AssertionError(f"{exc}: {_state(p, dep)}; faults {faults}; the nodes' log lines "
                                         f"of the room: {logs.about(p.code)[-30:]}") from None
            if FULL:
                for p in people:
                    poll(lambda p=p: p.over or p.failures, 600, f"table {p.code}'s match to finish")
            t_end = time.monotonic()
            for p in people:
                p.stop()
            report = _report(people, t0, t_end)
            report["faults"] = [(round(t, 1), w, round(d, 1)) for t, w, d in faults]
            report["after_last_fault_s"] = round(t_end - t_fault, 1)
            print(f"\nchaos: {TABLES} bot tables + {PERSONS} humans, {SECONDS:.0f} s, kill every {KILL_EVERY:.0f} s:",
                  report)
            assert [f for p in people for f in p.failures] == []
            store = dep.cluster.store
            lost = {p.code: p.lost(store) for p in people}
            assert {c: v for c, v in lost.items() if v} == {}
            for p in people:
                code, text = _verify(dep, p.code, key, tmp_path)
                assert code == 0, text[:500]
            tracebacks = logs.tracebacks()
            assert not tracebacks, "\n\n".join(tracebacks)
    finally:
        for p in people:
            p.stopping.set()
        pg.close()
