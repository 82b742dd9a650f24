"""The variants registry: ``caishen.variants.get("longgang")``, :func:`names`, :func:`load_rules`.

Each variant is a package here (``longgang/``, ``luoyang_gangci/``) exposing a
:class:`~caishen.variants.base.Variant`. Like python-chess's ``find_variant``, a name gives the
variant; a preset name or a TOML file (``variant = "…"``, ``base = "…"``) gives its rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from caishen import ruleset as rs
from caishen.ruleset import RulesetError
from caishen.variants.base import RuleItem, Variant, VariantRules
from caishen.variants.longgang.variant import VARIANT as _LONGGANG
from caishen.variants.luoyang_gangci.variant import VARIANT as _GANGCI

_REGISTRY: Final[dict[str, Variant]] = {v.name: v for v in (_LONGGANG, _GANGCI)}

__all__ = ["RuleItem", "Variant", "VariantRules", "get", "load_rules", "names", "variant_of"]


def names() -> tuple[str, ...]:
    """The registered variants' names."""
    return tuple(_REGISTRY)


def get(name: str) -> Variant:
    """The variant called ``name``; :class:`~caishen.ruleset.RulesetError` names the others."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise RulesetError(f"unknown variant {name!r} (variants: {', '.join(_REGISTRY)})") from None


def variant_of(rules: VariantRules) -> Variant:
    """The variant a rules object belongs to."""
    for v in _REGISTRY.values():
        if any(type(p) is type(rules) for p in v.presets.values()):
            return v
    raise RulesetError(f"rules {rules.name!r} belong to no registered variant")


def load_rules(source: str | Path, variant: str | None = None) -> VariantRules:
    """Rules from a preset name of any variant, or a TOML file. A file says its variant with
    ``variant = "…"`` or by a ``base`` preset; ``variant`` (a name) chooses when neither does
    (default ``longgang``)."""
    text = str(source)
    path = Path(source)
    if not path.is_file():
        for v in _REGISTRY.values():
            if text in v.presets and (variant is None or v.name == variant):
                return v.presets[text]
        if variant is not None and text == variant:
            return get(variant).presets[variant]
        owner = next((v.name for v in _REGISTRY.values() if text in v.presets), None)
        if owner is not None:
            raise RulesetError(f"{text}: a {owner} preset, not {variant}")
        presets = sorted(p for v in _REGISTRY.values() for p in v.presets)
        raise RulesetError(f"{text[:80]}: not a preset ({', '.join(presets)}) nor a TOML file")
    data = rs.read_toml(path)
    name = data.get("variant")
    base = data.get("base")
    if name is None and isinstance(base, str):
        name = next((v.name for v in _REGISTRY.values() if base in v.presets), None)
    if name is None:
        name = variant or _LONGGANG.name
    if not isinstance(name, str):
        raise RulesetError(f"{path}: variant must be a name ({', '.join(_REGISTRY)})")
    return get(name).load_rules(path)
