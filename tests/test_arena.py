"""``caishen arena`` (issue 32, item 2): a fair duplicate comparison that checks itself: a player
against itself differs by exactly 0 (every arrangement of a deal is then the same game), random
against greedy loses with the CI excluding 0; seeded, the same on workers and Ray."""

from __future__ import annotations

import json
import math

import pytest

from caishen.arena import arena, arrangements, bootstrap, hands_needed
from caishen.cli import main
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI


def test_each_deal_seats_a_and_b_in_every_seat_equally_often() -> None:
    for mode, hands, each in (("both", 10, 5), ("1v3", 8, 4), ("2v2", 2, 1)):
        arr = arrangements(mode)
        assert len(arr) == hands
        for s in range(4):
            assert sum(s in x.a_seats for x in arr) == each
            assert sum(s not in x.a_seats for x in arr) == each
    assert [x.seating("A", "B") for x in arrangements("2v2")] == [("A", "B", "A", "B"), ("B", "A", "B", "A")]
    assert arrangements("1v3")[1].seating("A", "B") == ("B", "A", "B", "B")
    assert arrangements("1v3")[5].seating("A", "B") == ("A", "B", "A", "A")


def test_greedy_against_greedy_is_exactly_even() -> None:
    s = arena("greedy", "greedy", 4, LONGGANG, "even").summary("even", 1.0)
    assert s["hands"] == 40 and s["deals"] == 4
    assert s["diff"] == {"mean": 0.0, "low": 0.0, "high": 0.0, "sd": 0.0}  # the CI covers 0
    assert s["by_mode"]["1v3"]["mean"] == s["by_mode"]["2v2"]["mean"] == 0.0
    assert s["a_win_rate"] == s["b_win_rate"] and s["a_deal_in_rate"] == s["b_deal_in_rate"]


@pytest.mark.parametrize("rules", [LONGGANG, GANGCI], ids=["longgang", "gangci"])
def test_random_loses_to_greedy_with_the_ci_excluding_0(rules: object) -> None:
    s = arena("random", "greedy", 16, rules, "rg", workers=2).summary("rg", 1.0)  # type: ignore[arg-type]
    d = s["diff"]
    assert d["low"] <= d["mean"] <= d["high"] < 0
    assert s["a_win_rate"] < s["b_win_rate"]
    # zero-sum hands, each side in half the seat-hands: A's mean is minus B's
    assert s["a_chips_per_hand"] == pytest.approx(-s["b_chips_per_hand"])
    assert s["a_chips_per_hand"] - s["b_chips_per_hand"] == pytest.approx(d["mean"])


def test_seeded_and_the_same_on_workers() -> None:
    one = arena("random", "greedy", 6, LONGGANG, "w").summary("w", 2.0)
    two = arena("random", "greedy", 6, LONGGANG, "w", workers=2, batch_size=1).summary("w", 2.0)
    assert one == two
    assert arena("random", "greedy", 6, LONGGANG, "v").summary("v", 2.0) != one


def test_ray_gives_the_same_comparison() -> None:
    import ray  # noqa: F401  (in the test extras)

    local = arena("random", "greedy", 3, LONGGANG, "r").summary("r", 1.0)
    assert arena("random", "greedy", 3, LONGGANG, "r", backend="ray", batch_size=1).summary("r", 1.0) == local


def test_bootstrap_and_hands_needed() -> None:
    values = [float(v) for v in (-3, 1, 4, -1, 5, -9, 2, 6, -5, 3)]
    iv = bootstrap(values, "s")
    assert iv.mean == pytest.approx(0.3)
    assert iv.low < iv.mean < iv.high
    assert bootstrap(values, "s") == iv  # seeded
    assert iv.sd == pytest.approx(math.sqrt(sum((v - 0.3) ** 2 for v in values) / 9))
    # deals = (2 * 1.96 * sd / width)^2 = (3.92 * 5 / 1)^2 = 384.2 -> 385 deals of 10 hands
    assert hands_needed(5.0, 10, 1.0) == 3850
    assert bootstrap([2.0], "s").low == -math.inf


def test_cli_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "random", "greedy", "greedy", "--deals", "2", "--json", "--no-progress", "--seed", "j"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first, second = (json.loads(x) for x in lines)
    assert (first["a"], first["b"], first["hands"]) == ("random", "greedy", 20)
    assert first == second  # the same deals for every comparison
    assert main(["arena", "greedy", "random", "--deals", "2", "--mode", "2v2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "greedy vs random: 4 hands (2 deals)" in out and "95% CI" in out and "mode 2v2" in out


@pytest.mark.parametrize(("args", "message"), [
    (["greedy"], "arena needs A and at least one player to compare it with"),
    (["greedy", "wizard"], "unknown bot 'wizard'"),
    (["greedy", "random", "--deals", "0"], "--deals must be at least 1, not 0"),
])
def test_cli_mistakes_are_one_line(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"caishen arena: error: {message}") and err.count("\n") == 1
