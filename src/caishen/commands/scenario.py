"""``caishen scenario``: play scenario files (``docs/scenarios.md``) and check their expectations.

Prints each seat's legal actions after each listed step and the outcome with the itemised score.
Exit status: 0 when every expectation holds, 1 naming the first failed expectation, 2 for a
malformed file or a step that cannot be played (one line, with the file's line when known).
"""

from __future__ import annotations

import argparse
import json
import sys

from caishen.notation import format_hand
from caishen.scenario import Run, ScenarioError, load, play
from caishen.tiles import SEAT_LETTERS, tile_name


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "scenario",
        help="play scenario files: legal actions after each step, outcome and score, expectations",
        description="Play each scenario file's steps (format: docs/scenarios.md), print every seat's "
        "legal actions after each step and the outcome with the itemised score, and check the "
        "[[expect]] tables. Exit 1 at the first failed expectation, 2 for a malformed file.",
    )
    p.add_argument("files", nargs="+", metavar="FILE.toml", help="scenario files")
    p.add_argument("--json", action="store_true", help="print one JSON object per file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    runs: list[Run] = []
    try:
        for path in args.files:
            runs.append(play(load(path)))
    except ScenarioError as exc:
        print(f"caishen scenario: error: {exc}", file=sys.stderr)
        return 2
    for r in runs:
        if args.json:
            print(json.dumps(to_json(r), ensure_ascii=False))
        else:
            print(to_text(r))
    for r in runs:
        if r.failures:
            print(f"caishen scenario: {r.scenario.source}: {r.failures[0]}", file=sys.stderr)
            return 1
    return 0


def to_text(r: Run) -> str:
    """The run as text: the steps with each seat's legal actions, the outcome and the score."""
    lines = [f"{r.scenario.source} ({r.scenario.variant}, dealer {SEAT_LETTERS[r.scenario.dealer]})"]
    for snap in r.snapshots:
        head = "start" if snap.step is None else (
            f"step {snap.after}: {SEAT_LETTERS[snap.step.seat]} {snap.step.text}")
        lines.append(f"{head}  [{snap.phase}]")
        for s, legal in enumerate(snap.legal):
            if legal:
                lines.append(f"  {SEAT_LETTERS[s]}: {', '.join(legal)}")
    out = r.outcome
    if out is None:
        lines.append(f"hand not over (phase {r.game.phase.value})")
    elif out.winner is None:
        declared = "" if out.draw_type is None or out.declared_by is None else (
            f": {out.draw_type} by {SEAT_LETTERS[out.declared_by]}")
        lines.append(f"drawn hand ({out.draw_reason}{declared})")
    else:
        how = out.win_type or (out.how.value if out.how is not None else "-")
        tile = tile_name(out.tile) if out.tile is not None else "-"
        frm = "" if out.from_seat is None else f" from {SEAT_LETTERS[out.from_seat]}"
        lines.append(f"winner {SEAT_LETTERS[out.winner]} by {how} on {tile}{frm}: "
                     f"{format_hand(out.hands[out.winner])}")
    if r.score is not None:
        lines.append(r.score.winner.table())
    if r.payments is not None:
        lines.append(r.payments.table())
    if r.chips is not None:
        lines.append("chips " + "  ".join(f"{SEAT_LETTERS[s]} {c:+d}" for s, c in enumerate(r.chips)))
    n = len(r.scenario.expects)
    lines.append(f"expectations: {n - len(r.failures)}/{n} hold")
    lines.extend(f"FAILED {f}" for f in r.failures)
    return "\n".join(lines)


def to_json(r: Run) -> dict[str, object]:
    """The run as JSON-ready data (steps with legal actions, outcome, score, chips, failures)."""
    out = r.outcome
    outcome: dict[str, object] | None = None
    if out is not None:
        outcome = {
            "winner": None if out.winner is None else SEAT_LETTERS[out.winner],
            "how": out.win_type or (None if out.how is None else out.how.value),
            "tile": tile_name(out.tile) if out.tile is not None else None,
            "from": None if out.from_seat is None else SEAT_LETTERS[out.from_seat],
            "draw": out.draw_reason,
        }
        if out.draw_type is not None and out.declared_by is not None:  # a declared draw 叫和局
            outcome["draw_type"] = out.draw_type
            outcome["declared_by"] = SEAT_LETTERS[out.declared_by]
    return {
        "file": r.scenario.source,
        "variant": r.scenario.variant,
        "steps": [
            {
                "after": snap.after,
                "seat": None if snap.step is None else SEAT_LETTERS[snap.step.seat],
                "action": None if snap.step is None else snap.step.text,
                "phase": snap.phase,
                "legal": {SEAT_LETTERS[s]: list(legal) for s, legal in enumerate(snap.legal)},
            }
            for snap in r.snapshots
        ],
        "outcome": outcome,
        "score": None if r.score is None else r.score.winner.to_dict(),
        "payments": None if r.payments is None else r.payments.to_json(),
        "chips": None if r.chips is None else {SEAT_LETTERS[s]: c for s, c in enumerate(r.chips)},
        "expectations": len(r.scenario.expects),
        "failures": list(r.failures),
    }
