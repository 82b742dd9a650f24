"""``caishen verify FILE``: check a record's provably fair walls and every draw (L4), and its
signature: the table's Ed25519 signature over the record (docs/fairness.md)."""

from __future__ import annotations

import argparse
import sys

from caishen.cli import add_record_arguments, read_record, safe_text
from caishen.table.record import ReplayError, VerifyError
from caishen.table.replay import verify
from caishen.table.signing import SignatureError, parse_public_key, verify_signature


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verify",
        help="check a record: every wall from the revealed seeds, every draw, the results, the signature",
        description="Recompute every wall from the revealed seed, check the commitments, every draw "
        "and every result; check the record's signature when it has one. With --key PUBKEY the record "
        "must be signed by that key. Exit 1 when the record fails a check, 2 when it is not a record.",
    )
    add_record_arguments(p)
    p.add_argument("--key", metavar="PUBKEY", default=None,
                   help="the table's public key (64 hex digits, from 'caishen keys show'): the record must carry its signature")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.key is not None:
        parse_public_key(args.key)  # a malformed key is a usage error (exit 2), before reading
    name, text, record = read_record(args)
    signed = ""
    try:
        summary = verify(record)  # the walls first: its errors name the hand and draw
        if record.signature is not None or args.key is not None:
            sig = verify_signature(text, args.key)
            if args.key is not None:
                signed = "; signed by the given key"
            else:
                print(f"{name}: signature intact, by key {sig.key}; give --key PUBKEY to check it is the table's",
                      file=sys.stderr)
    except (VerifyError, ReplayError, SignatureError) as exc:
        print(f"caishen verify: FAILED: {name}: {safe_text(str(exc))}", file=sys.stderr)
        return 1
    in_play = " (a record of a match in play: the hands finished so far)" if record.in_play else ""
    print(
        f"{name}: OK: {summary.hands} hands, {summary.draws} draws and {summary.actions} actions "
        f"match the committed seeds; results reproduced{summary.moves_text()}{signed}{in_play}"
    )
    # which match that was: a record of another match passes as well (the names are the record's)
    room = f"room {record.room}, " if record.room else ""
    print(safe_text(f"{name}: the match checked: {room}players {', '.join(record.players)}"))
    return 0
