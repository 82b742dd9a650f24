"""caishen (财神): an engine for Chinese regional mahjong: Longgang (龙港麻将), Luoyang Gangci (洛阳杠次).

Start at :mod:`caishen.variants` (``caishen.variants.get("longgang")``); the layers are described
in ``docs/architecture.md``."""

__version__ = "0.2.0"
