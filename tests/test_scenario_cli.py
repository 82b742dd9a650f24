"""The scenario loader's errors and ``caishen scenario``: exit 0 when every expectation holds,
1 naming the first failed one, 2 with one line (file and line) for a malformed file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caishen.cli import main
from caishen.notation import parse_tile
from caishen.scenario import ScenarioError, loads, play, stacked_wall
from caishen.tiles import tile_name

GOOD = """\
# L10: East's 7p, South wins on it (地胡).
variant = "longgang"

[deal]
E = "1m4m7m 2p5p8p 3s6s 1z2z3z4z 6z7z 7p 3p 8s"
S = "123m456m789m123p456s 7p"

[[steps]]
seat = "E"
action = "discard 7p"

[[expect]]
after = 1
seat = "S"
legal = ["win", "pass"]

[[steps]]
seat = "S"
action = "win"

[[expect]]
after = "end"
winner = "S"
how = "discard"
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["scenario", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_good_file_exits_0_and_prints_steps_and_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, str(write(tmp_path, GOOD)))
    assert code == 0 and err == ""
    assert "step 1: E discard 7p  [claim]\n  S: win, pass\n" in out
    assert "winner S by discard on 7p from E" in out
    assert "地胡" in out  # the itemised score: the earthly win limit (L15)
    assert "expectations: 2/2 hold" in out


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, str(write(tmp_path, GOOD)), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["steps"][1] == {"after": 1, "seat": "E", "action": "discard 7p", "phase": "claim",
                                "legal": {"E": [], "S": ["win", "pass"], "W": [], "N": []}}
    assert data["outcome"] == {"winner": "S", "how": "discard", "tile": "7p", "from": "E", "draw": None}
    assert data["failures"] == [] and data["expectations"] == 2
    assert sum(data["chips"].values()) == 0 and data["chips"]["S"] > 0
    assert data["score"]["total"] > 0


def test_failed_expectation_exits_1_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.replace('winner = "S"', 'winner = "W"')
    code, _, err = run_cli(capsys, str(write(tmp_path, text)))
    assert code == 1
    assert err.strip() == f"caishen scenario: {tmp_path / 's.toml'}: expect 2 (end) line 21: winner S, expected W"


def test_failed_legal_set_names_missing_and_unexpected(tmp_path: Path) -> None:
    run = play(loads(GOOD.replace('legal = ["win", "pass"]', 'legal = ["win", "pong 7p"]')))
    assert run.failures == ["expect 1 (after step 1) line 12: legal of S: missing ['pong 7p'], unexpected ['pass']"]


@pytest.mark.parametrize(("text", "message"), [
    (GOOD.replace('seat = "S"\nlegal', 'seat = "S"\nlegal = [\nlegal'),
     ":16: not valid TOML: Invalid value"),
    (GOOD.replace('action = "win"', 'action = "hu"'),
     ":17: unknown action: steps[2].action: 'hu' is not an action (e.g. 'discard 5p', 'chow 4p 3p', 'pong 5p', 'win', 'pass')"),
    (GOOD.replace('action = "discard 7p"', 'action = "discard 7x"'),
     ":8: unknown action: steps[1].action: '7x' is not a tile (e.g. 5p, 7z, f2)"),
    (GOOD.replace('S = "123m', 'N = "7p7p7p 1s2s3s4s5s6s7s8s9s 1s2s3s4s"\nS = "123m'),
     ":6: deal.N: 7p placed 5 times: a tile placed twice (the set holds 4)"),
    (GOOD.replace('variant = "longgang"', 'variant = "longgang"\nround = "E"'),
     ":3: round: unknown key 'round' (known: deal, dealer, dice, expect, indicator, match, ruleset, steps, variant, wall)"),
    (GOOD.replace('how = "discard"', 'how = "discard"\nscore = 10'),
     ":25: expect[2].score: unknown key 'score' (known: after, broke, chips, fu, how, legal, match_over, next_seats, next_waiting, phase, seat, seats, tai, total, winner)"),
    (GOOD.replace('S = "123m456m789m123p456s 7p"', 'S = "123m456m789m123p456s"'),
     ": deal.S: must be 16 tiles (not the dealer), not 15"),
    (GOOD.replace('variant = "longgang"', 'variant = "longgang"\n[ruleset]\nchow = false'),
     ": ruleset: unknown switch 'chow'"),
    (GOOD.replace('[deal]', '[wall]\ndraws = "f1"\n[deal]').replace('E = "1m4m7m', 'E = "f1 4m7m'),
     ": wall.draws: f1 placed 2 times: a tile placed twice (the set holds 1)"),
])
def test_malformed_file_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              text: str, message: str) -> None:  # noqa: E501
    path = write(tmp_path, text)
    code, out, err = run_cli(capsys, str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"caishen scenario: error: {path}")
    assert message in err


def test_a_step_that_cannot_be_played_exits_2_with_the_reason(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.replace('3p 8s"', '3p 9s"').replace('action = "discard 7p"', 'action = "discard 9s"')  # a wild (L8)
    code, _, err = run_cli(capsys, str(write(tmp_path, text)))
    assert code == 2 and ":8: steps[1] E discard 9s: " in err and "wild" in err


def test_gangci_file_plays_with_its_payments(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).resolve().parent / "scenarios" / "luoyang-gangci" / "G5.4-zhi-ci-example-1.toml"
    code, out, err = run_cli(capsys, str(path))
    assert code == 0 and err == ""
    assert "winner S by zhi_ci on 1p from E" in out
    assert "G2.7" in out and "2 × 6000 + 1000" in out
    assert "chips E -13000  S +19000  W -3000  N -3000" in out
    assert "expectations: 1/1 hold" in out


def test_error_is_a_value_error_with_line() -> None:
    with pytest.raises(ScenarioError) as info:
        loads('variant = "longgang"\ndealer = "X"\n', "x.toml")
    assert isinstance(info.value, ValueError) and info.value.line == 2
    assert str(info.value) == "x.toml:2: dealer: must be a seat E, S, W or N, not 'X'"


def test_several_files_stop_at_the_first_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, GOOD, "a.toml")
    bad = write(tmp_path, GOOD.replace('how = "discard"', 'how = "self_draw"'), "b.toml")
    code, out, err = run_cli(capsys, str(good), str(bad))
    assert code == 1 and out.count("expectations:") == 2
    assert "b.toml: expect 2 (end) line 21: how discard, expected self_draw" in err


def test_an_illegal_answer_is_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.replace('action = "win"', 'action = "pong 7p"')  # South holds one 7p
    code, _, err = run_cli(capsys, str(write(tmp_path, text)))
    assert code == 2 and ":17: steps[2] S pong 7p: " in err


def test_full_layout_and_head_at(tmp_path: Path) -> None:
    # The same deal as GOOD, given as the whole wall in position order; and a draw by head_at.
    scn = loads(GOOD)
    wall = stacked_wall(scn.deal, indicator="9s")
    assert play(scn).game.wall == wall
    layout = " ".join(tile_name(k) for k in wall)
    text = GOOD.split("[deal]")[0] + f'[wall]\nlayout = "{layout}"\n\n[[steps]]' + GOOD.split("[[steps]]", 1)[1]
    run = play(loads(text))
    assert run.failures == [] and run.game.wall == wall
    run = play(loads(GOOD.replace("[[steps]]", '[wall]\nhead_at = { 65 = "7p" }\n\n[[steps]]', 1)
                     .replace('action = "win"', 'action = "pass"').replace('winner = "S"\nhow = "discard"\n',
                                                                             'phase = "turn"\n')))
    assert run.failures == [] and run.game.hand(1).concealed.count(parse_tile("7p")) == 1 + 1
