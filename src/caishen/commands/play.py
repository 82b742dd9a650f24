"""``caishen play``: a whole match against three bots in the terminal (docs/terminal.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from caishen.cli import check_hands, rules_from_arguments
from caishen.terminal.core import new_seed, seed_from_text, variant_names
from caishen.terminal.model import PlayError, PlayState, Settings, default_save_path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("play", help="play a match against three bots in the terminal (docs/terminal.md)")
    p.add_argument("--variant", default=None,
                   help=f"the game: {' or '.join(variant_names())} (default longgang, or the variant of --ruleset)")
    p.add_argument("--ruleset", metavar="PRESET|FILE", default=None,
                   help="a preset name or ruleset TOML file (default: the variant's standard rules)")
    p.add_argument("--bots", default="strong,strong,greedy", help="the bots of the other three seats (random, greedy, strong, learned, module:Class or a caishen.players entry point)")
    p.add_argument("--seed", default=None, help="match seed S (same seed, same walls); default: a fresh secret seed")
    p.add_argument("--hands", type=int, default=None, help="hands in the match (default: the ruleset's hands_per_match)")
    p.add_argument("--plain", action="store_true", help="line mode for pipes and screen readers (automatic when stdin is not a terminal)")
    p.add_argument("--demo", action="store_true", help="a bot plays your seat too, with a short delay between moves")
    p.add_argument("--resume", metavar="FILE", nargs="?", const="", default=None,
                   help="continue a saved match (default file: the one quitting saves to)")
    p.add_argument("--hint-bot", default="greedy", help="the bot whose move is suggested (default greedy)")
    p.add_argument("--record", metavar="FILE", default=None,
                   help=f"save the match here (on quitting and when it ends); default {default_save_path()}")
    p.add_argument("--delay", type=float, default=0.4, help=argparse.SUPPRESS)  # --demo pace, seconds
    p.set_defaults(func=run)


def build_state(args: argparse.Namespace) -> PlayState:
    """A new match from the options, or the saved one with ``--resume``."""
    if args.resume is not None:
        path = Path(args.resume) if args.resume else default_save_path()
        return PlayState.load(path)
    if args.variant is not None and args.variant not in variant_names():
        raise PlayError(f"unknown variant {args.variant!r} (variants: {', '.join(variant_names())})")
    ruleset = rules_from_arguments(args)  # Longgang's or Gangci's rules: the session plays either
    if args.hands is not None:
        check_hands(ruleset, args.hands)
        ruleset = ruleset.replace(hands_per_match=args.hands)
    # A match is always seeded (a fresh secret seed without --seed) so that it can be resumed.
    seed = seed_from_text(args.seed) if args.seed is not None else new_seed()
    bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
    return PlayState.new(Settings(ruleset, bots, seed, args.hint_bot))


def run(args: argparse.Namespace) -> int:
    state = build_state(args)  # PlayError (a ValueError): one line, status 2 (caishen.cli)
    save = Path(args.record) if args.record else (
        Path(args.resume) if args.resume else default_save_path())
    if args.plain or not sys.stdin.isatty():
        from caishen.terminal.plain import run_plain

        def read() -> str | None:
            if args.demo:  # the suggested move every time, until the match ends
                return ""
            line = sys.stdin.readline()
            return None if not line else line.rstrip("\n")

        return run_plain(state, save, read, sys.stdout)
    # Textual loads only for the full-screen app: every other command stays quick to start.
    from caishen.terminal.app import PlayApp

    app = PlayApp(state, save, demo=args.demo, delay=args.delay)
    app.run()
    return app.return_code or 0
