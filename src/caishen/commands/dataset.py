"""``caishen dataset RECORDS... --out FILE``: match records as (observation, mask, action,
reward) arrays for behaviour cloning (docs/env.md, "Records as data")."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "dataset",
        help="match records as (observation, mask, action, reward) arrays (.npz or .parquet) for behaviour cloning",
        description=(
            "Replay every hand of the records (from selfplay --bots, the game centre, caishen play) and write "
            "one row per decision: the deciding seat's observation and mask as the RL envs show them, the "
            "action's index, and the hand's chips for that seat."
        ),
    )
    p.add_argument("records", nargs="+", metavar="RECORD", help="match records (JSON, docs/records.md)")
    p.add_argument("--out", required=True, help="FILE.npz (numpy) or FILE.parquet (pyarrow)")
    p.add_argument("--obs-version", choices=("v1", "v2"), default="v1", help="observation layout (default v1)")
    p.add_argument("--player", action="append", default=[], metavar="PATTERN",
                   help="keep only the decisions of players whose record name matches (shell pattern, "
                        "e.g. 'strong-*'); repeatable; default: every player")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from caishen.cli import CommandError, safe_text
    from caishen.simulate import check_output
    from caishen.table.record import load

    try:
        check_output(args.out, (".npz", ".parquet"), "--out")
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if args.out.endswith(".parquet"):
        from caishen.simulate import PARQUET_INSTALL, _optional

        _optional("pyarrow", PARQUET_INSTALL)
    records = [load(path) for path in args.records]
    from caishen.env.dataset import rows

    data = rows(records, args.obs_version, args.player)
    data.save(args.out)
    hands = sum(len(r.hands) for r in records)
    print(f"{len(data):,} decisions from {hands:,} hands of {len(records)} record(s), "
          f"{len(data.players)} player(s), observation {args.obs_version} "
          f"({data.obs.shape[1] if data.obs.ndim == 2 else 0} floats): {safe_text(args.out)}")
    return 0
