"""Every scenario file under tests/scenarios/ (format: docs/scenarios.md) plays with all its
expectations holding, Longgang's and Luoyang Gangci's alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from caishen.commands.scenario import to_text
from caishen.scenario import load, loads, play

DIR = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(DIR.rglob("*.toml"))


def _param(path: Path) -> object:
    return pytest.param(path, id=path.relative_to(DIR).as_posix())


def test_scenario_files_exist() -> None:
    assert len([f for f in FILES if f.parent.name == "longgang"]) >= 8
    assert len([f for f in FILES if f.parent.name == "luoyang-gangci"]) == 17


@pytest.mark.parametrize("path", [_param(f) for f in FILES])
def test_scenario(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# "), "a comment quoting the rule's source comes first"
    scn = load(path)
    assert scn.expects, "a scenario checks something"
    run = play(scn)
    assert run.failures == []


DOC = Path(__file__).resolve().parent.parent / "docs" / "scenarios.md"
DOC_EXAMPLES = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_docs_have_examples() -> None:
    assert len(DOC_EXAMPLES) >= 2


@pytest.mark.parametrize("text", DOC_EXAMPLES, ids=[f"docs-example-{i + 1}" for i in range(len(DOC_EXAMPLES))])
def test_docs_example_plays_with_its_expectations(text: str) -> None:
    run = play(loads(text, "docs/scenarios.md"))
    assert run.failures == [] and run.outcome is not None


def test_docs_shows_the_commands_output() -> None:
    text = DOC.read_text(encoding="utf-8")
    shown = re.search(r"`caishen scenario` prints, after the legal actions of each step:\n\n```text\n(.*?)```",
                      text, re.S)
    assert shown is not None
    printed = to_text(play(loads(DOC_EXAMPLES[0], "docs/scenarios.md")))
    assert printed.endswith(shown.group(1).rstrip("\n"))
