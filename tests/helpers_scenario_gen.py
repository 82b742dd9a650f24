"""Write the long "every seat discards what it drew" part of a scenario file.

Two scenario files play a hand to its end game: ``L20-unreplaced-flower-scores-nothing.toml``
(to 分张) and ``L24-pay-for-all-three-late-dragon.toml`` (to a few live tiles). Their steps
depend on the wall geometry (live tiles, dead wall, sea floor); when it changes, regenerate
the steps from the file's head (everything before the first ``[[steps]]``)::

    PYTHONPATH=src python3 tests/helpers_scenario_gen.py HEAD.toml            # to 分张, then add the win
    PYTHONPATH=src python3 tests/helpers_scenario_gen.py HEAD.toml W 7z 6 S   # W discards 7z with <= 6 live, S wins

and append the ``[[expect]]`` tables again (the chips may change with the new draws).
"""

from __future__ import annotations

import sys

from caishen.engine.game import Phase
from caishen.scenario import loads, play
from caishen.tiles import SEAT_LETTERS, tile_name


def steps_text(steps: list[tuple[str, str]]) -> str:
    return "".join(f'\n[[steps]]\nseat = "{s}"\naction = "{a}"\n' for s, a in steps)


def generate(head: str, stop: tuple[str, str, int, str] | None = None) -> str:
    """``head`` plus steps discarding each drawn tile until the hand leaves the turn phase (分张)
    or, with ``stop = (seat, tile, live, winner)``, until ``seat``'s turn with ``live`` live
    tiles or fewer: then ``seat`` discards ``tile`` and ``winner`` wins on it."""
    steps: list[tuple[str, str]] = []
    while True:
        game = play(loads(head + steps_text(steps))).game
        if game.is_over or game.phase is not Phase.TURN:
            break
        seat = SEAT_LETTERS[game.current]
        if stop is not None and seat == stop[0] and game.live_tiles <= stop[2]:
            steps += [(seat, f"discard {stop[1]}"), (stop[3], "win")]
            break
        drawn = game.just_drawn
        assert drawn is not None, f"seat {seat} has no drawn tile"
        steps.append((seat, f"discard {tile_name(drawn)}"))
    return head + steps_text(steps)


if __name__ == "__main__":
    text = open(sys.argv[1], encoding="utf-8").read()
    args = sys.argv[2:]
    print(generate(text, (args[0], args[1], int(args[2]), args[3]) if args else None))
