"""``caishen simulate``: bots play many games (matches); one row per hand; a table per bot.

Example: ``caishen simulate --games 1000 --players strong,greedy,greedy,random --seed 1``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from caishen.cli import add_rules_arguments, rules_from_arguments


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "simulate",
        help="bots play many games (matches); per-bot win rate, chips per hand with 95%% CI",
        description=(
            "Play GAMES matches between bots (random, greedy, strong, learned) and print a table per bot. "
            "Same --seed gives the same hands whatever --workers or --backend."
        ),
    )
    p.add_argument("--games", type=int, default=100, help="matches to play (default 100)")
    p.add_argument(
        "--players", default="strong,greedy,greedy,random",
        help="four bots, comma-separated, one per seat (default strong,greedy,greedy,random)",
    )
    add_rules_arguments(p)
    p.add_argument("--seed", default="0", help="run seed (any text; default 0)")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="local processes or Ray tasks")
    p.add_argument("--address", default=None, help="Ray cluster address (ray://host:port or auto); local Ray if omitted")
    p.add_argument("--out", default=None, help="write one row per hand to FILE.jsonl or FILE.parquet")
    p.add_argument("--plot", default=None, help="draw chip distributions and cumulative chips to FILE.png (matplotlib)")
    p.add_argument("--single-hand", action="store_true", help="a game is one hand instead of a match")
    p.add_argument(
        "--duplicate", action="store_true",
        help="duplicate deals: games 4k..4k+3 play the same tiles with the seating rotated (less luck)",
    )
    p.add_argument("--batch-size", type=int, default=None, help="games per task (default: chosen from games and workers)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from caishen.simulate import (
        PLOT_SUFFIXES,
        SimulationError,
        check_address,
        check_output,
        check_settings,
        simulate,
    )

    players = [p.strip() for p in args.players.split(",") if p.strip()]
    ruleset = rules_from_arguments(args)
    check_settings(players, args.games, args.workers, args.backend)
    check_address(args.address)
    # Paths are checked before the run: a bad one must not cost hours of play.
    if args.out:
        check_output(args.out, (".jsonl", ".parquet"), "--out")
    if args.plot:
        check_output(args.plot, PLOT_SUFFIXES, "--plot")
    if args.plot:
        from caishen.simulate import _optional

        _optional("matplotlib", "--plot needs matplotlib: pip install 'caishen[plot]'")
    if args.backend == "ray":
        from caishen.simulate import RAY_INSTALL, _optional

        _optional("ray", RAY_INSTALL)
    writer = None
    if args.out:
        from caishen.simulate import RowWriter

        writer = RowWriter(args.out)
    if args.batch_size is not None and args.batch_size < 1:
        raise SimulationError(f"--batch-size must be at least 1, not {args.batch_size}")

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]simulate"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TextColumn("{task.fields[rate]:>8} games/s"),
        TextColumn("{task.fields[hands]} hands"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=args.no_progress,
    )
    start = time.perf_counter()
    done_games = 0
    done_hands = 0
    task = progress.add_task("simulate", total=args.games, rate="-", hands=0)

    def on_batch(rows: list[Any]) -> None:
        nonlocal done_games, done_hands
        if writer is not None:
            writer.write(rows)
        games = len({r.game for r in rows})
        done_games += games
        done_hands += len(rows)
        elapsed = max(time.perf_counter() - start, 1e-9)
        progress.update(task, advance=games, rate=f"{done_games / elapsed:.1f}", hands=done_hands)

    try:
        with progress:
            stats = simulate(
                players, args.games, ruleset, args.seed, workers=args.workers, backend=args.backend,
                address=args.address, on_batch=on_batch, keep_per_hand=bool(args.plot),
                single_hand=args.single_hand, batch_size=args.batch_size, duplicate=args.duplicate,
            )
    finally:
        if writer is not None:
            writer.close()
    elapsed = time.perf_counter() - start
    print_summary(stats, args, elapsed)
    if args.plot:
        plot(stats, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def print_summary(stats: Any, args: argparse.Namespace, elapsed: float) -> None:
    import json

    from caishen.simulate import table_rows

    rows = table_rows(stats)
    if args.json:
        out = {
            "games": stats.games, "hands": stats.hands, "draws": stats.draws, "endings": stats.endings,
            "seconds": round(elapsed, 3), "bots": [
                {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in r.items()} for r in rows
            ],
        }
        print(json.dumps(out))
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from caishen.cli import safe_text

    title = (
        f"{stats.games} games, {stats.hands} hands ({stats.hands / max(elapsed, 1e-9):.0f} hands/s), "
        f"players {args.players}, seed {args.seed}"
    )
    several = [r["bot"] for r in rows if r["seats"] > 1]
    caption = "win, deal-in, self-draw and limit: per seat per hand; chips: per hand, averaged over the bot's seats"
    if several:
        caption = (", ".join(f"{b} fills {r['seats']} seats" for r in rows for b in [r["bot"]] if r["seats"] > 1)
                   + "; " + caption)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    heads = ("bot", "seats", "hands", "win", "deal\nin", "self\ndraw", "limit\nhand", "chips\n/hand", "95% CI\n±",
             "drawn\nhand")
    for col in heads:
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=col != "bot")
    for r in rows:
        ci = r["ci95"]
        table.add_row(
            safe_text(r["bot"]), str(r["seats"]), str(r["hands"]), f"{r['win_rate']:.1%}", f"{r['deal_in_rate']:.1%}",
            f"{r['self_draw_rate']:.1%}", f"{r['limit_rate']:.2%}", f"{r['chips_per_hand']:+.2f}",
            "-" if math.isinf(ci) else f"{ci:.2f}", f"{r['draw_rate']:.1%}",
        )
    console = Console()
    console.print(safe_text(title), highlight=False)
    console.print(table)
    console.print(caption, highlight=False)
    n = max(stats.hands, 1)
    endings = sorted(stats.endings.items(), key=lambda kv: (-kv[1], kv[0]))
    console.print("hands ended by: " + ", ".join(f"{k} {v / n:.1%}" for k, v in endings), highlight=False)


def plot(stats: Any, path: str) -> None:
    """Histogram of chips per hand and cumulative chips over hands, one line per bot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name in stats.names:
        values = stats.bots[name].per_hand or []
        if not values:
            continue
        ax1.hist(values, bins=60, histtype="step", label=name)
        cum = []
        total = 0.0
        for v in values:
            total += v
            cum.append(total)
        ax2.plot(range(1, len(cum) + 1), cum, label=name)
    ax1.set_xlabel("chips per hand (average over the bot's seats)")
    ax1.set_ylabel("hands")
    ax1.set_yscale("log")
    ax1.set_title("chip change per hand")
    ax1.legend()
    ax2.set_xlabel("hand")
    ax2.set_ylabel("cumulative chips")
    ax2.set_title("cumulative chips")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
