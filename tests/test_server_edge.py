"""The owner's side of the relay between nodes (caishen.server.nodes.edge.Owner) when Redis
fails just as a table comes or goes (issue 28; the chaos test found it): a subscription that
fails is made again, and one that could not be ended is ended, by the owner's sweep. Without
the first, every page relayed to a table taken over while Redis restarted was refused (1013)
for as long as the table ran there.

Against the shared Redis (skipped without it); marked ``redis``."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import pytest

from helpers_nodes import REDIS_URL, require_services

pytestmark = [pytest.mark.redis]

BOUND = 30.0  # seconds: a wait for the sweep (every 0.05 s here) on a busy machine


def _failing_once(real: Callable[..., Awaitable[Any]], exc: Exception) -> Callable[..., Awaitable[Any]]:
    """``real``, except that its first call raises ``exc`` (Redis restarting)."""
    calls = [0]

    async def call(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            raise exc
        return await real(*args, **kwargs)

    return call


async def _until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    deadline = asyncio.get_running_loop().time() + BOUND
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)  # polling for a state, not timing a behaviour


def test_a_subscription_that_failed_is_made_again_and_one_not_ended_is_ended_by_the_sweep() -> None:
    require_services()
    import redis  # noqa: PLC0415 - skipped above without it
    import redis.asyncio as aioredis  # noqa: PLC0415

    from caishen.server.nodes.edge import IN, Owner  # noqa: PLC0415 - the server only for this test

    async def main() -> None:
        r = aioredis.Redis.from_url(REDIS_URL)
        tables = SimpleNamespace(live={})  # the tables this node runs (no connection is opened here)
        owner = Owner(r, tables=tables, beat=0.05)  # type: ignore[arg-type]
        code = "edge" + secrets.token_hex(4)
        channel = IN.format(code)

        async def listeners() -> int:
            got = await r.pubsub_numsub(channel)
            return int(got[0][1])

        try:
            # the table comes here as Redis restarts: its subscription fails, the table runs on
            owner.pubsub.subscribe = _failing_once(owner.pubsub.subscribe, redis.ConnectionError("restarting"))
            tables.live[code] = object()
            with pytest.raises(redis.ConnectionError):
                await owner.listen(code)
            assert code in owner.wanted and await listeners() == 0
            # the sweep subscribes again: a relayed page's "open" reaches the owner
            await _until(lambda: _is(listeners(), 1), "the sweep to subscribe again")
            assert await r.publish(channel, '{"c": "x", "k": "beat"}') == 1

            # the table goes as Redis fails again: the unsubscribing fails, the sweep ends it
            owner.pubsub.unsubscribe = _failing_once(owner.pubsub.unsubscribe, redis.ConnectionError("restarting"))
            del tables.live[code]
            await owner.forget(code)
            assert code not in owner.wanted
            await _until(lambda: _is(listeners(), 0), "the sweep to end the subscription")

            # the table is taken again here while the forgetting of its earlier run is still on
            # its way (it comes after): the sweep subscribes to it all the same
            tables.live[code] = object()
            await owner.listen(code)
            await owner.forget(code)  # (late: the table runs here again)
            assert code not in owner.wanted
            await _until(lambda: _is(listeners(), 1), "the sweep to subscribe to the table running here")
        finally:
            await owner.stop()
            await r.aclose()

    asyncio.run(main())


async def _is(got: Awaitable[int], want: int) -> bool:
    return await got == want
