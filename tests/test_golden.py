"""Same behaviour: seeds 1-300 replay the golden hands of tests/data/golden-longgang.jsonl
byte for byte (actions, outcome, itemised score, chips; see tests/golden.py)."""

from __future__ import annotations

import json

from golden import PATH, golden_lines


def test_golden_hands_are_unchanged() -> None:
    expected = PATH.read_text(encoding="utf-8").splitlines()
    got = golden_lines()
    assert len(expected) == 600
    for want, have in zip(expected, got, strict=True):
        if want != have:
            w = json.loads(want)
            raise AssertionError(
                f"seed {w['seed']} table {w['table']} differs from the golden file:\n"
                f"golden: {want}\nnow:    {have}"
            )
