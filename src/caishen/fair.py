"""Provably fair wall and dice (公平洗牌) from a secret seed.

Before a hand the table publishes :func:`commitment` (SHA-256 of a secret seed); the wall
and the dice are derived from that seed only; after the hand the seed is revealed, and anyone
can recompute both (``caishen verify``). The derivation is fixed and documented in
``docs/fairness.md`` (with a worked test vector); changing it breaks every old record.

Two algorithms, each named in every hand of a record (``docs/fairness.md`` is the
specification):

* ``caishen-fair-1`` (records of versions 1 and 2): the commitment is SHA-256 of the seed and
  the wall is dealt from the seed itself.
* ``caishen-fair-2``: the commitment also covers the previous hand (:func:`chained_commitment`:
  the hash of its finished record, so hands cannot be removed, reordered or replaced), and the
  wall is dealt from :func:`wall_seed`: the seed mixed with every person's own random
  contribution, sent after the commitment was published.

Derivation: a byte stream ``HMAC-SHA256(seed, label + counter)`` for counter = 0, 1, 2, ...
(4-byte big-endian), 32 bytes per block, consumed in order. Uniform integers below ``m`` are
read as big-endian numbers of the fewest bytes that can hold ``m - 1`` and rejected when they
fall in the incomplete top range (rejection sampling, no modulo bias). Standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from typing import Final

from caishen.errors import CaishenError
from caishen.tiles import TileSet, is_flower

SEED_BYTES: Final = 32
WALL_LABEL: Final = b"wall"
DICE_LABEL: Final = b"dice"
HAND_LABEL: Final = b"hand"
SEATS_LABEL: Final = b"seats"
#: The tiles of the seat draw 校位 (L2): East, South, West, North, then 中 and 发 for the
#: fifth and sixth player (替补).
SEAT_TILES: Final = ("E", "S", "W", "N", "中", "发")
FAIR_1: Final = "caishen-fair-1"
FAIR_2: Final = "caishen-fair-2"
ALGORITHMS: Final = (FAIR_1, FAIR_2)
CONTRIBUTION_BYTES: Final = 32
#: ``prev`` of a match's first hand: 32 zero bytes.
NO_PREV: Final = bytes(32)
#: Why a seat mixed nothing into a wall: a bot's (or stand-in's) seat; a person whose page did
#: not offer randomness (not connected, or a client that does not contribute); a person whose
#: page was asked and sent nothing in time.
NO_CONTRIBUTION: Final = ("bot", "none", "timeout")


class SeedError(CaishenError):
    """A seed is not usable (wrong type or empty)."""

    code = "seed"


def new_seed() -> bytes:
    """A fresh secret seed: 32 bytes from :mod:`secrets`."""
    return secrets.token_bytes(SEED_BYTES)


def _check_seed(seed: bytes) -> None:
    if not isinstance(seed, bytes):
        raise SeedError(f"a seed must be bytes, not {type(seed).__name__}")
    if not seed:
        raise SeedError("a seed must not be empty")


def commitment(seed: bytes) -> str:
    """Hex SHA-256 of the seed, published before the hand."""
    _check_seed(seed)
    return hashlib.sha256(seed).hexdigest()


def _hmac(key: bytes, msg: bytes) -> bytes:
    """HMAC-SHA256. Not ``hmac.digest``: CPython's one-shot form lets go of the GIL for every
    call, however short the message, and getting it back waits for any busy thread (up to
    5 ms in the game centre, whose database writer is one); this form keeps it."""
    return hmac.new(key, msg, hashlib.sha256).digest()


def _stream(seed: bytes, label: bytes) -> Iterator[int]:
    """Bytes of HMAC-SHA256(seed, label + counter), counter 0, 1, ... as 4-byte big-endian."""
    counter = 0
    while True:
        yield from _hmac(seed, label + counter.to_bytes(4, "big"))
        counter += 1


def _below(stream: Iterator[int], m: int) -> int:
    """A uniform integer in ``0 .. m-1`` by rejection sampling (``m >= 1``)."""
    if m == 1:
        return 0
    nbytes = ((m - 1).bit_length() + 7) // 8
    span = 1 << (8 * nbytes)
    limit = span - span % m  # accept only values below the largest multiple of m
    while True:
        value = 0
        for _ in range(nbytes):
            value = (value << 8) | next(stream)
        if value < limit:
            return value % m


_TILE_SETS: dict[TileSet, tuple[int, ...]] = {}


def tile_set(ruleset: TileSet) -> tuple[int, ...]:
    """Every tile of the ruleset in ascending kind order: 4 copies of each kind, 1 of each
    flower (L1). The starting order of the shuffle."""
    got = _TILE_SETS.get(ruleset)
    if got is None:
        tiles: list[int] = []
        for k in ruleset.tile_kinds:
            tiles.extend([k] * (1 if is_flower(k) else 4))
        got = _TILE_SETS[ruleset] = tuple(tiles)
    return got


def shuffled_wall(seed: bytes, ruleset: TileSet) -> tuple[int, ...]:
    """All tiles of ``ruleset`` (136 for Longgang) in wall position order.

    Position ``i``: side ``i // 34`` (0 = East's wall, 1 = South, 2 = West, 3 = North), stack
    ``(i % 34) // 2`` (0..16 left to right as seen by that seat), level ``i % 2`` (0 = top,
    1 = bottom) (L4). Fisher-Yates from the end of :func:`tile_set`: for ``i = n-1 .. 1`` swap
    position ``i`` with a uniform ``j`` in ``0..i`` read from the ``b"wall"`` stream.
    """
    _check_seed(seed)
    wall = list(tile_set(ruleset))
    if len(wall) > 256:  # every ruleset's wall is 136 tiles; the fast reader needs m <= 256
        raise ValueError(f"walls of more than 256 tiles are not supported ({len(wall)})")
    # The derivation of the docstring with one byte per draw (all bounds here are <= 256),
    # inlined for speed: it runs on every deal. tests/test_fair.py checks it against a plain
    # reading of docs/fairness.md.
    digest = _hmac
    block = b""
    pos = 0
    counter = 0
    for i in range(len(wall) - 1, 0, -1):
        m = i + 1
        limit = 256 - 256 % m
        while True:
            if pos == len(block):
                block = digest(seed, WALL_LABEL + counter.to_bytes(4, "big"))
                counter += 1
                pos = 0
            b = block[pos]
            pos += 1
            if b < limit:
                break
        j = b % m
        wall[i], wall[j] = wall[j], wall[i]
    return tuple(wall)


def dice(seed: bytes) -> tuple[int, int, int, int]:
    """Two rolls of two dice (dealer's roll, then the opener's), each 1..6, from the
    ``b"dice"`` stream (L4)."""
    _check_seed(seed)
    stream = _stream(seed, DICE_LABEL)
    a, b, c, d = (_below(stream, 6) + 1 for _ in range(4))
    return (a, b, c, d)


def seat_draw(seed: bytes, players: int) -> tuple[tuple[int, ...], tuple[int, int]]:
    """The seat draw 校位定莊 of a match (L2) from its master seed: ``tiles[p]`` is the index in
    :data:`SEAT_TILES` of the tile player ``p`` draws (a Fisher-Yates shuffle of the first
    ``players`` of them, as :func:`shuffled_wall` does), then the provisional East's two dice,
    all from the ``b"seats"`` stream."""
    _check_seed(seed)
    if not 4 <= players <= len(SEAT_TILES):
        raise SeedError(f"a seat draw is for 4-6 players, not {players}")
    stream = _stream(seed, SEATS_LABEL)
    tiles = list(range(players))
    for i in range(players - 1, 0, -1):
        j = _below(stream, i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    a, b = (_below(stream, 6) + 1 for _ in range(2))
    return tuple(tiles), (a, b)


def hand_seed(match_seed: bytes, index: int) -> bytes:
    """Seed of hand ``index`` (0-based) of a match played from one master seed:
    ``HMAC-SHA256(match_seed, b"hand" + index as 4-byte big-endian)``. Only as secret as
    ``match_seed``: for a real table use :func:`new_seed` per hand."""
    _check_seed(match_seed)
    if not 0 <= index < 1 << 32:
        raise SeedError(f"hand index out of range: {index}")
    return _hmac(match_seed, HAND_LABEL + index.to_bytes(4, "big"))


def chained_commitment(seed: bytes, prev: bytes, index: int) -> str:
    """The commitment of hand ``index`` under ``caishen-fair-2``: hex SHA-256 of ``prev`` (the
    32-byte SHA-256 of the previous hand's finished record, :data:`NO_PREV` for the first) +
    ``index`` (4 bytes, big-endian) + ``seed``."""
    _check_seed(seed)
    if len(prev) != 32:
        raise SeedError(f"prev must be 32 bytes, not {len(prev)}")
    if not 0 <= index < 1 << 32:
        raise SeedError(f"hand index out of range: {index}")
    return hashlib.sha256(prev + index.to_bytes(4, "big") + seed).hexdigest()


def mix_message(contributions: Sequence[bytes | None], index: int) -> bytes:
    """The HMAC message of :func:`wall_seed`: for each of the 4 seats in seat order (0 = East)
    the byte 1 and its 32 bytes, or the byte 0 and 32 zero bytes when it contributed nothing;
    then ``index`` as 4 bytes big-endian (136 bytes)."""
    if len(contributions) != 4:
        raise SeedError(f"contributions are by seat: 4, not {len(contributions)}")
    out = bytearray()
    for c in contributions:
        if c is None:
            out += bytes(1 + CONTRIBUTION_BYTES)
        elif len(c) != CONTRIBUTION_BYTES:
            raise SeedError(f"a contribution is {CONTRIBUTION_BYTES} bytes, not {len(c)}")
        else:
            out += b"\x01" + c
    if not 0 <= index < 1 << 32:
        raise SeedError(f"hand index out of range: {index}")
    return bytes(out + index.to_bytes(4, "big"))


def wall_seed(seed: bytes, contributions: Sequence[bytes | None], index: int) -> bytes:
    """The seed the wall and dice of hand ``index`` are dealt from under ``caishen-fair-2``:
    ``HMAC-SHA256(key=seed, msg=mix_message(contributions, index))``."""
    _check_seed(seed)
    return _hmac(seed, mix_message(contributions, index))


def seed_from_text(text: str) -> bytes:
    """A match seed from a user's text (e.g. ``--seed 42``): its UTF-8 bytes."""
    if not text:
        raise SeedError("a seed must not be empty")
    return text.encode("utf-8")
