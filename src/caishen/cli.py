"""The ``caishen`` command line. Each sub-command lives in ``caishen.commands.<name>``
and exposes ``register(subparsers)``, which adds its parser and sets ``func``.

Any user mistake (a bad argument, file, ruleset, record or hand) is printed as one line on
stderr, with control characters escaped and no more than 80 characters of the input echoed,
and the exit status is 2. ``--help`` still prints the full usage.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from caishen import __version__, build, variants
from caishen.errors import CaishenError
from caishen.table.record import MatchRecord, RecordError, loads
from caishen.variants.base import VariantRules

# One line per sub-command module; order is the order of ``caishen --help``.
COMMANDS = (
    "rules",
    "analyze",
    "stats",
    "simulate",
    "arena",
    "replay",
    "selfplay",
    "dataset",
    "verify",
    "score",
    "scenario",
    "serve",
    "keys",
    "play",
)

ECHO_LIMIT = 80  # characters of the user's input an error line may repeat
LINE_LIMIT = 400  # characters of an error line in all
# C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi overrides that
# can rewrite what a terminal shows.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LONG_RUN = re.compile(rf"\S{{{ECHO_LIMIT + 1},}}")


class CommandError(CaishenError):
    """A user mistake found by a command: printed as one line, exit status 2."""

    code = "usage"


def safe_text(text: str) -> str:
    """``text`` with control characters shown as escapes (``\\x1b``, ``\\n``): for names and
    any other text that comes from a file, so it cannot move the cursor or retitle a terminal."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def add_rules_arguments(p: argparse.ArgumentParser) -> None:
    """``--variant NAME`` and ``--ruleset PRESET|FILE`` (the variant's standard rules by default)."""
    p.add_argument("--variant", default=None, choices=variants.names(),
                   help="the game (default longgang, or the variant of --ruleset)")
    p.add_argument("--ruleset", default=None,
                   help="preset name or TOML file (default: the variant's standard rules)")


def rules_from_arguments(args: argparse.Namespace) -> VariantRules:
    """The rules ``--variant`` and ``--ruleset`` name; a ruleset of another variant is refused."""
    variant: str | None = args.variant
    if args.ruleset is None:
        name = variant or "longgang"
        return variants.get(name).presets[name]
    rules = variants.load_rules(args.ruleset, variant)
    got = variants.variant_of(rules).name
    if variant is not None and got != variant:
        raise CommandError(f"--ruleset {_shorten(str(args.ruleset))} is a {got} ruleset, not {variant}")
    return rules


def check_hands(rules: VariantRules, hands: int) -> None:
    """Refuse ``--hands N`` as a match length (the ``hands_per_match`` switch) that ``rules``
    do not allow, with a usage error that says in a player's words which lengths they do."""
    sw = next(s for s in rules.switches() if s.name == "hands_per_match")
    title = variants.variant_of(rules).title
    if sw.choices is not None and hands not in sw.choices:
        lengths = [str(c) for c in sw.choices]
        allowed = ", ".join(lengths[:-1]) + " or " + lengths[-1] if len(lengths) > 1 else lengths[0]
        raise CommandError(f"--hands {hands}: a {title} match is {allowed} hands ({sw.rule}); "
                           f"give --hands one of those, or leave it out for {sw.value}")
    if sw.bounds is not None and not max(1, sw.bounds[0]) <= hands <= sw.bounds[1]:
        raise CommandError(f"--hands {hands}: a {title} match is 1 to {sw.bounds[1]} hands; "
                           "leave --hands out to play the ruleset's own length")


def add_record_arguments(p: argparse.ArgumentParser) -> None:
    """The record to read (``file``, ``-`` for stdin) and ``--variant NAME`` it must be of."""
    p.add_argument("file", help="a match record (JSON, see docs/records.md), or - for stdin")
    p.add_argument("--variant", default=None, choices=variants.names(),
                   help="the record must be of this variant (default: any)")


def read_record(args: argparse.Namespace) -> tuple[str, str, MatchRecord]:
    """The record ``args.file`` names: its name for messages, its text, and the record; a
    malformed record, or one of another variant than ``--variant``, is a usage error."""
    name = "stdin" if args.file == "-" else safe_text(args.file)
    text = read_input(args.file)
    try:
        record = loads(text)
    except RecordError as exc:
        raise RecordError(f"{name}: {exc}") from None
    got = variants.variant_of(record.ruleset).name
    if args.variant is not None and got != args.variant:
        raise CommandError(f"{name} is a {got} record, not {args.variant}")
    return name, text, record


def _shorten(text: str) -> str:
    return text if len(text) <= ECHO_LIMIT else text[: ECHO_LIMIT - 3] + "..."


def one_line(message: str, inputs: Sequence[str] = ()) -> str:
    """An error message as one safe line: each long command-line input it repeats and every
    run of more than 80 non-blank characters cut to 80, control characters escaped, and the
    whole at most :data:`LINE_LIMIT` characters."""
    for text in sorted(set(inputs), key=len, reverse=True):
        if len(text) > ECHO_LIMIT and text in message:
            message = message.replace(text, _shorten(text))
    message = safe_text(message)
    message = _LONG_RUN.sub(lambda m: _shorten(m.group()), message)
    if len(message) > LINE_LIMIT:
        message = message[: LINE_LIMIT - 3] + "..."
    return message


_INPUTS: list[str] = []  # the command line being run, for error lines


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``caishen score: error: ...`` and exit 2; the usage
    block is for ``--help``."""

    def error(self, message: str) -> NoReturn:
        hint = f" (see {self.prog} --help)"
        print(f"{self.prog}: error: {one_line(message, _INPUTS)}{hint}", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="caishen", description="caishen (财神): Longgang mahjong engine and tools")
    parser.add_argument("--version", action="version", version=f"caishen {__version__} ({build()})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"caishen.commands.{name}").register(sub)
    return parser


def read_input(name: str) -> str:
    """The text of a file, or of stdin for ``-``; bytes that are not UTF-8 are an error."""
    if name == "-":
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CommandError(f"stdin: not UTF-8 text: {exc}") from None
    try:
        with open(name, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise CommandError(f"{name}: not UTF-8 text: {exc}") from None


def _quiet_broken_pipe() -> int:
    """The reader went away (``caishen score ... | head -2``): stop quietly as Unix tools do,
    with status 1 (as rich does for its tables, and as Python's documentation advises), and keep
    Python from complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    _INPUTS[:] = args_in
    parser = build_parser()
    args, extra = parser.parse_known_args(args_in)
    if extra:  # said by the command's own parser: "caishen serve: error: ... (see caishen serve --help)"
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except (CommandError, ValueError, OSError) as exc:
        _fail(args.command, str(exc), args_in)
        return 2
    except RecursionError:
        _fail(args.command, "the input is nested too deeply", args_in)
        return 2
    except MemoryError:
        _fail(args.command, "out of memory: the input or a setting is too large", args_in)
        return 2
    except KeyboardInterrupt:
        return 130
    return code


def _fail(command: str, message: str, inputs: Sequence[str]) -> None:
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        pass
    print(f"caishen {command}: error: {one_line(message, inputs)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
