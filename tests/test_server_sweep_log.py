"""A node's sweep for tables nobody runs (docs/server.md, "Nodes") during an outage of the
database or Redis: one line when sweeping starts to fail, one when it works again with how
many sweeps failed, not a line every few seconds (an operator's review)."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest

from caishen.server.logs import _FIELDS
from caishen.server.nodes.node import Node


def test_a_run_of_failed_sweeps_is_logged_once_and_its_end_once(caplog: pytest.LogCaptureFixture) -> None:
    node = Node.__new__(Node)  # only the sweeping loop is run: what it reads is set here
    node.leases = SimpleNamespace(times=SimpleNamespace(ttl=0.002))  # type: ignore[assignment]
    node.draining = False
    calls = 0

    async def sweep() -> int:
        nonlocal calls
        calls += 1
        if calls <= 4:
            raise ConnectionError("Redis is away")
        if calls == 6:
            node.draining = True  # the loop ends after this sweep
        return 0

    node.sweep = sweep  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="caishen"):
        asyncio.run(asyncio.wait_for(node.keep_sweeping(), 30))
    said = [getattr(r, _FIELDS, {}) for r in caplog.records]
    events = [(f.get("event"), f.get("failed_sweeps")) for f in said if str(f.get("event", "")).startswith("node_sweep")]
    assert calls == 6
    assert events == [("node_sweep_failed", None), ("node_sweep_recovered", 4)]
