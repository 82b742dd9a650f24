"""Run the game centre on uvicorn (``caishen serve``)."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Awaitable, Callable

import uvicorn

from caishen.server.app import create_app
from caishen.server.db import default_url, make_engine, upgrade
from caishen.server.hygiene import ServeOptions
from caishen.server.logs import log
from caishen.server.logs import setup as setup_logs
from caishen.server.nodes import REDIS_ENV
from caishen.server.store import Store
from caishen.server.tables import Tables
from caishen.server.workers import prepare, supervise, uvicorn_config


def check(db: str | None) -> int:
    """``caishen serve --check``: replay every unfinished match of the database (nothing is
    written but the damaged marks), print each damaged room with its reason; 1 if any."""
    url = db or default_url()
    try:
        engine = make_engine(url)
        upgrade(engine)
    except Exception as exc:  # noqa: BLE001 - one line, exit 2
        raise ValueError(f"cannot open the database {url.split('@')[-1]}: {str(exc).splitlines()[0]}") from None
    store = Store(engine)
    try:
        damaged = Tables(store).check()
    finally:
        store.close()
        engine.dispose()
    for room in damaged:
        print(f"{room.code}\tdamaged\t{room.damage or ''}")
    print(f"{len(damaged)} damaged room{'s' if len(damaged) != 1 else ''}", flush=True)
    return 1 if damaged else 0


def serve(host: str, port: int, db: str | None, workers: int = 1, options: ServeOptions | None = None,
          redis: str | None = None) -> int:
    """``redis`` (else ``$CAISHEN_REDIS``): a Redis URL, which makes this process a game-centre
    node (:mod:`caishen.server.nodes`) on a database that several nodes share."""
    setup_logs()
    url = db or default_url()
    redis = redis or os.environ.get(REDIS_ENV) or None
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}")
    if redis and workers > 1:
        raise ValueError("--redis makes this process one node: run more nodes, not --workers")
    if redis and not redis.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"--redis wants a redis://, rediss:// or unix:// URL, not {redis.split('@')[-1]}")
    if workers > 1 and sys.platform == "win32":
        raise ValueError("--workers needs Unix sockets: one process on Windows")
    try:
        app = create_app(url, options=options, redis=redis) if workers == 1 else None
        if workers > 1:
            prepare(url)
    except Exception as exc:  # noqa: BLE001 - a bad URL or unreachable database: one line, exit 2
        raise ValueError(f"cannot open the database {url.split('@')[-1]}: {str(exc).splitlines()[0]}") from None
    where = f"database: {url.split('@')[-1]}" + (f", {workers} worker processes" if workers > 1 else "") + (
        f", node on Redis {redis.split('@')[-1]}" if redis else "")
    print(f"caishen game centre on http://{host}:{port}/  ({where})", flush=True)
    if app is None:
        return supervise(host, port, url, workers, options)
    DrainingServer(uvicorn_config(app, host, port, options), app.state.drain).run()
    return 0


class DrainingServer(uvicorn.Server):
    """uvicorn's server, which on SIGTERM (or SIGINT) first lets a node drain
    (:meth:`caishen.server.nodes.Node.drain`, bounded) and only then stops as uvicorn does:
    no more connections, the open ones closed with 1012, the app's lifespan ended. Without
    ``drain`` (one process) it is uvicorn's server."""

    def __init__(self, config: uvicorn.Config, drain: Callable[[], Awaitable[None]] | None) -> None:
        super().__init__(config)
        self.drain = drain

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.drain is not None and not self.force_exit:
            try:
                await self.drain()
            except Exception:  # noqa: BLE001 - a failed drain still stops the server
                log.exception("draining the node failed")
        await super().shutdown(sockets)
