"""Every `$ caishen ...` example in README.md prints exactly what the README shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from caishen.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def sessions() -> list[list[tuple[str, list[str]]]]:
    """Each fenced block that starts with ``$ caishen``: (command, expected output lines)."""
    out = []
    for block in re.findall(r"```\n(\$ caishen.*?)```", README.read_text(encoding="utf-8"), re.S):
        steps: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        out.append(steps)
    return out


def test_readme_has_examples() -> None:
    assert len(sessions()) >= 3


@pytest.mark.parametrize("steps", sessions(), ids=lambda s: s[0][0][:60])
def test_readme_example_prints_as_shown(
    steps: list[tuple[str, list[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for command, expected in steps:
        argv = shlex.split(command)
        assert argv[0] == "caishen"
        assert main(argv[1:]) == 0, command
        got = capsys.readouterr().out.rstrip("\n").splitlines()
        assert [line.rstrip() for line in got] == [line.rstrip() for line in expected], command


def test_readme_python_blocks_run_and_print_what_their_comments_say(
    capsys: pytest.CaptureFixture[str],
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2
    exec(compile(blocks[0], "README tour", "exec"), {})
    tour = capsys.readouterr().out.splitlines()
    assert tour[0] == "('longgang', 'luoyang-gangci')"
    assert tour[1].endswith(" 0")
    assert tour[2:] == ["['5p', '1z', '2z', 'f1']", "True standard"]
    exec(compile(blocks[1], "README scripted hand", "exec"), {})
    assert capsys.readouterr().out.splitlines() == ["3 self_draw 300", "discard 4z 13"]
