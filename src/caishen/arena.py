"""A fair duplicate comparison of two players 对局评测: ``caishen arena A B [C ...]``.

Part of the simulator (it plays through :mod:`caishen.simulate`'s games, seeds, workers and Ray
backend; it is not a client of its own). Every *deal* (one hand's tiles, dice and the players'
randomness per seat, all from ``game_seed(seed, deal)``) is played several times with the
players arranged differently, each time as one hand:

* ``1v3``: A alone in seat 0, 1, 2, 3 against three B, then B alone in each seat against three A
  (8 hands);
* ``2v2``: A in seats 0 and 2 against B in 1 and 3, then the other way round (2 hands).

Over the hands of a deal (10 with ``mode="both"``), A and B sit in every seat equally often, so
the deal's luck cancels: the deal's **paired difference** is A's mean chip change per seat-hand
minus B's. Deals are independent, so the 95% confidence interval is a percentile bootstrap over
deals (clustered by deal: the hands of one deal are resampled together). With A and B the same
player every arrangement is the same game and the difference is exactly 0.

The chips are each hand's own settlement (:func:`caishen.simulate.hand_chips`'s, as in
``simulate --single-hand``): Longgang's L24 without going broke, Gangci's kong and win payments.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from caishen.simulate import (
    SEATS,
    HandRow,
    SimConfig,
    SimulationError,
    check_address,
    check_settings,
    run_local,
    run_ray,
)
from caishen.variants.base import VariantRules

MODES: Final = ("both", "1v3", "2v2")
RESAMPLES: Final = 2000
Z95: Final = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One seating of a deal: ``mode`` (``1v3`` or ``2v2``) and the seats A holds."""

    mode: str
    a_seats: tuple[int, ...]

    def seating(self, a: str, b: str) -> tuple[str, str, str, str]:
        names = [a if s in self.a_seats else b for s in range(SEATS)]
        return (names[0], names[1], names[2], names[3])


def arrangements(mode: str = "both") -> tuple[Arrangement, ...]:
    """The seatings each deal is played with (see the module docstring)."""
    if mode not in MODES:
        raise SimulationError(f"--mode must be one of {', '.join(MODES)}, not {mode!r}")
    out: list[Arrangement] = []
    if mode in ("both", "1v3"):
        out += [Arrangement("1v3", (s,)) for s in range(SEATS)]
        out += [Arrangement("1v3", tuple(t for t in range(SEATS) if t != s)) for s in range(SEATS)]
    if mode in ("both", "2v2"):
        out += [Arrangement("2v2", (0, 2)), Arrangement("2v2", (1, 3))]
    return tuple(out)


@dataclass(slots=True)
class Rates:
    """One side's counts over its seat-hands."""

    seat_hands: int = 0
    wins: int = 0
    deal_ins: int = 0
    chips: float = 0.0

    def add(self, row: HandRow, seats: Sequence[int]) -> None:
        self.seat_hands += len(seats)
        self.wins += sum(1 for s in seats if row.winner == s)
        self.deal_ins += sum(1 for s in seats if row.discarder == s and row.winner != s)
        self.chips += sum(row.chips[s] for s in seats)

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_hands if self.seat_hands else 0.0

    @property
    def deal_in_rate(self) -> float:
        return self.deal_ins / self.seat_hands if self.seat_hands else 0.0

    @property
    def chips_per_hand(self) -> float:
        return self.chips / self.seat_hands if self.seat_hands else 0.0


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its bootstrap 95% interval and the per-deal standard deviation."""

    mean: float
    low: float
    high: float
    sd: float

    def to_json(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "sd": self.sd}


def bootstrap(values: Sequence[float], seed: str, resamples: int = RESAMPLES) -> Interval:
    """The mean of ``values`` (one per deal) and its percentile-bootstrap 95% interval,
    resampling deals with replacement (``resamples`` times, from a generator seeded by
    ``seed``: the same run gives the same interval)."""
    n = len(values)
    if n == 0:
        return Interval(0.0, -math.inf, math.inf, math.inf)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.inf
    if n == 1:
        return Interval(mean, -math.inf, math.inf, sd)
    rng = random.Random(f"arena-bootstrap:{seed}")
    means = sorted(math.fsum(rng.choices(values, k=n)) / n for _ in range(resamples))
    lo = means[int(0.025 * (resamples - 1))]
    hi = means[int(math.ceil(0.975 * (resamples - 1)))]
    return Interval(mean, lo, hi, sd)


def hands_needed(sd: float, hands_per_deal: int, width: float) -> float:
    """Hands for a 95% interval ``width`` wide (high - low) on the paired difference, from the
    per-deal standard deviation: deals = (2 × 1.96 × sd / width)², times the hands of a deal."""
    if not math.isfinite(sd) or width <= 0:
        return math.inf
    return math.ceil((2 * Z95 * sd / width) ** 2) * hands_per_deal


@dataclass(slots=True)
class Comparison:
    """A against B over the deals played: the paired differences per deal (all hands, and
    per mode) and each side's rates."""

    a: str
    b: str
    mode: str
    deals: int = 0
    hands: int = 0
    diffs: list[float] = field(default_factory=list)
    by_mode: dict[str, list[float]] = field(default_factory=dict)
    rates: dict[str, Rates] = field(default_factory=lambda: {"a": Rates(), "b": Rates()})

    def add_deal(self, rows: Sequence[HandRow], arr: Sequence[Arrangement]) -> None:
        """The hands of one deal, in the order of ``arr``."""
        sums: dict[str, list[float]] = {}  # mode -> [A chips, A seat-hands, B chips, B seat-hands]
        for row, ar in zip(rows, arr, strict=True):
            b_seats = tuple(s for s in range(SEATS) if s not in ar.a_seats)
            self.rates["a"].add(row, ar.a_seats)
            self.rates["b"].add(row, b_seats)
            acc = sums.setdefault(ar.mode, [0.0, 0.0, 0.0, 0.0])
            acc[0] += sum(row.chips[s] for s in ar.a_seats)
            acc[1] += len(ar.a_seats)
            acc[2] += sum(row.chips[s] for s in b_seats)
            acc[3] += len(b_seats)
        total = [0.0, 0.0, 0.0, 0.0]
        for m, acc in sums.items():
            self.by_mode.setdefault(m, []).append(acc[0] / acc[1] - acc[2] / acc[3])
            total = [x + y for x, y in zip(total, acc, strict=True)]
        self.diffs.append(total[0] / total[1] - total[2] / total[3])
        self.deals += 1
        self.hands += len(rows)

    def summary(self, seed: str, width: float) -> dict[str, Any]:
        """Plain values (what ``--json`` prints and the table shows)."""
        hands_per_deal = self.hands // self.deals if self.deals else 0
        overall = bootstrap(self.diffs, seed)
        a, b = self.rates["a"], self.rates["b"]

        def finite(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "a": self.a, "b": self.b, "mode": self.mode, "deals": self.deals, "hands": self.hands,
            "diff": {k: finite(v) for k, v in overall.to_json().items()},
            "by_mode": {m: {k: finite(v) for k, v in bootstrap(d, f"{seed}:{m}").to_json().items()}
                        for m, d in sorted(self.by_mode.items())},
            "a_chips_per_hand": a.chips_per_hand, "b_chips_per_hand": b.chips_per_hand,
            "a_win_rate": a.win_rate, "b_win_rate": b.win_rate,
            "a_deal_in_rate": a.deal_in_rate, "b_deal_in_rate": b.deal_in_rate,
            "width": width, "hands_needed": finite(hands_needed(overall.sd, hands_per_deal, width)),
        }


def arena(
    a: str,
    b: str,
    deals: int,
    ruleset: VariantRules,
    seed: str,
    mode: str = "both",
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    batch_size: int | None = None,
    on_deal: Callable[[int], None] | None = None,
) -> Comparison:
    """Play ``deals`` deals of A against B (see the module docstring); the same ``seed`` deals
    the same tiles whatever B, ``workers`` or ``backend``."""
    arr = arrangements(mode)
    seatings = tuple(x.seating(a, b) for x in arr)
    games = deals * len(arr)
    check_settings(seatings[0], games, workers, backend)
    check_address(address)
    if deals < 1:
        raise SimulationError(f"--deals must be at least 1, not {deals}")
    config = SimConfig((a, b), ruleset, seed, single_hand=True, seatings=seatings)
    k = len(arr)
    # a batch is whole deals, so each deal's hands come back together
    size = batch_size * k if batch_size else max(1, min(50, deals // max(1, workers * 8) or 1)) * k
    stream = run_local(config, games, workers, size) if backend == "local" else run_ray(config, games, address, size)
    out = Comparison(a, b, mode)
    pending: list[HandRow] = []
    for rows in stream:
        pending.extend(rows)
        while len(pending) >= k:
            deal, pending = pending[:k], pending[k:]
            out.add_deal(deal, arr)
            if on_deal is not None:
                on_deal(1)
    return out
