"""Golden hands 金样: the exact play of 600 seeded Longgang hands, as plain JSON lines.

For seeds 1-300 two hands are played, each as the first hand of a seeded match (match seed
``b"golden-<seed>"``; hand seed and player randomness derived from it as a match does):

* ``"random"``: four random legal players (the players of ``caishen selfplay``);
* ``"bots"``: strong, greedy, greedy and random players in seats E, S, W, N.

Each line holds the actions in the record's text form, the outcome, the itemised score and
each seat's net chips, and nothing that names a module or a class, so the same seeds must give
byte-identical lines after the code is restructured (issue 8, "Same behaviour"). A change of
rule regenerates the file (``python3 tests/golden.py``) in the same commit, with the reason.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

# ---- every import of engine, match, record and bots internals: re-point these after a redesign
from caishen.bots import make_bot
from caishen.engine.game import Outcome
from caishen.table.match import Match, Player, RandomPlayer, player_rng, score_outcome
from caishen.table.record import action_text, replay_hand
from caishen.tiles import tile_name
from caishen.variants.longgang.rules import LONGGANG


def _players(table: str, seed: bytes) -> list[Player]:
    """The four players of a table; player ``i`` draws from ``player_rng(seed, i)``."""
    rngs: list[random.Random] = [player_rng(seed, i) for i in range(4)]
    if table == "random":
        return [RandomPlayer(r) for r in rngs]
    return [make_bot("strong", rngs[0], LONGGANG), make_bot("greedy", rngs[1], LONGGANG),
            make_bot("greedy", rngs[2], LONGGANG), RandomPlayer(rngs[3])]


def _play(table: str, seed: bytes) -> tuple[list[list[object]], Outcome, list[int]]:
    """Play the first hand of a seeded match: its actions, outcome and net chips per seat."""
    match = Match(LONGGANG, _players(table, seed), seed=seed, names=["p0", "p1", "p2", "p3"])
    hand = match.play_hand()
    outcome = replay_hand(match.record(), 0).outcome
    assert outcome is not None
    actions: list[list[object]] = [[s, action_text(a)] for s, a in hand.actions]
    return actions, outcome, [int(c) for c in hand.result["chips"]]


def _score(outcome: Outcome) -> dict[str, object] | None:
    hs = score_outcome(outcome, LONGGANG)
    if hs is None:
        return None
    w = hs.winner
    return {
        "items": [[it.rule, it.english, it.unit, it.value] for it in w.items],
        "fu": w.fu,
        "tai": w.tai,
        "total": w.total,
        "limit": None if w.limit is None else str(w.limit.value),
        "losers": [hs.loser_totals.get(s) for s in range(4)],
    }
# ---- end of the imports block


def _outcome(o: Outcome) -> dict[str, object]:
    return {
        "winner": o.winner,
        "how": None if o.how is None else str(o.how.value),
        "tile": tile_name(o.tile) if o.tile is not None and o.tile >= 0 else None,
        "from_seat": o.from_seat,
        "flags": {
            "heavenly": o.heavenly,
            "earthly": o.earthly,
            "human": o.human,
            "after_kong": o.after_kong,
            "sea_floor": o.sea_floor,
            "last_live_tile": o.last_live_tile,
        },
        "draw_reason": o.draw_reason,
    }


SEEDS = range(1, 301)
TABLES = ("random", "bots")
PATH = Path(__file__).with_name("data") / "golden-longgang.jsonl"


def golden_line(seed: int, table: str) -> str:
    """The golden line of one seed and table, as compact sorted JSON."""
    actions, outcome, chips = _play(table, b"golden-%d" % seed)
    line = {
        "seed": seed,
        "table": table,
        "actions": actions,
        "outcome": _outcome(outcome),
        "score": _score(outcome),
        "chips": chips,
    }
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def golden_lines(seeds: Sequence[int] = SEEDS) -> list[str]:
    """Two lines per seed: the random table, then the bot table."""
    return [golden_line(seed, table) for seed in seeds for table in TABLES]


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else PATH
    out.write_text("".join(line + "\n" for line in golden_lines()), encoding="utf-8")
    print(f"wrote {out}")
