"""Issue 13, item 4: signed records. A record signed by ``caishen selfplay`` verifies with
``--key``; changing any move, result, name or ruleset value makes it fail; and so does a
record whose moves were played again on the same walls with different choices."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from caishen.cli import main
from caishen.table import match as match_api  # the one import of the match layer (being rewritten)
from caishen.table.record import loads
from caishen.table.replay import verify
from caishen.table.signing import (
    SignatureError,
    canonical,
    data_dir,
    default_key_path,
    load_or_create_key,
    public_key_hex,
    sign_record,
    sign_text,
    verify_signature,
)

SEED = "5"


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(record text signed by selfplay, the table's public key from ``caishen keys show``)."""
    path = tmp_path_factory.mktemp("signed") / "match.json"
    assert main(["selfplay", "--seed", SEED, "--hands", "3", "--record", str(path), "--quiet"]) == 0
    return path.read_text(encoding="utf-8"), public_key_hex(load_or_create_key())


def verify_cli(text: str, key: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    code = main(["verify", *(["--key", key] if key else []), str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out + err


def test_keys_show_prints_the_key_selfplay_signs_with(signed: tuple[str, str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    text, key = signed
    assert main(["keys", "show"]) == 0
    assert capsys.readouterr().out == key + "\n"
    assert json.loads(text)["signature"]["key"] == key


def test_selfplay_record_verifies_with_key(signed: tuple[str, str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    text, key = signed
    code, out = verify_cli(text, key, tmp_path, capsys)
    assert code == 0, out
    assert "OK: 3 hands" in out and "signed by the given key" in out


def mutate(change: Callable[[dict[str, Any]], None]) -> Callable[[str], str]:
    def apply(text: str) -> str:
        d = json.loads(text)
        change(d)
        return json.dumps(d, ensure_ascii=False)
    return apply


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return change


CHANGES: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("first move", _set(["hands", 0, "actions", 0, 1], "discard 1m")),
    ("a move's seat", _set(["hands", 0, "actions", 5, 0], 2)),
    ("a move dropped", lambda d: d["hands"][2]["actions"].pop()),
    ("hand result chips", _set(["hands", 1, "result", "chips"], [-42, -72, -42, 156])),
    ("hand winner", _set(["hands", 1, "result", "winner"], 2)),
    ("match chips", _set(["result", "chips"], [103, 27, 11, 239])),
    ("a name", _set(["players", 0], "mallory")),
    ("ruleset base_fu", _set(["ruleset", "base_fu"], 30)),
    ("ruleset switch", _set(["ruleset", "bulldozer"], False)),
    ("master seed", _set(["seed"], None)),
    ("a draw", _set(["hands", 0, "draws", 3, 1], 0)),
]


@pytest.mark.parametrize(("name", "change"), CHANGES, ids=[c[0] for c in CHANGES])
def test_any_change_fails(name: str, change: Callable[[dict[str, Any]], None], signed: tuple[str, str],
                          tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, key = signed
    altered = mutate(change)(text)
    for k in (key, None):  # with the published key, and against the key the record names
        code, out = verify_cli(altered, k, tmp_path, capsys)
        assert code == 1, out  # the walls or draws fail first when the change touches them
        assert "FAILED" in out and out.count("\n") == 1
    with pytest.raises(SignatureError, match="altered"):
        verify_signature(altered, key)


def test_reformatting_keeps_the_signature(signed: tuple[str, str]) -> None:
    text, key = signed
    d = json.loads(text)
    pretty = json.dumps(dict(reversed(list(d.items()))), indent=3, ensure_ascii=True)
    assert canonical(pretty) == canonical(text)
    assert verify_signature(pretty, key).key == key


def test_other_key_unsigned_and_resigned_records_fail(signed: tuple[str, str], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    text, key = signed
    mallory = load_or_create_key(tmp_path / "mallory.pem")
    forged = sign_record(mutate(_set(["players", 0], "mallory"))(text), mallory)
    code, out = verify_cli(forged, key, tmp_path, capsys)
    assert code == 1 and f"not by {key}" in out
    unsigned = mutate(lambda d: d.pop("signature"))(text)
    code, out = verify_cli(unsigned, key, tmp_path, capsys)
    assert code == 1 and "the record is not signed" in out
    code, out = verify_cli(unsigned, None, tmp_path, capsys)  # walls only, as before
    assert code == 0, out


def test_same_walls_other_choices_fail(signed: tuple[str, str], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Replay the match on the same committed walls with different players' choices: the walls,
    draws and results of the new record check out, but not the table's signature."""
    text, key = signed
    original = loads(text)
    ruleset = original.ruleset
    players = [match_api.RandomPlayer(random.Random(1000 + i)) for i in range(len(original.players))]
    other = match_api.Match(ruleset, players, seed=original.seed, names=list(original.players)).play()
    n = min(len(other.hands), len(original.hands))  # other chips may end the match sooner (L25)
    assert n >= 1
    # the first hand's commitment is the same; the later ones cover the hands before them
    # (the chain), so a record of other moves also has other commitments from hand 1 on
    assert other.hands[0].commitment == original.hands[0].commitment
    assert [h.wall for h in other.hands[:n]] == [h.wall for h in original.hands[:n]]
    assert other.hands[0].actions != original.hands[0].actions
    verify(other)  # the walls alone cannot tell: this is what the signature adds
    d = json.loads(other.dumps())
    d["signature"] = json.loads(text)["signature"]  # the cheat keeps the table's signature
    code, out = verify_cli(json.dumps(d), key, tmp_path, capsys)
    assert code == 1 and "it was altered" in out  # walls, draws and results all check out
    code, out = verify_cli(other.dumps(), key, tmp_path, capsys)  # or drops it
    assert code == 1 and "not signed" in out


def test_replay_rejects_a_record_whose_signature_fails(signed: tuple[str, str], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    text, _ = signed
    path = tmp_path / "r.json"
    path.write_text(mutate(_set(["players", 1], "eve"))(text), encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "it was altered" in err and err.count("\n") == 1


def test_key_file_is_made_once_private(tmp_path: Path) -> None:
    path = tmp_path / "d" / "k.pem"
    key = load_or_create_key(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert public_key_hex(load_or_create_key(path)) == public_key_hex(key)


def test_key_locations(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CAISHEN_KEY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if os.name == "posix" and not os.uname().sysname == "Darwin":
        assert data_dir() == tmp_path / "xdg" / "caishen"
        assert default_key_path() == tmp_path / "xdg" / "caishen" / "signing-key.pem"
    monkeypatch.setenv("CAISHEN_KEY", str(tmp_path / "elsewhere.pem"))
    assert default_key_path() == tmp_path / "elsewhere.pem"


def test_selfplay_key_file_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key_path = tmp_path / "table.pem"
    rec = tmp_path / "m.json"
    assert main(["selfplay", "--seed", "k", "--hands", "1", "--record", str(rec), "--key-file", str(key_path),
                 "--quiet", "--indent", "2"]) == 0
    assert main(["keys", "show", "--key-file", str(key_path)]) == 0
    pub = capsys.readouterr().out.strip()
    text = rec.read_text(encoding="utf-8")
    assert text.startswith("{\n  ")
    assert verify_signature(text, pub).key == pub


def test_the_centres_signing_without_a_parse_writes_the_same_text(signed: tuple[str, str]) -> None:
    """``sign_text`` (the game centre, each match's end) gives the very text ``sign_record``
    gives, over ``MatchRecord.canonical`` made from the hands' parts: names with quotes, a
    backslash and Chinese, and the key ``hands`` written inside a name, change nothing."""
    rec = loads(signed[0])
    assert rec.canonical() == canonical(signed[0])  # a signed record's: without its signature
    rec = dataclasses.replace(rec, signature=None, players=('东风 "阿明"', 'back\\slash', '"hands":[]', "Zoë"))
    key = load_or_create_key()
    text = rec.dumps()
    assert rec.canonical() == canonical(text)
    assert sign_text(text, rec.canonical(), key) == sign_record(text, key)
    assert verify_signature(sign_text(text, rec.canonical(), key), public_key_hex(key)).key == public_key_hex(key)
