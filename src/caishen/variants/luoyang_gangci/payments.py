"""Settlement of Luoyang Gangci 洛阳杠次 by G2: kong payments during the hand and win payments.

Every payment is a :class:`Payment` naming its rule (G2.2-G2.8) and item; a hand's payments
in order make a :class:`Statement`, whose ``table()`` is the itemised explanation. Amounts are
in the table's chips (the bases of :class:`~caishen.variants.luoyang_gangci.rules.GangciRules`).
There is no doubling and no dealer double (G2.10), so no seat other than the payee matters.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from caishen.tiles import SEAT_LETTERS
from caishen.variants.luoyang_gangci.wins import GangciWin

SEATS = 4


class Bases(Protocol):
    """The three bases of a table (G2.1), as :class:`~caishen.variants.luoyang_gangci.rules.GangciRules` has them."""

    @property
    def gang_base(self) -> int: ...
    @property
    def bomb_base(self) -> int: ...
    @property
    def ci_base(self) -> int: ...


class KongKind(StrEnum):
    """The three kongs, which are paid differently (G2.2-G2.4)."""

    EXPOSED = "exposed"      # 明杠 on a discard
    CONCEALED = "concealed"  # 暗杠
    ADDED = "added"          # 补杠: a pong and its fourth tile


class PaymentItem(StrEnum):
    """What a payment is for: one line kind of the explanation, with its rule ID and names."""

    EXPOSED_KONG = "exposed_kong"
    CONCEALED_KONG = "concealed_kong"
    ADDED_KONG = "added_kong"
    ZHA_DAN = "zha_dan"
    TIAN_HU = "tian_hu"
    AN_CI = "an_ci"
    TIAN_CI = "tian_ci"
    ZHI_CI_DISCARDER = "zhi_ci_discarder"
    ZHI_CI_OTHER = "zhi_ci_other"
    XU_CI_PONGED = "xu_ci_ponged"
    XU_CI_OTHER = "xu_ci_other"

    @property
    def rule(self) -> str:
        return _ITEMS[self][0]

    @property
    def chinese(self) -> str:
        return _ITEMS[self][1]

    @property
    def english(self) -> str:
        return _ITEMS[self][2]


_ITEMS: dict[PaymentItem, tuple[str, str, str]] = {
    PaymentItem.EXPOSED_KONG: ("G2.2", "明杠 点杠者付", "exposed kong, paid by the discarder"),
    PaymentItem.CONCEALED_KONG: ("G2.3", "暗杠 每家付", "concealed kong, paid by each"),
    PaymentItem.ADDED_KONG: ("G2.4", "补杠 被碰者付", "added kong, paid by the ponged player"),
    PaymentItem.ZHA_DAN: ("G2.5", "炸弹 每家付", "bomb, paid by each"),
    PaymentItem.TIAN_HU: ("G2.5", "天胡 每家付", "heavenly win, paid by each"),
    PaymentItem.AN_CI: ("G2.6", "暗次 每家付", "concealed-kong ci, paid by each"),
    PaymentItem.TIAN_CI: ("G2.6", "天次 每家付", "heavenly ci, paid by each"),
    PaymentItem.ZHI_CI_DISCARDER: ("G2.7", "直次 点炮者付", "ci on a discard, the discarder"),
    PaymentItem.ZHI_CI_OTHER: ("G2.7", "直次 其他家付", "ci on a discard, a bystander"),
    PaymentItem.XU_CI_PONGED: ("G2.8", "续次 被续杠者付", "added-kong ci, the ponged player"),
    PaymentItem.XU_CI_OTHER: ("G2.8", "续次 其他家付", "added-kong ci, a bystander"),
}


@dataclass(frozen=True, slots=True)
class Payment:
    """``amount`` moves from seat ``payer`` to seat ``payee`` for ``item``; ``rule`` cites G2.x;
    ``formula`` shows how the amount comes from the bases (``2 × 6000 + 1000``)."""

    payer: int
    payee: int
    amount: int
    rule: str
    item: PaymentItem
    formula: str

    def to_json(self) -> dict[str, object]:
        return {"payer": SEAT_LETTERS[self.payer], "payee": SEAT_LETTERS[self.payee],
                "amount": self.amount, "rule": self.rule, "item": self.item.value,
                "chinese": self.item.chinese, "english": self.item.english, "formula": self.formula}


def _pay(payer: int, payee: int, amount: int, item: PaymentItem, formula: str) -> Payment:
    return Payment(payer, payee, amount, item.rule, item, formula)


def _others(seat: int) -> tuple[int, ...]:
    """The other three seats, in turn order after ``seat``."""
    return tuple((seat + i) % SEATS for i in range(1, SEATS))


def _check_seats(payee: int, fed_by: int | None, needed: bool) -> None:
    if payee not in range(SEATS):
        raise ValueError(f"seat must be 0-3, not {payee!r}")
    if needed and (fed_by is None or fed_by not in range(SEATS) or fed_by == payee):
        raise ValueError(f"this payment needs the other seat that fed the tile, not {fed_by!r}")
    if not needed and fed_by is not None:
        raise ValueError("this payment has no feeding seat")


def kong_payments(kind: KongKind, konger: int, rules: Bases, fed_by: int | None = None) -> tuple[Payment, ...]:
    """Payments for a kong declared during the hand that is not a 次 (G2.9): exposed, the
    discarder ``fed_by`` pays 1× 杠底 (G2.2); concealed, each other seat 2× 杠底 (G2.3); added,
    the player whose discard was ponged (``fed_by``) 1× 杠底 (G2.4, reading U3)."""
    g = rules.gang_base
    if kind is KongKind.CONCEALED:
        _check_seats(konger, fed_by, needed=False)
        return tuple(_pay(p, konger, 2 * g, PaymentItem.CONCEALED_KONG, f"2 × {g}") for p in _others(konger))
    _check_seats(konger, fed_by, needed=True)
    assert fed_by is not None
    item = PaymentItem.EXPOSED_KONG if kind is KongKind.EXPOSED else PaymentItem.ADDED_KONG
    return (_pay(fed_by, konger, g, item, f"1 × {g}"),)


def win_payments(how: GangciWin, winner: int, rules: Bases, fed_by: int | None = None) -> tuple[Payment, ...]:
    """Payments for a win (G2.5-G2.8). ``fed_by``: the discarder for 直次, the player whose
    discard the winner ponged for 续次, else ``None``. The 次's own kong is inside these
    amounts and is not paid again (G2.9)."""
    g, b, c = rules.gang_base, rules.bomb_base, rules.ci_base
    fed = how in (GangciWin.ZHI_CI, GangciWin.XU_CI)
    _check_seats(winner, fed_by, needed=fed)
    if how in (GangciWin.ZHA_DAN, GangciWin.TIAN_HU):  # G2.5
        item = PaymentItem.ZHA_DAN if how is GangciWin.ZHA_DAN else PaymentItem.TIAN_HU
        return tuple(_pay(p, winner, b, item, f"{b}") for p in _others(winner))
    if how in (GangciWin.AN_CI, GangciWin.TIAN_CI):  # G2.6
        item = PaymentItem.AN_CI if how is GangciWin.AN_CI else PaymentItem.TIAN_CI
        return tuple(_pay(p, winner, c + g, item, f"{c} + {g}") for p in _others(winner))
    out: list[Payment] = []
    for p in _others(winner):
        if how is GangciWin.ZHI_CI:  # G2.7
            if p == fed_by:
                out.append(_pay(p, winner, 2 * c + g, PaymentItem.ZHI_CI_DISCARDER, f"2 × {c} + {g}"))
            else:
                out.append(_pay(p, winner, c // 2, PaymentItem.ZHI_CI_OTHER, f"{c} × 0.5"))
        elif p == fed_by:  # G2.8
            out.append(_pay(p, winner, c + g, PaymentItem.XU_CI_PONGED, f"{c} + {g}"))
        else:
            out.append(_pay(p, winner, c, PaymentItem.XU_CI_OTHER, f"{c}"))
    return tuple(out)


def winner_gain(how: GangciWin, rules: Bases) -> int:
    """What the winner receives in all for a win of type ``how`` (G2.5-G2.8)."""
    fed_by = 1 if how in (GangciWin.ZHI_CI, GangciWin.XU_CI) else None
    return sum(p.amount for p in win_payments(how, 0, rules, fed_by))


def best_win(types: Iterable[GangciWin], rules: Bases) -> GangciWin:
    """G5.10: of the types one ``win`` qualifies for, the one that pays the winner most;
    ties go to the source's order (天胡, 天次, 暗次, 直次, 续次, 炸弹)."""
    order = list(GangciWin)
    candidates = sorted(set(types), key=order.index)
    if not candidates:
        raise ValueError("no win type to choose from")
    return max(candidates, key=lambda t: (winner_gain(t, rules), -order.index(t)))


def _pad(text: str, width: int) -> str:
    """Left-justify by display width (CJK characters take two columns)."""
    wide = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - wide)


@dataclass(frozen=True, slots=True)
class Statement:
    """A hand's payments in the order they were made (kongs, then the win); ``net`` per seat
    sums to 0 (G2.11: a drawn hand keeps its kong payments)."""

    payments: tuple[Payment, ...]

    @property
    def net(self) -> tuple[int, int, int, int]:
        n = [0, 0, 0, 0]
        for p in self.payments:
            n[p.payer] -= p.amount
            n[p.payee] += p.amount
        return (n[0], n[1], n[2], n[3])

    def table(self) -> str:
        """The itemised explanation as a plain-text table."""
        lines = [f"{'rule':<7}{_pad('item', 54)}{'from':<5}{'to':<5}{'amount':>8}  formula"]
        for p in self.payments:
            label = f"{p.item.chinese} {p.item.english}"
            lines.append(f"{p.rule:<7}{_pad(label, 54)}{SEAT_LETTERS[p.payer]:<5}"
                         f"{SEAT_LETTERS[p.payee]:<5}{p.amount:>8}  {p.formula}")
        lines.append("net: " + "  ".join(f"{SEAT_LETTERS[s]} {n:+d}" for s, n in enumerate(self.net)))
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        return {"payments": [p.to_json() for p in self.payments],
                "net": {SEAT_LETTERS[s]: n for s, n in enumerate(self.net)}}
