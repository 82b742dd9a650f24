"""Validation refuses every ruleset that cannot deal, naming the switches; every ruleset that
validates deals and plays a hand to its end (both variants: a property test over the switches)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caishen import ruleset as rs
from caishen.engine.game import Game
from caishen.ruleset import RulesetError
from caishen.table.results import hand_chips
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI


@pytest.mark.parametrize(("changes", "words"), [
    ({"has_flowers": False}, ["has_flowers = false", "has_white = false", "132 tiles", "has_white = true"]),
    ({"has_white": True}, ["has_flowers = true", "has_white = true", "140 tiles"]),
    ({"bulldozer_wilds": 4, "own_flower_wild": False}, ["bulldozer_wilds = 4", "own_flower_wild = true"]),
    ({"bulldozer_wilds": 4, "has_flowers": False, "has_white": True}, ["bulldozer_wilds = 4", "has_flowers = true"]),
])
def test_a_ruleset_that_cannot_deal_or_play_is_refused_naming_its_switches(changes: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(RulesetError) as err:
        LONGGANG.replace(**changes)
    for w in words:
        assert w in str(err.value)


def test_the_combinations_that_deal_still_validate() -> None:
    assert LONGGANG.replace(has_flowers=False, has_white=True).wall_size == 136
    assert LONGGANG.replace(bulldozer_wilds=4).bulldozer_own_flower
    assert not LONGGANG.bulldozer_own_flower
    assert LONGGANG.replace(bulldozer=False, bulldozer_wilds=4, own_flower_wild=False).bulldozer_wilds == 4


def _value(sw: rs.Switch) -> st.SearchStrategy[object]:
    if sw.choices is not None:
        return st.sampled_from(sw.choices)
    if isinstance(sw.value, bool):
        return st.booleans()
    assert sw.bounds is not None, sw.name
    lo, hi = sw.bounds
    # mostly small values (what tables play), sometimes the whole declared range
    ints = st.one_of(st.integers(lo, min(hi, lo + 400)), st.integers(lo, hi))
    if isinstance(sw.value, tuple):
        return st.tuples(*[ints] * len(sw.value))
    return ints


def _changes(base: VariantRules) -> st.SearchStrategy[dict[str, object]]:
    sws = [s for s in rs.switches(base) if s.name != "name"]
    return st.lists(st.sampled_from(sws), max_size=8, unique_by=lambda s: s.name).flatmap(
        lambda chosen: st.fixed_dictionaries({s.name: _value(s) for s in chosen}))


def _deal_and_play(rules: VariantRules, seed: int) -> None:
    rng = random.Random(seed)
    game = Game.from_seed(b"rulesets-%d" % seed, rules, dealer=seed % 4)
    assert game.to_move() == (game.dealer,) and game.legal_actions(game.dealer)
    for _ in range(2000):
        if game.is_over:
            break
        movers = game.to_move()
        seat = rng.choice(movers)
        game.step(seat, rng.choice(game.legal_actions(seat)))
    out = game.outcome
    assert out is not None, "a hand ends"
    chips = hand_chips(out, rules)
    assert sum(chips) == 0, "a hand's chips only change hands"


@pytest.mark.parametrize("base", [LONGGANG, GANGCI], ids=["longgang", "luoyang-gangci"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_every_ruleset_that_validates_deals_and_plays_a_hand(base: VariantRules, data: st.DataObject) -> None:
    changes = data.draw(_changes(base), label="changes")
    try:
        rules = base.replace(**changes)
    except RulesetError as err:
        assert str(err), "a refusal says why"
        return
    _deal_and_play(rules, data.draw(st.integers(0, 10_000), label="seed"))
