"""Run the game centre on uvicorn (``caishen serve``)."""

from __future__ import annotations

import uvicorn

from caishen.server.app import create_app
from caishen.server.db import default_url


def serve(host: str, port: int, db: str | None) -> int:
    url = db or default_url()
    try:
        app = create_app(url)
    except Exception as exc:  # noqa: BLE001 - a bad URL or unreachable database: one line, exit 2
        raise ValueError(f"cannot open the database {url.split('@')[-1]}: {str(exc).splitlines()[0]}") from None
    print(f"caishen game centre on http://{host}:{port}/  (database: {url.split('@')[-1]})", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=64 * 1024, ws_per_message_deflate=False)
    return 0
