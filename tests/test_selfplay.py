"""``caishen selfplay``, ``caishen replay`` and ``caishen verify`` through cli.main (issue 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from caishen import fair
from caishen.cli import main
from caishen.table.record import load
from caishen.table.replay import verify


def _selfplay(tmp_path: Path, name: str, *args: str) -> Path:
    out = tmp_path / name
    assert main(["selfplay", *args, "--record", str(out), "--quiet"]) == 0
    return out


def test_selfplay_writes_a_seeded_record(tmp_path: Path) -> None:
    a = _selfplay(tmp_path, "a.json", "--hands", "6", "--seed", "42")
    b = _selfplay(tmp_path, "b.json", "--hands", "6", "--seed", "42")
    assert a.read_text() == b.read_text()  # same seed, same record, byte for byte
    rec = load(a)
    assert len(rec.hands) == 6 and rec.ruleset.hands_per_match == 6
    assert rec.seed == b"42"
    # caishen-fair-2: each commitment covers the hand before (docs/fairness.md)
    prevs = [fair.NO_PREV, *(h.digest() for h in rec.hands[:-1])]
    assert [h.commitment for h in rec.hands] == [fair.chained_commitment(fair.hand_seed(b"42", i), prevs[i], i)
                                                 for i in range(6)]
    assert verify(rec).hands == 6


def test_selfplay_players_and_unseeded(tmp_path: Path) -> None:
    p = _selfplay(tmp_path, "six.json", "--hands", "5", "--players", "6")
    rec = load(p)
    assert rec.seed is None and len(rec.players) == 6 and rec.result["fees"] == 30
    q = _selfplay(tmp_path, "six2.json", "--hands", "5", "--players", "6")
    assert load(q).hands[0].commitment != rec.hands[0].commitment


def test_selfplay_prints_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.json"
    assert main(["selfplay", "--hands", "3", "--seed", "7", "--record", str(out)]) == 0
    text = capsys.readouterr().out
    assert "selfplay: 3 hands, longgang, seed '7'" in text
    assert f"record written to {out}" in text
    assert load(out).hands[0].commitment[:16] in text


def test_selfplay_refuses_bad_hands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--hands", "0"]) == 2
    assert capsys.readouterr().err.strip() == "caishen selfplay: error: --hands must be 1-10000, not 0"


def test_selfplay_names_the_match_lengths_a_game_allows(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 31: no "replace: hands_per_match = 2 is not one of 8 | 16 | 24" in the engine's words
    assert main(["selfplay", "--variant", "luoyang-gangci", "--hands", "2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "caishen selfplay: error: --hands 2: a Luoyang Gangci 洛阳杠次 match is 8, 16 or 24 hands (G8.2); "
        "give --hands one of those, or leave it out for 16")


def test_verify_accepts_what_the_engine_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _selfplay(tmp_path, "v.json", "--hands", "4", "--seed", "v", "--players", "5")
    assert main(["verify", str(p)]) == 0
    rec = load(p)
    draws = sum(len(h.draws) for h in rec.hands)
    assert capsys.readouterr().out.startswith(f"{p}: OK: 4 hands, {draws} draws")


def test_verify_names_the_first_altered_draw(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _selfplay(tmp_path, "d.json", "--hands", "3", "--seed", "d")
    data = json.loads(p.read_text())
    seat, pos, tile = data["hands"][2]["draws"][80]
    data["hands"][2]["draws"][80][2] = "9m" if tile != "9m" else "1m"
    p.write_text(json.dumps(data))
    assert main(["verify", str(p)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"caishen verify: FAILED: {p}: hand 3 (hands[2].draws[80]): draw does not match the wall: "
                          f"expected seat {seat} takes {tile} from wall position {pos}, recorded seat {seat} takes")


def test_verify_names_an_altered_wall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _selfplay(tmp_path, "w.json", "--hands", "2", "--seed", "w")
    data = json.loads(p.read_text())
    tiles = data["hands"][1]["wall"].split()
    j = next(j for j in range(1, 136) if tiles[j] != tiles[0])
    tiles[0], tiles[j] = tiles[j], tiles[0]
    data["hands"][1]["wall"] = " ".join(tiles)
    p.write_text(json.dumps(data))
    assert main(["verify", str(p)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"caishen verify: FAILED: {p}: hand 2 (hands[1]): wall position 0: expected {tiles[j]}, recorded {tiles[0]}"
    )


def test_verify_bad_file_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "bad.json"
    p.write_text('{"format": "caishen-record", "version": 9}')
    assert main(["verify", str(p)]) == 2
    err = capsys.readouterr().err.strip()  # one line; a long path is shortened to 80 characters
    assert err.startswith("caishen verify: error: ") and "\n" not in err
    assert err.endswith(" record: version 9 is not supported (this reads versions 1 to 3)")
    assert main(["verify", str(tmp_path / "missing.json")]) == 2


def test_replay_prints_move_by_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _selfplay(tmp_path, "r.json", "--hands", "2", "--seed", "r")
    rec = load(p)
    assert main(["replay", str(p), "--hand", "2", "--draws"]) == 0  # counted from 1, as the pages count
    out = capsys.readouterr().out
    hand = rec.hands[1]
    assert f"hand 2 (hands[1])  commitment {hand.commitment[:16]}" in out
    assert "hands[0]" not in out  # that hand only
    seat, action = hand.actions[0]
    assert f"   0  {'ESWN'[seat]}(random-{hand.seats[seat]})" in out
    n = len(hand.actions) - 1
    assert f"\n{n:>4}  " in out
    assert "replay reproduces all 2 hands" in out


def test_replay_refuses_an_illegal_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _selfplay(tmp_path, "i.json", "--hands", "1", "--seed", "i")
    data = json.loads(p.read_text())
    data["hands"][0]["actions"].insert(0, [2, "win"])
    p.write_text(json.dumps(data))
    assert main(["replay", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("caishen replay: error: hand 1 (hands[0].actions[0]): seat 2 win is illegal: seat 2 has nothing to decide now")
    assert main(["replay", str(p), "--hand", "5"]) == 2
    assert "--hand 5: the record has hands 1-1 (counted from 1)" in capsys.readouterr().err
    assert main(["replay", str(p), "--hand", "0"]) == 2
    assert "--hand 0: the record has hands 1-1 (counted from 1)" in capsys.readouterr().err
