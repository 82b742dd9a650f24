"""Issue 13, fuzzing: random bytes and random JSON mutations of a real record fed to ``replay``
and ``verify``, random text to ``analyze``, ``score`` and the scenario loader. Nothing may
escape but the project's own errors (``ValueError`` subclasses: :class:`caishen.errors.CaishenError`
and the older ones), which the command line prints as one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from caishen import scenario
from caishen.cli import main
from caishen.table.record import loads
from caishen.table.replay import replay, verify

HERE = Path(__file__).resolve().parent
SCENARIO = (HERE / "scenarios" / "longgang" / "L11-pass-on-win-ends-with-own-discard.toml").read_text(encoding="utf-8")
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def record_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("fuzz") / "m.json"
    assert main(["selfplay", "--seed", "5", "--hands", "2", "--record", str(path), "--quiet"]) == 0
    return path.read_text(encoding="utf-8")


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    """Run the command line; it may only return (never raise); errors are one line."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse rejected the arguments
        code = int(exc.code or 0)
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1, err
    return code


def check_record(text: str) -> None:
    """The library: loading, replaying and verifying raise nothing but ValueError subclasses."""
    try:
        record = loads(text)
    except ValueError:
        return
    for check in (replay, verify):
        try:
            check(record)
        except ValueError:
            pass


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def paths(x: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (the long wall and draw lists are sampled, not walked)."""
    out = [here]
    if isinstance(x, dict):
        for k, v in x.items():
            out += paths(v, (*here, k))
    elif isinstance(x, list):
        for i, v in enumerate(x[:6] + x[-2:] if len(x) > 8 else x):
            out += paths(v, (*here, i if i < 6 or len(x) <= 8 else i - 8))
    return out


def mutated(data: st.DataObject, record: dict[str, Any]) -> str:
    doc = json.loads(json.dumps(record))
    for _ in range(data.draw(st.integers(1, 3))):
        places = [p for p in paths(doc) if p]
        where = data.draw(st.sampled_from(places))
        parent = doc
        for k in where[:-1]:
            parent = parent[k]
        key = where[-1]
        how = data.draw(st.sampled_from(["replace", "delete", "bool", "float", "string"]))
        old = parent[key]
        if how == "delete":
            del parent[key]
        elif how == "bool" and type(old) is int:
            parent[key] = bool(old)
        elif how == "float" and type(old) is int:
            parent[key] = float(old)
        elif how == "string":
            parent[key] = data.draw(st.text(max_size=30))
        else:
            parent[key] = data.draw(json_values)
    return json.dumps(doc, ensure_ascii=False)


@FUZZ
@given(data=st.data())
def test_json_mutations_of_a_record(data: st.DataObject, record_text: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    text = mutated(data, json.loads(record_text))
    check_record(text)
    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    assert cli(["replay", str(path)], capsys) in (0, 2)
    assert cli(["verify", str(path)], capsys) in (0, 1, 2)


@FUZZ
@given(blob=st.binary(max_size=400), cut=st.integers(0, 20_000))
def test_random_bytes_and_truncated_records(blob: bytes, cut: int, record_text: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.json"
    for payload in (blob, record_text.encode()[:cut] + blob):
        path.write_bytes(payload)
        full = record_text.encode()
        whole = payload.startswith(full) and not payload[len(full):].strip(b" \t\r\n")  # plus JSON blanks
        assert cli(["replay", str(path)], capsys) == (0 if whole else 2)
        assert cli(["verify", str(path)], capsys) in ((0,) if whole else (1, 2))
        try:
            check_record(payload.decode("utf-8"))
        except UnicodeDecodeError:
            pass


hand_text = st.text(alphabet=st.sampled_from(list("0123456789mpszf []{}()x-,|\u001b")), max_size=60) | st.text(max_size=40)


@FUZZ
@given(hand=hand_text, tile=st.text(max_size=4) | st.sampled_from(["5p", "f1", "7z", "0m"]))
def test_random_text_to_analyze_and_score(hand: str, tile: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["analyze", "--json", "--indicator", tile, "--", hand], capsys) in (0, 2)
    assert cli(["analyze", "--json", "--wild", tile, "--", hand], capsys) in (0, 2)
    assert cli(["score", "--json", "--win", tile, "--", hand], capsys) in (0, 2)
    assert cli(["score", "--json", "--loser", "--indicator", tile, "--", hand], capsys) in (0, 2)


@FUZZ
@given(text=st.text(max_size=200), data=st.data())
def test_random_text_to_the_scenario_loader(text: str, data: st.DataObject) -> None:
    lines = SCENARIO.splitlines()
    i = data.draw(st.integers(0, len(lines)))
    spliced = "\n".join([*lines[:i], text, *lines[i + 1:]])
    for source in (text, spliced):
        try:
            scenario.loads(source)
        except ValueError:
            pass
