"""A deployment of the game centre from local processes (issue 28; docs/server.md,
"Deployment"): HAProxy, from the same configuration as ``deploy/haproxy.cfg`` (rendered with
loopback ports by ``benchmarks/balancer.py``), in front of N ``caishen serve --redis`` nodes
(:class:`helpers_server.ServerProcess`) on one fresh PostgreSQL schema and the Redis at
127.0.0.1. :func:`balanced_nodes` is the context manager; :func:`services_or_skip` skips a test
when haproxy, PostgreSQL or Redis is missing.

(A sibling, ``helpers_nodes.py``, starts N nodes without a balancer; this file starts its own
nodes so that it stands alone. They can share :func:`start_nodes` once both exist.)"""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import pytest

from helpers_server import PG_BASE, ROOT, ServerProcess, database

REDIS_URL = os.environ.get("CAISHEN_TEST_REDIS", "redis://127.0.0.1:6379/0")
LEASE_PREFIX = "caishen:lease:"  # caishen.server.nodes.KEY_PREFIX


def _load_balancer() -> ModuleType:
    """``benchmarks/balancer.py`` (not a package: loaded by its path)."""
    spec = importlib.util.spec_from_file_location("caishen_bench_balancer", ROOT / "benchmarks" / "balancer.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


balancer = _load_balancer()


def _reachable(url: str, default_port: int) -> bool:
    parts = urlsplit(url.replace("postgresql+psycopg://", "postgresql://"))
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=3):
            return True
    except OSError:
        return False


def services_or_skip() -> None:
    """Skip the calling test unless haproxy, the redis client, PostgreSQL and Redis are there."""
    if balancer.HAPROXY is None:
        pytest.skip("haproxy is not installed")
    pytest.importorskip("redis")
    if not _reachable(PG_BASE, 5432):
        pytest.skip("no PostgreSQL reachable (CAISHEN_TEST_PG)")
    if not _reachable(REDIS_URL, 6379):
        pytest.skip("no Redis reachable (CAISHEN_TEST_REDIS)")


@dataclass
class BalancedNodes:
    """What :func:`balanced_nodes` started: the nodes, the balancer in front, the database URL."""

    nodes: list[ServerProcess]
    balancer: object  # benchmarks/balancer.py's Balancer
    db: str

    @property
    def base(self) -> str:
        """The balancer's URL (``http://127.0.0.1:PORT``)."""
        return str(self.balancer.base)  # type: ignore[attr-defined]

    def ws(self, code: str, node: ServerProcess | None = None) -> str:
        """Table ``code``'s WebSocket URL through the balancer, or straight to ``node``."""
        base = self.base if node is None else node.base
        return base.replace("http://", "ws://") + f"/ws/{code}"

    def owner(self, code: str) -> ServerProcess | None:
        """The node that holds room ``code``'s lease now (its token names its process id)."""
        import redis  # noqa: PLC0415 - skipped without it

        r = redis.Redis.from_url(REDIS_URL)
        try:
            token = r.get(LEASE_PREFIX + code)
        finally:
            r.close()
        if token is None:
            return None
        pid = bytes(token).decode().split(":")[1]
        return next((n for n in self.nodes if n.proc is not None and str(n.proc.pid) == pid), None)


def start_nodes(db: str, n: int, env: dict[str, str] | None = None) -> list[ServerProcess]:
    """``n`` nodes (``caishen serve --redis``) on ``db``, one after the other (the first makes
    the schema); the caller stops them."""
    nodes: list[ServerProcess] = []
    try:
        for _ in range(n):
            nodes.append(ServerProcess(db, args=("--redis", REDIS_URL), env=env).start())
    except BaseException:
        for s in nodes:
            s.stop()
        raise
    return nodes


@contextmanager
def balanced_nodes(tmp: Path, n: int = 3, env: dict[str, str] | None = None) -> Iterator[BalancedNodes]:
    """HAProxy (deploy/haproxy.cfg, rendered for loopback) in front of ``n`` nodes on a fresh
    PostgreSQL schema and the Redis at 127.0.0.1. On the way out every process is stopped, and
    a node whose standard error shows a traceback fails the test."""
    with database("postgresql", tmp) as db:
        nodes = start_nodes(db, n, env)
        front = None
        try:
            front = balancer.Balancer([s.port for s in nodes]).start()
            yield BalancedNodes(nodes, front, db)
        finally:
            if front is not None:
                front.stop()
            for s in nodes:
                s.stop()
        for s in nodes:
            assert s.proc is not None and s.proc.stderr is not None
            with suppress(ValueError):  # a killed node's pipe may be closed
                err = s.proc.stderr.read().decode(errors="replace")
                assert "Traceback" not in err, err
