"""Build step of caishen: compiles the typed rules core with mypyc where it can.

The package's metadata lives in pyproject.toml; this file only adds the compiled modules.
``pip install .`` and ``pip install -e .`` compile the modules in ``COMPILED`` into C extension
modules beside their ``.py`` sources (and one shared library, ``caishen__mypyc``), when mypy is
importable and a C compiler works. Otherwise (no compiler, a failed compile, or
``CAISHEN_PURE=1`` set at install time) they install the pure-Python package, with one
warning line in the build log, and nothing else changes. At import time ``CAISHEN_PURE=1``
forces the pure-Python modules even where compiled ones are installed (see
``caishen/_build.py`` and docs/performance.md).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The compiled modules: the hot rules core and the bots, all plain typed Python
# (docs/performance.md says why these and not others).
COMPILED = (
    "tiles.py",
    "hand.py",
    "shapes/analysis.py",
    "engine/game.py",
    "engine/state.py",
    "engine/seat.py",
    "engine/observation.py",
    "engine/wall.py",
    "env/encoding.py",
    "bots/view.py",
    "bots/shape.py",
    "bots/players.py",
    "bots/gangci.py",  # subclasses GreedyBot: a compiled class is subclassed only by compiled code
    "variants/longgang/items.py",  # scoring's parts (issue 31): items, limits, readings, scoring
    "variants/longgang/limits.py",
    "variants/longgang/readings.py",
    "variants/longgang/scoring.py",
    "variants/longgang/outcome.py",
)
# Written beside the compiled modules: the SHA-256 of each source they were built from, so that
# a later edit of a source is noticed at import time (caishen/_build.py then runs pure Python).
MANIFEST = "caishen/_compiled.txt"
HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
PACKAGE = SRC / "caishen"


def _pure_requested() -> bool:
    return os.environ.get("CAISHEN_PURE", "") not in ("", "0")


def _say(message: str) -> None:
    print(f"caishen build: {message}", file=sys.stderr)


def manifest_text() -> str:
    """One line per compiled module: its source path in the package and the SHA-256 of the source."""
    return "".join(f"{path} {hashlib.sha256((PACKAGE / path).read_bytes()).hexdigest()}\n" for path in COMPILED)


# Commands that build the package; pip also runs setup.py for its requirements (egg_info) and
# metadata (dist_info), which need no compiled modules: mypyc (half a minute) runs only for these.
BUILD_COMMANDS = frozenset({"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"})


def _mypyc_extensions() -> list[Any]:
    if not BUILD_COMMANDS.intersection(sys.argv[1:]):
        return []
    if _pure_requested():
        _say("CAISHEN_PURE is set: installing the pure-Python package")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not available: installing the pure-Python package")
        return []
    # Module names come from the paths (src/ has no __init__.py: src/caishen/hand.py is
    # caishen.hand); mypy reads its options from pyproject.toml ([tool.mypy], strict).
    # --follow-imports=silent: the modules mypyc only reads, not compiles, must not fail the
    # build for what is missing from it. pip builds the package before it installs the
    # dependencies, so on a fresh machine caishen.env's optional gymnasium was never there, and
    # every first `pip install -e .` fell back to pure Python. A type error in a compiled module
    # still fails the compile (CI's `mypy --strict src/caishen` checks the rest).
    paths = ["--follow-imports=silent", *(f"src/caishen/{path}" for path in COMPILED)]
    try:
        return list(mypycify(paths, opt_level="3", group_name="caishen"))
    except (Exception, SystemExit) as e:  # mypyc exits through SystemExit on a type error
        _say(f"mypyc could not compile ({type(e).__name__}: {e}): installing the pure-Python package")
        return []


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the pure-Python package when compiling fails: it removes
    whatever it built, since the compiled modules work only all together."""

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as e:  # no C compiler, or it failed
            _say(f"compiling failed ({type(e).__name__}: {e}): installing the pure-Python package")
            self._remove_outputs()
            self.extensions = []
            return
        self._write_manifest()

    def _manifest_paths(self) -> list[Path]:
        paths = [Path(self.build_lib) / MANIFEST]
        if self.inplace or getattr(self, "editable_mode", False):
            paths.append(SRC / MANIFEST)
        return paths

    def _write_manifest(self) -> None:
        text = manifest_text()
        for path in self._manifest_paths():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def _remove_outputs(self) -> None:
        outputs = [Path(p) for p in self.get_outputs()] + self._manifest_paths()
        for ext in self.extensions:
            outputs.append(SRC / self.get_ext_filename(ext.name))
        for path in outputs:
            if path.is_file():
                path.unlink()

    def get_outputs(self) -> list[str]:
        outputs = list(super().get_outputs())
        if self.extensions:
            outputs.append(str(Path(self.build_lib) / MANIFEST))
        return outputs


setup(ext_modules=_mypyc_extensions(), cmdclass={"build_ext": OptionalBuildExt})
