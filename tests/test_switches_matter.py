"""Every switch of the Longgang ruleset changes behaviour (issue 10, acceptance).

For each switch listed by ``caishen rules longgang --json``, the switch is flipped (a bool
negated, another allowed value for a choice, int or tuple) and every scenario file under
``tests/scenarios/longgang/`` is played again under the flipped rules; at least one of them
must play differently: other legal actions or phase after some step, another winner, way of
winning, score or chips, or a step that can no longer be played.

The test is data-driven: a switch added to the ruleset is checked without editing this file.
A switch no scenario shows yet is listed in :data:`NO_SCENARIO_YET` (an expected failure,
strict: once a scenario shows it, the test says to take it off the list).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from caishen.bots import make_bot
from caishen.cli import main
from caishen.errors import CaishenError
from caishen.scenario import Run, Scenario, ScenarioError, load, play
from caishen.table.match import Match
from caishen.table.players import player_rng
from caishen.variants.longgang.rules import LONGGANG, Ruleset

SCENARIOS = Path(__file__).parent / "scenarios" / "longgang"

#: Switches that no scenario file shows yet, each with the reason. Match-level switches cannot
#: show in one hand.
NO_SCENARIO_YET: dict[str, str] = {
}

#: Switches of the match, not of one hand (a scenario is one hand): each must change a seeded
#: match of six bots instead (six players use the after-broke figures from the start, L24.7).
MATCH_LEVEL: dict[str, str] = {
    "bonus_fu_after_broke": "L24.7: after a player of the match went broke",
}

#: Switches that only flip together with another (issue 31): with or without flowers, White
#: must be the other way round for the wall to make four walls of 2-tile stacks (L1, L4).
TOGETHER: dict[str, str] = {"has_flowers": "has_white", "has_white": "has_flowers"}

#: Not a rule: the ruleset's name.
NOT_A_RULE = frozenset({"name"})


def _listed_switches() -> dict[str, dict[str, Any]]:
    """The switches as ``caishen rules longgang --json`` lists them."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["rules", "longgang", "--json"]) == 0
    data: dict[str, dict[str, Any]] = json.loads(out.getvalue())["switches"]
    return data


LISTED = _listed_switches()
SWITCHES = sorted(set(LISTED) - NOT_A_RULE)


def _candidates(value: object, meta: dict[str, Any]) -> Iterator[object]:
    """Other values of a switch to try, most telling first."""
    if isinstance(value, bool):
        yield not value
        return
    choices = meta.get("choices")
    if choices is not None:
        yield from (c if not isinstance(c, list) else tuple(c) for c in choices if c != value)
        return
    lo, hi = meta.get("range", (0, 10_000))
    if isinstance(value, int):
        for v in (value * 2, value // 2, lo, hi, value + 10, value - 10, value + 1, value - 1):
            if lo <= v <= hi and v != value:
                yield v
        return
    if isinstance(value, tuple):
        for f in (2, 0):
            v = tuple(min(hi, max(lo, x * f)) for x in value)
            if v != value:
                yield v


@cache
def _scenarios() -> tuple[Scenario, ...]:
    return tuple(load(p) for p in sorted(SCENARIOS.glob("*.toml")))


def _signature(run: Run) -> tuple[object, ...]:
    """What a scenario shows: legal actions and phase after each step, the outcome, score, chips,
    and the match after the hand (seats, waiting players, over, who went broke)."""
    out = run.outcome
    score = run.score
    return (
        tuple((s.after, s.phase, s.legal) for s in run.snapshots),
        None if out is None else (out.winner, out.how, out.draw_reason),
        None if score is None else (score.winner.fu, score.winner.tai, score.winner.total,
                                    score.winner.limit, score.loser_totals, score.pays_all),
        run.chips,
        None if run.table is None else (run.table.seats, run.table.waiting, run.table.over, run.broke),
    )


def _outcome(scn: Scenario, ruleset: Ruleset) -> tuple[object, ...] | str:
    try:
        return _signature(play(dataclasses.replace(scn, ruleset=ruleset)))
    except (ScenarioError, CaishenError, ValueError) as exc:
        return f"cannot be played: {exc}"


def _flips(name: str, rules: Ruleset) -> Iterator[Ruleset]:
    """``rules`` with ``name`` set to each other value it may take there (values the ruleset's
    cross-checks refuse, such as ``seven_pairs`` with 16-tile hands, are skipped)."""
    for v in _candidates(getattr(rules, name), LISTED[name]):
        try:
            yield rules.replace(**{name: v})
        except CaishenError:
            if name in TOGETHER:
                other = TOGETHER[name]
                with contextlib.suppress(CaishenError):
                    yield rules.replace(**{name: v, other: not getattr(rules, other)})
            continue


def _scenario_showing(name: str) -> str | None:
    """The first scenario file that plays differently with ``name`` flipped from its value there."""
    for scn in _scenarios():
        base = scn.ruleset
        assert isinstance(base, Ruleset)
        before = _outcome(scn, base)
        for changed in _flips(name, base):
            if _outcome(scn, changed) != before:
                return f"{scn.source} ({name} = {getattr(changed, name)!r})"
    return None


def test_every_listed_switch_is_a_ruleset_switch() -> None:
    assert set(SWITCHES) | NOT_A_RULE == {sw.name for sw in LONGGANG.switches()}
    assert set(NO_SCENARIO_YET) <= set(SWITCHES), "NO_SCENARIO_YET names a switch that is gone"


def _match(rules: Ruleset, seed: bytes) -> dict[str, Any]:
    players = [make_bot(b, player_rng(seed, i), rules)
               for i, b in enumerate(("strong", "greedy", "greedy", "random", "greedy", "strong"))]
    return Match(rules, players, seed=seed).play().result


@pytest.mark.parametrize("name", sorted(MATCH_LEVEL))
def test_match_level_switch_changes_a_seeded_match(name: str) -> None:
    seed = b"switch-0"
    # at most 30 hands, so that a flip such as a huge start_chips still ends the match
    base = LONGGANG if name == "hands_per_match" else LONGGANG.replace(hands_per_match=30)
    before = _match(base, seed)
    for flipped in _flips(name, base):
        if _match(flipped, seed) != before:
            return
    raise AssertionError(f"switch {name} ({MATCH_LEVEL[name]}): no other value changes the seeded match")


@pytest.mark.parametrize("name", SWITCHES)
def test_switch_changes_some_scenario(name: str) -> None:
    if name in MATCH_LEVEL:
        pytest.skip(f"a switch of the match, shown by test_match_level_switch_changes_a_seeded_match: {MATCH_LEVEL[name]}")
    if name in NO_SCENARIO_YET:
        pytest.xfail(f"no scenario yet: {NO_SCENARIO_YET[name]}")
    shown = _scenario_showing(name)
    assert shown is not None, (
        f"switch {name}: no other value of it changes any scenario under {SCENARIOS}; add a "
        f"scenario file that shows it (or list it in NO_SCENARIO_YET with the reason)"
    )


@pytest.mark.parametrize("name", sorted(NO_SCENARIO_YET))
def test_switches_without_scenario_still_have_none(name: str) -> None:
    """Strict bookkeeping: a switch on the list that a scenario now shows must leave the list."""
    assert _scenario_showing(name) is None, f"switch {name} is now shown by a scenario: take it off NO_SCENARIO_YET"
