"""``longgang_v0``: one hand of Longgang mahjong 龙港麻将 as a PettingZoo AEC environment.

Built by the one adapter of :mod:`caishen.env.aec` (its docstring describes agents,
observations, the action index and rewards); only the name and the default rules differ.
``from caishen.env import longgang_v0; env = longgang_v0.env()``. Needs ``pip install 'caishen[rl]'``.
"""

from __future__ import annotations

from typing import Any

from caishen.env.aec import AGENTS, HandEnv, wrap
from caishen.variants.longgang.rules import LONGGANG, Ruleset

__all__ = ["AGENTS", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The environment with PettingZoo's standard checks (illegal actions raise, order enforced)."""
    return wrap(raw_env(**kwargs))


class raw_env(HandEnv):  # noqa: N801 - PettingZoo naming convention
    """The unwrapped environment; ``ruleset`` defaults to the variant's standard rules."""

    metadata = {**HandEnv.metadata, "name": "longgang_v0"}

    def __init__(
        self, ruleset: Ruleset = LONGGANG, dealer: int | str = 0, render_mode: str | None = None,
        obs_version: str = "v1", observation_mode: str = "normal",
    ) -> None:
        super().__init__(ruleset, dealer, render_mode, obs_version, observation_mode)
