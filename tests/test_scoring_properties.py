"""Property tests of hand scoring (L13, L22, L23): random winning hands built from groups."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from caishen.hand import Hand, Meld, MeldKind
from caishen.shapes.analysis import arrangements
from caishen.tiles import FLOWERS, WHITE, seat_flower, wind_of
from caishen.variants.longgang import items as rule_table
from caishen.variants.longgang import readings, scoring
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.scoring import WinBy, WinContext, score_arrangement, score_hand, score_win
from caishen.variants.longgang.settlement import bonus_fu
from caishen.variants.longgang.wilds import wild_kinds

R = LONGGANG
KINDS = [k for k in range(34) if k != WHITE]


def reference_total(fu: int, tai: int, limit: bool) -> int:
    """L23 written out the slow way: (face fu + 20) doubled tai times, up to the next 10, cap 300."""
    if limit:
        return 300
    value = fu + 20
    for _ in range(tai):
        value *= 2
    while value % 10:
        value += 1
    return min(value, 300)


@st.composite
def winning_hands(draw):
    seat = draw(st.integers(0, 3))
    dealer = draw(st.integers(0, 3))
    wind = wind_of(seat, dealer)  # the dealer is East, his flower 春 (L1, L2)
    indicator = draw(st.sampled_from(KINDS + list(FLOWERS)))
    flower_wilds = [f for f in FLOWERS if f != indicator] if indicator in FLOWERS else []
    groups = []
    for _ in range(5):
        if draw(st.booleans()):
            suit = draw(st.integers(0, 2))
            low = suit * 9 + draw(st.integers(0, 6))
            groups.append(("seq", (low, low + 1, low + 2)))
        else:
            k = draw(st.sampled_from(KINDS))
            groups.append(("tri", (k, k, k)))
    pair = draw(st.sampled_from(KINDS))
    melds = []
    concealed = [pair, pair]
    for kind, tiles in groups:
        if draw(st.integers(0, 3)) == 0 and indicator not in tiles:
            if kind == "seq":
                melds.append(Meld.chow(tiles[draw(st.integers(0, 2))], tiles[0]))
            else:
                mk = draw(st.sampled_from([MeldKind.PONG, MeldKind.EXPOSED_KONG, MeldKind.ADDED_KONG,
                                           MeldKind.CONCEALED_KONG]))
                melds.append(Meld.pong(tiles[0]) if mk is MeldKind.PONG else Meld.kong(tiles[0], mk))
        else:
            concealed.extend(tiles)
    # some concealed tiles become wilds: true wilds (indicator kind) or the own flower
    flowers = []
    n_wild = draw(st.integers(0, 2))
    for _ in range(n_wild):
        i = draw(st.integers(0, len(concealed) - 1))
        spare = [f for f in flower_wilds if f not in flowers]
        if spare:  # 花财神 (L5)
            concealed.pop(i)
            flowers.append(draw(st.sampled_from(spare)))
        elif draw(st.booleans()) and seat_flower(wind) not in flowers and seat_flower(wind) != indicator:
            concealed.pop(i)
            flowers.append(seat_flower(wind))
        else:
            assume(indicator not in FLOWERS)
            concealed[i] = indicator
    guest_kinds = [f for f in FLOWERS if f != seat_flower(wind) and f != indicator and f not in flower_wilds]
    guests = draw(st.lists(st.sampled_from(guest_kinds), unique=True, max_size=3)) if guest_kinds else []
    flowers.extend(guests)
    counts = {}
    for t in concealed + [t for m in melds for t in m.tiles]:
        counts[t] = counts.get(t, 0) + 1
    assume(all(n <= 4 for n in counts.values()))
    assume(counts.get(indicator, 0) <= 2)  # at most 2 true wilds: keeps the arrangements few
    full = Hand(tuple(concealed), tuple(melds), tuple(flowers))
    wilds = wild_kinds(indicator, wind, R)
    candidates = sorted(set(concealed) | (wilds & set(flowers)))
    tile = draw(st.sampled_from(candidates))
    by = draw(st.sampled_from(list(WinBy)))
    assume(tile not in wilds or by.self_drawn)
    if tile in flowers:
        before = Hand(full.concealed, full.melds, tuple(f for f in flowers if f != tile))
    else:
        before = full.without_tile(tile)
    return before, WinContext(tile, by, seat, dealer, indicator)


@settings(max_examples=150, deadline=None)
@given(winning_hands())
def test_win_total_follows_items_and_best_arrangement_is_chosen(case):
    before, ctx = case
    r = score_win(before, ctx, R)
    assert r.total <= 300
    fu = sum(i.value for i in r.items if i.unit == "fu")
    tai = sum(i.value for i in r.items if i.unit == "tai")
    assert (fu, tai) == (r.fu, r.tai)
    assert r.total == reference_total(fu, tai, r.limit is not None)
    full = before.with_tile(ctx.tile)
    arrs = arrangements(full, R, wild_kinds(ctx.indicator, ctx.wind, R))
    assert r.arrangement in arrs
    chips = r.total + bonus_fu(r.bonus_tai, r.limit is not None, R)
    for a in arrs:
        other = score_arrangement(full, a, ctx, R)
        assert other.total + bonus_fu(other.bonus_tai, other.limit is not None, R) <= chips


@settings(max_examples=150, deadline=None)
@given(winning_hands())
def test_loser_total_follows_items(case):
    before, ctx = case
    r = score_hand(before, ctx.seat, ctx.dealer, ctx.indicator, R)
    assert r.total <= 300 and r.limit is None
    fu = sum(i.value for i in r.items if i.unit == "fu")
    tai = sum(i.value for i in r.items if i.unit == "tai")
    assert (fu, tai) == (r.fu, r.tai)
    value = fu
    for _ in range(tai):
        value *= 2
    assert r.total == min(300, -(-value // 10) * 10)
    # a loser's breakdown uses only the loser rules (L23.7)
    assert {i.rule for i in r.items} <= {"L19.1", "L19.2", "L23.5", "L20.1", "L20.3", "L21.1", "L21.2",
                                         "L21.4", "L21.7"}


def test_equal_rulesets_share_one_counting_cache() -> None:
    """The game centre makes a new, equal ruleset for every room: the rooms share one scoring
    cache, so its bound holds for the process and a hundred rooms do not evict each other."""
    first = Ruleset()
    rooms = [Ruleset().replace(base_fu=20) for _ in range(100)]
    assert all(r == first and r is not first for r in rooms)
    shared = readings._counting(first)
    assert all(readings._counting(r) is shared for r in rooms)
    assert readings._counting(first) is shared
    assert readings._counting(first.replace(base_fu=30)) is not shared  # other house rules


_SWITCHES = ("single_wait_tai", "kong_replacement_tai", "one_dragon_tai", "concealed_hand_tai", "all_claimed_tai")


@settings(max_examples=150, deadline=None)
@given(winning_hands(), st.lists(st.booleans(), min_size=len(_SWITCHES), max_size=len(_SWITCHES)))
def test_per_win_and_switched_entries_count_as_declared(case, on):
    """A per_win entry counts the same on every reading of a win (scoring counts it on the
    first); an entry with a switch never applies with it off."""
    before, ctx = case
    rules = R.replace(**dict(zip(_SWITCHES, on, strict=True)))
    full = before.with_tile(ctx.tile)
    wi = rule_table._wild_info(full, ctx.wind, ctx.indicator, rules)
    setup = readings._win_setup(ctx, wi, rules)
    per_win = [e for e in rule_table._WINNER_HAND if e.per_win]
    switched = [e for e in scoring.SCORING_ITEMS if e.switch is not None]
    assert switched and per_win
    for arr in arrangements(full, rules, wi.kinds):
        for reading in readings._arrangement_readings(arr, ctx, wi, rules, setup):
            f = reading.facts
            items = rule_table._walk(f, per_win)
            fu = sum(i.value for i in items if i.unit == "fu")
            tai = sum(i.value for i in items if i.unit == "tai")
            assert [fu, tai] == setup[4]
            for e in switched:
                if not e.switch(rules):
                    assert not any(e.applies(f, s) for s in e.subjects(f)), e.key
