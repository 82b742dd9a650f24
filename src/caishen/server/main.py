"""Run the game centre on uvicorn (``caishen serve``)."""

from __future__ import annotations

import sys

import uvicorn

from caishen.server.app import create_app
from caishen.server.db import default_url
from caishen.server.workers import prepare, supervise, uvicorn_config


def serve(host: str, port: int, db: str | None, workers: int = 1) -> int:
    url = db or default_url()
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}")
    if workers > 1 and sys.platform == "win32":
        raise ValueError("--workers needs Unix sockets: one process on Windows")
    try:
        app = create_app(url) if workers == 1 else None
        if workers > 1:
            prepare(url)
    except Exception as exc:  # noqa: BLE001 - a bad URL or unreachable database: one line, exit 2
        raise ValueError(f"cannot open the database {url.split('@')[-1]}: {str(exc).splitlines()[0]}") from None
    where = f"database: {url.split('@')[-1]}" + (f", {workers} worker processes" if workers > 1 else "")
    print(f"caishen game centre on http://{host}:{port}/  ({where})", flush=True)
    if app is None:
        return supervise(host, port, url, workers)
    uvicorn.Server(uvicorn_config(app, host, port)).run()
    return 0
