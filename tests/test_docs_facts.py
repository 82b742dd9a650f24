"""Facts the developer docs state about the API, checked against the code (a review found each
of these stale: a row value never written, a mask length, names in the wrong module)."""

from __future__ import annotations

import re
from pathlib import Path

from caishen.engine import actions
from caishen.engine.outcome import WinHow
from caishen.env.encoding import NUM_ACTIONS, mask_of
from caishen.shapes import analysis
from caishen.simulate import DRAW
from caishen.table.record import VERSION

DOCS = Path(__file__).resolve().parent.parent / "docs"


def text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_simulate_rows_how_lists_the_values_written() -> None:
    line = re.search(r"`how`\s*\n?\s*\(([^)]*)\)", text("simulate.md"))
    assert line is not None
    assert set(re.findall(r"`(\w+)`", line.group(1))) == {h.value for h in WinHow} | {DRAW}


def test_simulate_game_is_not_said_to_stop_at_16_hands() -> None:
    assert "hands until 16 are played" not in text("simulate.md")


def test_env_mask_of_length() -> None:
    n = re.search(r"`mask_of\(legal_actions\)` → a list of (\d+)", text("env.md"))
    assert n is not None and int(n.group(1)) == NUM_ACTIONS == len(mask_of(()))


def test_engine_shared_actions_live_where_the_docs_say() -> None:
    said = re.search(r"`caishen\.engine\.actions` holds every action once \(([^)]*\)[^)]*)\)", text("engine.md"))
    assert said is not None
    for name in ("DISCARDS", "PONGS", "CHOWS", "WIN", "PASS"):
        assert f"`{name}" in said.group(1) and hasattr(actions, name)


def test_analysis_function_table_names_only_analyser_functions() -> None:
    rows = re.findall(r"^\| `(\w+)\(", text("analysis.md"), re.M)
    assert rows and all(hasattr(analysis, name) for name in rows), rows


def test_records_version_row_names_every_version_read() -> None:
    row = re.search(r"^\| `version` \| (.*)$", text("records.md"), re.M)
    assert row is not None
    assert {int(v) for v in re.findall(r"`(\d)`", row.group(1).split(":")[0])} == set(range(1, VERSION + 1))
