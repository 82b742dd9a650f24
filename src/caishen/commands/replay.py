"""``caishen replay FILE``: print a recorded match move by move, reproducing every result."""

from __future__ import annotations

import argparse
from typing import Any

from caishen.cli import CommandError, add_record_arguments, read_record, safe_text
from caishen.notation import format_hand
from caishen.table.record import HandRecord, MatchRecord, action_text, iter_hand
from caishen.table.replay import replay
from caishen.table.signing import verify_signature
from caishen.tiles import SEAT_LETTERS, tile_name


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="print a recorded match move by move and check it reproduces")
    add_record_arguments(p)
    p.add_argument("--hand", type=int, default=None, metavar="N",
                   help="print only hand N, counted from 1 as the pages and verify's messages count (hands[N-1])")
    p.add_argument("--draws", action="store_true", help="also print every tile drawn")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    name, text, record = read_record(args)
    if args.hand is not None and not 1 <= args.hand <= len(record.hands):
        raise CommandError(f"--hand {args.hand}: the record has hands 1-{len(record.hands)} (counted from 1)")
    # Check everything before printing anything: a forged record prints nothing but the error.
    summary = replay(record)
    if record.signature is not None:
        verify_signature(text)  # a record that names a key must carry its signature
    console = Console(highlight=False)
    console.print(f"[bold]{escape(name)}[/]: ruleset {escape(safe_text(record.ruleset.name))}, "
                  f"players {escape(safe_text(', '.join(record.players)))}, {len(record.hands)} hands")
    hands = record.hands if args.hand is None else (record.hands[args.hand - 1],)
    for hand in hands:
        _print_hand(console, record, hand, args.draws)
    r = summary.result
    console.print(f"[bold]match[/]: {r['hands']} hands, ended by {r['ended_by'] or 'not over'}; "
                  f"chips per player {r['chips']}" + (f", broke {r['broke']}" if r["broke"] else ""))
    console.print(f"[green]replay reproduces all {summary.hands} hands ({summary.actions} actions, "
                  f"{summary.draws} draws), every result and the chips[/]")
    return 0


def _who(record: MatchRecord, hand: HandRecord, seat: int) -> str:
    from rich.markup import escape

    return escape(safe_text(f"{SEAT_LETTERS[seat]}({record.players[hand.seats[seat]]})"))


def _print_hand(console: Any, record: MatchRecord, hand: HandRecord, draws: bool) -> None:
    from rich.markup import escape

    console.rule(f"hand {hand.index + 1} (hands[{hand.index}])  commitment {hand.commitment[:16]}…  dice {list(hand.dice)}")
    for game, step in iter_hand(hand, record.ruleset):
        if step is None:
            console.print(f"indicator {tile_name(game.indicator) if game.indicator is not None else '-'}; dealt:")
            for s in range(4):
                console.print(f"  {_who(record, hand, s):<16} {escape(format_hand(game.hand(s)))}")
            continue
        line = f"{step.index:>4}  {_who(record, hand, step.seat):<16} {action_text(step.action)}"
        if draws and step.draws:
            line += "   [dim]draws " + ", ".join(
                f"{SEAT_LETTERS[s]} {tile_name(k)}@{p}" for s, p, k in step.draws) + "[/]"
        console.print(line)
    res = hand.result
    if res["winner"] is None:
        reason = res.get("draw") or "wall"
        if res.get("draw_type"):  # a declared draw 叫和局
            reason = f"{res['draw_type']} declared by {_who(record, hand, res['declared_by'])}"
        paid = "" if any(res["chips"]) else ": nobody pays"
        console.print(f"[yellow]draw 流局 ({escape(str(reason))}){paid}[/]")
    else:
        sc = (res["score"] or {}).get("winner")  # Longgang's 胡/台 score; Gangci lists payments
        console.print(
            f"[bold green]{_who(record, hand, res['winner'])} wins[/] by "
            f"{escape(str(res.get('win_type') or res['how']))}"
            + (f" on {escape(str(res['tile']))}" if res["tile"] else "")
            + ("" if sc is None else f": fu {sc['fu']}, tai {sc['tai']}, total {sc['total']}")
            + (f", limit {escape(str(sc['limit']))}" if sc is not None and sc["limit"] else "")
        )
        console.print("  hands: " + escape(" | ".join(res["hands"])))
    console.print("  chips: " + "  ".join(f"{_who(record, hand, s)} {c:+d}" for s, c in enumerate(res["chips"])))
