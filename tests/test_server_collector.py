"""The server's collector policy (caishen.server.collector): survivors are frozen, and the
sweep collects the cycles among them; driven by a fake clock, no waiting."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from caishen.server import collector


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def run_ticks(ticks: list[float]) -> None:
    """Run keep_collecting for len(ticks) sleeps; the clock reads ticks[i] after sleep i."""
    now = [0.0]
    pending = list(ticks)

    async def sleep(_: float) -> None:
        if not pending:
            raise asyncio.CancelledError
        now[0] = pending.pop(0)

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await collector.keep_collecting(1.0, 600.0, clock=lambda: now[0], sleep=sleep)

    asyncio.run(main())


def test_survivors_are_frozen_and_a_frozen_cycle_waits_for_the_sweep() -> None:
    gc.collect()
    try:
        node = Node()
        ref = weakref.ref(node)
        run_ticks([1.0])  # a freeze, no sweep yet
        assert gc.get_freeze_count() > 0
        assert not any(o is node for o in gc.get_objects())  # frozen: out of the collector's sight
        del node
        gc.collect()
        assert ref() is not None  # a frozen cycle is not collected by an ordinary collection
        run_ticks([2.0, 601.0])  # one more freeze, then the sweep
        assert ref() is None
        assert gc.get_freeze_count() > 0  # what the sweep left is frozen again
    finally:
        collector.release()
    assert gc.get_freeze_count() == 0


def test_an_unfrozen_cycle_is_collected_as_usual() -> None:
    gc.collect()
    node = Node()
    ref = weakref.ref(node)
    del node
    gc.collect()
    assert ref() is None


def test_the_youngest_generation_is_collected_less_often_while_the_server_runs() -> None:
    before = gc.get_threshold()
    try:
        collector.settle()
        assert gc.get_threshold() == (collector.YOUNG_THRESHOLD, *before[1:])
        collector.settle()  # a sweep settles again: the thresholds put back are still CPython's
    finally:
        collector.release()
    assert gc.get_threshold() == before
