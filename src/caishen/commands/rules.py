"""``caishen rules NAME``: every switch of a ruleset with its value and rule ID, and for a
Longgang ruleset the scoring items 计分项 and limit hands 腊子 with their rule ID and value."""

from __future__ import annotations

import argparse
import dataclasses
import json

from rich.console import Console
from rich.table import Table

from caishen import variants
from caishen.ruleset import Switch


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="print every switch of a ruleset and its scoring items, with rule IDs")
    p.add_argument("ruleset", nargs="?", default="longgang", help="preset name or TOML file (default longgang)")
    p.add_argument("--json", action="store_true",
                   help='print {"switches": {switch: {value, rule, doc, range|choices}}, "scoring_items": [...]} as JSON')
    p.set_defaults(func=run)


def _switch_json(sw: Switch) -> dict[str, object]:
    """A switch for ``--json``: its value, rule, meaning and valid range or choices."""
    value = list(sw.value) if isinstance(sw.value, tuple) else sw.value
    out: dict[str, object] = {"value": value, "rule": sw.rule, "doc": sw.doc}
    if sw.bounds is not None:
        out["range"] = list(sw.bounds)
    if sw.choices is not None:
        out["choices"] = list(sw.choices)
    return out


def run(args: argparse.Namespace) -> int:
    ruleset = variants.load_rules(args.ruleset)
    items = [dataclasses.asdict(i) for i in variants.variant_of(ruleset).rule_items(ruleset)]
    if args.json:
        print(json.dumps({"switches": {sw.name: _switch_json(sw) for sw in ruleset.switches()},
                          "scoring_items": items}, ensure_ascii=False))
        return 0
    console = Console(width=160)
    table = Table(title=f"Ruleset {ruleset.name}")
    for column in ("switch", "value", "valid", "rule", "meaning"):
        table.add_column(column)
    for sw in ruleset.switches():
        table.add_row(sw.name, str(sw.value), sw.allowed, sw.rule, sw.doc)
    console.print(table)
    if items:
        scoring = Table(title=f"Scoring items of {ruleset.name}")
        for column in ("rule", "item", "unit", "value", "applies to"):
            scoring.add_column(column)
        for row in items:
            scoring.add_row(row["rule"], f"{row['chinese']} {row['english']}", row["unit"], row["value"],
                            row["applies_to"])
        console.print(scoring)
    return 0
