"""``caishen keys show``: the public key of this table's signing key (Ed25519), to publish so
that anyone can check the records it signs (``caishen verify --key``, docs/fairness.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from caishen.table.signing import default_key_path, load_or_create_key, public_key_hex


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "keys",
        help="show the public key this table signs its records with",
        description="The table's signing key is made once and kept in the user's data directory "
        "(or $CAISHEN_KEY, or --key-file). 'keys show' prints its public key (64 hex digits).",
    )
    p.add_argument("action", choices=("show",), help="show: print the public key (making the key on first use)")
    p.add_argument("--key-file", default=None, help="the private key file (default: $CAISHEN_KEY or the data directory)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.key_file) if args.key_file else default_key_path()
    existed = path.exists()
    key = load_or_create_key(path)
    if not existed:
        print(f"made a new signing key: {path}", file=sys.stderr)
    print(public_key_hex(key))
    return 0
