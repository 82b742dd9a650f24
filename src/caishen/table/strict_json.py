"""JSON read strictly, for records and their signatures: a key may not appear twice (two readers
could see two different records) and ``NaN``/``Infinity`` are not JSON."""

from __future__ import annotations

import json
from typing import Any

from caishen.errors import CaishenError


class StrictJSONError(CaishenError):
    """Text that is not strict JSON: malformed, nested too deeply, a repeated key, NaN."""

    code = "json"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise StrictJSONError(f"duplicate key {k[:80]!r}")
        out[k] = v
    return out


def _no_constant(name: str) -> None:
    raise StrictJSONError(f"not JSON: {name}")


def loads(text: str) -> Any:
    """The value of JSON ``text``; :class:`StrictJSONError` names the problem in one line."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"not JSON: {exc}") from None
    except RecursionError:
        raise StrictJSONError("not a record: JSON nested too deeply") from None
