"""Players plug in everywhere (issue 32, item 1): a researcher's own ``module:Class`` player or a
``caishen.players`` entry point in the simulator (its worker processes too), the single-seat
env's opponents and ``caishen play``."""

from __future__ import annotations

import json
import random
from importlib.metadata import EntryPoint
from typing import Any

import pytest

from caishen.bots import choose, make_bot, player_names
from caishen.cli import main
from caishen.engine.actions import ActionKind
from caishen.simulate import HandRow, simulate
from caishen.variants.longgang.rules import LONGGANG

TSUMO = "helpers_players:Tsumogiri"
CLAIMS = {ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG}


def test_module_class_player_is_built_with_rng_and_rules() -> None:
    p = make_bot(TSUMO, random.Random(1), LONGGANG)
    assert type(p).__name__ == "Tsumogiri" and p.name == "tsumogiri" and p.observes is False
    bare = make_bot("helpers_players:Bare")
    assert bare.name == "helpers_players:Bare" and bare.observes is True  # filled in


@pytest.mark.parametrize(("name", "message"), [
    ("helpers_players:Nope", "player 'helpers_players:Nope': 'helpers_players' has no 'Nope'"),
    ("no_such_module_x:P", "player 'no_such_module_x:P': cannot import 'no_such_module_x'"),
    ("helpers_players:NOT_CALLABLE", "player 'helpers_players:NOT_CALLABLE' is not a class or function"),
    ("wizard", "unknown bot 'wizard' (bots: random, greedy, strong, learned, or module:Class)"),
    (":X", "player ':X': expected module:Class"),
])
def test_bad_player_names_say_why(name: str, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        make_bot(name)
    assert str(exc.value).startswith(message)
    assert getattr(exc.value, "code", "") == "unknown-player"


def test_entry_point_players(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [EntryPoint("tsumo", TSUMO, "caishen.players")]

    def fake(group: str) -> list[EntryPoint]:
        return eps if group == "caishen.players" else []

    monkeypatch.setattr(choose, "entry_points", fake)
    choose.player_factory.cache_clear()
    try:
        assert player_names() == ("random", "greedy", "strong", "tsumo")
        assert type(make_bot("tsumo")).__name__ == "Tsumogiri"
    finally:
        choose.player_factory.cache_clear()


def test_simulate_plays_a_module_class_player_in_worker_processes() -> None:
    players = [TSUMO, "greedy", "greedy", "greedy"]
    one: list[HandRow] = []
    two: list[HandRow] = []
    kw: dict[str, Any] = dict(players=players, games=8, ruleset=LONGGANG, seed="p", single_hand=True)
    stats = simulate(on_batch=one.extend, workers=1, **kw)
    simulate(on_batch=two.extend, workers=2, batch_size=1, **kw)
    assert one == two  # the workers imported the player by name and played it alike
    assert all(TSUMO in r.bots for r in one)
    # the always-discarding player against three greedy bots: it never claims, so it loses
    # (chips a hand, summed over 8 seeded hands; greedy's share is the rest, rewards sum to 0)
    assert stats.bots[TSUMO].hands == 8
    assert stats.bots[TSUMO].chips < 0 < stats.bots["greedy"].chips * 3


def test_simulate_cli_with_workers(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--no-progress", "--json", "--games", "4", "--single-hand", "--workers", "2",
                 "--players", f"{TSUMO},greedy,random,greedy", "--seed", "c"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [b["bot"] for b in out["bots"]] == [TSUMO, "greedy", "random"]
    assert out["bots"][0]["hands"] == 4


def test_single_env_opponents_by_module_class() -> None:
    from caishen.env.single import LonggangSingleEnv

    env = LonggangSingleEnv(seat=1, opponents=(TSUMO, TSUMO, TSUMO))
    obs, _ = env.reset(seed=3)
    for _ in range(500):
        legal = obs["action_mask"].nonzero()[0]
        obs, _, terminated, _, _ = env.step(int(legal[-1]))  # pass where it can: the agent claims nothing
        if terminated:
            break
    assert terminated
    assert env.game is not None
    moves = env.game.move_stack
    opponents_moves = [a for s, a in moves if s != 1]
    assert opponents_moves  # they played
    assert not [a for a in opponents_moves if a.kind in CLAIMS]  # Tsumogiri never claims


def test_play_refuses_an_unknown_player_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--plain", "--bots", "helpers_players:Nope,strong,greedy"]) == 2
    assert "has no 'Nope'" in capsys.readouterr().err
