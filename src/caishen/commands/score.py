"""``caishen score``: the itemised score of a winning hand, or of a loser's own hand (L19-L23)."""

from __future__ import annotations

import argparse
import json

from caishen.notation import parse_hand, parse_tile
from caishen.tiles import SEAT_LETTERS
from caishen.variants.longgang.rules import load_ruleset
from caishen.variants.longgang.scoring import (
    FirstTurn,
    ScoringError,
    WinBy,
    WinContext,
    score_hand,
    score_win,
)


def _seat(text: str) -> int:
    t = text.strip().upper()
    if len(t) != 1 or t not in SEAT_LETTERS:
        raise argparse.ArgumentTypeError(f"seat must be one of E S W N, not {text!r}")
    return SEAT_LETTERS.index(t)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "score",
        help="score a hand: fu, tai, limit and total, each line with its rule",
        description="Score the winner's hand (the hand before the winning tile, plus --win and --by) "
        "or, with --loser, a loser's own hand. Rule IDs refer to docs/rules/longgang.md.",
    )
    p.add_argument("hand", help='hand in notation, e.g. "234m 68m 345p 567s 234s 99p f2 [777z]"')
    p.add_argument("--win", metavar="TILE", help="the winning tile (winner)")
    p.add_argument("--by", choices=[b.value for b in WinBy], default=WinBy.DISCARD.value,
                   help="how the winning tile came (default discard)")
    p.add_argument("--first-turn", choices=[f.value for f in FirstTurn], default=FirstTurn.NONE.value,
                   help="天胡 heavenly / 地胡 earthly / 人胡 human win (default none)")
    p.add_argument("--loser", action="store_true", help="score a loser's own hand (no winning tile)")
    p.add_argument("--seat", type=_seat, default=0, help="seat E S W N (default E)")
    p.add_argument("--dealer", type=_seat, default=0, help="the dealer's seat (default E)")
    p.add_argument("--wild", metavar="TILE", help="the wild indicator tile (财神: the other copies are wild)")
    p.add_argument("--ruleset", default="longgang", help="preset name or TOML file (default longgang)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ruleset = load_ruleset(args.ruleset)
    hand = parse_hand(args.hand, ruleset)
    wild = None if args.wild is None else parse_tile(args.wild, ruleset)
    if args.loser:
        if args.win is not None:
            raise ScoringError("--loser scores a hand without a winning tile: drop --win", code="usage")
        result = score_hand(hand, args.seat, args.dealer, wild, ruleset)
    else:
        if args.win is None:
            raise ScoringError("give the winning tile with --win (or --loser for a loser's hand)", code="usage")
        ctx = WinContext(parse_tile(args.win, ruleset), WinBy(args.by), args.seat, args.dealer, wild,
                         FirstTurn(args.first_turn))
        result = score_win(hand, ctx, ruleset)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(result.table())
    return 0
