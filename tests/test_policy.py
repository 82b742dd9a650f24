"""The numpy-only policy player (issue 32, item 8: the inference path; the shipped level
``learned`` is tested in test_learned.py), its optional features, and, in the slow suite, a
smoke run of every stage of training/train_policy.py."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from caishen import fair
from caishen.bots import make_bot
from caishen.engine.actions import ActionKind
from caishen.engine.game import Game
from caishen.env.encoding import NUM_ACTIONS, OBS_SIZE
from caishen.env.policy import FEATURES, POLICY_ENV, Policy, PolicyPlayer, features_into
from caishen.simulate import simulate
from caishen.variants.longgang.rules import LONGGANG

ROOT = Path(__file__).resolve().parent.parent


def random_policy(seed: int, hidden: int = 16, inputs: int = OBS_SIZE) -> Policy:
    rng = np.random.default_rng(seed)
    shapes = {"w0": (inputs, hidden), "b0": (hidden,), "w1": (hidden, hidden), "b1": (hidden,),
              "w2": (hidden, NUM_ACTIONS), "b2": (NUM_ACTIONS,)}
    return Policy({k: rng.normal(size=s).astype(np.float32) for k, s in shapes.items()})


def test_forward_is_the_mlp() -> None:
    p = random_policy(0)
    x = np.random.default_rng(1).random(OBS_SIZE, dtype=np.float32)
    w0, b0, w1, b1, w2, b2 = p.w
    expected = np.maximum(np.maximum(x @ w0 + b0, 0) @ w1 + b1, 0) @ w2 + b2
    assert np.allclose(p.logits(x), expected)
    with pytest.raises(ValueError, match="policy weights lack w2, b2"):
        Policy({k: p.w[i] for i, k in enumerate(("w0", "b0", "w1", "b1"))})


def test_policy_player_plays_legal_moves_in_simulate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.npz"
    random_policy(2).save(path)
    monkeypatch.setenv(POLICY_ENV, str(path))
    players = ["caishen.env.policy:PolicyPlayer", "greedy", "random", "greedy"]
    rows: list[object] = []
    stats = simulate(players, 4, LONGGANG, "pol", single_hand=True, on_batch=rows.extend)
    assert stats.bots["caishen.env.policy:PolicyPlayer"].hands == 4  # every move legal, or the engine raises


def test_features_are_what_greedy_weighs() -> None:
    """On every choice of a few greedy hands: the discard greedy plays keeps the least shanten
    (its feature is set), exactly one shanten is marked, and claims carry greedy's gain."""
    f = np.empty(FEATURES, dtype=np.float32)
    seen = {"discard": 0, "claim": 0}
    for h in range(3):
        game = Game.from_seed(fair.hand_seed(b"features", h), LONGGANG, h)
        bots = [make_bot("greedy", random.Random(s), LONGGANG) for s in range(4)]
        while not game.is_over:
            for s in game.to_move():
                o = game.observation(s)
                a = bots[s].act(o)
                if len(o.legal_actions) > 1:
                    features_into(o, LONGGANG, f)
                    assert f[68:77].sum() == 1.0
                    if a.kind is ActionKind.DISCARD:
                        assert f[a.tile] == 1.0 and f[34 + a.tile] >= 0.0
                        seen["discard"] += 1
                    elif a.kind in (ActionKind.PONG, ActionKind.CHOW):
                        assert f[77:].max() > 0.0  # greedy claims only when the shanten drops
                        seen["claim"] += 1
                game.step(s, a)
                if game.is_over:
                    break
    assert seen["discard"] > 20


def test_a_network_with_features_plays_and_saves_in_half(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = random_policy(3, inputs=OBS_SIZE + FEATURES)
    assert p.features and not random_policy(3).features
    path = tmp_path / "f.npz"
    p.save(path, half=True)
    back = Policy.load(path)
    assert back.features and back.w[0].dtype == np.float32
    assert np.allclose(back.w[0], p.w[0], atol=1e-2) and path.stat().st_size < p.size() * 0.6
    monkeypatch.setenv(POLICY_ENV, str(path))
    stats = simulate(["caishen.env.policy:PolicyPlayer", "greedy", "strong", "greedy"], 2, LONGGANG, "feat",
                     single_hand=True)
    assert stats.bots["caishen.env.policy:PolicyPlayer"].hands == 2  # every move legal, or the engine raises


def test_no_weights_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(POLICY_ENV, raising=False)
    with pytest.raises(ValueError, match=r"set \$CAISHEN_POLICY"):
        PolicyPlayer()


@pytest.mark.slow
def test_training_smoke_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import torch  # the test extra's stable-baselines3 brings it (.ci/run: the CPU build)
    monkeypatch.syspath_prepend(str(ROOT / "training"))
    monkeypatch.setenv(POLICY_ENV, "")
    import train_policy

    out = tmp_path / "smoke.npz"
    assert train_policy.main(["--smoke", "--out", str(out), "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["smoke"] and report["bc_decisions"] > 0 and len(report["ppo_reward_per_hand"]) == 2
    assert report["arena_vs_greedy"]["hands"] == 20
    policy = Policy.load(out)
    net = train_policy.Net(32)
    torch.manual_seed(0)
    exported = net.export()
    x = np.random.default_rng(0).random((5, OBS_SIZE), dtype=np.float32)
    with torch.no_grad():
        logits, _ = net(torch.as_tensor(x), torch.ones(5, NUM_ACTIONS))
    assert np.allclose(exported.logits(x), logits.numpy(), atol=1e-4)  # numpy plays what torch trained
    assert policy.size() < 2_000_000
    assert sys.modules["train_policy"] is train_policy


@pytest.mark.slow
def test_training_smoke_run_with_dagger(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A DAgger round (how the shipped ``learned`` was trained): the network plays, each of its
    real choices becomes a row labelled with ``strong``'s choice, the rows join the cloning data."""
    monkeypatch.syspath_prepend(str(ROOT / "training"))
    monkeypatch.setenv(POLICY_ENV, "")
    import train_policy

    out = tmp_path / "dagger.npz"
    assert train_policy.main(["--smoke", "--features", "--dagger-rounds", "1", "--dagger-matches", "1",
                              "--out", str(out), "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    (round0,) = report["dagger"]
    assert round0["rows_added"] > 0 and round0["rows"] == report["bc_decisions"] + round0["rows_added"]
    assert Policy.load(tmp_path / "dagger-dagger0.npz").features and Policy.load(out).features
    rows: list[tuple[Any, Any, int]] = []
    legal_seen = 0
    teacher = make_bot("strong", random.Random(0), LONGGANG)
    player = train_policy._Labelled(PolicyPlayer(policy=Policy.load(out)), teacher, rows)
    game = Game.from_seed(fair.hand_seed(b"dagger", 0), LONGGANG, 0)
    others = [make_bot("greedy", random.Random(s), LONGGANG) for s in range(4)]
    while not game.is_over:
        for s in game.to_move():
            o = game.observation(s)
            if s == 0:
                legal_seen += len(o.legal_actions) > 1 and all(a.kind is not ActionKind.WIN for a in o.legal_actions)
                game.step(s, player.act(o))
            else:
                game.step(s, others[s].act(o))
            if game.is_over:
                break
    assert len(rows) == legal_seen > 0  # a row for each real choice, and only those
    for obs, mask, label in rows:
        assert obs.shape == (OBS_SIZE + FEATURES,) and mask[label] == 1  # strong's choice is legal there
