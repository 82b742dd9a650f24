"""``caishen selfplay``: a seeded match of random legal players (or of bots, ``--bots``), written
as a record."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from caishen import fair
from caishen.cli import CommandError, add_rules_arguments, check_hands, rules_from_arguments, safe_text
from caishen.table.match import selfplay
from caishen.table.record import MatchRecord
from caishen.table.signing import load_or_create_key, sign_record
from caishen.tiles import SEAT_LETTERS
from caishen.variants.base import VariantRules


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "selfplay",
        help="play a match with random legal players and write its record (docs/records.md)",
    )
    p.add_argument("--hands", type=int, default=None, help="hands in the match (default: the ruleset's hands_per_match)")
    p.add_argument("--seed", default=None, help="match seed S: every hand's seed is derived from it; default: fresh secret seeds")
    p.add_argument("--players", type=int, default=4, choices=(4, 5, 6), help="players rotating through the four seats (L2)")
    p.add_argument("--bots", default=None,
                   help="one player per player, comma-separated (random, greedy, strong, learned, module:Class...); "
                        "default: random legal players. Named NAME-i in the record")
    add_rules_arguments(p)
    p.add_argument("--seat-draw", action="store_true",
                   help="seat the players by the draw of wind tiles and the dice (校位定莊, L2) instead of in order")
    p.add_argument("--record", metavar="FILE", default=None, help="write the match record (JSON) to FILE")
    p.add_argument("--indent", type=int, default=None, help="indent the JSON record by 0-8 spaces")
    p.add_argument("--key-file", default=None,
                   help="sign the record with this Ed25519 key (default: $CAISHEN_KEY or the data directory)")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=run)


MAX_HANDS = 10_000


def bot_match(ruleset: VariantRules, seed: bytes | None, bots: str, players: int, seat_draw: bool) -> MatchRecord:
    """A match of the players ``bots`` names (their randomness from the match seed, as
    :func:`caishen.table.match.selfplay` seeds its random players)."""
    from caishen.bots import check_player, make_bot
    from caishen.table.match import Match
    from caishen.table.players import player_rng

    names = [b.strip() for b in bots.split(",") if b.strip()]
    if len(names) != players:
        raise CommandError(f"--bots needs {players} players (one per player), not {len(names)}")
    for n in names:
        check_player(n)
    ps = [make_bot(n, player_rng(seed, i), ruleset) for i, n in enumerate(names)]
    return Match(ruleset, ps, seed=seed, names=[f"{n}-{i}" for i, n in enumerate(names)], seat_draw=seat_draw).play()


def run(args: argparse.Namespace) -> int:
    ruleset = rules_from_arguments(args)
    if args.hands is not None and not 1 <= args.hands <= MAX_HANDS:
        raise CommandError(f"--hands must be 1-{MAX_HANDS}, not {args.hands}")
    if args.hands is not None:
        check_hands(ruleset, args.hands)
        ruleset = ruleset.replace(hands_per_match=args.hands)
    if args.indent is not None and not 0 <= args.indent <= 8:
        raise CommandError(f"--indent must be 0-8, not {args.indent}")
    out = Path(args.record) if args.record else None
    if out is not None and not out.parent.is_dir():
        raise CommandError(f"--record {args.record}: no directory {out.parent}")
    key = load_or_create_key(args.key_file) if out is not None else None
    seed = None if args.seed is None else fair.seed_from_text(args.seed)
    if args.bots is None:
        record = selfplay(ruleset, seed, args.players, None, args.seat_draw)
    else:
        record = bot_match(ruleset, seed, args.bots, args.players, args.seat_draw)
    if out is not None and key is not None:
        # The table signs the finished record (docs/fairness.md): the moves, not only the walls.
        signed = sign_record(record.dumps(), key)
        if args.indent is not None:
            signed = json.dumps(json.loads(signed), ensure_ascii=False, indent=args.indent)
        out.write_text(signed + "\n", encoding="utf-8")
    if args.quiet:
        return 0
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    title = f"selfplay: {len(record.hands)} hands, {ruleset.name}" + (f", seed {args.seed!r}" if args.seed else "")
    table = Table(title=escape(safe_text(title)))
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
            what = f"{SEAT_LETTERS[res['winner']]} {res.get('win_type') or res['how']} {res['tile'] or ''}"
            sc = res["score"].get("winner")
            if sc is not None:  # Longgang: the winner's total in 胡 (L23)
                what += f" total {sc['total']}" + (f" limit {sc['limit']}" if sc["limit"] else "")
        table.add_row(
            str(h.index), h.commitment[:16] + "…", " ".join(str(p) for p in h.seats), what,
            " ".join(f"{c:+d}" for c in res["chips"]),
        )
    console = Console()
    console.print(table)
    r = record.result
    console.print(escape(
        f"chips per player: {r['chips']}  fees {r['fees']}  ended by {r['ended_by']}"
        + (f"  broke: {r['broke']}" if r["broke"] else "")
    ))
    if args.record:
        print(f"record written to {safe_text(args.record)}, signed")
    return 0
