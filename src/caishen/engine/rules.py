"""What the engine reads of a variant's rules: the :class:`GameRules` protocol.

A variant's rules dataclass has these attributes (data) and the hooks below (where the wall
starts, which kinds are wild, and, for a variant that decides its own wins, which win a hand
makes); the engine reads nothing else, so it never needs to know which variant it plays.
"""

from __future__ import annotations

from typing import Protocol

from caishen.engine.wall import WallLayout
from caishen.hand import Hand
from caishen.shapes.analysis import Forms


class GameRules(Forms, Protocol):
    """The data and hooks the engine plays a hand by (besides the forms the analyser takes)."""

    @property
    def name(self) -> str: ...
    @property
    def has_flowers(self) -> bool: ...
    @property
    def wall_size(self) -> int: ...
    @property
    def allow_chow(self) -> bool: ...               # 吃 from the player on the left (L9)
    @property
    def wild_indicator(self) -> bool: ...           # a tile is turned up after the deal (L4)
    @property
    def dead_wall_stacks(self) -> int: ...          # 王牌 (L6)
    @property
    def sea_floor_tiles(self) -> int: ...           # 海底牌 shared out in 分张 (L6, L17)
    @property
    def sea_floor_kong_no_discard(self) -> bool: ...
    @property
    def indicator_splits_tail(self) -> bool: ...    # the turned tile leaves the tail stack split (L6)
    @property
    def opening_kong_round(self) -> bool: ...       # concealed kongs declared in turn after the flowers (L9)
    @property
    def wild_single_wait_any_tile(self) -> bool: ...
    @property
    def rob_kong_with_wild_pair(self) -> bool: ...
    @property
    def human_win(self) -> bool: ...
    @property
    def draw_on_four_winds(self) -> bool: ...
    @property
    def draw_on_four_kongs(self) -> bool: ...
    @property
    def draw_on_three_wins(self) -> bool: ...       # three wins on one discard: a draw (L17)

    def wild_kinds(self, indicator: int | None, wind: int) -> frozenset[int]:
        """The kinds wild 财神 for the seat at wind position ``wind`` (0: East, the dealer;
        1-3 counter-clockwise from him) given the turned tile (``None``: none)."""
        ...

    def wall_layout(self, dice: tuple[int, int, int, int], dealer: int, wall_size: int) -> WallLayout:
        """Where the deal starts, the turned tile's position and the tail, for these dice."""
        ...

    @property
    def declares_draws(self) -> bool:
        """True: a seat may declare the hand drawn (叫和局) in its own turn of the first go-round
        when :meth:`draw_declaration` names a reason; False: never asked (one check per turn)."""
        ...

    def draw_declaration(self, hand: Hand, wilds: frozenset[int]) -> str | None:
        """The variant's name for the drawn hand ``hand`` (after its draw, wild kinds ``wilds``)
        may declare, ``None`` if it may not. Asked only when :attr:`declares_draws`, in the
        seat's own turn (not after a chow or pong) of the first go-round: before any chow, pong
        or exposed kong, and before the dealer's second draw."""
        ...

    @property
    def pass_bans(self) -> bool: ...               # passing a win or a pong restricts later claims (L11)
    @property
    def decides_wins(self) -> bool:
        """True: wins are exactly what :meth:`own_turn_win` and :meth:`discard_win` say (no
        robbing a kong); False: the engine's analyser with wilds decides (win type ``None``)."""
        ...

    def own_turn_win(self, hand: Hand, indicator: int | None, first_turn: bool) -> str | None:
        """The win type ``hand`` (after its draw; ``first_turn``: the dealer's first 14 tiles)
        makes on its owner's turn, ``None`` for none. Asked only when :attr:`decides_wins`."""
        ...

    def discard_win(self, hand: Hand, tile: int, indicator: int | None) -> str | None:
        """The win type ``hand`` (before the claim) makes on another seat's discard ``tile``,
        ``None`` for none. Asked only when :attr:`decides_wins`."""
        ...

    @property
    def special_shapes(self) -> bool:
        """True: the variant has winning shapes the analyser does not know, any time
        (:meth:`special_win`); False: never asked (one check when the analyser finds no win)."""
        ...

    def special_win(self, hand: Hand, wilds: frozenset[int]) -> bool:
        """Whether ``hand`` (the winning tile included) wins in a shape the analyser does not
        know, at any time, self-drawn, on a discard or robbing a kong. Asked only when
        :attr:`special_shapes`, when the analyser finds no win and :attr:`decides_wins` is False."""
        ...

    def first_draw_win(self, hand: Hand, wilds: frozenset[int]) -> bool:
        """Whether ``hand`` wins in a shape the analyser does not know that may win only on its
        owner's first draw (the dealer: his dealt hand) before any chow, pong or exposed kong.
        Asked on such a turn when the analyser finds no win and :attr:`decides_wins` is False."""
        ...
