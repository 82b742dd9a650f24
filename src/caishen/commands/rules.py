"""``caishen rules NAME``: every switch of a ruleset with its value and rule ID."""

from __future__ import annotations

import argparse
import json

from caishen.variants.longgang.rules import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="print every switch of a ruleset with its default and rule ID")
    p.add_argument("ruleset", nargs="?", default="longgang", help="preset name or TOML file (default longgang)")
    p.add_argument("--json", action="store_true", help="print a JSON object of switch: value")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ruleset = load_ruleset(args.ruleset)
    if args.json:
        print(json.dumps({sw.name: (list(sw.value) if isinstance(sw.value, tuple) else sw.value) for sw in ruleset.switches()}, ensure_ascii=False))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Ruleset {ruleset.name}")
    table.add_column("switch")
    table.add_column("value")
    table.add_column("rule")
    table.add_column("meaning")
    for sw in ruleset.switches():
        table.add_row(sw.name, str(sw.value), sw.rule, sw.doc)
    Console(width=160).print(table)
    return 0
