"""The ``caishen`` command line. Each sub-command lives in ``caishen.commands.<name>``
and exposes ``register(subparsers)``, which adds its parser and sets ``func``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# One line per sub-command module; order is the order of ``caishen --help``.
COMMANDS = (
    "rules",
    "analyze",
    "stats",
    "simulate",
    "replay",
    "selfplay",
    "verify",
    "score",
    "scenario",
    "play",
)


class CommandError(Exception):
    """A user mistake found by a command: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="caishen", description="caishen (财神): Longgang mahjong engine and tools"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"caishen.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except (CommandError, ValueError, OSError) as exc:
        print(f"caishen {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
