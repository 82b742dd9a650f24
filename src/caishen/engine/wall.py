"""Wall geometry 牌墙: which wall position is drawn when (L4, L6).

Wall positions follow :func:`caishen.fair.shuffled_wall`: position ``i`` is on side ``i // 34``
(0 = East's wall, 1 = South, 2 = West, 3 = North), stack ``(i % 34) // 2`` (0..16 left to right
as seen by the seat owning that wall) and level ``i % 2`` (0 = top, 1 = bottom).

L4: the dealer's roll (sum ``s1``) counts seats counter-clockwise from the dealer (the dealer
counts 1; 5 counts as 6 and 9 as 8, source 五变六 九变八) to pick the opener 开门人; the sum of both rolls ``s`` counts stacks clockwise along
the opener's wall from its right end (count 1 = the opener's rightmost stack), continuing onto
the wall of the opener's left neighbour 上家 (its rightmost stack counts 18). The counted stack
``s`` holds the wild indicator on its top level. Drawing walks clockwise from the stack after it
(count ``s+1``) round the table, so the counted stacks are the tail of the wall: replacement
draws 补花/补杠 are taken there, backwards, top before bottom, skipping the indicator.
"""

from __future__ import annotations

from dataclasses import dataclass

from caishen import fair
from caishen.errors import CaishenError
from caishen.tiles import NUM_KINDS, TileSet, tile_name

SEATS = 4


@dataclass(frozen=True, slots=True)
class WallLayout:
    """Draw order of one wall: ``head`` (normal draws, deal included) and ``tail`` (replacement
    draws), both lists of wall positions without the indicator; ``indicator_pos`` is the
    indicator's position (``-1`` when the ruleset turns no indicator)."""

    opener: int
    break_count: int
    indicator_pos: int
    head: tuple[int, ...]
    tail: tuple[int, ...]

    def __reduce__(self) -> tuple[type[WallLayout], tuple[int, int, int, tuple[int, ...], tuple[int, ...]]]:
        # Pickle and copy through the constructor: the compiled build (mypyc) cannot set the
        # fields of a frozen dataclass after construction.
        return (WallLayout, (self.opener, self.break_count, self.indicator_pos, self.head, self.tail))


def opener_of(dealer: int, first_roll: int) -> int:
    """The opener 开门人: count ``first_roll`` seats counter-clockwise, the dealer counting 1.
    The source's 五变六, 九变八: a 5 counts as 6 and a 9 as 8, so the dealer never opens his
    own wall (the stack count still uses the rolls as thrown)."""
    n = 6 if first_roll == 5 else 8 if first_roll == 9 else first_roll
    return (dealer + n - 1) % SEATS


def stack_of_count(opener: int, count: int, stacks_per_side: int) -> tuple[int, int]:
    """(side, stack) of the stack counted ``count`` (1-based) clockwise from the right end of
    the opener's wall, going on to the wall of the seat on the opener's left (L4)."""
    c = (count - 1) % (SEATS * stacks_per_side)
    side = (opener - c // stacks_per_side) % SEATS
    stack = stacks_per_side - 1 - c % stacks_per_side
    return side, stack


def layout(dice: tuple[int, int, int, int], dealer: int, wall_size: int, indicator: bool = True) -> WallLayout:
    """The draw order for these dice (L4). ``wall_size`` must be a multiple of 8."""
    return layout_from(opener_of(dealer, dice[0] + dice[1]), sum(dice), wall_size, indicator)


def layout_from(opener: int, count: int, wall_size: int, indicator: bool = True) -> WallLayout:
    """The draw order when ``count`` stacks are counted clockwise from the right end of the
    ``opener``'s wall: drawing starts at the next stack; the counted stack's top tile is the
    turned tile (with ``indicator``) and the counted stacks are the tail, walked backwards."""
    if wall_size % (2 * SEATS):
        raise CaishenError(f"wall size {wall_size} does not make 4 walls of 2-tile stacks")
    per_side = wall_size // (2 * SEATS)
    n_stacks = SEATS * per_side
    s = count
    # Stacks in draw order: count s+1, s+2, ... wrapping round to count s (the indicator's).
    order = []
    for j in range(n_stacks):
        side, stack = stack_of_count(opener, s + 1 + j, per_side)
        order.append(side * 2 * per_side + stack * 2)
    ind = order[-1] if indicator else -1  # top level of the counted stack
    head = tuple(p for base in order for p in (base, base + 1) if p != ind)
    tail = tuple(p for base in reversed(order) for p in (base, base + 1) if p != ind)
    return WallLayout(opener, s, ind, head, tail)


_EXPECTED: dict[TileSet, list[int]] = {}


def check_wall(wall: tuple[int, ...], ruleset: TileSet) -> None:
    """Raise a :class:`CaishenError` (``bad-wall``) unless ``wall`` holds exactly the tiles of
    ``ruleset``'s set."""
    want = _EXPECTED.get(ruleset)
    if want is None:
        want = [0] * NUM_KINDS
        for k in fair.tile_set(ruleset):
            want[k] += 1
        _EXPECTED[ruleset] = want
    if len(wall) != sum(want):
        raise CaishenError(f"a wall must hold {sum(want)} tiles, not {len(wall)}", code="bad-wall")
    have = [0] * NUM_KINDS
    for i, k in enumerate(wall):
        if type(k) is not int or not 0 <= k < NUM_KINDS or not want[k]:
            raise CaishenError(f"wall position {i}: {k!r} is not a tile of this ruleset", code="bad-wall")
        have[k] += 1
    if have != want:
        bad = next(k for k in range(NUM_KINDS) if have[k] != want[k])
        raise CaishenError(f"the wall holds {have[bad]} of {tile_name(bad)}, expected {want[bad]}", code="bad-wall")
