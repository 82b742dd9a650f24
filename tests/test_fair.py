"""caishen.fair: provably fair wall and dice (issue 4, L4)."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caishen import fair
from caishen.tiles import tile_name
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as LUOYANG_GANGCI

VECTOR_SEED = bytes(range(32))  # 00 01 02 ... 1f, the worked example of docs/fairness.md


def reference_wall(seed: bytes, tiles: tuple[int, ...]) -> tuple[int, ...]:
    """Slow, obviously correct reading of docs/fairness.md."""
    stream = b"".join(
        hmac.new(seed, b"wall" + c.to_bytes(4, "big"), hashlib.sha256).digest() for c in range(64)
    )
    pos = 0
    wall = list(tiles)
    for i in range(len(wall) - 1, 0, -1):
        m = i + 1
        while True:  # m <= 256 here: one byte per draw, reject bytes >= 256 - 256 % m
            b = stream[pos]
            pos += 1
            if b < 256 - 256 % m:
                break
        j = b % m
        wall[i], wall[j] = wall[j], wall[i]
    return tuple(wall)


def test_vector_commitment_wall_and_dice() -> None:
    assert fair.commitment(VECTOR_SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    wall = fair.shuffled_wall(VECTOR_SEED, LONGGANG)
    assert " ".join(tile_name(k) for k in wall[:16]) == (
        "3s 1s f1 3z 2s 2p 1p 9s 9s 2s 6s 6p 5s 9p 6p 7m"
    )
    assert fair.dice(VECTOR_SEED) == (4, 1, 5, 1)


def test_vector_text_seed() -> None:
    seed = fair.seed_from_text("caishen")
    assert seed == b"caishen"
    assert fair.shuffled_wall(seed, LONGGANG)[:8] == (10, 5, 21, 21, 13, 6, 0, 32)
    assert fair.dice(seed) == (1, 6, 5, 6)


def test_hand_seed_vector() -> None:
    assert fair.hand_seed(b"42", 0).hex() == (
        "29995e6d3cd13f34119b99224e8f90ad70a4701cb203c4d4fd948d325f0c5663"
    )
    assert fair.hand_seed(b"42", 0) != fair.hand_seed(b"42", 1)
    assert len(fair.hand_seed(b"42", 7)) == 32


def test_wall_matches_reference() -> None:
    for n in range(40):
        seed = fair.hand_seed(b"reference", n)
        for ruleset in (LONGGANG, LUOYANG_GANGCI):
            assert fair.shuffled_wall(seed, ruleset) == reference_wall(seed, fair.tile_set(ruleset))


def test_tile_set_longgang_and_gangci() -> None:
    tiles = fair.tile_set(LONGGANG)
    assert len(tiles) == 136 == LONGGANG.wall_size
    counts = Counter(tiles)
    assert counts[31] == 0  # no White (L1)
    assert all(counts[k] == 1 for k in (34, 35, 36, 37))
    assert all(counts[k] == 4 for k in range(34) if k != 31)
    g = Counter(fair.tile_set(LUOYANG_GANGCI))
    assert sum(g.values()) == 136 and set(g.values()) == {4} and sorted(g) == list(range(34))


def test_wall_is_a_permutation_of_the_tile_set() -> None:
    for n in range(50):
        seed = fair.hand_seed(b"multiset", n)
        for ruleset in (LONGGANG, LUOYANG_GANGCI):
            assert sorted(fair.shuffled_wall(seed, ruleset)) == list(fair.tile_set(ruleset))


def test_same_seed_same_wall_different_seeds_differ() -> None:
    a = fair.new_seed()
    b = fair.new_seed()
    assert len(a) == 32 and a != b
    assert fair.shuffled_wall(a, LONGGANG) == fair.shuffled_wall(bytes(a), LONGGANG)
    assert fair.dice(a) == fair.dice(a)
    walls = {fair.shuffled_wall(fair.hand_seed(b"distinct", n), LONGGANG) for n in range(200)}
    assert len(walls) == 200


def test_every_kind_reaches_every_position() -> None:
    # Cheap uniformity sanity: over 2500 seeded walls every kind shows up at every position,
    # and no (position, kind) count is far from its expectation (4/136 or 1/136 of the walls).
    n = 2500
    counts = [Counter[int]() for _ in range(136)]
    for s in range(n):
        for pos, k in enumerate(fair.shuffled_wall(fair.hand_seed(b"uniform", s), LONGGANG)):
            counts[pos][k] += 1
    kinds = set(LONGGANG.tile_kinds)
    for pos in range(136):
        assert set(counts[pos]) == kinds
        for k, c in counts[pos].items():
            expected = n * (1 if k >= 34 else 4) / 136
            assert expected / 3 < c < expected * 2.2, (pos, k, c)


def test_dice_faces() -> None:
    rolls = [fair.dice(fair.hand_seed(b"dice", n)) for n in range(600)]
    faces = Counter(v for r in rolls for v in r)
    assert sorted(faces) == [1, 2, 3, 4, 5, 6]
    assert all(300 < c < 500 for c in faces.values())  # 400 expected each
    assert all(len(r) == 4 for r in rolls)


def test_rejection_sampling_rejects_the_top_range() -> None:
    # m = 136: one byte per draw, values >= 136 (= 256 - 256 % 136) are rejected.
    assert fair._below(iter([200, 136, 135]), 136) == 135
    # m = 3: only 255 is rejected (255 = 3 * 85).
    assert fair._below(iter([255, 254]), 3) == 2
    # m = 6 (a die): 252..255 rejected.
    assert fair._below(iter([252, 253, 254, 255, 7]), 6) == 1
    # m = 300 needs two bytes: limit 65400 = 65536 - 65536 % 300.
    assert fair._below(iter([0xFF, 0x78, 0x01, 0x2D]), 300) == 301 % 300
    assert fair._below(iter([0xFF, 0x77]), 300) == 0xFF77 % 300
    assert fair._below(iter([]), 1) == 0


def test_bad_seeds_are_refused() -> None:
    with pytest.raises(fair.SeedError, match="empty"):
        fair.commitment(b"")
    with pytest.raises(fair.SeedError, match="bytes"):
        fair.shuffled_wall("abc", LONGGANG)  # type: ignore[arg-type]
    with pytest.raises(fair.SeedError, match="empty"):
        fair.seed_from_text("")
    assert issubclass(fair.SeedError, ValueError)


def reference_dice(seed: bytes) -> tuple[int, ...]:
    stream = b"".join(
        hmac.new(seed, b"dice" + c.to_bytes(4, "big"), hashlib.sha256).digest() for c in range(4)
    )
    out = [b % 6 + 1 for b in stream if b < 252]
    return tuple(out[:4])


@settings(max_examples=150, deadline=None)
@given(st.binary(min_size=1, max_size=80))
def test_wall_and_dice_match_reference_for_any_seed(seed: bytes) -> None:
    for ruleset in (LONGGANG, LUOYANG_GANGCI):
        assert fair.shuffled_wall(seed, ruleset) == reference_wall(seed, fair.tile_set(ruleset))
    assert fair.dice(seed) == reference_dice(seed)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=70000), st.binary(min_size=12, max_size=12))
def test_below_matches_reference(m: int, data: bytes) -> None:
    # reference: read k-byte big-endian numbers, skip those >= the largest multiple of m
    k = max(1, ((m - 1).bit_length() + 7) // 8)
    limit = 256**k - 256**k % m
    values = [int.from_bytes(data[i:i + k], "big") for i in range(0, len(data) - k + 1, k)]
    accepted = [v for v in values if v < limit]
    if m == 1:
        assert fair._below(iter(data), 1) == 0
    elif accepted:
        assert fair._below(iter(data), m) == accepted[0] % m
    else:
        with pytest.raises(StopIteration):
            fair._below(iter(data[: len(values) * k]), m)
