"""The two builds (docs/performance.md): which one runs, CAISHEN_PURE, the check that compiled
modules match their sources, and what the compiled classes must keep doing (pickle, copy).

The whole suite runs against both builds in CI (.ci/run); there CAISHEN_EXPECT_BUILD names the
build that must be running, so that a failed compile cannot pass unnoticed as a pure run."""

from __future__ import annotations

import copy
import hashlib
import importlib
import os
import pickle
import random
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest

import caishen
from caishen import build, stale_sources
from caishen.bots import make_bot
from caishen.bots.players import GreedyBot
from caishen.bots.view import from_observation
from caishen.engine.game import Game, Phase
from caishen.hand import Hand, Meld, MeldKind
from caishen.notation import parse_hand
from caishen.shapes import analysis
from caishen.shapes.analysis import Arrangement, ShapeForms, arrangements
from caishen.variants.longgang.rules import LONGGANG

PACKAGE = Path(caishen.__file__).resolve().parent
BUILDS = {"compiled": "compiled, mypyc", "pure": "pure Python"}


def _in_python(code: str, env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` run by a new Python importing this same caishen, in this environment changed
    by ``env`` (``None``: unset)."""
    full = {**os.environ, "PYTHONPATH": str(PACKAGE.parent), **(env or {})}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={k: v for k, v in full.items() if v is not None})


def _compiled(module: Any) -> bool:
    return str(module.__file__).endswith(tuple(EXTENSION_SUFFIXES))


def test_build_names_what_is_loaded() -> None:
    assert build() == ("compiled, mypyc" if _compiled(analysis) else "pure Python")


def test_the_expected_build_runs() -> None:
    """In CI each run of the suite names its build: a compile that failed would otherwise
    turn the compiled run into a second pure one."""
    expected = os.environ.get("CAISHEN_EXPECT_BUILD")
    if expected is None:
        pytest.skip("CAISHEN_EXPECT_BUILD is not set (CI sets it)")
    assert build() == BUILDS[expected]


def test_compiled_modules_load_all_together_or_not_at_all() -> None:
    """Compiled modules call each other directly: a mix would hold two copies of a class."""
    if not caishen._build.MANIFEST.is_file():
        pytest.skip("no compiled build here")
    sources = [line.split(" ")[0] for line in caishen._build.MANIFEST.read_text().splitlines()]
    assert "shapes/analysis.py" in sources and len(sources) >= 7
    modules = [importlib.import_module("caishen." + src.removesuffix(".py").replace("/", ".")) for src in sources]
    assert {_compiled(m) for m in modules} == {build() == "compiled, mypyc"}


def test_version_says_which_build_runs() -> None:
    out = _in_python("from caishen.cli import main; main(['--version'])").stdout
    assert out == f"caishen {caishen.__version__} ({build()})\n"
    assert out.endswith(("(compiled, mypyc)\n", "(pure Python)\n"))


@pytest.mark.parametrize("value", ["1", "yes"])
def test_caishen_pure_forces_the_pure_python_modules(value: str) -> None:
    code = ("import caishen, caishen.engine.game as g, caishen.shapes.analysis as a; "
            "print(caishen.build(), g.__file__.endswith('.py'), a.__file__.endswith('.py'))")
    assert _in_python(code, {"CAISHEN_PURE": value}).stdout == "pure Python True True\n"
    out = _in_python("from caishen.cli import main; main(['--version'])", {"CAISHEN_PURE": value}).stdout
    assert out == f"caishen {caishen.__version__} (pure Python)\n"


@pytest.mark.parametrize("value", ["", "0"])
def test_caishen_pure_empty_or_0_changes_nothing(value: str) -> None:
    code = "import caishen, caishen.shapes.analysis; print(caishen.build())"
    assert _in_python(code, {"CAISHEN_PURE": value}).stdout == _in_python(code, {"CAISHEN_PURE": None}).stdout


def _manifest(tmp_path: Path, digest_of: dict[str, bytes]) -> Path:
    path = tmp_path / "_compiled.txt"
    path.write_text("".join(f"{name} {hashlib.sha256(data).hexdigest()}\n" for name, data in digest_of.items()))
    return path


def test_stale_sources_names_each_source_edited_or_gone_since_the_build(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "hand.py").write_text("x = 1\n")
    (tmp_path / "engine" / "game.py").write_text("y = 2\n")
    manifest = _manifest(tmp_path, {"hand.py": b"x = 1\n", "engine/game.py": b"y = 1\n", "gone.py": b""})
    assert stale_sources(manifest) == ["engine/game.py", "gone.py"]
    (tmp_path / "engine" / "game.py").write_text("y = 1\n")
    (tmp_path / "gone.py").write_text("")
    assert stale_sources(manifest) == []


def test_a_build_older_than_its_sources_runs_pure_python_with_a_warning(tmp_path: Path) -> None:
    """An in-place build (``pip install -e .``) whose source was edited afterwards: running
    the old compiled code would test something else than the source, so caishen runs pure."""
    pkg = tmp_path / "caishen"
    shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "_compiled.txt"))
    _manifest(pkg, {"hand.py": (pkg / "hand.py").read_bytes(), "engine/game.py": b"# an older game.py\n"})
    run = subprocess.run(
        [sys.executable, "-c", "import caishen; print(caishen.build())"], capture_output=True, text=True,
        env={**{k: v for k, v in os.environ.items() if k != "CAISHEN_PURE"}, "PYTHONPATH": str(tmp_path)},
        check=True)
    assert run.stdout == "pure Python\n"
    assert "built from other sources than engine/game.py; running pure Python" in run.stderr


def _round_trips(value: object) -> list[object]:
    return [pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)]


def test_values_pickle_and_copy_equal() -> None:
    """Dataclasses of the compiled modules pickle and copy (the frozen ones through their
    constructor)."""
    hand = parse_hand("123m 456p 789s 11z 2233z [555m] f1", LONGGANG)
    arrangement = next(iter(arrangements(parse_hand("123m 123m 456p 789s 111z 22z", LONGGANG), LONGGANG)))
    forms = ShapeForms(hand_size=13, tile_kinds=tuple(range(34)), seven_pairs=True)
    game = Game.from_seed(b"build-values", LONGGANG)
    view = from_observation(game.observation(0), LONGGANG)
    values: list[object] = [hand, Meld(MeldKind.PONG, (3, 3, 3)), Meld.chow(4, 3), arrangement, forms,
                            game.layout, view, game.observation(1)]
    for value in values:
        for again in _round_trips(value):
            assert again == value and type(again) is type(value)
    assert isinstance(arrangement, Arrangement)
    assert all(h.packed == hand.packed for h in _round_trips(hand) if isinstance(h, Hand))


def test_games_and_bots_pickle_and_copy_mid_hand_and_play_on_alike() -> None:
    def play(game: Game, bots: list[Any], steps: int) -> None:
        for _ in range(steps):
            if game.is_over:
                return
            seat = game.to_move()[0]
            game.step(seat, bots[seat].act(game.observation(seat)))

    game = Game.from_seed(b"build-copy", LONGGANG)
    bots = [make_bot(name, random.Random(i)) for i, name in enumerate(("strong", "greedy", "greedy", "random"))]
    play(game, bots, 12)
    assert game.phase is not Phase.OVER
    copies = [(pickle.loads(pickle.dumps(game)), pickle.loads(pickle.dumps(bots))),
              (copy.deepcopy(game), copy.deepcopy(bots))]
    for g, b in [(game, bots), *copies]:
        play(g, b, 1000)
    assert game.outcome is not None
    assert all(g.outcome == game.outcome and g.move_stack == game.move_stack for g, _ in copies)


def test_uncompiled_subclasses_of_compiled_classes_are_refused_only_in_the_compiled_build() -> None:
    """The one difference between the builds (docs/performance.md): mypyc's classes cannot be
    subclassed by interpreted code. Players implement the Player protocol instead."""
    class MyBot(GreedyBot):
        pass

    if build() == "compiled, mypyc":
        with pytest.raises(TypeError, match="interpreted classes cannot inherit from compiled"):
            MyBot()
    else:
        assert MyBot().name == "greedy"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_wheel_built_where_no_optional_extra_is_installed_is_compiled(tmp_path: Path) -> None:
    """pip builds the package in an environment of its build requirements only, before it
    installs any dependency: on a fresh machine mypy, following ``caishen.env``'s import of the
    optional gymnasium, failed the compile, and every first ``pip install -e .`` fell back to pure
    Python (found on a new machine, 2026-12-05). The wheel of a copy of the sources, built with
    pip's build isolation, holds the compiled modules."""
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler: the build falls back to pure Python by design")
    root = PACKAGE.parent.parent
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=False)
    if files.returncode != 0:
        pytest.skip("not a git checkout")
    src = tmp_path / "src-copy"
    for name in files.stdout.splitlines():
        if (root / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, src / name)
    # a fresh virtual environment: nothing installed beside pip, as on a new machine (pip's
    # build environment sees the site-packages of the Python that runs it)
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CAISHEN_PURE", "PYTHONPATH")}
    done = subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-m", "pip", "wheel", "--no-deps",
                           "-w", str(tmp_path / "wheels"), "-v", str(src)],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "installing the pure-Python package" not in done.stdout + done.stderr, done.stdout[-3000:]
    wheels = list((tmp_path / "wheels").glob("caishen-*.whl"))
    assert len(wheels) == 1, wheels
    import zipfile  # noqa: PLC0415 - this test only

    names = zipfile.ZipFile(wheels[0]).namelist()
    suffix = EXTENSION_SUFFIXES[0]
    assert any(n.startswith("caishen__mypyc") and n.endswith(suffix) for n in names), names[:20]
    assert "caishen/shapes/analysis" + suffix in names
    assert "caishen/_compiled.txt" in names
