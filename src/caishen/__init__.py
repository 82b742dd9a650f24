"""caishen (财神): an engine for Chinese regional mahjong, starting with Longgang (龙港麻将)."""

from caishen.hand import Hand, Meld, MeldKind
from caishen.variants.longgang.rules import LONGGANG, LUOYANG_GANGCI, Ruleset, get_ruleset, load_ruleset

__version__ = "0.1.0"

__all__ = [
    "LONGGANG",
    "LUOYANG_GANGCI",
    "Hand",
    "Meld",
    "MeldKind",
    "Ruleset",
    "get_ruleset",
    "load_ruleset",
]
