"""Luoyang Gangci 洛阳杠次 (rules: ``docs/rules/luoyang-gangci.md``, rule IDs G1-G8).

``rules``: the switches (:class:`GangciRules`) and presets; ``wins``: the win conditions on
tile counts; ``payments``: settlement by G2. ``adapter`` is the one module that imports the
current core's shape analysis, so porting to the redesigned core (issue 8) is a one-file job.
"""

from caishen.variants.luoyang_gangci.payments import (
    KongKind,
    Payment,
    PaymentItem,
    Statement,
    best_win,
    kong_payments,
    win_payments,
)
from caishen.variants.luoyang_gangci.rules import PRESETS, SCHEME_2, GangciRules, RulesError, get_rules
from caishen.variants.luoyang_gangci.wins import GangciWin, ready_on_ci

__all__ = [
    "PRESETS",
    "SCHEME_2",
    "GangciRules",
    "GangciWin",
    "KongKind",
    "Payment",
    "PaymentItem",
    "RulesError",
    "Statement",
    "best_win",
    "get_rules",
    "kong_payments",
    "ready_on_ci",
    "win_payments",
]
