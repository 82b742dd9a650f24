"""``caishen dataset`` (issue 32, item 7): match records as (observation, mask, action, reward)
rows, one per decision, replayed exactly; .npz and Parquet; filtered by player."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from caishen.cli import main
from caishen.engine.game import Game
from caishen.env.dataset import load, rows
from caishen.env.encoding import OBS_SIZE, encode
from caishen.table.record import load as load_record
from caishen.table.results import hand_chips


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ds") / "match.json"
    assert main(["selfplay", "--bots", "strong,greedy,strong,random", "--seed", "ds", "--hands", "3",
                 "--record", str(path), "--quiet"]) == 0
    return path


def test_every_decision_replayed_with_its_mask_action_and_the_hands_chips(record: Path) -> None:
    rec = load_record(record)
    assert rec.players == ("strong-0", "greedy-1", "strong-2", "random-3")
    data = rows([rec])
    assert len(data) == sum(len(h.actions) for h in rec.hands) > 0
    assert (data.mask[np.arange(len(data)), data.action] == 1).all()  # every action was legal
    i = 0
    for hr in rec.hands:
        g = Game(rec.ruleset, hr.wall, hr.dice, hr.dealer)
        for seat, action in hr.actions:
            assert data.seat[i] == seat and data.hand[i] == hr.index
            assert data.players[data.player[i]] == rec.players[hr.seats[seat]]
            assert data.obs[i].tolist() == np.asarray(encode(g.observation(seat)), dtype=np.float32).tolist()
            g.step(seat, action)
            i += 1
        assert g.outcome is not None
        chips = hand_chips(g.outcome, rec.ruleset)
        here = data.hand == hr.index
        assert data.reward[here].tolist() == [float(chips[s]) for s in data.seat[here]]


def test_filter_v2_and_files(record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "strong.npz"
    assert main(["dataset", str(record), "--out", str(out), "--player", "strong-*", "--obs-version", "v2"]) == 0
    assert "decisions from 3 hands of 1 record(s), 2 player(s), observation v2" in capsys.readouterr().out
    data = load(out)
    assert data.players == ["strong-0", "strong-2"] and data.obs_version == "v2"
    full = rows([load_record(record)], "v1")
    strong = np.isin(np.asarray(full.players)[full.player], ["strong-0", "strong-2"])
    assert np.array_equal(data.obs[:, :OBS_SIZE], full.obs[strong])  # v2 starts with v1
    assert np.array_equal(data.action, full.action[strong])
    import pyarrow.parquet as pq  # in the test extras: a missing one fails, never skips
    parquet = tmp_path / "all.parquet"
    assert main(["dataset", str(record), "--out", str(parquet)]) == 0
    table = pq.read_table(parquet)
    assert table.num_rows == len(full)
    assert np.asarray(table.column("obs").to_pylist(), dtype=np.float32).tolist() == full.obs.tolist()


def test_bad_output_is_one_line(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dataset", str(record), "--out", "x.csv"]) == 2
    assert capsys.readouterr().err == "caishen dataset: error: --out x.csv: must end in .npz or .parquet\n"
    assert main(["selfplay", "--bots", "strong,greedy", "--quiet"]) == 2
    assert "--bots needs 4 players (one per player), not 2" in capsys.readouterr().err
