"""Issue 13, items 1, 3 and 5 as a table: every broken or hostile input gives exit 2 and one line
on stderr (or the documented behaviour: ``verify`` exits 1 with one ``FAILED`` line for a record
that fails a check), never a traceback."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from caishen import __version__, build
from caishen.cli import main

SRC = Path(__file__).resolve().parents[1] / "src"
SEED = "191"  # hands 1 and 2 of this 3-hand self-play match are wins (1: N self-drawn, a limit: 300)
WON = 1


@pytest.fixture(scope="module")
def record_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("rec") / "match.json"
    assert main(["selfplay", "--seed", SEED, "--hands", "3", "--record", str(path), "--quiet"]) == 0
    return path.read_text(encoding="utf-8")


def run(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        stdin: bytes | None = None) -> tuple[int, str, str]:
    monkeypatch.delenv("COLUMNS", raising=False)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: --version, --help, argument errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line(err: str, command: str | None = None) -> None:
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    if command is not None:
        assert err.startswith(f"caishen {command}:"), err


# ---------------------------------------------------------------- the table

Build = Callable[[Path, dict[str, Any]], list[str]]


def toml(tmp: Path, text: str) -> str:
    p = tmp / "rules.toml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def record_file(tmp: Path, data: Any, raw: str | None = None) -> str:
    p = tmp / "bad.json"
    p.write_text(raw if raw is not None else json.dumps(data), encoding="utf-8")
    return str(p)


def edit(change: Callable[[dict[str, Any]], None], unsigned: bool = True) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(rec: dict[str, Any]) -> dict[str, Any]:
        d = copy.deepcopy(rec)
        if unsigned:
            d.pop("signature", None)
        change(d)
        return d
    return apply


def set_result(key: str, value: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return edit(lambda d: d["hands"][WON]["result"].__setitem__(key, value))


def rec_cmd(command: str, mutate: Callable[[dict[str, Any]], dict[str, Any]]) -> Build:
    return lambda tmp, rec: [command, record_file(tmp, mutate(rec))]


def rules_with(text: str) -> Build:
    return lambda tmp, rec: ["rules", toml(tmp, text)]


DEEP = "[" * 200_000 + "]" * 200_000

# (id, argv builder, exit status, text the one error line contains)
CASES: list[tuple[str, Build, int, str]] = [
    # item 1: tracebacks
    ("fu_per_chip=0 score", lambda t, r: ["score", "234m 68m 345p 567s 234s 99p", "--win", "7m", "--ruleset",
                                          toml(t, "fu_per_chip = 0\n")], 2, "fu_per_chip = 0 is out of range"),
    ("fu_per_chip=0 selfplay", lambda t, r: ["selfplay", "--quiet", "--ruleset", toml(t, "fu_per_chip = 0\n")], 2,
     "fu_per_chip"),
    ("fu_per_chip=0 simulate", lambda t, r: ["simulate", "--games", "1", "--no-progress", "--ruleset",
                                             toml(t, "fu_per_chip = 0\n")], 2, "fu_per_chip"),
    ("fu_per_chip=0 verify", rec_cmd("verify", edit(lambda d: d["ruleset"].__setitem__("fu_per_chip", 0))), 2,
     "fu_per_chip = 0 is out of range"),
    ("sea_floor_tiles=1000 selfplay", lambda t, r: ["selfplay", "--quiet", "--ruleset",
                                                    toml(t, "sea_floor_tiles = 1000\n")], 2, "sea_floor_tiles"),
    ("sea_floor_tiles=1000 replay", rec_cmd("replay", edit(lambda d: d["ruleset"].__setitem__("sea_floor_tiles", 1000))),
     2, "sea_floor_tiles = 1000 is out of range 1..4"),
    ("deep JSON replay", lambda t, r: ["replay", record_file(t, None, DEEP)], 2, "nested too deeply"),
    ("deep JSON verify", lambda t, r: ["verify", record_file(t, None, DEEP)], 2, "nested too deeply"),
    ("result {} replay", rec_cmd("replay", edit(lambda d: d["hands"][WON].__setitem__("result", {}))), 2,
     "hand 2 (hands[1]): broke: replay gives [], record says null"),
    ("winner 5 replay", rec_cmd("replay", set_result("winner", 5)), 2, "winner: replay gives 3, record says 5"),
    ("winner 'E' replay", rec_cmd("replay", set_result("winner", "E")), 2, 'record says "E"'),
    ("winner 3.0 replay", rec_cmd("replay", set_result("winner", 3.0)), 2, "replay gives 3, record says 3.0"),
    ("winner 3.0 verify", rec_cmd("verify", set_result("winner", 3.0)), 1, "record says 3.0"),
    ("winner null replay", rec_cmd("replay", set_result("winner", None)), 2, "record says null"),
    ("score {} replay", rec_cmd("replay", set_result("score", {})), 2, "hand 2 (hands[1]): score.loser_totals: replay gives"),
    ("games 1e12", lambda t, r: ["simulate", "--games", "1000000000000", "--no-progress"], 2,
     "--games must be 1-1,000,000,000"),
    ("indent 1e8", lambda t, r: ["selfplay", "--indent", "100000000", "--record", str(t / "x.json")], 2,
     "--indent must be 0-8"),
    ("ray garbage address", lambda t, r: ["simulate", "--backend", "ray", "--address", "garbage://x",
                                          "--no-progress"], 2, "--address 'garbage://x'"),
    # item 2 (the ranges the rules loader declares): each bad value names the switch and range
    *[(f"rules {text.strip()}", rules_with(text), 2, text.split(" =")[0])
      for text in ("fu_per_chip = 0\n", "dead_wall_stacks = 100\n", "base_fu = -1000\n", "max_total = -5\n",
                   "start_chips = 0\n", "limit_chips = [-72, 42]\n")],
    # item 3: strict records
    ("version true", rec_cmd("replay", edit(lambda d: d.__setitem__("version", True))), 2,
     "version True is not supported"),
    ("chips false replay", rec_cmd("replay", edit(lambda d: d["hands"][0]["result"].__setitem__("chips", [False] * 4))),
     2, "hand 1 (hands[0]): chips[0]: replay gives 54, record says false"),
    ("chips false verify", rec_cmd("verify", edit(lambda d: d["hands"][0]["result"].__setitem__("chips", [False] * 4))),
     1, "record says false"),
    ("ruleset missing key", rec_cmd("replay", edit(lambda d: d["ruleset"].pop("table_fee"))), 2,
     "record.ruleset: missing table_fee"),
    ("master seed", rec_cmd("verify", edit(lambda d: d.__setitem__("seed", "00" * 16))), 1,
     "hand 1 (hands[0]): the hand's seed is not the one the match seed gives"),
    ("forged total", rec_cmd("replay", edit(lambda d: d["hands"][WON]["result"]["score"]["winner"].__setitem__(
        "total", 999))), 2, "score.winner.total: replay gives 300, record says 999"),
    ("signature broken", rec_cmd("replay", edit(lambda d: d["players"].__setitem__(0, "mallory"), unsigned=False)), 2,
     "does not match the record: it was altered"),
    ("signature broken verify", rec_cmd("verify", edit(lambda d: d["players"].__setitem__(0, "mallory"),
                                                       unsigned=False)), 1, "it was altered"),
    ("duplicate key", lambda t, r: ["replay", record_file(t, None, '{"format": 1, "format": 2}')], 2, "duplicate key"),
    # item 5: the command line
    ("missing argument", lambda t, r: ["score"], 2, "the following arguments are required: hand"),
    ("bad int", lambda t, r: ["simulate", "--games", "many"], 2, "argument --games: invalid int value: 'many'"),
    ("unknown command", lambda t, r: ["nosuch"], 2, "invalid choice: 'nosuch'"),
    ("score --wild is gone", lambda t, r: ["score", "123m", "--wild", "5p"], 2, "unrecognized arguments: --wild 5p"),
    ("bad --plot dir", lambda t, r: ["simulate", "--games", "1000", "--plot", str(t / "no" / "x.png")], 2,
     "--plot"),
    ("bad --plot suffix", lambda t, r: ["simulate", "--games", "1000", "--plot", str(t / "x.txt")], 2,
     "must end in .png or .pdf or .svg"),
    ("bad --out dir", lambda t, r: ["simulate", "--games", "1000", "--out", str(t / "no" / "x.jsonl")], 2, "--out"),
    ("bad --record dir", lambda t, r: ["selfplay", "--record", str(t / "no" / "x.json")], 2, "no directory"),
    ("bad --key", lambda t, r: ["verify", "--key", "nothex", record_file(t, r)], 2, "64 hex digits"),
    ("empty stdin", lambda t, r: ["replay", "-"], 2, "not JSON"),
]


@pytest.mark.parametrize(("name", "build", "status", "says"), CASES, ids=[c[0] for c in CASES])
def test_case_is_one_line(
    name: str, build: Build, status: int, says: str, record_text: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = build(tmp_path, json.loads(record_text))
    code, out, err = run(argv, capsys, monkeypatch, stdin=b"")
    assert code == status, err
    assert_one_line(err)
    assert says in err
    if argv[0] == "replay":
        assert out == ""  # replay checks the whole record before printing anything


def test_long_input_is_echoed_at_most_80_characters(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    hand = "1m" * 550_000 + "x"  # a 1.1 MB hand
    for argv in (["analyze", hand], ["score", hand, "--win", "1m"], ["analyze", "1m", "--indicator", hand]):
        code, _, err = run(argv, capsys, monkeypatch)
        assert code == 2
        assert_one_line(err)
        assert len(err) <= 400 and "1m" * 41 not in err


def test_stdin_input_of_analyze_is_echoed_at_most_80_characters(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run(["analyze", "-"], capsys, monkeypatch, stdin=("9z" * 100_000 + "\n").encode())
    assert code == 2
    assert_one_line(err)
    assert len(err) <= 400


def test_names_from_a_record_are_printed_escaped(record_text: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    d = json.loads(record_text)
    del d["signature"]
    d["players"][0] = "\u001b]0;pwned\u0007"
    code, out, err = run(["replay", record_file(tmp_path, d)], capsys, monkeypatch)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07" in out


def test_version(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["--version"], capsys, monkeypatch)
    assert (code, out) == (0, f"caishen {__version__} ({build()})\n")



def test_python_dash_m_caishen_is_the_command_line(tmp_path: Path) -> None:
    """``python -m caishen`` runs the same command line, one-line errors and exit 2 included."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    ok = subprocess.run([sys.executable, "-m", "caishen", "--version"], capture_output=True, text=True, env=env,
                        timeout=60, check=False)
    assert (ok.returncode, ok.stdout) == (0, f"caishen {__version__} ({build()})\n")
    bad = subprocess.run([sys.executable, "-m", "caishen", "rules", "nosuch"], capture_output=True, text=True,
                         env=env, timeout=60, check=False)
    assert bad.returncode == 2 and bad.stdout == ""
    assert_one_line(bad.stderr, "rules")

def test_help_still_shows_usage(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["score", "--help"], capsys, monkeypatch)
    assert code == 0 and out.startswith("usage: caishen score") and "--indicator TILE" in out


def test_replay_and_verify_read_stdin(record_text: str, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(["verify", "-"], capsys, monkeypatch, stdin=record_text.encode())
    assert code == 0, err
    assert out.startswith("stdin: OK: 3 hands")
    code, out, err = run(["replay", "-"], capsys, monkeypatch, stdin=record_text.encode())
    assert code == 0, err
    assert "replay reproduces all 3 hands" in out


def test_indicator_means_the_same_in_analyze_and_score(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # 5p turned up: the other 5p are the wild 财神 (L4); --wild 5p names that kind directly.
    hand = "234m 678p 345s 567s 8p8p 5p5p 9m"
    code, out, err = run(["analyze", hand, "--indicator", "5p", "--json"], capsys, monkeypatch)
    assert code == 0, err
    code2, out2, _ = run(["analyze", hand, "--wild", "5p", "--json"], capsys, monkeypatch)
    assert code2 == 0 and json.loads(out) == json.loads(out2)
    assert json.loads(out)["win"] is True
    code, out, err = run(["score", "234m 678p 345s 567s 8p 5p5p f1", "--win", "8p", "--indicator", "5p", "--json"],
                         capsys, monkeypatch)
    assert code == 0, err
    assert "5p" in json.dumps(json.loads(out)["arrangement"], ensure_ascii=False)


def test_score_line_says_multiple_of_10(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["score", "234m 68m 345p 567s 234s 99p", "--win", "7m", "--by", "self-draw"], capsys,
                       monkeypatch)
    assert code == 0
    assert out.splitlines()[-1] == "total 50 = (4 + 20) x 2^1 = 48, rounded up to a multiple of 10 (L23)"


def test_tables_fit_80_columns(record_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    rec = tmp_path / "r.json"
    rec.write_text(record_text, encoding="utf-8")
    commands = [
        ["rules"],
        ["analyze", "234m 678p 345s 567s 8p8p 5p5p 9m", "--indicator", "5p"],
        ["simulate", "--games", "2", "--no-progress", "--players", "greedy,random,random,greedy"],
        ["selfplay", "--seed", "x", "--hands", "2"],
        ["replay", str(rec), "--draws"],
        ["score", "234m 68m 345p 567s 234s 99p", "--win", "7m"],
    ]
    for argv in commands:
        code, out, err = run(argv, capsys, monkeypatch)
        assert code == 0, (argv, err)
        wide = [line for line in out.splitlines() if len(line) > 80]
        assert not wide, (argv, wide[:2])


def test_simulate_table_names_bots_in_several_seats(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["simulate", "--games", "2", "--no-progress", "--players", "greedy,random,random,random",
                        "--json"], capsys, monkeypatch)
    assert code == 0
    bots = {b["bot"]: b for b in json.loads(out)["bots"]}
    assert (bots["greedy"]["seats"], bots["random"]["seats"]) == (1, 3)
    r = bots["random"]
    # per seat, like the win rate: limit hands over (hands x seats)
    assert r["limit_rate"] == pytest.approx(r["limit_hands"] / (r["hands"] * 3))
    code, out, _ = run(["simulate", "--games", "2", "--no-progress", "--players", "greedy,random,random,random"],
                       capsys, monkeypatch)
    assert "random fills 3 seats" in out and "per seat" in out


def test_simulate_batches_are_lazy() -> None:
    from caishen.simulate import batches

    parts = batches(1_000_000_000, 50)
    assert next(parts) == (0, 50) and next(parts) == (50, 100)


def test_broken_pipe_exits_quietly(tmp_path: Path) -> None:
    """``caishen score ... | head -2``: the reader has gone; no "Broken pipe", no traceback."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "caishen.cli", "rules"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command writes a byte
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert err == b""
    shell = subprocess.run(
        f"{sys.executable} -m caishen.cli score '234m 68m 345p 567s 234s 99p' --win 7m | head -2",
        shell=True, capture_output=True, env=env, timeout=60, check=False,
    )
    assert shell.stderr == b"" and len(shell.stdout.splitlines()) == 2
