"""Rulesets as frozen data: switches with their rule ID, description and valid values.

A variant's rules are a frozen dataclass whose fields are declared with :func:`switch`. This
module is the machinery every variant shares: checking each value against its declared range
or choices (:func:`check`), listing the switches (:func:`switches`), applying overrides from
Python or TOML (:func:`apply`, :func:`read_toml`). "有的地方" (some places play it this way)
options are named switches like any other.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from caishen.errors import CaishenError

T = TypeVar("T")


class RulesetError(CaishenError):
    """A ruleset file or override is wrong: unknown switch, wrong type, value out of range."""

    code = "ruleset"


def switch(
    default: T, rule: str, doc: str, *, bounds: tuple[int, int] | None = None,
    choices: tuple[object, ...] | None = None,
) -> T:
    """A dataclass field that is a switch: its default, rule ID, one-line description, and the
    values it accepts (``bounds``: inclusive range of an int or of each int of a tuple;
    ``choices``: the allowed values)."""
    meta: dict[str, object] = {"rule": rule, "doc": doc}
    if bounds is not None:
        meta["range"] = bounds
    if choices is not None:
        meta["choices"] = choices
    return field(default=default, metadata=meta)


@dataclass(frozen=True, slots=True)
class Switch:
    """One switch as ``caishen rules`` lists it."""

    name: str
    value: object
    rule: str
    doc: str
    bounds: tuple[int, int] | None
    choices: tuple[object, ...] | None

    @property
    def allowed(self) -> str:
        """The valid values as text: ``0..300``, ``13 | 16``, ``true | false``."""
        if self.choices is not None:
            return " | ".join(_text(c) for c in self.choices)
        if self.bounds is not None:
            return f"{self.bounds[0]}..{self.bounds[1]}"
        if isinstance(self.value, bool):
            return "true | false"
        return "text" if isinstance(self.value, str) else "-"


def _text(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def switches(rules: object) -> tuple[Switch, ...]:
    """Every switch of a rules dataclass, in declaration order."""
    out = []
    for f in dataclasses.fields(rules):  # type: ignore[arg-type]
        if "rule" not in f.metadata:
            continue
        rng = f.metadata.get("range")
        ch = f.metadata.get("choices")
        out.append(Switch(f.name, getattr(rules, f.name), f.metadata["rule"], f.metadata["doc"],
                          rng if isinstance(rng, tuple) else None, ch if isinstance(ch, tuple) else None))
    return tuple(out)


def check(rules: object) -> None:
    """Raise :class:`RulesetError` naming the switch, the value and what it accepts, for the
    first switch whose value has the wrong type or lies outside its range or choices."""
    for sw in switches(rules):
        default = _default(rules, sw.name)
        v = sw.value
        if isinstance(default, tuple):
            ok = isinstance(v, tuple) and len(v) == len(default) and all(type(x) is int for x in v)
            if not ok:
                raise RulesetError(f"{sw.name} must be a list of {len(default)} integers, not {v!r}")
            items: tuple[object, ...] = v  # type: ignore[assignment]
        elif type(v) is not type(default):
            raise RulesetError(f"{sw.name} must be {type(default).__name__}, not {type(v).__name__}")
        else:
            items = (v,)
        if sw.bounds is not None and not all(
            isinstance(x, int) and sw.bounds[0] <= x <= sw.bounds[1] for x in items
        ):
            raise RulesetError(f"{sw.name} = {_show(v)} is out of range {sw.allowed}")
        if sw.choices is not None and v not in sw.choices:
            raise RulesetError(f"{sw.name} = {_show(v)} is not one of {sw.allowed}")


def _show(v: object) -> str:
    return "[" + ", ".join(map(str, v)) + "]" if isinstance(v, tuple) else _text(v)


def _default(rules: object, name: str) -> object:
    for f in dataclasses.fields(rules):  # type: ignore[arg-type]
        if f.name == name:
            return f.default
    raise RulesetError(f"unknown switch {name!r}")  # pragma: no cover


R = TypeVar("R")


def apply(base: R, changes: Mapping[str, Any], where: str) -> R:
    """``base`` with ``changes`` applied: each key must be a switch, each value of its type and
    within its range (TOML lists become tuples). Errors name ``where``."""
    known = {sw.name for sw in switches(base)}
    checked: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in known:
            raise RulesetError(f"{where}: unknown switch {key!r}")
        checked[key] = tuple(value) if isinstance(value, list) else value
    try:
        return dataclasses.replace(base, **checked)  # type: ignore[type-var]
    except RulesetError as exc:
        raise RulesetError(f"{where}: {exc}") from None


def read_toml(path: Path) -> dict[str, Any]:
    """The table of a TOML ruleset file (``base = "<preset>"`` plus overrides)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RulesetError(f"{path}: not valid TOML: {exc}") from None


def load(source: str | Path, presets: Mapping[str, R], default_base: str) -> R:
    """A preset by name, or a TOML file: optional ``base = "<preset>"`` (default
    ``default_base``) then switch overrides; the file's stem names the result unless it sets
    ``name``. Errors name the file and the switch."""
    path = Path(source)
    if str(source) in presets and not path.is_file():
        return presets[str(source)]
    if not path.is_file():
        raise RulesetError(f"{source}: not a preset ({', '.join(sorted(presets))}) nor a TOML file")
    data = read_toml(path)
    data.pop("variant", None)  # names the variant; the registry has chosen it already
    base_name = data.pop("base", default_base)
    if not isinstance(base_name, str) or base_name not in presets:
        raise RulesetError(f"{path}: unknown base {base_name!r} (presets: {', '.join(sorted(presets))})")
    data.setdefault("name", path.stem)
    return apply(presets[base_name], data, str(path))
