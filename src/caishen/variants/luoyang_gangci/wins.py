"""Win conditions of Luoyang Gangci 洛阳杠次 on a player's tiles (G5).

Pure functions of a :class:`~caishen.hand.Hand` and the 次牌's kind (``ci``). The engine
decides *when* to ask (whose turn, first action or not, which discard); these functions say
whether the tiles qualify. A 次 takes the face-up 次牌 as the winning tile after a kong
(G4.2), so the 次 tests build the hand after that kong and add the 次牌 (G5.7).

Hands passed in: on one's own turn the hand after the draw (14 tiles counting 3 per meld);
for a discard (直次) the hand before the claim (13 tiles).
"""

from __future__ import annotations

from enum import StrEnum

from caishen.hand import Hand, Meld, MeldKind
from caishen.variants.luoyang_gangci.adapter import complete, hand_waits


class GangciWin(StrEnum):
    """How a Gangci hand was won (the outcome's ``how``), in the source's order A-E, then 炸弹."""

    TIAN_HU = "tian_hu"  # 天胡
    TIAN_CI = "tian_ci"  # 天次
    AN_CI = "an_ci"      # 暗次
    ZHI_CI = "zhi_ci"    # 直次
    XU_CI = "xu_ci"      # 续次
    ZHA_DAN = "zha_dan"  # 炸弹

    @property
    def chinese(self) -> str:
        return _CHINESE[self]

    @property
    def english(self) -> str:
        return _ENGLISH[self]

    @property
    def rule(self) -> str:
        """The rule ID of the win type in ``docs/rules/luoyang-gangci.md``."""
        return f"G5.{list(GangciWin).index(self) + 1}"

    @property
    def is_ci(self) -> bool:
        """A 次: the 次牌 is the winning tile (天次, 暗次, 直次, 续次)."""
        return self in (GangciWin.TIAN_CI, GangciWin.AN_CI, GangciWin.ZHI_CI, GangciWin.XU_CI)


_CHINESE = {
    GangciWin.TIAN_HU: "天胡", GangciWin.TIAN_CI: "天次", GangciWin.AN_CI: "暗次",
    GangciWin.ZHI_CI: "直次", GangciWin.XU_CI: "续次", GangciWin.ZHA_DAN: "炸弹",
}
_ENGLISH = {
    GangciWin.TIAN_HU: "heavenly win", GangciWin.TIAN_CI: "heavenly ci",
    GangciWin.AN_CI: "concealed-kong ci", GangciWin.ZHI_CI: "ci on a discard",
    GangciWin.XU_CI: "added-kong ci", GangciWin.ZHA_DAN: "bomb (self-drawn win)",
}


def ready_on_ci(hand: Hand, ci: int) -> bool:
    """听次牌 (G5.7): the 次牌's kind ``ci`` is one of the waits of ``hand`` (13 tiles).

    Source: "玩家手中牌型，听牌后需赢杠底牌"."""
    return ci in hand_waits(hand)


def _count(hand: Hand, kind: int) -> int:
    return sum(1 for t in hand.concealed if t == kind)


def _without(tiles: tuple[int, ...], kind: int, n: int) -> tuple[int, ...]:
    out = list(tiles)
    for _ in range(n):
        out.remove(kind)
    return tuple(out)


def _wins_with_ci(concealed: tuple[int, ...], melds: tuple[Meld, ...], ci: int) -> bool:
    """The hand after a kong, plus the 次牌 as its replacement tile, is complete (G5.7)."""
    return complete(Hand((*concealed, ci), melds))


def tian_hu(hand: Hand) -> bool:
    """天胡 (G5.1): the dealer's first 14 tiles form a complete hand. The engine asks only for
    the dealer before any action.

    Source: "天胡：为庄家专有，起手十四张牌，即构成胡牌结构（普通胡牌的结构），计算方式同炸弹胡牌"."""
    return not hand.melds and len(hand.concealed) == 14 and complete(hand)


def tian_ci(hand: Hand, ci: int) -> bool:
    """天次 (G5.2): three concealed tiles of the 次牌's kind, whatever the rest (U6).

    Source: "天次：玩家游戏过程中，拿到三张杠底牌时，即为天次，结算方式同暗次"."""
    return _count(hand, ci) >= 3


def an_ci_kongs(hand: Hand, ci: int) -> tuple[int, ...]:
    """The kinds held four times concealed whose concealed kong makes an 暗次 (G5.3)."""
    out: list[int] = []
    for kind in sorted(set(hand.concealed)):
        if _count(hand, kind) == 4:
            melds = (*hand.melds, Meld.kong(kind, MeldKind.CONCEALED_KONG))
            if _wins_with_ci(_without(hand.concealed, kind, 4), melds, ci):
                out.append(kind)
    return tuple(out)


def an_ci(hand: Hand, ci: int) -> bool:
    """暗次 (G5.3): on one's own turn, four concealed tiles of a kind (the fourth just drawn, or
    held already, U2) whose concealed kong leaves a hand that the 次牌 completes.

    Source: "暗次：玩家手中牌型，听牌后需赢杠底牌，此时如玩家起到暗杠，即为暗次，或手中原有暗杠，
    当牌型达到听杠底牌时，亦为暗次"."""
    return bool(an_ci_kongs(hand, ci))


def zhi_ci(hand: Hand, discard: int, ci: int) -> bool:
    """直次 (G5.4): ``hand`` (before the claim) holds a concealed triplet of the discarded kind, and
    the exposed kong on the discard leaves a hand that the 次牌 completes.

    Source: "直次：A玩家手中牌型，满足杠次需要，仅需要一个杠牌时，有玩家打出该牌时，A玩家胡牌，
    胡牌牌面即为&直次&"."""
    if _count(hand, discard) != 3:
        return False
    melds = (*hand.melds, Meld.kong(discard, MeldKind.EXPOSED_KONG))
    return _wins_with_ci(_without(hand.concealed, discard, 3), melds, ci)


def xu_ci_kongs(hand: Hand, ci: int) -> tuple[int, ...]:
    """The kinds of the player's pongs whose fourth tile he holds and whose added kong makes a
    续次 (G5.5)."""
    out: list[int] = []
    for i, m in enumerate(hand.melds):
        if m.kind is MeldKind.PONG and _count(hand, m.tile) >= 1:
            melds = (*hand.melds[:i], Meld.kong(m.tile, MeldKind.ADDED_KONG), *hand.melds[i + 1:])
            if _wins_with_ci(_without(hand.concealed, m.tile, 1), melds, ci):
                out.append(m.tile)
    return tuple(out)


def xu_ci(hand: Hand, ci: int) -> bool:
    """续次 (G5.5): on one's own turn, the fourth tile of a pong (drawn now, or kept, U8) whose added
    kong leaves a hand that the 次牌 completes.

    Source: "续次：玩家碰牌之后，牌型满足了杠次需求，当碰到的牌起到杠的时候，即可赢得比赛，成为续次。"."""
    return bool(xu_ci_kongs(hand, ci))


def zha_dan(hand: Hand) -> bool:
    """炸弹 (G5.6): the hand after one's own draw is complete (a self-drawn normal win).

    Source: "炸弹：玩家听牌后，手起到所听牌章，即可胡牌，称之为炸弹。"."""
    return complete(hand)


def own_turn_wins(hand: Hand, ci: int, dealer_first: bool = False) -> tuple[GangciWin, ...]:
    """Every win type ``hand`` (after the draw, or the dealer's first 14) qualifies for on its
    owner's turn, in :class:`GangciWin` order. ``dealer_first``: the dealer before any action."""
    found: list[GangciWin] = []
    if dealer_first and tian_hu(hand):
        found.append(GangciWin.TIAN_HU)
    if tian_ci(hand, ci):
        found.append(GangciWin.TIAN_CI)
    if an_ci(hand, ci):
        found.append(GangciWin.AN_CI)
    if xu_ci(hand, ci):
        found.append(GangciWin.XU_CI)
    if zha_dan(hand):
        found.append(GangciWin.ZHA_DAN)
    return tuple(found)
