"""What every variant provides: the :class:`Variant` protocol and the values it hands out.

A variant is a package under :mod:`caishen.variants` with its rules dataclass and presets,
the hooks the engine calls, its scoring and its settlement. The registry
(:func:`caishen.variants.get`) maps a name to the variant object; the table layer, the
commands and the clients only talk to variants through this protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from caishen.engine.outcome import Outcome
from caishen.engine.rules import GameRules
from caishen.ruleset import Switch


class VariantRules(GameRules, Protocol):
    """What any variant's rules object offers: the engine's data and hooks
    (:class:`~caishen.engine.rules.GameRules`), its switches, and a checked copy."""

    @property
    def hands_per_match(self) -> int: ...
    def switches(self) -> tuple[Switch, ...]: ...
    def replace(self, **changes: object) -> VariantRules: ...


@dataclass(frozen=True, slots=True)
class Transfer:
    """``chips`` move from seat ``payer`` to seat ``payee``; ``rule`` cites the rule ID and
    ``what`` names the item (结算)."""

    payer: int
    payee: int
    chips: int
    rule: str
    what: str


class ScoreSheet(Protocol):
    """A finished hand's explained score, whatever the variant: JSON for records and an
    itemised plain-text table (rule, item, amounts)."""

    def to_json(self) -> dict[str, object]: ...
    def table(self) -> str: ...


@dataclass(frozen=True, slots=True)
class HandSettlement:
    """One finished hand booked by a :class:`Ledger`: its explained score (``None`` when
    nothing is scored, e.g. a drawn Longgang hand), each seat's net chips, the transfers
    behind them, the players who went broke in it, whether the dealer keeps the deal, and
    the players who must give their seat to a waiting player before the next hand."""

    score: ScoreSheet | None
    chips: tuple[int, int, int, int]
    transfers: tuple[Transfer, ...]
    broke: tuple[int, ...]
    dealer_keeps: bool
    sit_out: tuple[int, ...] = ()  # players who leave their seat to a waiting player (替补)


class Ledger(Protocol):
    """A match's chips under one variant's settlement: players ``0..n-1``; each hand says who
    sits in which seat (``seats[s]`` is the player in seat ``s``)."""

    @property
    def over(self) -> bool: ...
    @property
    def ended_by(self) -> str: ...           # "" while playing, then e.g. "hands" or "broke"
    @property
    def chips(self) -> list[int]: ...         # by player
    @property
    def fees(self) -> int: ...
    @property
    def broke_events(self) -> list[int]: ...  # players who went broke, in order
    @property
    def loan_list(self) -> tuple[tuple[int, int, int], ...]: ...  # (lender, borrower, chips)
    def settle(self, seats: tuple[int, int, int, int], outcome: Outcome) -> HandSettlement: ...
    def restore(self, chips: Sequence[int], hands: int, broke: Sequence[int]) -> None:
        """Put the ledger in the state of a match in progress (each player's chips, hands
        played, players broke in order): a scenario's ``[match]``."""


@dataclass(frozen=True, slots=True)
class RuleItem:
    """One scoring or payment item as ``caishen rules`` lists it: its rule ID, Chinese and
    English names, unit (``fu``, ``tai``, ``limit``, ``chips``…), value under the given rules,
    and whose hand or which players it concerns."""

    key: str
    rule: str
    chinese: str
    english: str
    unit: str
    value: str
    applies_to: str


class Variant(Protocol):
    """A regional game: its name (``longgang``), title, presets and rule items."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def presets(self) -> Mapping[str, VariantRules]: ...
    def load_rules(self, source: str | Path) -> VariantRules: ...
    def rule_items(self, rules: VariantRules) -> tuple[RuleItem, ...]: ...
    def ledger(self, rules: VariantRules, players: int) -> Ledger: ...
