"""``longgang_match_v0``: a whole Longgang match 龙港麻将 (4-6 players, to going broke or the
room's hand count) as one PettingZoo AEC episode, with a reward per hand (:mod:`caishen.env.match`).
``from caishen.env import longgang_match_v0; env = longgang_match_v0.env(players=5)``.
"""

from __future__ import annotations

from typing import Any

from caishen.env.aec import wrap
from caishen.env.match import MatchEnv
from caishen.variants.longgang.rules import LONGGANG, Ruleset

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The environment with PettingZoo's standard checks (illegal actions raise, order enforced)."""
    return wrap(raw_env(**kwargs))


class raw_env(MatchEnv):  # noqa: N801 - PettingZoo naming convention
    """The unwrapped environment; ``ruleset`` defaults to the variant's standard rules."""

    metadata = {**MatchEnv.metadata, "name": "longgang_match_v0"}

    def __init__(
        self, ruleset: Ruleset = LONGGANG, players: int = 4, hands: int | None = None,
        render_mode: str | None = None, obs_version: str = "v1", observation_mode: str = "normal",
    ) -> None:
        super().__init__(ruleset, players, hands, render_mode, obs_version, observation_mode)
