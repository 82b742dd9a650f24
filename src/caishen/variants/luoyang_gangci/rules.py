"""Switches of Luoyang Gangci 洛阳杠次 (规则): a frozen :class:`GangciRules` and its presets.

Only this variant's switches are here (``docs/rules/luoyang-gangci.md``, "All switches").
Each field carries the metadata of the core's rulesets (``rule``, ``doc``) plus what values
it accepts: ``range`` (inclusive bounds of an int) or ``choices`` (the allowed values).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Final, TypeVar

T = TypeVar("T")

#: Largest base a table may set (a hand moves at most 3 × (2 × 杠次底 + 杠底) chips).
MAX_BASE: Final = 10_000_000


class RulesError(ValueError):
    """A Gangci switch set to a value it does not accept (unknown key, wrong type, out of range)."""


def _switch(default: T, rule: str, doc: str, *, bounds: tuple[int, int] | None = None,
            choices: tuple[object, ...] | None = None) -> T:
    meta: dict[str, object] = {"rule": rule, "doc": doc}
    if bounds is not None:
        meta["range"] = bounds
    if choices is not None:
        meta["choices"] = choices
    return field(default=default, metadata=meta)


@dataclass(frozen=True, slots=True)
class Switch:
    """One switch as ``caishen rules`` lists it: ``allowed`` is its range or choices as text."""

    name: str
    value: object
    rule: str
    doc: str
    allowed: str


@dataclass(frozen=True, slots=True)
class GangciRules:
    """All switches of one Luoyang Gangci table (洛阳杠次规则). Frozen; change with :meth:`replace`."""

    name: str = _switch("luoyang-gangci", "-", "Name of the ruleset")

    # G2.1: the three bases 起底 (杠底, 炸弹底, 杠次底)
    gang_base: int = _switch(100, "G2.1", "杠底: kong base, paid for kongs and inside every 次",
                             bounds=(1, MAX_BASE))
    bomb_base: int = _switch(200, "G2.1", "炸弹底: bomb base, paid by each player for a 炸弹 or 天胡",
                             bounds=(1, MAX_BASE))
    ci_base: int = _switch(600, "G2.1", "杠次底: ci base, paid for every 次 (even: a 直次 bystander pays half)",
                           bounds=(2, MAX_BASE))

    # G3.1: the source says 顺时针 (clockwise) but draws counter-clockwise (U1)
    seat_count: str = _switch("turn_order", "G3.1", "Direction the dice sum counts seats from the dealer (dealer = 1)",
                              choices=("turn_order", "clockwise"))

    # G8: match
    dealer_keeps_deal_on_win: bool = _switch(True, "G8.1", "The dealer keeps the deal when he wins (else it passes on)")
    hands_per_match: int = _switch(16, "G8.2", "Hands in a match", choices=(8, 16, 24))

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if type(value) is not type(f.default):
                raise RulesError(f"{f.name} must be {type(f.default).__name__}, not {type(value).__name__}")
            bounds = f.metadata.get("range")
            if isinstance(bounds, tuple) and isinstance(value, int) and not bounds[0] <= value <= bounds[1]:
                raise RulesError(f"{f.name} must be {bounds[0]}-{bounds[1]}, not {value}")
            choices = f.metadata.get("choices")
            if isinstance(choices, tuple) and value not in choices:
                raise RulesError(f"{f.name} must be one of {', '.join(map(str, choices))}, not {value!r}")
        if self.ci_base % 2:  # G2.7: each bystander of a 直次 pays 杠次底 × 0.5
            raise RulesError(f"ci_base must be even (a 直次 bystander pays half of it), not {self.ci_base}")

    def replace(self, **changes: object) -> GangciRules:
        """A copy with some switches changed, checked like the constructor."""
        known = {f.name for f in dataclasses.fields(self)}
        for key in changes:
            if key not in known:
                raise RulesError(f"unknown switch {key!r} (luoyang-gangci has {', '.join(sorted(known))})")
        try:
            return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        except TypeError as exc:
            raise RulesError(str(exc)) from None

    def switches(self) -> list[Switch]:
        """Every switch with its value, rule ID, description and allowed values, in order."""
        out: list[Switch] = []
        for f in dataclasses.fields(self):
            bounds = f.metadata.get("range")
            choices = f.metadata.get("choices")
            if isinstance(bounds, tuple):
                allowed = f"{bounds[0]}-{bounds[1]}"
            elif isinstance(choices, tuple):
                allowed = ", ".join(map(str, choices))
            else:
                allowed = "-" if f.name == "name" else "true, false"
            out.append(Switch(f.name, getattr(self, f.name), str(f.metadata["rule"]),
                              str(f.metadata["doc"]), allowed))
        return out


DEFAULT: Final = GangciRules()
#: The source's 起底方案2 (G2.1): 杠底 1000, 炸弹底 2000, 杠次底 6000.
SCHEME_2: Final = GangciRules(name="luoyang-gangci-scheme-2", gang_base=1000, bomb_base=2000, ci_base=6000)

PRESETS: Final[dict[str, GangciRules]] = {r.name: r for r in (DEFAULT, SCHEME_2)}


def get_rules(name: str) -> GangciRules:
    """A preset by name (``luoyang-gangci``, ``luoyang-gangci-scheme-2``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown Gangci preset {name!r} (presets: {', '.join(sorted(PRESETS))})") from None
