"""Run the game centre on uvicorn (``caishen serve``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import redis as redis_sync
from sqlalchemy import inspect

from caishen.server.app import create_app
from caishen.server.db import database_url, make_engine, schema_behind, sqlite_path
from caishen.server.hygiene import ServeOptions
from caishen.server.logs import setup as setup_logs
from caishen.server.nodes import REDIS_ENV
from caishen.server.store import Store
from caishen.server.tables import Tables
from caishen.server.workers import DrainingServer, listen, prepare, supervise, uvicorn_config

REDIS_START_SECONDS = 5.0  # a node's Redis must answer within this at start-up


def check(db: str | None) -> int:
    """``caishen serve --check``: replay every unfinished match of the database (nothing is
    written but the damaged marks), print each damaged room with its reason; 1 if any."""
    url = database_url(db)
    where = url.split("@")[-1]
    path = sqlite_path(url)
    if path is not None and not Path(path).is_file():  # a mistyped path: no database made, no all-clear
        raise ValueError(f"no database at {path}: --check reads an existing centre's database")
    try:
        engine = make_engine(url)
        if not inspect(engine).has_table("rooms"):
            engine.dispose()
            raise ValueError("no game centre's tables in it (--check makes none)")
        # an upgrade is a write the operator did not ask for, and one an older caishen
        # cannot read back (docs/server.md, "Backups, restores and upgrades")
        if (behind := schema_behind(engine)) is not None:
            engine.dispose()
            raise ValueError(f"its schema is at migration {behind[0]}, this caishen's is {behind[1]}: --check "
                             "upgrades nothing (back an older one up, then start the centre to upgrade it)")
    except Exception as exc:  # noqa: BLE001 - one line, exit 2
        raise ValueError(f"cannot check the database {where}: {str(exc).splitlines()[0]}") from None
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


# A typo's --workers 100000 forked processes until the machine stood still (an operator's
# review, 2026-12-06); beyond one a core the workers only share the cores.
WORKERS_PER_CORE = 4


def serve(host: str, port: int, db: str | None, workers: int = 1, options: ServeOptions | None = None,
          redis: str | None = None) -> int:
    """``redis`` (else ``$CAISHEN_REDIS``): a Redis URL, which makes this process a game-centre
    node (:mod:`caishen.server.nodes`) on a database that several nodes share."""
    setup_logs()
    url = database_url(db)
    redis = redis or os.environ.get(REDIS_ENV) or None
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}")
    most = WORKERS_PER_CORE * (os.cpu_count() or 1)
    if workers > most:
        raise ValueError(f"--workers {workers} is more than {WORKERS_PER_CORE} a core ({most} on this machine): "
                         "each worker is a process running its tables on one core")
    if workers > 1 and not redis:
        raise ValueError(f"--workers {workers} runs {workers} nodes, which share the tables through Redis: "
                         f"give --redis URL (or ${REDIS_ENV}), or run one process")
    if redis and not redis.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"--redis wants a redis://, rediss:// or unix:// URL, not {redis.split('@')[-1]}")
    if workers > 1 and sys.platform == "win32":
        raise ValueError("--workers shares a listening socket between processes: one process on Windows")
    if redis:
        reach_redis(redis)
    try:
        app = create_app(url, options=options, redis=redis) if workers == 1 else None
        if app is not None:
            app.state.store.probe()  # a file that cannot be written (read-only) stops here
        if workers > 1:
            prepare(url)
    except Exception as exc:  # noqa: BLE001 - a bad URL or unreachable database: one line, exit 2
        raise ValueError(f"cannot open the database {url.split('@')[-1]}: {str(exc).splitlines()[0]}") from None
    where = f"database: {url.split('@')[-1]}" + (f", {workers} nodes" if workers > 1 else ", node" if redis else "") + (
        f" on Redis {redis.split('@')[-1]}" if redis else "")
    if app is None:
        assert redis is not None
        print(f"caishen game centre on http://{host}:{port}/  ({where})", flush=True)
        return supervise(host, port, url, workers, redis, options)
    sock = listen(host, port)  # a port in use, a bad address: one line, exit 2, before the banner
    print(f"caishen game centre on http://{host}:{port}/  ({where})", flush=True)
    DrainingServer(uvicorn_config(app, host, port, options), app.state.drain).run(sockets=[sock])
    return 0


def reach_redis(url: str) -> None:
    """Raise (one line) unless the Redis at ``url`` answers within ``REDIS_START_SECONDS``: a
    node on a mistyped URL started, said it was ready, and could play no table."""
    client = redis_sync.Redis.from_url(url, socket_connect_timeout=REDIS_START_SECONDS,
                                       socket_timeout=REDIS_START_SECONDS)
    try:
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure: one line, exit 2
        raise ValueError(f"cannot reach Redis at {url.split('@')[-1]}: {str(exc).splitlines()[0]}") from None
    finally:
        client.close()
