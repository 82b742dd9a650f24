"""Reinforcement-learning environments 强化学习环境 for caishen (optional extra ``rl``).

* :mod:`caishen.env.longgang_v0` and :mod:`caishen.env.luoyang_gangci_v0`: PettingZoo AEC
  environments, four agents, one hand per episode, both built by the one adapter of
  :mod:`caishen.env.aec`; ``from caishen.env import longgang_v0; env = longgang_v0.env()``.
* :mod:`caishen.env.match`: the whole-match AEC environments (``longgang_match_v0``,
  ``luoyang_gangci_match_v0``).
* :class:`caishen.env.single.CaishenSingleEnv`: Gymnasium single-agent env in which the other
  three seats are players (bots, ``module:Class``); :mod:`caishen.env.batch`: many tables in
  one process with numpy arrays.
* :mod:`caishen.env.encoding`: the fixed action index and observation vector (standard
  library only), documented in ``docs/env.md``.

Importing this package registers the Gymnasium ids (``caishen/Longgang-v0``,
``caishen/LuoyangGangci-v0``, ``caishen/LonggangMatch-v0``, ``caishen/LuoyangGangciMatch-v0``)
when Gymnasium is installed: ``import caishen.env; gymnasium.make("caishen/Longgang-v0")``, or
``gymnasium.make("caishen.env:caishen/Longgang-v0")`` without the import.

Importing ``aec``, ``longgang_v0``, ``luoyang_gangci_v0`` or ``single`` needs ``pip install 'caishen[rl]'``.
"""

from __future__ import annotations

GYM_IDS = {
    "caishen/Longgang-v0": ("caishen.env.single:CaishenSingleEnv", "longgang"),
    "caishen/LuoyangGangci-v0": ("caishen.env.single:CaishenSingleEnv", "luoyang-gangci"),
    "caishen/LonggangMatch-v0": ("caishen.env.single_match:CaishenMatchSingleEnv", "longgang"),
    "caishen/LuoyangGangciMatch-v0": ("caishen.env.single_match:CaishenMatchSingleEnv", "luoyang-gangci"),
}
"""The registered Gymnasium ids: entry point and variant. The registered envs play a random
seat (and, for the one-hand envs, a random dealer) each episode against three greedy bots."""


def register_envs() -> None:
    """Register :data:`GYM_IDS` with Gymnasium (again is harmless)."""
    from gymnasium.envs.registration import register, registry

    from caishen import variants

    for env_id, (entry, variant) in GYM_IDS.items():
        if env_id in registry:
            continue
        kwargs: dict[str, object] = {"ruleset": variants.get(variant).presets[variant], "seat": "random"}
        if "Match" not in env_id:
            kwargs["dealer"] = "random"
        register(id=env_id, entry_point=entry, kwargs=kwargs)


try:
    import gymnasium  # noqa: F401
except ImportError:  # the core package works without the rl extra
    pass
else:
    register_envs()
