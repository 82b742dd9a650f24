"""``caishen stats --tiles 13|16``: exact single-suit statistics (清一色), as the tables at
the end of the main rule source."""

from __future__ import annotations

import argparse
import json

from caishen.shapes.stats import every_tile_wins_with_kongs, single_suit_stats


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "stats",
        help="count every single-suit hand of 13 or 16 tiles: waits, forms, every-tile-wins hands",
    )
    p.add_argument("--tiles", type=int, choices=(13, 16), default=13, help="hand size (default 13)")
    p.add_argument("--json", action="store_true", help="print one JSON object of exact counts")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = single_suit_stats(args.tiles)
    if args.json:
        print(json.dumps(data))
        return 0
    from rich.console import Console
    from rich.table import Table

    n = data["tiles"]
    pairs = "seven pairs" if n == 13 else "八对半 (7 pairs + 1 triplet)"
    console = Console(width=140)
    t = Table(title=f"Every hand of {n} tiles of one suit ({data['hands']:,} hands)")
    t.add_column("waits", justify="right")
    t.add_column("tenpai, either form", justify="right")
    t.add_column("tenpai, standard form", justify="right")
    for k in range(1, 10):
        t.add_row(str(k), f"{data['tenpai_by_wait_count'][str(k)]:,}", f"{data['standard_tenpai_by_wait_count'][str(k)]:,}")
    t.add_row("total", f"{data['tenpai']:,}", f"{data['standard_tenpai']:,}", style="bold")
    console.print(t)
    s = Table(title="Forms", show_header=False)
    s.add_row("not tenpai", f"{data['not_tenpai']:,}")
    s.add_row(f"tenpai on {pairs}", f"{data['pairs_form_tenpai']:,}")
    s.add_row(f"winning {n + 1}-tile hands, either form", f"{data['winning_hands']:,}")
    s.add_row(f"winning {n + 1}-tile hands, standard", f"{data['standard_winning_hands']:,}")
    s.add_row(f"winning {n + 1}-tile hands, {pairs}", f"{data['pairs_form_winning_hands']:,}")
    console.print(s)
    e = Table(title="Every tile wins 张张可胡 (waits on every value held fewer than 4 times)")
    e.add_column("kongs", justify="right")
    e.add_column("waits", justify="right")
    e.add_column("hands", justify="right")
    e.add_column("hands")
    by_waits: dict[int, list[str]] = {}
    for h in data["every_tile_wins"]:
        held = {c: h.count(c) for c in "123456789"}
        by_waits.setdefault(sum(1 for v in held.values() if v < 4), []).append(h)
    for k in sorted(by_waits):
        e.add_row("0", str(k), str(len(by_waits[k])), " ".join(by_waits[k]))
    for kongs in (1, 2):
        for k, hands in sorted(every_tile_wins_with_kongs(n, kongs).items()):
            e.add_row(str(kongs), str(k), str(len(hands)), " ".join(hands))
    console.print(e)
    return 0
