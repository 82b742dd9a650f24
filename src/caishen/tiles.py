"""Tile kinds as small ints, with named constants.

Encoding (fixed; tables and records depend on it):

* 0-8   characters 1m-9m (万)
* 9-17  dots 1p-9p (筒)
* 18-26 bamboo 1s-9s (条)
* 27-33 honours 1z-7z: East, South, West, North, White, Green, Red
* 34-37 flowers f1-f4: 春 夏 秋 冬, belonging to East, South, West, North (L1)

A tile *kind* is one of these 38 ints; the four copies of a kind are not
distinguished anywhere in the rules, so hands are multisets of kinds.
"""

from __future__ import annotations

from typing import Final, Protocol

from caishen.errors import TileError

NUM_SUITED: Final = 27
NUM_NON_FLOWER: Final = 34
NUM_KINDS: Final = 38
COPIES: Final = 4

MAN: Final = 0
PIN: Final = 1
SOU: Final = 2
HONOR: Final = 3
FLOWER: Final = 4

SUIT_LETTERS: Final = "mpszf"

EAST: Final = 27
SOUTH: Final = 28
WEST: Final = 29
NORTH: Final = 30
WHITE: Final = 31
GREEN: Final = 32
RED: Final = 33
SPRING: Final = 34
SUMMER: Final = 35
AUTUMN: Final = 36
WINTER: Final = 37

WINDS: Final = (EAST, SOUTH, WEST, NORTH)
DRAGONS: Final = (WHITE, GREEN, RED)
FLOWERS: Final = (SPRING, SUMMER, AUTUMN, WINTER)

# Seats are ints 0-3 = East, South, West, North; turn order runs 0→1→2→3 (L2).
SEATS: Final = (0, 1, 2, 3)
SEAT_LETTERS: Final = "ESWN"


def kind(suit: int, number: int) -> int:
    """The kind of tile ``number`` (1-based) of ``suit`` (MAN, PIN, SOU, HONOR, FLOWER)."""
    if suit == FLOWER:
        if not 1 <= number <= 4:
            raise TileError(f"flower number must be 1-4, not {number}")
        return NUM_NON_FLOWER + number - 1
    limit = 7 if suit == HONOR else 9
    if not 0 <= suit <= HONOR or not 1 <= number <= limit:
        raise TileError(f"no tile {number} in suit {suit}")
    return suit * 9 + number - 1


def suit_of(k: int) -> int:
    """MAN, PIN, SOU, HONOR or FLOWER."""
    if k >= NUM_NON_FLOWER:
        return FLOWER
    return k // 9


def number_of(k: int) -> int:
    """1-based number of the tile within its suit (1-9, honours 1-7, flowers 1-4)."""
    if k >= NUM_NON_FLOWER:
        return k - NUM_NON_FLOWER + 1
    return k % 9 + 1


def is_suited(k: int) -> bool:
    return 0 <= k < NUM_SUITED


def is_honor(k: int) -> bool:
    return NUM_SUITED <= k < NUM_NON_FLOWER


def is_flower(k: int) -> bool:
    return NUM_NON_FLOWER <= k < NUM_KINDS


def is_terminal(k: int) -> bool:
    """1 or 9 of a suit (老头牌)."""
    return is_suited(k) and k % 9 in (0, 8)


def is_terminal_or_honor(k: int) -> bool:
    """么九牌 / 大子: terminals and honours, which score double (L19)."""
    return is_honor(k) or is_terminal(k)


def wind_of(seat: int, dealer: int) -> int:
    """The wind position of ``seat`` when ``dealer`` deals: 0 East (the dealer is always East,
    L2), 1 South, 2 West, 3 North, counted counter-clockwise from the dealer."""
    return (seat - dealer) % 4


def seat_wind(wind: int) -> int:
    """The wind tile 坐风 of a wind position (0 East = the dealer's seat; see :func:`wind_of`)."""
    return EAST + wind


def seat_flower(wind: int) -> int:
    """The own flower 坐花 of a wind position: 春 for East (the dealer) ... 冬 for North (L1).
    Pass :func:`wind_of` (seat, dealer), not a seat number, when the dealer may not be seat 0."""
    return SPRING + wind


def tile_name(k: int) -> str:
    """Compact notation of one tile, e.g. ``5p``, ``7z``, ``f2``."""
    if not 0 <= k < NUM_KINDS:
        raise TileError(f"no tile kind {k}")
    if is_flower(k):
        return f"f{number_of(k)}"
    return f"{number_of(k)}{SUIT_LETTERS[suit_of(k)]}"


_CN_NUMBERS: Final = "一二三四五六七八九"
_CN_HONORS: Final = ("东风", "南风", "西风", "北风", "白板", "发财", "红中")
_CN_FLOWERS: Final = ("春", "夏", "秋", "冬")
_CN_SUITS: Final = ("万", "筒", "条")
_EN_HONORS: Final = ("East", "South", "West", "North", "White", "Green", "Red")
_EN_FLOWERS: Final = ("Spring", "Summer", "Autumn", "Winter")
_EN_SUITS: Final = ("characters", "dots", "bamboo")


def chinese_name(k: int) -> str:
    """Chinese name of a tile kind, e.g. 一万, 五筒, 红中, 春."""
    if is_flower(k):
        return _CN_FLOWERS[k - NUM_NON_FLOWER]
    if is_honor(k):
        return _CN_HONORS[k - NUM_SUITED]
    if is_suited(k):
        return _CN_NUMBERS[k % 9] + _CN_SUITS[k // 9]
    raise TileError(f"no tile kind {k}")


def english_name(k: int) -> str:
    """English name of a tile kind, e.g. '5 dots', 'Red', 'Spring'."""
    if is_flower(k):
        return _EN_FLOWERS[k - NUM_NON_FLOWER]
    if is_honor(k):
        return _EN_HONORS[k - NUM_SUITED]
    if is_suited(k):
        return f"{k % 9 + 1} {_EN_SUITS[k // 9]}"
    raise TileError(f"no tile kind {k}")


# Unicode Mahjong Tiles block: winds/dragons U+1F000-1F006 (E S W N Red Green White),
# characters U+1F007-, bamboo U+1F010-, dots U+1F019-, seasons U+1F026-.
def _glyph_code(k: int) -> int:
    if is_flower(k):
        return 0x1F026 + k - NUM_NON_FLOWER
    if is_honor(k):
        return 0x1F000 + (0, 1, 2, 3, 6, 5, 4)[k - NUM_SUITED]
    suit = k // 9
    base = (0x1F007, 0x1F019, 0x1F010)[suit]
    return base + k % 9


GLYPHS: Final = tuple(chr(_glyph_code(k)) for k in range(NUM_KINDS))


def glyph(k: int) -> str:
    """Unicode mahjong glyph of a tile kind, e.g. 🀇 for 1m."""
    return GLYPHS[k]


ALL_KINDS: Final = tuple(range(NUM_KINDS))


class TileSet(Protocol):
    """Anything that says which tiles are in play (a variant's rules): ``tile_kinds`` (each
    4 copies, flowers 1 copy) and a ``name`` for messages."""

    @property
    def name(self) -> str: ...
    @property
    def tile_kinds(self) -> tuple[int, ...]: ...
