"""Version 1 records written before the redesign (tests/data/records-v1/, made by the commands
in its README) still replay and verify: records name their variant from version 2 on, and a
version 1 record is a Longgang record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caishen.table.record import VERSION, RecordError, load, loads
from caishen.table.replay import replay, verify

V1 = sorted((Path(__file__).parent / "data" / "records-v1").glob("*.json"))


def test_there_are_version_1_fixtures() -> None:
    assert [p.name for p in V1] == [
        "bots-4hands-seed-bots.json", "selfplay-4hands-seed-a.json", "selfplay-6players-8hands-seed-a.json",
    ]


@pytest.mark.parametrize("path", V1, ids=lambda p: p.stem)
def test_version_1_record_replays_and_verifies(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 1 and "variant" not in data
    rec = load(path)
    assert replay(rec).hands == len(data["hands"]) == verify(rec).hands
    again = json.loads(rec.dumps())  # written back as the current version, naming its variant
    assert (again["version"], again["variant"]) == (VERSION, "longgang") == (3, "longgang")
    assert replay(loads(rec.dumps())).result == replay(rec).result


def test_a_version_1_record_that_used_a_removed_switch_is_refused_with_one_line() -> None:
    data = json.loads(V1[1].read_text(encoding="utf-8"))
    data["ruleset"]["round_wind_tai"] = True
    with pytest.raises(RecordError, match="round_wind_tai = True is a version 1 switch that caishen 0.2 removed"):
        loads(json.dumps(data))
