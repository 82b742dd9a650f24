"""Precomputed per-suit tables for :mod:`caishen.shapes.analysis`.

For every count vector of one suit (9 counts 0-4, index = base-5 number, count of
value v times 5**(v-1)) two numbers: the fewest wilds that complete the vector into
sets only (``N0``) and into sets plus exactly one pair (``N1``); ``D1 = N1 - N0 + 1``
(always 0..3); ``PO`` = 2 * (number of odd counts) + (1 if some count is 3), for the
pairs forms; ``LB = min(N0, odd counts)``, a lower bound over both forms for a quick
reject. Honours (7 counts, no sequences) get the same five tables.

The tables ship compressed in ``caishen/data/tables-v3.zlib`` (checked against a
SHA-256 digest); if that file is missing or wrong they are rebuilt, which takes
about two seconds. ``python -m caishen.shapes.tables`` rewrites the file.
"""

from __future__ import annotations

import hashlib
import zlib
from importlib import resources
from pathlib import Path
from typing import Final

SUIT_KEYS: Final = 5**9
HONOUR_KEYS: Final = 5**7
DATA_NAME: Final = "tables-v3.zlib"
# SHA-256 of the uncompressed N0 N1 D1 H0 H1 HD1 PO HPO LB HLB.
DIGEST: Final = "db900d9677bce4750731a0da00853fa4559c72303c7ebcfa0b9020677af88810"


def _build(digits: int, sequences: bool) -> tuple[bytes, bytes, bytes]:
    """Fewest wilds per key, by the group that holds the lowest tile (exchange argument:
    a group may always take a real tile instead of a wild standing for it)."""
    n = 5**digits
    p5 = [5**i for i in range(digits + 2)]
    n0 = bytearray(n)
    n1 = bytearray(n)
    n1[0] = 2  # a pair of wilds
    # Keys whose lowest non-zero digit is i depend only on keys with a higher lowest
    # digit or a smaller quotient, so run i downwards and the quotient upwards.
    for i in range(digits - 1, -1, -1):
        pi = p5[i]
        for m in range(1, 5 ** (digits - i)):
            a = m % 5
            if a == 0:
                continue
            k = pi * m
            # triplet of i (wilds fill it)
            if a >= 3:
                r = k - 3 * pi
                b0 = n0[r]
                b1 = n1[r]
            else:
                r = k - a * pi
                b0 = n0[r] + 3 - a
                b1 = n1[r] + 3 - a
            # pair of i
            v = n0[k - 2 * pi] if a >= 2 else n0[k - pi] + 1
            if v < b1:
                b1 = v
            if sequences:
                hi = m // 5
                if i <= 6:
                    r = k - pi
                    c = 0
                    if hi % 5:
                        r -= p5[i + 1]
                    else:
                        c += 1
                    if (hi // 5) % 5:
                        r -= p5[i + 2]
                    else:
                        c += 1
                elif i == 7:  # 7-8-9 with a wild for the 7
                    r = k - pi
                    c = 1
                    if hi % 5:
                        r -= p5[8]
                    else:
                        c += 1
                else:  # a lone 9: 7-8-9 with two wilds, no better than the triplet
                    r = -1
                    c = 0
                if r >= 0:
                    v = n0[r] + c
                    if v < b0:
                        b0 = v
                    v = n1[r] + c
                    if v < b1:
                        b1 = v
            n0[k] = b0
            n1[k] = b1
    d1 = bytes(b - a + 1 for a, b in zip(n0, n1, strict=True))
    return bytes(n0), bytes(n1), d1


def _build_odd(digits: int) -> bytes:
    """Per key: 2 * (number of odd counts) + (1 if some count is 3), for the pairs forms."""
    po = bytearray(5**digits)
    for k in range(1, 5**digits):
        d = k % 5
        up = po[k // 5]
        po[k] = ((up >> 1) + (d & 1)) * 2 + ((up & 1) | (d == 3))
    return bytes(po)


def build_all() -> bytes:
    """All six tables, concatenated (suits then honours)."""
    s = _build(9, True)
    h = _build(7, False)
    po, hpo = _build_odd(9), _build_odd(7)
    # lower bound over both forms: min(N0, odd counts), for a quick reject
    lb = bytes(min(a, b >> 1) for a, b in zip(s[0], po, strict=True))
    hlb = bytes(min(a, b >> 1) for a, b in zip(h[0], hpo, strict=True))
    return b"".join((*s, *h, po, hpo, lb, hlb))


_Five = tuple[bytes, bytes, bytes, bytes, bytes]


def _split(blob: bytes) -> tuple[_Five, _Five]:
    s, h = SUIT_KEYS, HONOUR_KEYS
    o = 3 * s + 3 * h  # after N0 N1 D1 H0 H1 HD1
    o2 = o + s + h  # after PO HPO
    parts = (blob[0:s], blob[s : 2 * s], blob[2 * s : 3 * s], blob[o : o + s], blob[o2 : o2 + s])
    o3 = 3 * s
    hparts = (
        blob[o3 : o3 + h],
        blob[o3 + h : o3 + 2 * h],
        blob[o3 + 2 * h : o3 + 3 * h],
        blob[o + s : o + s + h],
        blob[o2 + s : o2 + s + h],
    )
    return parts, hparts


def _load() -> bytes:
    try:
        raw = resources.files("caishen").joinpath("data", DATA_NAME).read_bytes()
        blob = zlib.decompress(raw)
        if hashlib.sha256(blob).hexdigest() == DIGEST:
            return blob
    except (OSError, zlib.error):
        pass
    return build_all()


_BLOB: Final = _load()
_SUITS, _HONOURS = _split(_BLOB)


def suit_tables() -> _Five:
    """(N0, N1, D1, PO, LB) indexed by a suit's base-5 key."""
    return _SUITS


def honour_tables() -> _Five:
    """(H0, H1, HD1, HPO, HLB) indexed by the honours' base-5 key."""
    return _HONOURS


def write_data(path: Path | None = None) -> str:
    """Rebuild the tables, write the compressed file, return its digest."""
    blob = build_all()
    target = path or Path(__file__).parent.parent / "data" / DATA_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(zlib.compress(blob, 9))
    return hashlib.sha256(blob).hexdigest()


if __name__ == "__main__":
    print(write_data())
