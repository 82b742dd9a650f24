"""``caishen analyze "<hand>" --wild KIND``: win, forms, waits, shanten and arrangements
of one hand (or, with ``-``, of one hand per stdin line as JSON lines)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Final

from caishen.cli import CommandError
from caishen.hand import Hand
from caishen.notation import format_hand, format_meld, format_tiles, parse_hand, parse_tile
from caishen.shapes.analysis import Arrangement, Form, arrangements, is_win, shanten, waits
from caishen.tiles import SEAT_LETTERS, tile_name, wind_of
from caishen.variants.longgang.rules import Ruleset, load_ruleset
from caishen.variants.longgang.wilds import wild_kinds

#: Every field ``--fields`` may name, in output order.
FIELDS: Final = ("win", "forms", "waits", "shanten", "arrangements")
#: Fields without ``--fields`` (the JSON keys before the option existed; the text view shows forms too).
DEFAULT_FIELDS: Final = ("win", "waits", "shanten", "arrangements")


def parse_fields(text: str) -> tuple[str, ...]:
    """``win,shanten`` -> the named fields in output order; an unknown name is a user error."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n not in FIELDS:
            raise CommandError(f"unknown field {n!r} (fields: {', '.join(FIELDS)})")
    if not names:
        raise CommandError(f"--fields names no field (fields: {', '.join(FIELDS)})")
    return tuple(f for f in FIELDS if f in names)


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
    p.add_argument("--dealer", choices=list(SEAT_LETTERS), default="E",
                   help="the dealer's seat (default E): the dealer is East and his flower 春 (L1, L2)")
    p.add_argument("--ruleset", default="longgang", help="preset name or TOML file (default longgang)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--fields", metavar="LIST",
        help=f"comma-separated fields to compute and print, of {', '.join(FIELDS)} "
        "(e.g. win,shanten for fast batch use: arrangements are skipped unless named)",
    )
    p.set_defaults(func=run)


def _wilds(args: argparse.Namespace, ruleset: Ruleset) -> frozenset[int]:
    seat = wind_of(SEAT_LETTERS.index(args.seat), SEAT_LETTERS.index(args.dealer)) if args.seat else None
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


def analyse(
    hand: Hand, ruleset: Ruleset, wilds: frozenset[int], fields: tuple[str, ...] = DEFAULT_FIELDS
) -> dict[str, Any]:
    """The JSON object of ``caishen analyze --json`` for one hand, with only ``fields``
    computed (arrangements, the costly part, only when ``forms`` or ``arrangements`` is named)."""
    flowers_wild = sum(1 for f in hand.flowers if f in wilds)
    size = hand.size + flowers_wild
    full = ruleset.hand_size + 1
    if size not in (full - 1, full):
        raise CommandError(
            f"hand has {size} tiles (melds count 3, wild flowers 1); "
            f"a {ruleset.name} hand has {full - 1} (waiting) or {full} (complete)"
        )
    out: dict[str, Any] = {}
    need_arr = "forms" in fields or "arrangements" in fields
    win = is_win(hand, ruleset, wilds) if "win" in fields or need_arr else False
    arr = arrangements(hand, ruleset, wilds) if win and need_arr else ()
    if "win" in fields:
        out["win"] = win
    if "forms" in fields:
        order = list(Form)
        out["forms"] = [f.value for f in sorted({a.form for a in arr}, key=order.index)]
    if "waits" in fields:
        out["waits"] = [tile_name(k) for k in waits(hand, ruleset, wilds)] if size == full - 1 else []
    if "shanten" in fields:
        out["shanten"] = shanten(hand, ruleset, wilds)
    if "arrangements" in fields:
        out["arrangements"] = [_arrangement_json(a) for a in arr]
    return out


def run(args: argparse.Namespace) -> int:
    fields = parse_fields(args.fields) if args.fields is not None else None
    ruleset = load_ruleset(args.ruleset)
    wilds = _wilds(args, ruleset)
    if args.hand == "-":
        for n, line in enumerate(sys.stdin, 1):
            text = line.strip()
            if not text:
                continue
            try:
                out = analyse(parse_hand(text, ruleset), ruleset, wilds, fields or DEFAULT_FIELDS)
            except (ValueError, CommandError) as exc:
                sys.stdout.flush()
                raise CommandError(f"line {n}: {exc}") from None
            print(json.dumps(out, ensure_ascii=False))
        return 0
    hand = parse_hand(args.hand, ruleset)
    result = analyse(hand, ruleset, wilds, fields or DEFAULT_FIELDS)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    if fields is not None:
        _print_fields(result)
        return 0
    _print_rich(hand, ruleset, wilds, result)
    return 0


def _print_rich(hand: Hand, ruleset: Ruleset, wilds: frozenset[int], result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
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


def _print_fields(result: dict[str, Any]) -> None:
    """Plain lines, one per named field (arrangements one per line), for batch-friendly text."""
    for name, value in result.items():
        if name == "win":
            print(f"win      {'yes' if value else 'no'}")
        elif name in ("forms", "waits"):
            print(f"{name:<8} {' '.join(value) or 'none'}")
        elif name == "shanten":
            print(f"shanten  {value}")
        else:
            print(f"arrangements {len(value)}")
            for a in value:
                groups = " ".join(g["meld"] or g["tiles"] or "(wilds)" for g in a["groups"])
                stands = ", ".join(f"{w}→{s}" for g in a["groups"] for w, s in g["wilds"])
                print(f"  {a['form']}: {groups}" + (f"  ({stands})" if stands else ""))


def _kinds(text: str) -> list[int]:
    from caishen.notation import parse_tiles

    return list(parse_tiles(text, None))
