"""The errors of caishen: one family, :class:`CaishenError` (a ``ValueError``).

Every error a user can cause (bad notation, a bad ruleset, an illegal move, a broken record,
a malformed scenario) is a :class:`CaishenError` with a short machine-readable ``code`` and,
where a rule is behind it, the rule ID (``L9``, ``G5.4``…) in ``rule``. The command line prints
any of them as one line and exits 2.
"""

from __future__ import annotations


class CaishenError(ValueError):
    """Base of every error a user can cause. ``code``: a short kebab-case name of the kind of
    problem; ``rule``: the rule ID behind it, or ``None``."""

    code: str = "error"

    def __init__(self, message: str, *, code: str | None = None, rule: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.rule: str | None = rule


class TileError(CaishenError):
    """A number that names no tile kind (``tile_name(99)``, ``kind(0, 10)``)."""

    code = "tile"


class HandError(CaishenError):
    """Tiles that make no hand or meld: a chow that is no run, a flower among the concealed
    tiles, a fifth copy of a kind, more tiles than a complete hand holds."""

    code = "hand"


class ArgumentError(CaishenError):
    """An argument out of its declared range or not one of its choices (an environment's
    option, a cache share, a notation style)."""

    code = "argument"
