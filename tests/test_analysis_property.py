"""Property tests: caishen.shapes.analysis against the slow references in tests/ref_analysis.py,
on random 13-, 14-, 16- and 17-tile hands with 0-4 wilds and 0-3 melds, skewed toward
near-winning hands (built from random sets, then perturbed)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from caishen.hand import Hand, Meld, MeldKind
from caishen.shapes.analysis import (
    _POW,
    _SLOT,
    _AGroup,
    _Info,
    _info,
    _pairs_abstract,
    _std_combos,
    arrangements,
    is_win,
    shanten,
    waits,
)
from caishen.tiles import SPRING, SUMMER
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from ref_analysis import ref_arrangements, ref_is_win, ref_waits, substituted_is_win
from ref_arrangements import old_arrangements, old_pairs_abstract, old_standard_abstract

R16 = LONGGANG
R13 = LONGGANG.replace(hand_size=13, eight_and_half_pairs=False, seven_pairs=True)
R13_PLAIN = LONGGANG.replace(hand_size=13, eight_and_half_pairs=False)
KINDS = tuple(k for k in R16.tile_kinds if k < 34)  # 33 kinds, no White
SEQ_STARTS = tuple(k for k in KINDS if k < 27 and k % 9 <= 6)


def _fast_and_full(
    check: Callable[[tuple[Hand, Ruleset, frozenset[int]]], None], examples: int,
) -> tuple[Callable[[], None], Callable[[], None]]:
    """``check`` on random hands twice: with a quarter of ``examples`` in the default suite
    (these tests took a third of its time), and with all of them as a slow test (``pytest -m
    slow``, which CI runs)."""
    def test(n: int) -> Callable[[], None]:
        wrapped: Callable[[], None] = settings(
            max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])(given(hands())(check))
        return wrapped
    return test(examples // 4), pytest.mark.slow(test(examples))


@st.composite
def hands(draw: st.DrawFn, ruleset: Ruleset | None = None) -> tuple[Hand, Ruleset, frozenset[int]]:
    """A hand (complete or one short), its ruleset and its wild kinds."""
    r = ruleset or draw(st.sampled_from((R16, R13, R13_PLAIN)))
    counts: Counter[int] = Counter()

    def room(ks: list[int]) -> bool:
        c = Counter(ks)
        return all(counts[k] + n <= 4 for k, n in c.items())

    indicator = draw(st.sampled_from(KINDS))
    own_flower = draw(st.booleans())
    wilds = frozenset({indicator, SPRING} if own_flower else {indicator})
    n_melds = draw(st.integers(0, 3))
    melds: list[Meld] = []
    for _ in range(n_melds):
        kind = draw(st.sampled_from(list(MeldKind)))
        if kind is MeldKind.CHOW:
            low = draw(st.sampled_from(SEQ_STARTS))
            ks = [low, low + 1, low + 2]
            m = Meld.chow(draw(st.sampled_from(ks)), low)
        else:
            k = draw(st.sampled_from(KINDS))
            ks = [k] * (3 if kind is MeldKind.PONG else 4)
            m = Meld(kind, tuple(ks))
        if indicator in ks or not room(ks):  # wilds cannot be melded (L8)
            continue
        counts.update(ks)
        melds.append(m)
    sets_left = r.sets_needed - len(melds)
    conc: list[int] = []
    pairs_form = not melds and draw(st.integers(0, 3)) == 0
    shapes: list[list[int]] = []
    if pairs_form:
        for _ in range(7):
            k = draw(st.sampled_from(KINDS))
            shapes.append([k, k])
        if r.hand_size == 16:
            k = draw(st.sampled_from(KINDS))
            shapes.append([k, k, k])
    else:
        for _ in range(sets_left):
            if draw(st.booleans()):
                low = draw(st.sampled_from(SEQ_STARTS))
                shapes.append([low, low + 1, low + 2])
            else:
                k = draw(st.sampled_from(KINDS))
                shapes.append([k, k, k])
        k = draw(st.sampled_from(KINDS))
        shapes.append([k, k])
    for s in shapes:
        if room(s):
            counts.update(s)
            conc.extend(s)
        else:  # keep the size right with tiles that fit
            for _ in s:
                k = draw(st.sampled_from([x for x in KINDS if counts[x] < 4]))
                counts[k] += 1
                conc.append(k)
    # 0-4 wilds stand in: replace random tiles by wild tiles
    n_wilds = draw(st.integers(0, 4))
    flowers: list[int] = []
    for _ in range(n_wilds):
        if not conc:
            break
        pos = draw(st.integers(0, len(conc) - 1))
        if own_flower and not flowers and draw(st.booleans()):
            counts[conc[pos]] -= 1
            conc.pop(pos)
            flowers.append(SPRING)
        elif counts[indicator] < 3:
            counts[conc[pos]] -= 1
            conc[pos] = indicator
            counts[indicator] += 1
    # perturb: swap a few tiles
    for _ in range(draw(st.integers(0, 2))):
        pos = draw(st.integers(0, len(conc) - 1))
        k = draw(st.sampled_from([x for x in KINDS if counts[x] < 4]))
        counts[conc[pos]] -= 1
        conc[pos] = k
        counts[k] += 1
    if draw(st.booleans()):  # a guest flower (客花), never part of the shape
        flowers.append(SUMMER)
    if draw(st.integers(0, 2)) > 0 and conc:  # one tile short: a waiting hand
        conc.pop(draw(st.integers(0, len(conc) - 1)))
    return Hand(tuple(conc), tuple(melds), tuple(flowers)), r, wilds


def standard_abstract(counts: list[int], jokers: int, sets: int, info: _Info) -> set[tuple[_AGroup, ...]]:
    """The abstract splits the analyser's per-slot combination makes (``_std_combos``), each
    sorted, as the former recursion gave them."""
    keys = [0, 0, 0, 0]
    for k, n in enumerate(counts):
        keys[_SLOT[k]] += n * _POW[k]
    return {tuple(sorted(a[0] + b[0] + c[0] + d[0] + extra)) for a, b, c, d, extra in _std_combos(keys, jokers, sets, info)}


def _size(hand: Hand, wilds: frozenset[int]) -> int:
    return hand.size + sum(1 for f in hand.flowers if f in wilds)


def _is_win_waits_shanten_match_reference(case: tuple[Hand, Ruleset, frozenset[int]]) -> None:
    hand, r, wilds = case
    full = r.hand_size + 1
    won = is_win(hand, r, wilds)
    assert won == ref_is_win(hand, r, wilds)
    n_wilds = sum(1 for t in hand.concealed if t in wilds) + sum(1 for f in hand.flowers if f in wilds)
    event(f"{_size(hand, wilds)} tiles, {n_wilds} wilds")
    if _size(hand, wilds) == full - 1:
        got = waits(hand, r, wilds)
        event("ready" if got else "not ready")
        assert got == ref_waits(hand, r, wilds)
        # shanten 0 exactly when some kind (held 4 or not) completes the hand
        # (推土机 wins at any size, L8: then shanten is -1)
        any_kind = any(ref_is_win(hand.with_tile(k), r, wilds) for k in KINDS)
        sh = shanten(hand, r, wilds)
        if ref_is_win(hand, r, wilds):
            assert sh == -1
        else:
            assert (sh == 0) == any_kind
            assert sh >= 0
        # one draw improves shanten by at most one (shape forms; 推土机 counts only from
        # one 正财神 away, so it is left out here)
        held = Counter(hand.all_tiles())
        rs = r.replace(bulldozer=False)
        shs = shanten(hand, rs, wilds)
        assert min(shanten(hand.with_tile(k), rs, wilds) for k in KINDS if held[k] < 4) >= shs - 1
    else:
        event("win" if won else "no win")
        sh = shanten(hand, r, wilds)
        assert (sh == -1) == won
        # a complete-size hand that does not win is as far as its best discard
        rs = r.replace(bulldozer=False)
        if not is_win(hand, rs, wilds) and hand.concealed:
            best = min(shanten(hand.without_tile(k), rs, wilds) for k in set(hand.concealed))
            assert shanten(hand, rs, wilds) == best


test_is_win_waits_shanten_match_reference_l3_l8_l13_l14, test_is_win_waits_shanten_match_reference_l3_l8_l13_l14_all = (
    _fast_and_full(_is_win_waits_shanten_match_reference, 4000))


def _arrangements_complete_and_distinct(case: tuple[Hand, Ruleset, frozenset[int]]) -> None:
    hand, r, wilds = case
    if _size(hand, wilds) != r.hand_size + 1:  # complete it with a tile that has room
        held = Counter(hand.all_tiles())
        hand = hand.with_tile(next(k for k in (*hand.concealed, *KINDS) if held[k] < 4))
    got = arrangements(hand, r, wilds)
    event(f"{len(got)} arrangements" if len(got) < 3 else "3+ arrangements")
    assert len(set(got)) == len(got)  # no repeats
    assert set(got) == set(ref_arrangements(hand, r, wilds))
    assert bool(got) == is_win(hand, r, wilds)
    for a in got:  # each wild used once, each real tile once
        used = Counter(t for g in a.groups for t in g.tiles if g.meld is None)
        for g in a.groups:
            for w, s in g.wilds:
                used[s] -= 1
                used[w] += 1
        if a.groups:
            expect = Counter(hand.concealed) + Counter(f for f in hand.flowers if f in wilds)
            assert used == expect


test_arrangements_complete_and_distinct_l8_l13_l14, test_arrangements_complete_and_distinct_l8_l13_l14_all = (
    _fast_and_full(_arrangements_complete_and_distinct, 2000))


@settings(max_examples=200, deadline=None)
@given(hands(R16))
def test_lazy_wild_reference_equals_literal_substitution_l8(case: tuple[Hand, Ruleset, frozenset[int]]) -> None:
    hand, r, wilds = case
    n = sum(1 for t in hand.concealed if t in wilds) + sum(1 for f in hand.flowers if f in wilds)
    if n <= 2:
        assert ref_is_win(hand, r, wilds) == substituted_is_win(hand, r, wilds)


def _arrangements_same_as_one_recursion(case: tuple[Hand, Ruleset, frozenset[int]]) -> None:
    """The per-slot splits give what one recursion over the whole hand gave: the same
    arrangements in the same order, and the same abstract splits."""
    hand, r, wilds = case
    if _size(hand, wilds) != r.hand_size + 1:  # complete it with a tile that has room
        held = Counter(hand.all_tiles())
        hand = hand.with_tile(next(k for k in (*hand.concealed, *KINDS) if held[k] < 4))
    assert arrangements(hand, r, wilds) == old_arrangements(hand, r, wilds)
    counts = [0] * 34
    jokers = sum(1 for f in hand.flowers if f in wilds)
    for t in hand.concealed:
        if t in wilds:
            jokers += 1
        else:
            counts[t] += 1
    info = _info(r)
    sets = info.sets - len(hand.melds)
    if sets >= 0 and sum(counts) + jokers == 3 * sets + 2:
        assert standard_abstract(counts, jokers, sets, info) == old_standard_abstract(counts, jokers, sets, info)


test_arrangements_same_as_one_recursion_l8_l13, test_arrangements_same_as_one_recursion_l8_l13_all = (
    _fast_and_full(_arrangements_same_as_one_recursion, 2000))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(KINDS[:12]), min_size=4, max_size=8), st.lists(st.sampled_from(KINDS[:12]), max_size=4),
       st.integers(0, 4), st.booleans())
def test_pairs_splits_same_as_before_their_memos_l14(pairs: list[int], singles: list[int], jokers: int,
                                                     eight_half: bool) -> None:
    """八对半 (7 pairs + 1 triplet) and 七对 splits (L14), with the kinds' spreads kept and
    dead states skipped, are the splits one plain recursion found (hands made of pairs and a
    few single tiles, so that most have splits)."""
    counts = [0] * 34
    for k in pairs + pairs + singles:
        counts[k] = min(4, counts[k] + 1)
    size = 17 if eight_half else 14
    if sum(counts) + jokers < size:  # wilds for the missing tiles, if at most 4
        jokers = size - sum(counts)
        assume(jokers <= 4)
    while sum(counts) + jokers > size:  # drop tiles until the hand has its size
        counts[max(range(34), key=counts.__getitem__)] -= 1
    info = _info(R16 if eight_half else R13)
    got = _pairs_abstract(counts, jokers, eight_half, info)
    event("splits" if got else "no split")
    assert got == old_pairs_abstract(counts, jokers, eight_half, info)
