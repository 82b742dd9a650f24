"""``caishen selfplay``: a seeded match of random legal players, written as a record."""

from __future__ import annotations

import argparse

from caishen import fair
from caishen.cli import CommandError
from caishen.table.match import selfplay
from caishen.table.record import save
from caishen.tiles import SEAT_LETTERS
from caishen.variants.longgang.rules import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "selfplay",
        help="play a match with random legal players and write its record (docs/records.md)",
    )
    p.add_argument("--hands", type=int, default=None, help="hands in the match (default: the ruleset's hands_per_match)")
    p.add_argument("--seed", default=None, help="match seed S: every hand's seed is derived from it; default: fresh secret seeds")
    p.add_argument("--players", type=int, default=4, choices=(4, 5, 6), help="players rotating through the four seats (L2)")
    p.add_argument("--ruleset", default="longgang", help="preset name or TOML file (default longgang)")
    p.add_argument("--record", metavar="FILE", default=None, help="write the match record (JSON) to FILE")
    p.add_argument("--indent", type=int, default=None, help="indent the JSON record")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ruleset = load_ruleset(args.ruleset)
    if args.hands is not None and args.hands < 1:
        raise CommandError(f"--hands must be at least 1, not {args.hands}")
    seed = None if args.seed is None else fair.seed_from_text(args.seed)
    record = selfplay(ruleset, seed, args.players, args.hands)
    if args.record:
        save(record, args.record, args.indent)
    if args.quiet:
        return 0
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    title = f"selfplay: {len(record.hands)} hands, {ruleset.name}" + (f", seed {args.seed!r}" if args.seed else "")
    table = Table(title=escape(title))
    table.add_column("hand", justify="right")
    table.add_column("commitment")
    table.add_column("E S W N")
    table.add_column("result")
    table.add_column("chips E S W N")
    for h in record.hands:
        res = h.result
        if res["winner"] is None:
            what = "draw 流局"
        else:
            sc = res["score"]["winner"]
            limit = f" limit {sc['limit']}" if sc["limit"] else ""
            what = f"{SEAT_LETTERS[res['winner']]} {res['how']} {res['tile'] or ''} total {sc['total']}{limit}"
        table.add_row(
            str(h.index), h.commitment[:16] + "…", " ".join(str(p) for p in h.seats), what,
            " ".join(f"{c:+d}" for c in res["chips"]),
        )
    console = Console(width=140)
    console.print(table)
    r = record.result
    console.print(escape(
        f"chips per player: {r['chips']}  fees {r['fees']}  ended by {r['ended_by']}"
        + (f"  broke: {r['broke']}" if r["broke"] else "")
    ))
    if args.record:
        console.print(f"record written to {escape(args.record)}", highlight=False)
    return 0
