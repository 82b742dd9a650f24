"""``caishen analyze --fields``: only the named fields are computed and printed (issue 14)."""

from __future__ import annotations

import io
import json

import pytest

from caishen.cli import main

COMPLETE = "11122233344455566m"  # 17 tiles, a win in five standard arrangements
WAITING = "1112223334445556m"  # 16 tiles, one short: waits on 1m-7m


def test_text_output_has_only_the_named_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", COMPLETE, "--fields", "shanten,win"]) == 0
    assert capsys.readouterr().out == "win      yes\nshanten  -1\n"
    assert main(["analyze", COMPLETE, "--fields", "forms,arrangements"]) == 0
    assert capsys.readouterr().out == (
        "forms    standard\n"
        "arrangements 5\n"
        "  standard: 111m 222m 33m 345m 456m 456m\n"
        "  standard: 111m 222m 333m 444m 555m 66m\n"
        "  standard: 111m 222m 345m 345m 345m 66m\n"
        "  standard: 111m 234m 234m 234m 555m 66m\n"
        "  standard: 123m 123m 123m 444m 555m 66m\n"
    )


def test_json_output_has_only_the_named_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", WAITING, "--fields", "waits,win,shanten", "--json"]) == 0
    out = capsys.readouterr().out
    assert out == '{"win": false, "waits": ["1m", "2m", "3m", "4m", "5m", "6m", "7m"], "shanten": 0}\n'
    assert main(["analyze", COMPLETE, "--fields", "forms", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"forms": ["standard"]}


def test_batch_from_stdin_skips_arrangements(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{COMPLETE}\n\n{WAITING}\n"))
    assert main(["analyze", "-", "--fields", "win,shanten"]) == 0
    assert capsys.readouterr().out == '{"win": true, "shanten": -1}\n{"win": false, "shanten": 0}\n'


def test_without_fields_the_json_keys_are_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", COMPLETE, "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["win", "waits", "shanten", "arrangements"]


@pytest.mark.parametrize("fields", ["win,score", ",", "Win"])
def test_an_unknown_field_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], fields: str) -> None:
    assert main(["analyze", COMPLETE, "--fields", fields]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("caishen analyze: error: ")
    assert "fields: win, forms, waits, shanten, arrangements" in captured.err
