"""Test vectors of caishen's fair algorithms (docs/fairness.md): ``python3 tests/fair_vectors.py``
writes tests/data/fair-vectors.json from caishen.fair. Both checkers (caishen.fair in Python,
static/fair.js in the browser) must reproduce every value; tests/test_fair_vectors.py checks
both. A change of the algorithms is a new algorithm name, never a new file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from caishen import fair
from caishen.tiles import tile_name
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI

PATH = Path(__file__).resolve().parent / "data" / "fair-vectors.json"


def _bytes(label: str, n: int = 32) -> bytes:
    return hashlib.sha256(label.encode()).digest()[:n]


def vectors() -> dict[str, Any]:
    fair1 = []
    for seed in (bytes(range(32)), b"caishen", _bytes("fair-1 a")):
        fair1.append({
            "seed": seed.hex(), "commitment": fair.commitment(seed),
            "wall_longgang": " ".join(tile_name(k) for k in fair.shuffled_wall(seed, LONGGANG)),
            "dice": list(fair.dice(seed)),
        })
    fair2 = []
    cases: list[tuple[bytes, bytes, int, list[bytes | None]]] = [
        (bytes(range(32)), fair.NO_PREV, 0, [None, None, None, None]),
        (bytes(range(32)), fair.NO_PREV, 0, [bytes(range(100, 132)), None, None, None]),
        (_bytes("seed b"), _bytes("prev b"), 3, [None, _bytes("c1"), None, _bytes("c3")]),
        (_bytes("seed c"), _bytes("prev c"), 7, [_bytes(f"c{s}") for s in range(4)]),
        (_bytes("seed d"), _bytes("prev d"), 4294967295, [bytes(32), None, bytes([255] * 32), None]),
    ]
    for seed, prev, index, contributions in cases:
        ws = fair.wall_seed(seed, contributions, index)
        fair2.append({
            "seed": seed.hex(), "prev": prev.hex(), "index": index,
            "contributions": [None if c is None else c.hex() for c in contributions],
            "mix_message": fair.mix_message(contributions, index).hex(),
            "wall_seed": ws.hex(),
            "commitment": fair.chained_commitment(seed, prev, index),
            "wall_longgang": " ".join(tile_name(k) for k in fair.shuffled_wall(ws, LONGGANG)),
            "wall_gangci": " ".join(tile_name(k) for k in fair.shuffled_wall(ws, GANGCI)),
            "dice": list(fair.dice(ws)),
        })
    return {
        "about": "Test vectors of caishen-fair-1 and caishen-fair-2 (docs/fairness.md). Bytes as lowercase hex; "
                 "walls as tile names in wall position order; contributions by seat, null for none.",
        "caishen-fair-1": fair1,
        "caishen-fair-2": fair2,
    }


def text() -> str:
    return json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(text(), encoding="utf-8")
    print(f"wrote {PATH}")
