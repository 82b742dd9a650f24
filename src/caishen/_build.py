"""Which build of caishen runs, the compiled or the pure-Python one (see :mod:`caishen`): chosen
once, when caishen is first imported, before any other of its modules."""

from __future__ import annotations

import hashlib
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import EXTENSION_SUFFIXES, SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Final

PURE_ENV: Final = "CAISHEN_PURE"
#: Written by setup.py beside compiled modules: each compiled source and its SHA-256.
MANIFEST: Final = Path(__file__).with_name("_compiled.txt")
#: A module that every compiled build compiles; its loader tells which build is running.
_PROBE: Final = "caishen.shapes.analysis"


class SourceOnlyFinder:
    """A meta path finder that loads caishen's modules from their ``.py`` sources only, passing
    by any compiled extension module beside them (the pure-Python build)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if path is None or not fullname.startswith("caishen."):
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname)
            if spec is not None and spec.loader is not None:
                return spec
        return None


def stale_sources(manifest: Path = MANIFEST) -> list[str]:
    """The compiled modules of ``manifest`` whose source beside it is not the one they were
    built from (its lines: a source path in the package and the SHA-256 of that source)."""
    stale = []
    for line in manifest.read_text(encoding="utf-8").splitlines():
        name, _, digest = line.partition(" ")
        source = manifest.parent / name
        if not source.is_file() or hashlib.sha256(source.read_bytes()).hexdigest() != digest:
            stale.append(name)
    return stale


def _choose() -> None:
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        sys.meta_path.insert(0, SourceOnlyFinder())
    elif MANIFEST.is_file():
        stale = stale_sources()
        if stale:
            sys.meta_path.insert(0, SourceOnlyFinder())
            warnings.warn(
                f"caishen: the compiled modules were built from other sources than {', '.join(stale)}; "
                "running pure Python (rebuild with `pip install -e .`)", RuntimeWarning, stacklevel=3)


_choose()


def build() -> str:
    """Which build is running: ``"compiled, mypyc"`` or ``"pure Python"``."""
    spec = find_spec(_PROBE)
    origin = spec.origin if spec is not None else None
    compiled = origin is not None and origin.endswith(tuple(EXTENSION_SUFFIXES))
    return "compiled, mypyc" if compiled else "pure Python"
