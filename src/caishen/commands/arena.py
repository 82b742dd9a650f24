"""``caishen arena A B [C ...]``: A against each other player, on the same duplicate deals,
with the paired difference in chips per hand and its bootstrap 95% CI (docs/simulate.md)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from caishen.cli import add_rules_arguments, rules_from_arguments


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "arena",
        help="a fair duplicate comparison: A against B (1 vs 3 and 2 vs 2 on the same deals), A-B with a 95%% CI",
        description=(
            "Play DEALS deals of A against each of the other players: every deal with A alone in each seat "
            "against three of the other, the other way round, and two against two. Prints A's chips per hand "
            "minus the other's (paired by deal) with a bootstrap 95%% CI clustered by deal, win and deal-in "
            "rates, and the hands needed for a CI --width wide. Same --seed, same deals and result."
        ),
    )
    p.add_argument("players", nargs="+", metavar="PLAYER",
                   help="A, then one or more players to compare it with (random, greedy, strong, learned, module:Class, "
                        "a caishen.players entry point)")
    p.add_argument("--deals", type=int, default=200, help="deals per comparison (default 200; 10 hands each)")
    p.add_argument("--mode", choices=("both", "1v3", "2v2"), default="both",
                   help="arrangements of each deal (default both: 8 hands 1 vs 3, 2 hands 2 vs 2)")
    add_rules_arguments(p)
    p.add_argument("--seed", default="0", help="run seed (any text; default 0)")
    p.add_argument("--width", type=float, default=1.0,
                   help="CI width (high - low, chips per hand) to estimate the hands needed for (default 1)")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="local processes or Ray tasks")
    p.add_argument("--address", default=None, help="Ray cluster address (ray://host:port or auto)")
    p.add_argument("--batch-size", type=int, default=None, help="deals per task (default: from deals and workers)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the results as JSON (one object per comparison)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from caishen.arena import arena, arrangements
    from caishen.simulate import RAY_INSTALL, SimulationError, _optional, check_address, check_settings

    if len(args.players) < 2:
        raise SimulationError("arena needs A and at least one player to compare it with")
    a, others = args.players[0], args.players[1:]
    ruleset = rules_from_arguments(args)
    if args.deals < 1:
        raise SimulationError(f"--deals must be at least 1, not {args.deals}")
    if args.batch_size is not None and args.batch_size < 1:
        raise SimulationError(f"--batch-size must be at least 1, not {args.batch_size}")
    arr = arrangements(args.mode)
    for b in others:  # every name imported before the first hand
        check_settings(arr[0].seating(a, b), args.deals * len(arr), args.workers, args.backend)
    check_address(args.address)
    if args.backend == "ray":
        _optional("ray", RAY_INSTALL)

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(TextColumn("[bold]arena"), BarColumn(), MofNCompleteColumn(), TextColumn("deals"),
                        TimeElapsedColumn(), console=Console(stderr=True), disable=args.no_progress)
    results: list[dict[str, Any]] = []
    with progress:
        task = progress.add_task("arena", total=args.deals * len(others))
        for b in others:
            comp = arena(a, b, args.deals, ruleset, args.seed, args.mode, args.workers, args.backend,
                         args.address, args.batch_size, on_deal=lambda n: progress.advance(task, n))
            results.append(comp.summary(args.seed, args.width))
    if args.json:
        for r in results:
            print(json.dumps(r))
        return 0
    print_table(results, args)
    return 0


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None or not math.isfinite(x) else format(x, fmt)


def print_table(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """One short block per comparison (fits an 80-column terminal and a phone's SSH)."""
    from caishen.cli import safe_text

    print(f"arena: {args.deals} deals per comparison, mode {args.mode}, seed {safe_text(args.seed)}")
    for r in results:
        a, b = safe_text(r["a"]), safe_text(r["b"])
        d, modes = r["diff"], r["by_mode"]
        per = ", ".join(f"{m} {_num(v['mean'], '+.2f')}" for m, v in modes.items()) if len(modes) > 1 else ""
        print(f"\n{a} vs {b}: {r['hands']:,} hands ({r['deals']:,} deals)")
        print(f"  A-B chips/hand  {_num(d['mean'], '+.2f')}   95% CI {_num(d['low'], '+.2f')} .. "
              f"{_num(d['high'], '+.2f')}" + (f"   ({per})" if per else ""))
        print(f"  chips/hand      {a} {_num(r['a_chips_per_hand'], '+.2f')}   {b} {_num(r['b_chips_per_hand'], '+.2f')}")
        print(f"  win             {a} {r['a_win_rate']:.1%}   {b} {r['b_win_rate']:.1%}")
        print(f"  deal-in         {a} {r['a_deal_in_rate']:.1%}   {b} {r['b_deal_in_rate']:.1%}")
        print(f"  hands for a CI of ±{args.width / 2:g}: {_num(r['hands_needed'], ',.0f')}")
    print("\nA-B: A's chips per seat-hand minus B's on the same deals, each sitting in every seat equally "
          "often; 95% CI: bootstrap over deals; win and deal-in: per seat-hand")
