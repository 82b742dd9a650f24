"""The numpy-only policy player (issue 32, item 8: the inference path; no trained weights ship)
and, in the slow suite, a smoke run of every stage of training/train_policy.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from caishen.env.encoding import NUM_ACTIONS, OBS_SIZE
from caishen.env.policy import POLICY_ENV, Policy, PolicyPlayer
from caishen.simulate import simulate
from caishen.variants.longgang.rules import LONGGANG

ROOT = Path(__file__).resolve().parent.parent


def random_policy(seed: int, hidden: int = 16) -> Policy:
    rng = np.random.default_rng(seed)
    shapes = {"w0": (OBS_SIZE, hidden), "b0": (hidden,), "w1": (hidden, hidden), "b1": (hidden,),
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
