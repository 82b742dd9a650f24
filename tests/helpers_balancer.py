"""A deployment of the game centre from local processes (issue 28; docs/server.md,
"Deployment"): HAProxy, from the same configuration as ``deploy/haproxy.cfg`` (rendered with
loopback ports by ``benchmarks/balancer.py``), in front of the nodes of
:func:`helpers_nodes.cluster` (N ``caishen serve --redis`` on one fresh PostgreSQL schema).
:func:`balanced_nodes` is the context manager; :func:`services_or_skip` skips a test when
haproxy, PostgreSQL or Redis is missing. The nodes, the service checks and the polling live in
``helpers_nodes.py``; this file adds only the balancer."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from helpers_nodes import KEY_PREFIX, REDIS_URL, Cluster, cluster, require_services
from helpers_server import ROOT, ServerProcess

LEASE_PREFIX = KEY_PREFIX  # caishen.server.nodes.KEY_PREFIX


def _load_balancer() -> ModuleType:
    """``benchmarks/balancer.py`` (not a package: loaded by its path)."""
    spec = importlib.util.spec_from_file_location("caishen_bench_balancer", ROOT / "benchmarks" / "balancer.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


balancer = _load_balancer()


def services_or_skip() -> None:
    """Skip the calling test unless haproxy, the redis client, PostgreSQL and Redis are there."""
    if balancer.HAPROXY is None:
        pytest.skip("haproxy is not installed")
    require_services()


@dataclass
class BalancedNodes:
    """What :func:`balanced_nodes` started: the cluster, the balancer in front."""

    cluster: Cluster
    balancer: object  # benchmarks/balancer.py's Balancer

    @property
    def nodes(self) -> list[ServerProcess]:
        return self.cluster.nodes

    @property
    def db(self) -> str:
        return self.cluster.db

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
        return self.cluster.holder(code)


@contextmanager
def balanced_nodes(tmp: Path, n: int = 3, env: dict[str, str] | None = None,
                   redis_url: str = REDIS_URL, **more: object) -> Iterator[BalancedNodes]:
    """HAProxy (deploy/haproxy.cfg, rendered for loopback) in front of ``n`` nodes of
    :func:`helpers_nodes.cluster` (``more``: its other arguments). On the way out every
    process is stopped, and a node whose standard error shows a traceback fails the test."""
    with cluster(tmp, n, env, redis_url, **more) as c:  # type: ignore[arg-type]
        front = balancer.Balancer([s.port for s in c.nodes]).start()
        try:
            yield BalancedNodes(c, front)
        finally:
            front.stop()
