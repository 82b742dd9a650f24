"""``caishen analyze "<hand>" --wild KIND``: win, forms, waits, shanten and arrangements
of one hand (or, with ``-``, of one hand per stdin line as JSON lines)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from caishen.cli import CommandError
from caishen.hand import Hand
from caishen.notation import format_hand, format_meld, format_tiles, parse_hand, parse_tile
from caishen.shapes.analysis import Arrangement, Form, arrangements, is_win, shanten, waits
from caishen.tiles import SEAT_LETTERS, tile_name
from caishen.variants.longgang.rules import Ruleset, load_ruleset
from caishen.variants.longgang.wilds import wild_kinds


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "analyze",
        help="is a hand a win, its waits, shanten and every arrangement (wild-aware)",
        description="Analyse one hand: whether it wins and in which forms, its waits when one tile "
        "short, its shanten and every arrangement with what each wild stands for. "
        "Give '-' as the hand to read one hand per line from stdin (JSON lines out).",
    )
    p.add_argument("hand", help='hand notation, e.g. "123m456p11z f2 [777z]", or - for stdin')
    wild = p.add_mutually_exclusive_group()
    wild.add_argument("--wild", metavar="KIND", help="the wild kind 财神 (the indicator's kind), e.g. 5p")
    wild.add_argument(
        "--indicator", metavar="TILE", help="the turned-up indicator (a flower makes the other flowers wild, L5)"
    )
    p.add_argument("--seat", choices=list(SEAT_LETTERS), help="the player's seat: its own flower is wild (L7)")
    p.add_argument("--ruleset", default="longgang", help="preset name or TOML file (default longgang)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _wilds(args: argparse.Namespace, ruleset: Ruleset) -> frozenset[int]:
    seat = SEAT_LETTERS.index(args.seat) if args.seat else None
    if args.wild:
        k = parse_tile(args.wild, ruleset)
        base = wild_kinds(None, seat, ruleset)
        return base | {k}
    indicator = parse_tile(args.indicator, ruleset) if args.indicator else None
    return wild_kinds(indicator, seat, ruleset)


def _arrangement_json(a: Arrangement) -> dict[str, Any]:
    return {
        "form": a.form.value,
        "groups": [
            {
                "kind": g.kind.name.lower(),
                "tiles": format_tiles(g.tiles),
                "wilds": [[tile_name(w), tile_name(s)] for w, s in g.wilds],
                "meld": format_meld(g.meld) if g.meld is not None else None,
            }
            for g in a.groups
        ],
    }


def analyse(hand: Hand, ruleset: Ruleset, wilds: frozenset[int]) -> dict[str, Any]:
    """The JSON object of ``caishen analyze --json`` for one hand."""
    flowers_wild = sum(1 for f in hand.flowers if f in wilds)
    size = hand.size + flowers_wild
    full = ruleset.hand_size + 1
    if size not in (full - 1, full):
        raise CommandError(
            f"hand has {size} tiles (melds count 3, wild flowers 1); "
            f"a {ruleset.name} hand has {full - 1} (waiting) or {full} (complete)"
        )
    win = is_win(hand, ruleset, wilds)
    arr = arrangements(hand, ruleset, wilds) if win else ()
    w = waits(hand, ruleset, wilds) if size == full - 1 else ()
    return {
        "win": win,
        "waits": [tile_name(k) for k in w],
        "shanten": shanten(hand, ruleset, wilds),
        "arrangements": [_arrangement_json(a) for a in arr],
    }


def run(args: argparse.Namespace) -> int:
    ruleset = load_ruleset(args.ruleset)
    wilds = _wilds(args, ruleset)
    if args.hand == "-":
        for n, line in enumerate(sys.stdin, 1):
            text = line.strip()
            if not text:
                continue
            try:
                out = analyse(parse_hand(text, ruleset), ruleset, wilds)
            except (ValueError, CommandError) as exc:
                sys.stdout.flush()
                raise CommandError(f"line {n}: {exc}") from None
            print(json.dumps(out, ensure_ascii=False))
        return 0
    hand = parse_hand(args.hand, ruleset)
    result = analyse(hand, ruleset, wilds)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    _print_rich(hand, ruleset, wilds, result)
    return 0


def _print_rich(hand: Hand, ruleset: Ruleset, wilds: frozenset[int], result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    arr = result["arrangements"]
    forms = sorted({a["form"] for a in arr}, key=[f.value for f in Form].index)
    console.print(f"hand     {format_hand(hand)}   ({format_hand(hand, 'unicode')})")
    console.print(f"ruleset  {ruleset.name}; wilds: {format_tiles(sorted(wilds)) or 'none'}")
    console.print(f"win      {'yes (' + ', '.join(forms) + ')' if result['win'] else 'no'}")
    if not result["win"]:
        console.print(f"waits    {' '.join(result['waits']) or 'none'}")
    console.print(f"shanten  {result['shanten']}")
    if not arr:
        return
    table = Table(title=f"{len(arr)} arrangement(s)")
    table.add_column("#", justify="right")
    table.add_column("form")
    table.add_column("groups")
    table.add_column("wilds stand for")
    for i, a in enumerate(arr, 1):
        groups = " ".join(g["meld"] or format_tiles([*_kinds(g["tiles"])]) for g in a["groups"])
        stands = ", ".join(f"{w}→{s}" for g in a["groups"] for w, s in g["wilds"])
        table.add_row(str(i), a["form"], groups or "(three wilds)", stands)
    console.print(table)


def _kinds(text: str) -> list[int]:
    from caishen.notation import parse_tiles

    return list(parse_tiles(text, None))
