"""``caishen verify FILE``: check a record's provably fair walls and every draw (L4)."""

from __future__ import annotations

import argparse
import sys

from caishen.table.record import ReplayError, VerifyError, load, verify


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verify",
        help="recompute every wall from the revealed seed, check commitments and every draw of a record",
    )
    p.add_argument("file", help="a match record (JSON, see docs/records.md)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    record = load(args.file)
    try:
        summary = verify(record)
    except (VerifyError, ReplayError) as exc:
        print(f"caishen verify: FAILED: {args.file}: {exc}", file=sys.stderr)
        return 1
    print(
        f"{args.file}: OK: {summary.hands} hands, {summary.draws} draws and {summary.actions} actions "
        "match the committed seeds; results reproduced"
    )
    return 0
