"""Build a stacked wall from notation, for scenario tests of :class:`caishen.engine.game.Game`.

``stacked_wall(hands=[...], draws=..., indicator=..., tail=...)`` places the given tiles where
the engine will deal and draw them (see :mod:`caishen.engine.wall`): ``hands[s]`` is seat ``s``'s deal
(16 tiles, the dealer's 17), ``draws`` the normal draws after the deal in order, ``tail`` the
replacement draws in order, ``indicator`` the turned tile, ``head_at`` single tiles at given
indices of the head order (``Game.layout.head``; the deal takes indices 0-64). Every other position gets the
remaining tiles deterministically: non-flowers in a fixed shuffled order, left-over flowers deep
in the dead wall so they do not surprise a test.
"""

from __future__ import annotations

import random

from caishen.engine.game import Game
from caishen.engine.wall import layout
from caishen.notation import parse_tile, parse_tiles
from caishen.tiles import NUM_KINDS, is_flower, tile_name
from caishen.variants.longgang.rules import LONGGANG, Ruleset

DICE = (3, 4, 2, 5)


def tiles(text: str) -> tuple[int, ...]:
    """Tiles in notation, tokens separated by spaces: ``123m 55z f2``."""
    out: list[int] = []
    for tok in text.split():
        if tok[0] == "f" and tok[1:].isdigit():
            out.extend(parse_tile("f" + d) for d in tok[1:])
        else:
            out.extend(parse_tiles(tok))
    return tuple(out)


def stacked_wall(
    hands: list[str],
    draws: str = "",
    indicator: str = "9s",
    tail: str = "",
    dealer: int = 0,
    dice: tuple[int, int, int, int] = DICE,
    ruleset: Ruleset = LONGGANG,
    head_at: dict[int, str] | None = None,
) -> tuple[int, ...]:
    from caishen.fair import tile_set

    lay = layout(dice, dealer, ruleset.wall_size, ruleset.wild_indicator)
    wall: list[int] = [-1] * ruleset.wall_size
    left = [0] * NUM_KINDS
    for k in tile_set(ruleset):
        left[k] += 1

    def put(pos: int, k: int) -> None:
        if wall[pos] != -1:
            raise AssertionError(f"wall position {pos} given twice")
        if left[k] <= 0:
            raise AssertionError(f"no copy of {tile_name(k)} left to place")
        left[k] -= 1
        wall[pos] = k

    if ruleset.wild_indicator:
        put(lay.indicator_pos, parse_tile(indicator))
    hand_tiles = [list(tiles(h)) for h in hands]
    size = ruleset.hand_size
    for s, h in enumerate(hand_tiles):
        want = size + (1 if s == dealer else 0)
        if h and len(h) != want:
            raise AssertionError(f"seat {s} must be dealt {want} tiles, got {len(h)}")
    head = lay.head
    i = 0
    rounds = size // 4
    for r in range(rounds):
        for j in range(4):
            s = (dealer + j) % 4
            for t in range(4):
                if hand_tiles[s]:
                    put(head[i], hand_tiles[s][4 * r + t])
                i += 1
    if hand_tiles[dealer]:
        put(head[i], hand_tiles[dealer][size])
    i += 1
    for k in tiles(draws):
        put(head[i], k)
        i += 1
    for j, k in enumerate(tiles(tail)):
        put(lay.tail[j], k)
    for idx, text in (head_at or {}).items():
        put(head[idx], parse_tile(text))
    # Left-over flowers and wilds deep in the dead wall (tail indices 19, 18, ...), the rest
    # shuffled: filler never brings a surprise wild or flower.
    ind = parse_tile(indicator) if ruleset.wild_indicator else -1
    flowers = [k for k in range(NUM_KINDS) if is_flower(k) or k == ind for _ in range(left[k])]
    j = 19
    for k in flowers:
        while wall[lay.tail[j]] != -1:
            j -= 1
        put(lay.tail[j], k)
    rest = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    random.Random(0).shuffle(rest)
    it = iter(rest)
    for pos in (*head, *lay.tail):
        if wall[pos] == -1:
            put(pos, next(it))
    return tuple(wall)


def stacked_game(
    hands: list[str],
    draws: str = "",
    indicator: str = "9s",
    tail: str = "",
    dealer: int = 0,
    dice: tuple[int, int, int, int] = DICE,
    ruleset: Ruleset = LONGGANG,
    head_at: dict[int, str] | None = None,
) -> Game:
    """A :class:`Game` on a stacked wall (same arguments as :func:`stacked_wall`)."""
    wall = stacked_wall(hands, draws, indicator, tail, dealer, dice, ruleset, head_at)
    return Game(ruleset, wall, dice, dealer)
