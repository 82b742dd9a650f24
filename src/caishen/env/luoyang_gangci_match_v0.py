"""``luoyang_gangci_match_v0``: a whole Luoyang Gangci match 洛阳杠次 (4 players, to the room's
hand count, G8.2) as one PettingZoo AEC episode, with a reward per hand (:mod:`caishen.env.match`).
``from caishen.env import luoyang_gangci_match_v0; env = luoyang_gangci_match_v0.env()``.
"""

from __future__ import annotations

from typing import Any

from caishen.env.aec import wrap
from caishen.env.match import MatchEnv
from caishen.variants.luoyang_gangci.rules import DEFAULT, GangciRules

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The environment with PettingZoo's standard checks (illegal actions raise, order enforced)."""
    return wrap(raw_env(**kwargs))


class raw_env(MatchEnv):  # noqa: N801 - PettingZoo naming convention
    """The unwrapped environment; ``ruleset`` defaults to the variant's standard rules."""

    metadata = {**MatchEnv.metadata, "name": "luoyang_gangci_match_v0"}

    def __init__(
        self, ruleset: GangciRules = DEFAULT, players: int = 4, hands: int | None = None,
        render_mode: str | None = None, obs_version: str = "v1", observation_mode: str = "normal",
    ) -> None:
        super().__init__(ruleset, players, hands, render_mode, obs_version, observation_mode)
