"""caishen (财神): an engine for Chinese regional mahjong: Longgang (龙港麻将), Luoyang Gangci (洛阳杠次).

Start at :mod:`caishen.variants` (``caishen.variants.get("longgang")``); the layers are described
in ``docs/architecture.md``.

Two builds of the same sources exist (docs/performance.md): where the install compiled the typed
core with mypyc, its C extension modules sit beside the ``.py`` files and Python loads them
first. Importing caishen decides, once, before any other caishen module is imported, which build
runs (:mod:`caishen._build`):

- ``CAISHEN_PURE=1`` (any value but empty or ``0``) in the environment: pure Python;
- compiled modules built from other sources than the ones beside them (a source edited after
  the build, a stale in-place build): pure Python, with a warning;
- otherwise whatever is installed: compiled modules where they exist.

:func:`build` says which build is running."""

from __future__ import annotations

from caishen._build import build, stale_sources

__version__ = "0.2.0"
__all__ = ["__version__", "build", "stale_sources"]
