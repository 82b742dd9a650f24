"""How a hand ended 结果: :class:`Outcome`, in one vocabulary (:class:`WinHow`, :class:`DrawReason`).

The engine says what happened; scoring and settlement are the variant's and are called by the
table layer (:mod:`caishen.table`), never by the engine.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from caishen.hand import Hand, MeldKind

SEATS: Final = 4


class WinHow(enum.StrEnum):
    """How a hand was won: the one vocabulary of records, scoring, simulation and clients."""

    SELF_DRAW = "self_draw"    # 自摸 (incl. 杠上开花 and 海底捞月)
    DISCARD = "discard"        # 食胡 / 放炮
    ROB_KONG = "rob_kong"      # 抢杠, scores as a win on a discard (L10)
    BULLDOZER = "bulldozer"    # 推土机 declared on another seat's discard, the discard not taken (L8)


class DrawReason(enum.StrEnum):
    """Why a hand ended without a winner 流局."""

    WALL = "wall"              # the wall ran out (L17)
    FOUR_WINDS = "four_winds"  # 四风连打 (switch)
    FOUR_KONGS = "four_kongs"  # 四杠 by several players (switch)
    THREE_WINS = "three_wins"  # 一炮三響: three seats win on one discard (switch)
    DECLARED = "declared"      # a seat declared the hand drawn 叫和局 (the variant's name: draw_type)


@dataclass(frozen=True, slots=True)
class Claim:
    """A pong or kong made during the hand, in order: ``kind`` of the meld, the ``tile`` kind,
    the ``seat`` that made it and ``fed_by``, the seat whose discard it took (for an added kong:
    whose discard the pong took), ``None`` for a concealed kong. Variants that pay for kongs
    during the hand settle these."""

    seat: int
    tile: int
    kind: MeldKind
    fed_by: int | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a hand. ``winner`` is ``None`` for a draw 流局 (L17). ``tile`` is the
    winning tile (``None`` for a bulldozer declared on another's discard); ``from_seat`` the
    discarder or the robbed konger. ``indicator``: the turned tile, ``None`` without one.
    ``hands`` are the final hands of all seats (the winner's including the winning tile)."""

    winner: int | None
    how: WinHow | None
    tile: int | None
    from_seat: int | None
    dealer: int
    indicator: int | None
    hands: tuple[Hand, ...]
    wilds: tuple[frozenset[int], ...]
    heavenly: bool = False      # 天胡 (L15)
    earthly: bool = False       # 地胡 (L15)
    human: bool = False         # 人胡: won in the first go-round, only with the human_win switch (L15)
    after_kong: bool = False    # won on a replacement tile 杠上开花 / 花上开花
    sea_floor: bool = False     # won on a sea-floor tile in 分张 海底捞月 (L17)
    last_live_tile: bool = False  # won on the last live tile or its discard 河底捞月
    draw_reason: DrawReason | None = None
    win_type: str | None = None  # the variant's name of the win, when the variant decides wins
    draw_type: str | None = None  # the variant's name of a declared draw (DrawReason.DECLARED)
    declared_by: int | None = None  # the seat that declared it
    claims: tuple[Claim, ...] = ()  # pongs and kongs made during the hand, in order
    # per seat, the flowers that never got their replacement: laid open in 分张 (L17) or still
    # held when the hand ended (L7); () when the variant has no flowers or none is left
    unreplaced_flowers: tuple[tuple[int, ...], ...] = ()
    # per seat, the discards left in the river at the end (a discard won on or claimed is not
    # there), and the live tiles left (L6): what a variant's payment rules may look at
    discards: tuple[tuple[int, ...], ...] = ()
    live_tiles: int = 0

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @property
    def next_dealer(self) -> int:
        """L18: the dealer keeps the deal only by winning."""
        return self.dealer if self.winner == self.dealer else (self.dealer + 1) % SEATS

    @property
    def flags(self) -> tuple[str, ...]:
        """The names of the flags that are set, in a fixed order."""
        return tuple(
            name for name in ("heavenly", "earthly", "human", "after_kong", "sea_floor", "last_live_tile")
            if getattr(self, name)
        )
