"""``caishen rules NAME``: every switch of a ruleset with its value and rule ID, and for a
Longgang ruleset the scoring items 计分项 and limit hands 腊子 with their rule ID and value."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from caishen.variants.longgang.rules import Ruleset, load_ruleset
from caishen.variants.longgang.scoring import SCORING_ITEMS, Limit


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="print every switch of a ruleset and its scoring items, with rule IDs")
    p.add_argument("ruleset", nargs="?", default="longgang", help="preset name or TOML file (default longgang)")
    p.add_argument("--json", action="store_true",
                   help='print {"switches": {switch: value}, "scoring_items": [...]} as JSON')
    p.set_defaults(func=run)


def scoring_rows(ruleset: Ruleset) -> list[dict[str, str]]:
    """The scoring items and then the limit hands of ``ruleset``, as ``caishen rules`` lists
    them: rule ID, Chinese and English names, unit (fu, tai, note, limit), value, and whose
    hand it counts in. Empty for a Gangci ruleset, which does not score by fu and tai."""
    if ruleset.gangci:
        return []
    rows = [
        {"key": e.key, "rule": e.rule, "chinese": e.chinese, "english": e.english, "unit": e.unit.value,
         "value": e.value_text(ruleset), "counts_for": e.who.value}
        for e in SCORING_ITEMS
    ]
    rows += [
        {"key": lim.value, "rule": lim.rule, "chinese": lim.chinese, "english": lim.english, "unit": "limit",
         "value": str(ruleset.max_total), "counts_for": "winner"}
        for lim in Limit
    ]
    return rows


def run(args: argparse.Namespace) -> int:
    ruleset = load_ruleset(args.ruleset)
    items = scoring_rows(ruleset)
    if args.json:
        print(json.dumps({"switches": {name: value for name, value, _, _ in ruleset.switches()},
                          "scoring_items": items}, ensure_ascii=False))
        return 0
    console = Console(width=160)
    table = Table(title=f"Ruleset {ruleset.name}")
    for column in ("switch", "value", "rule", "meaning"):
        table.add_column(column)
    for name, value, rule, doc in ruleset.switches():
        table.add_row(name, str(value), rule, doc)
    console.print(table)
    if items:
        scoring = Table(title=f"Scoring items of {ruleset.name}")
        for column in ("rule", "item", "unit", "value", "counts for"):
            scoring.add_column(column)
        for row in items:
            scoring.add_row(row["rule"], f"{row['chinese']} {row['english']}", row["unit"], row["value"],
                            row["counts_for"])
        console.print(scoring)
    return 0
