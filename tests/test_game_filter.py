"""The engine's cheap win pre-filter (SeatState.could_win) never hides a win: checked against
is_win on near-complete hands with wilds (slow reference: is_win on every tile)."""

from __future__ import annotations

import random

from caishen.notation import format_tiles
from caishen.shapes.analysis import is_win
from caishen.tiles import NUM_NON_FLOWER, NUM_SUITED, WHITE
from caishen.variants.longgang.rules import LONGGANG
from helpers_wall import stacked_game

WILD = 26  # 9s, the indicator's kind in these hands
OWN = 35   # f2, South's own flower


def near_complete(rng: random.Random) -> list[int]:
    """16 tiles: five sets and a pair, some replaced by wilds, one tile removed."""
    while True:
        used = [0] * 38
        out: list[int] = []
        kinds = [k for k in range(NUM_NON_FLOWER) if k not in (WHITE, WILD)]
        ok = True
        for g in range(6):
            if g == 5:
                k = rng.choice(kinds)
                grp = [k, k]
            elif rng.random() < 0.5:
                k = rng.choice([k for k in kinds if k < NUM_SUITED and k % 9 <= 6 and k + 2 != WILD and k + 1 != WILD])
                grp = [k, k + 1, k + 2]
            else:
                k = rng.choice(kinds)
                grp = [k, k, k]
            for x in grp:
                used[x] += 1
            out.extend(grp)
        if any(n > 4 for n in used):
            ok = False
        if ok:
            break
    n_wild = rng.choice((0, 0, 1, 1, 2, 3))
    for _ in range(n_wild):
        out[rng.randrange(len(out))] = WILD
    if out.count(WILD) > 3:
        return near_complete(rng)
    if rng.random() < 0.3:
        out[rng.randrange(len(out))] = OWN
        if out.count(OWN) > 1:
            return near_complete(rng)
    out.pop(rng.randrange(len(out)))
    return out


def test_prefilter_never_hides_a_win() -> None:
    rng = random.Random(5)
    checked = wins = 0
    for _ in range(300):
        south = near_complete(rng)
        text = " ".join(format_tiles([k]) for k in south).replace("2f", "f2")
        g = stacked_game(["", text, "", ""], indicator="9s")
        if g.counts(1)[OWN] != south.count(OWN):
            continue
        h = g.hand(1)
        for k in LONGGANG.tile_kinds:
            if k in h.flowers or h.all_tiles().count(k) >= 4 or k == 34 + 1:
                continue
            checked += 1
            if is_win(h.with_tile(k), LONGGANG, g.wilds[1]):
                wins += 1
                assert g._seats[1].could_win(k, g._bulldozer_need, g._win_size), (h, k)
    assert checked > 5000 and wins > 300
