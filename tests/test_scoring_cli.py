"""``caishen score``: the examples of docs/scoring.md work as printed; wrong input exits 2."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from caishen.cli import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "scoring.md"
EXAMPLES = re.findall(r"```\n\$ caishen (.*?)\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_doc_has_examples():
    assert len(EXAMPLES) == 4


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[f"example{i + 1}" for i in range(len(EXAMPLES))])
def test_doc_example_runs_as_printed(command, expected, capsys):
    assert main(shlex.split(command)) == 0
    assert capsys.readouterr().out == expected


def test_doc_example_figures(capsys):
    totals = []
    for command, _ in EXAMPLES:
        main(shlex.split(command))
        out = capsys.readouterr().out
        totals.append(int(re.search(r"^total (\d+)", out, flags=re.M).group(1)))
    # closed self-draw 4 fu 1 tai; Red pong + flower 14 fu 1 tai; 财神会 limit; loser 8 fu 3 tai
    assert totals == [50, 70, 300, 70]


def test_json_output(capsys):
    assert main(["score", "[6666z] 234m 678p 345s 567s 8p", "--win", "8p", "--seat", "N", "--indicator", "5p", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["fu"], data["tai"], data["total"], data["limit"]) == (16, 2, 150, None)
    assert {"rule": "L21.1", "chinese": "字刻 发财", "english": "triplet of 6z Green", "value": 1, "unit": "tai"} in data["items"]
    assert data["arrangement"]["groups"] == ["[6666z]", "234m", "678p", "88p", "345s", "567s"]


def test_json_limit(capsys):
    main(["score", "234m 678p 345s 567s 8p 5p5p f1", "--win", "8p", "--indicator", "5p", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["limit"]["name"] == "wild-meeting" and data["limit"]["chinese"] == "财神会"
    assert data["total"] == 300


def test_first_turn_flag(capsys):
    main(["score", "234m 68m 345p 567s 234s 99p", "--win", "7m", "--by", "self-draw", "--first-turn", "heavenly"])
    assert "total 300 = limit 天胡" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "234m 68m 345p 567s 234s 99p", "--win", "9m"], "is not a winning hand"),
        (["score", "234m 68m 345p 567s 234s 99p", "--win", "7m", "--indicator", "5z"], "not in the longgang tile set"),
        (["score", "234m 678m 345p 567s 234s 99p", "--win", "7m"], "17 tiles"),
        (["score", "234m 68m 345p 567s 234s 99p"], "--win"),
        (["score", "234m 68m 345p 567s 234s 99p", "--loser", "--win", "7m"], "drop --win"),
        (["score", "234m 68m 345p 567s 234s 99p", "--win", "7m", "--indicator", "7m"], "wild"),
    ],
)
def test_wrong_input_exits_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("caishen score: error:")


def test_dealer_is_east_whatever_his_seat(capsys: pytest.CaptureFixture[str]) -> None:
    """L1, L2 (issue 10, item 8): with the dealer in seat W, W's wind is East, so a pair of
    East scores 2 for him; before, seat W's wind was West whatever the dealer."""
    assert main(["score", "123m456m789m123p567s1z", "--win", "1z", "--seat", "W", "--dealer", "W", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fu"] == 2
    assert main(["score", "123m456m789m123p567s1z", "--win", "1z", "--seat", "W", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fu"] == 0
