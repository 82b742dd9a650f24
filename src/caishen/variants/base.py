"""What every variant provides: the :class:`Variant` protocol and the values it hands out.

A variant is a package under :mod:`caishen.variants` with its rules dataclass and presets,
the hooks the engine calls, its scoring and its settlement. The registry
(:func:`caishen.variants.get`) maps a name to the variant object; the table layer, the
commands and the clients only talk to variants through this protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from caishen.ruleset import Switch


class VariantRules(Protocol):
    """What any variant's rules object offers besides its own switches."""

    @property
    def name(self) -> str: ...
    @property
    def hands_per_match(self) -> int: ...
    def switches(self) -> tuple[Switch, ...]: ...


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
