"""What uvicorn runs the game centre's connections with (``caishen serve``'s connection flags).

- :class:`ServeOptions`: the flags, with their defaults (docs/server.md, "Faults").
- :class:`GuardedHttpProtocol`: uvicorn's HTTP protocol (httptools) with two guards uvicorn
  lacks. A connection must send a whole request's headers within ``header_timeout`` seconds
  of opening (or of its last answer): a connection that sends nothing, or one byte at a
  time, is closed. And when more than ``max_connections`` are open, the oldest of those that
  are waiting for a request (no headers yet, or idle between requests) are closed to make
  room, so half-open connections cannot use up the process's file handles; past that uvicorn
  answers 503 (its ``limit_concurrency``).
- :class:`TableSocketProtocol`: uvicorn's WebSocket protocol, which also leaves in the
  connection's scope a way to drop the connection outright (``caishen.abort``): the table
  closes a reader that fell behind with a closing handshake, and a peer that reads nothing
  would otherwise keep its socket open for ever.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import time
from dataclasses import asdict, dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from caishen.server.conns import ABORT_KEY

# file handles kept for the database, logs and the like beside the connections (uvicorn's 503
# comes at the cap plus caishen.server.workers.CAP_SLACK)
FILES_KEPT = 100
OPTIONS_ENV = "CAISHEN_SERVE"  # how the supervisor hands the options to its worker processes


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """``caishen serve``'s options beyond host, port, database and workers."""

    header_timeout: float = 10.0    # seconds to send a request's headers
    keep_alive: int = 5             # seconds an idle connection is kept between requests
    max_connections: int = 1000     # open connections per process (fewer if the file limit is lower)
    evict_after: float = 180.0      # seconds an unfinished table nobody is connected to stays in memory
    unopened_hours: float = 24.0    # hours after which a room nobody opened expires
    bot_cache_share: float = 0.1    # of the limits of every cache the bots fill (docs/server.md, "Measured load")

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls) -> ServeOptions:
        text = os.environ.get(OPTIONS_ENV)
        return cls(**json.loads(text)) if text else cls()

    def connection_cap(self) -> int:
        """``max_connections``, within the process's file limit (raised to its hard limit
        first: the usual soft limit is 1,024)."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            want = self.max_connections + FILES_KEPT
            target = want if hard == resource.RLIM_INFINITY else min(hard, max(soft, want))
            if target > soft:
                try:
                    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                    soft = target
                except (ValueError, OSError):
                    pass
        return max(16, min(self.max_connections, soft - FILES_KEPT))


class GuardedHttpProtocol(HttpToolsProtocol):
    """See the module's doc. The options come from ``config.caishen`` (:func:`guard`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        options: ServeOptions = getattr(self.config, "caishen", None) or ServeOptions()
        self._header_timeout = options.header_timeout
        self._cap: int = getattr(self.config, "caishen_cap", options.max_connections)
        waiting = getattr(self.server_state, "caishen_waiting", None)
        if waiting is None:
            waiting = {}
            self.server_state.caishen_waiting = waiting  # type: ignore[attr-defined]
        # connections waiting for a request's headers, oldest first
        self._waiting: dict[GuardedHttpProtocol, float] = waiting
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_headers()
        over = len(self.connections) - self._cap
        for old in list(self._waiting)[:max(0, over)]:
            if old is not self:
                old._drop()

    def on_headers_complete(self) -> None:
        self._got_headers()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._got_headers()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self._waiting.pop(self, None)
        self._waiting[self] = time.monotonic()
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(self._header_timeout, self._drop)

    def _got_headers(self) -> None:
        self._waiting.pop(self, None)
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _drop(self) -> None:
        """Close a connection that sent no request in time, or that makes room for a new one."""
        self._got_headers()
        if not self.transport.is_closing():
            self.transport.close()


class TableSocketProtocol(WebSocketsSansIOProtocol):
    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if isinstance(scope, dict):
            scope[ABORT_KEY] = self.transport.abort
