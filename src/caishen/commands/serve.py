"""``caishen serve``: run the game centre (web lobby, tables, history) on uvicorn."""

from __future__ import annotations

import argparse
import importlib
import math
from collections.abc import Callable

# The rooms' expiry subtracts --unopened-hours from the time of day: a century is as good as
# never, and far more (or inf) overflowed the date in every sweep, which then failed (a
# traceback in the log every 30 s) and skipped the app's other sweeps (an operator's review).
UNOPENED_HOURS_MAX = 876_000.0


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
    p.add_argument("--port", type=_number(int, 1, 65535, "a port from 1 to 65535"), default=8000, help="port (default 8000)")
    p.add_argument("--db", default=None, help="SQLAlchemy database URL, or an SQLite file's path (default: SQLite file, see above)")
    p.add_argument("--redis", default=None, metavar="URL",
                   help="make this process a game-centre node: tables are leased through this Redis "
                        "(redis://host:6379/0; default $CAISHEN_REDIS), on a database several nodes share "
                        "(docs/server.md, \"Nodes\")")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="N game-centre nodes on this machine sharing the port, each running its share of the "
                        "tables; needs --redis (default 1; docs/server.md, \"Several processes\")")
    g = p.add_argument_group("connections and memory (docs/server.md, \"Faults\")")
    g.add_argument("--header-timeout", type=_number(float, 0, None, "over 0 seconds"), default=10.0, metavar="S",
                   help="seconds a connection has to send a request's headers (default 10)")
    g.add_argument("--keep-alive", type=_number(int, 0, None, "whole seconds, 0 or more"), default=5, metavar="S",
                   help="whole seconds an idle connection is kept between requests (default 5)")
    g.add_argument("--max-connections", type=_number(int, 16, None, "at least 16 connections"), default=1000, metavar="N",
                   help="open connections per process; beyond, the oldest idle ones are closed and new "
                        "requests answered 503 (at least 16; default 1000, fewer if the open-files limit is lower)")
    g.add_argument("--evict-after", type=_number(float, 0, None, "over 0 seconds"), default=180.0, metavar="S",
                   help="seconds an unfinished table nobody is connected to stays in memory (default 180; "
                        "a finished one leaves as soon as nobody is connected)")
    g.add_argument("--unopened-hours", type=_number(float, 0, UNOPENED_HOURS_MAX, "over 0 hours, at most 876000 (100 years)"),
                   default=24.0, metavar="H",
                   help="hours after which a room whose table nobody opened expires (default 24; at most 876000)")
    g.add_argument("--bot-cache-share", type=_share, default=0.1, metavar="F",
                   help="share (over 0, at most 1) of their limits that the caches the bots fill may hold: "
                        "1 spends some 80 MB more at its peak for about a tenth less CPU per move at 100 "
                        "busy tables (default 0.1; docs/server.md, \"Memory\")")
    p.add_argument(
        "--players", default=None, metavar="LEVELS",
        help="extra bot levels for the rooms: level=module:Class or caishen.players entry-point names, "
             "comma-separated (default: $CAISHEN_PLAYERS)",
    )
    p.add_argument("--check", action="store_true",
                   help="replay every unfinished match, list the damaged rooms (stored moves that do not "
                        "replay) and exit: 0 if there are none, 1 if there are (docs/server.md, \"Faults\")")
    p.set_defaults(func=run)


def _number(kind: type[float] | type[int], low: float, high: float | None, what: str) -> Callable[[str], float]:
    """An argparse type: a finite number of ``kind`` from ``low`` (over it when ``what`` says
    "over") to ``high``; else one line naming the range."""
    def parse(text: str) -> float:
        value: float | None
        try:
            value = kind(text)
        except ValueError:
            value = None
        strict = what.startswith("over")
        if value is None or not math.isfinite(value) or (value <= low if strict else value < low) or (
                high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{what}, not {text!r}")
        return value
    return parse


def _share(text: str) -> float:
    try:
        share = float(text)
    except ValueError:
        share = -1.0
    if not 0.0 < share <= 1.0:
        raise argparse.ArgumentTypeError(f"a share is a number over 0 and at most 1, not {text!r}")
    return share


def run(args: argparse.Namespace) -> int:
    import os

    if args.players is not None:
        # The table processes of --workers inherit the environment: one setting for all of them.
        os.environ["CAISHEN_PLAYERS"] = args.players
    from caishen.server.core import operator_levels

    operator_levels()  # a bad level stops the server here, in one line
    # The web stack (FastAPI, uvicorn, SQLAlchemy: half a second) loads only for this command,
    # not for every `caishen` command the CLI parser registers.
    server = importlib.import_module("caishen.server.main")
    if args.check:
        checked: int = server.check(args.db)
        return checked
    hygiene = importlib.import_module("caishen.server.hygiene")
    options = hygiene.ServeOptions(header_timeout=args.header_timeout, keep_alive=args.keep_alive,
                                   max_connections=args.max_connections, evict_after=args.evict_after,
                                   unopened_hours=args.unopened_hours, bot_cache_share=args.bot_cache_share)
    code: int = server.serve(args.host, args.port, args.db, args.workers, options, args.redis)
    return code
