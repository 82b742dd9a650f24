"""Limits on what HTTP requests can make the centre do: per person and per address, for each
kind of write (room creation, joins and starts, names, verifying a record), and a cap on the
rooms one person has open. A request past a limit is answered ``429`` with ``Retry-After``
(the seconds until it would be allowed) and changes nothing. docs/server.md, "Faults".

The address is the peer's, or the first of ``X-Forwarded-For`` when the peer is a proxy
uvicorn trusts (``--forwarded-allow-ips``, loopback by default; docs/server.md's nginx example).

On one process the buckets are in its memory. Game-centre nodes (``caishen serve --redis``)
share them in Redis (:class:`SharedBuckets`): a person or an address has one budget on every
node, so spreading log-in attempts over the nodes gains nothing. Should Redis not answer, each
node falls back to its own buckets (a limit per node rather than none).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any, Final

from caishen.server import metrics
from caishen.server.conns import Bucket, Rate, now_seconds
from caishen.server.protocol import ApiError

BUCKETS_KEPT = 20_000  # past this many, the buckets that are full again are forgotten
SHARED_PREFIX: Final = "caishen:limit:"
REDIS_SECONDS: Final = 0.5  # one check may wait this long for Redis, else the node's own buckets

# Every bucket of one request checked and, only if all allow, taken, in one step on the Redis
# server's clock. A bucket is kept as its "theoretical arrival time" (GCRA, the token bucket's
# equivalent): the time at which it would be full again, plus one interval per request taken.
# KEYS: the buckets; ARGV: for each, its interval (1/rate, ms) and its burst. Returns the ms
# to wait (0: taken), and the index (1-based) of the bucket that refused.
_GCRA: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local news = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then tat = now end
  local new = tat + interval
  local over = new - now - burst * interval
  if over > 0 then return {math.ceil(over), i} end
  news[i] = new
end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, news[i], 'PX', math.ceil(news[i] - now) + 1000)
end
return {0, 0}
"""


class SharedBuckets:
    """The buckets of every node in one Redis (keys ``caishen:limit:KIND:WHO``, each expiring
    once it is full again): a synchronous client, as the routes that check are."""

    def __init__(self, url: str) -> None:
        import redis  # noqa: PLC0415 - only a node needs the client

        self.client: Any = redis.Redis.from_url(url, socket_timeout=REDIS_SECONDS,
                                                socket_connect_timeout=REDIS_SECONDS)
        self.script: Any = self.client.register_script(_GCRA)

    def take(self, buckets: list[tuple[str, Rate]]) -> float:
        """Take one request from every bucket, or none: 0, or the seconds to wait."""
        keys = [SHARED_PREFIX + key for key, _ in buckets]
        args: list[float] = []
        for _, rate in buckets:
            args += [1000.0 / rate.per_second, rate.burst]
        wait_ms, _ = self.script(keys=keys, args=args)
        return float(wait_ms) / 1000.0


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """For each kind of request, the rate of one person's and of one address's (an address
    may be a household or a school behind one router: more)."""

    rates: dict[str, tuple[Rate, Rate]] = field(default_factory=lambda: {
        "rooms": (Rate(0.2, 10.0), Rate(1.0, 60.0)),     # a room or a practice table
        "joins": (Rate(1.0, 20.0), Rate(5.0, 100.0)),    # take a seat, start now
        "names": (Rate(1.0, 10.0), Rate(1.0, 30.0)),     # a new person, a new name
        "verify": (Rate(1.0, 5.0), Rate(2.0, 20.0)),     # caishen verify on the server's CPU
        "sessions": (Rate(0.2, 5.0), Rate(1.0, 30.0)),   # log out everywhere, end a session
        # a log-in, or a password checked to change it or delete the account: per login name
        # (10, then one a minute) and per address (caishen.server.accounts)
        "logins": (Rate(1 / 60, 10.0), Rate(0.2, 20.0)),
        "accounts": (Rate(0.1, 3.0), Rate(0.2, 10.0)),   # claim an account (an argon2 hash each)
    })
    open_rooms: int = 20  # rooms a person owns that wait or play, created in the last day


def too_many(kind: str, wait: float) -> ApiError:
    """The refusal of a request past its limit: 429, ``too_many_requests``, ``Retry-After`` the
    seconds until a token is back (the pages say it in their language)."""
    seconds = max(1, math.ceil(wait))
    return ApiError(f"too many requests ({kind}): try again in {seconds} s", code="too_many_requests", status=429,
                    retry_after=seconds)


class Gate:
    """The token buckets of every (kind, person) and (kind, address) seen lately."""

    def __init__(self, limits: HttpLimits | None = None, shared: SharedBuckets | None = None) -> None:
        self.limits = limits or HttpLimits()
        self._buckets: dict[tuple[str, str], Bucket] = {}
        self.shared = shared  # the nodes' buckets in Redis (None: one process, its own)

    def check(self, kind: str, uid: str | None, address: str | None) -> None:
        """Take one request of ``kind`` from the person's and the address's budgets, or raise
        :func:`too_many` (nothing taken)."""
        person_rate, address_rate = self.limits.rates[kind]
        if self.shared is not None:
            buckets = ([(f"{kind}:u:{uid}", person_rate)] if uid else []) + (
                [(f"{kind}:a:{address}", address_rate)] if address else [])
            try:
                wait = self.shared.take(buckets) if buckets else 0.0
            except Exception as exc:  # noqa: BLE001 - Redis away: this node's own buckets, below
                logging.getLogger("caishen.server").warning("shared limits unavailable (%s): this node's own",
                                                            type(exc).__name__)
            else:
                if wait > 0:
                    metrics.rate_limited.labels(limit="http_shared").inc()
                    raise too_many(kind, wait)
                return
        t = now_seconds()
        wanted = [(b, who) for b, who in ((self._bucket(kind, "u:" + uid, person_rate, t) if uid else None, "user"),
                                          (self._bucket(kind, "a:" + address, address_rate, t) if address else None,
                                           "ip")) if b is not None]
        for b, who in wanted:
            wait = b.wait(t)
            if wait > 0:
                metrics.rate_limited.labels(limit=f"http_{who}").inc()
                raise too_many(kind, wait)
        for b, _ in wanted:
            b.take(t)

    def _bucket(self, kind: str, who: str, rate: Rate, t: float) -> Bucket:
        key = (kind, who)
        b = self._buckets.get(key)
        if b is None:
            if len(self._buckets) >= BUCKETS_KEPT:
                self._forget(t)
            b = self._buckets[key] = Bucket(rate, rate.burst, t)
        return b

    def sweep(self) -> None:
        """Forget the buckets that are full again (every sweep of the tables): a bucket is
        kept for each person and each address seen, and a new person and a new bucket for
        every visitor kept some 1 kB a visitor until BUCKETS_KEPT (issue 26: memory)."""
        self._forget(now_seconds())

    def _forget(self, t: float) -> None:
        """Drop the buckets that have filled up again (they would start full anyway)."""
        for key in [k for k, b in self._buckets.items() if b.wait(t) == 0 and
                    b.tokens + (t - b.last) * b.rate.per_second >= b.rate.burst]:
            del self._buckets[key]
