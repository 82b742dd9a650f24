"""``caishen serve``: run the game centre (web lobby, tables, history) on uvicorn."""

from __future__ import annotations

import argparse
import importlib


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run the game centre: play in the browser with friends or bots",
        description=(
            "Serve the game centre on http://HOST:PORT. Storage: an SQLite file in the user's data "
            "directory ($XDG_DATA_HOME/caishen/caishen.sqlite3, or $CAISHEN_DB), or --db URL "
            "(e.g. postgresql+psycopg://user@host/db)."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", default=None, help="SQLAlchemy database URL (default: SQLite file, see above)")
    p.add_argument("--workers", type=int, default=1,
                   help="server processes sharing the port, each running its share of the tables (default 1)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # The web stack (FastAPI, uvicorn, SQLAlchemy: half a second) loads only for this command,
    # not for every `caishen` command the CLI parser registers.
    server = importlib.import_module("caishen.server.main")
    code: int = server.serve(args.host, args.port, args.db, args.workers)
    return code
