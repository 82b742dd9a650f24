"""Reinforcement-learning environments 强化学习环境 for caishen (optional extra ``rl``).

* :mod:`caishen.env.longgang_v0` and :mod:`caishen.env.luoyang_gangci_v0`: PettingZoo AEC
  environments, four agents, one hand per episode, both built by the one adapter of
  :mod:`caishen.env.aec`; ``from caishen.env import longgang_v0; env = longgang_v0.env()``.
* :class:`caishen.env.single.LonggangSingleEnv`: Gymnasium single-agent wrapper in which
  the other three seats are bots.
* :mod:`caishen.env.encoding`: the fixed action index and observation vector (standard
  library only), documented in ``docs/env.md``.

Importing ``aec``, ``longgang_v0``, ``luoyang_gangci_v0`` or ``single`` needs ``pip install 'caishen[rl]'``.
"""
