"""Players by name 按名选手: the one registry of everything that can take a seat.

A name is one of

* a built-in bot: ``random``, ``greedy``, ``strong`` (:data:`BOTS`);
* ``module:Class`` (or ``module:function``, ``package.module:Outer.Inner``): imported by name;
* the name of an entry point in the group ``caishen.players`` of an installed package
  (``[project.entry-points."caishen.players"] ppo = "mypkg.agent:PPOPlayer"``).

The object named is a *player factory*: called as ``factory(rng, ruleset)`` (a ``random.Random``
for its own randomness, and the table's rules), it returns a
:class:`~caishen.table.players.Player` (``act(observation) -> action``). A class whose
``__init__`` takes ``(rng, ruleset)`` is one. Names travel between processes (the simulator's
workers, Ray tasks, the game centre's table processes) and each process imports the player
itself, so the module must be importable there (installed, or on ``PYTHONPATH``).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any, Final

from caishen.bots.gangci import GangciStrongBot
from caishen.bots.players import GreedyBot, StrongBot
from caishen.errors import CaishenError
from caishen.table.players import Player, RandomPlayer
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.luoyang_gangci.rules import GangciRules

BOTS: Final = ("random", "greedy", "strong")
"""The built-in bot levels."""
ENTRY_POINT_GROUP: Final = "caishen.players"

PlayerFactory = Callable[[random.Random | None, VariantRules], Player]


class UnknownPlayerError(CaishenError):
    """A player name that names no built-in bot, no importable ``module:Class`` and no
    ``caishen.players`` entry point."""

    code = "unknown-player"


def _random(rng: random.Random | None, ruleset: VariantRules) -> Player:
    return RandomPlayer(rng)


def _greedy(rng: random.Random | None, ruleset: VariantRules) -> Player:
    return GreedyBot(rng, ruleset)


def _strong(rng: random.Random | None, ruleset: VariantRules) -> Player:
    if isinstance(ruleset, Ruleset):
        return StrongBot(rng, ruleset)
    if isinstance(ruleset, GangciRules):
        return GangciStrongBot(rng, ruleset)
    raise UnknownPlayerError(f"no strong bot for {ruleset.name!r}")


_BUILT_IN: Final[dict[str, PlayerFactory]] = {"random": _random, "greedy": _greedy, "strong": _strong}


def entry_point_names() -> tuple[str, ...]:
    """The players installed packages offer in the ``caishen.players`` entry-point group."""
    return tuple(sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}))


def player_names() -> tuple[str, ...]:
    """Every player known by a short name: the built-in bots, then the entry points."""
    return BOTS + tuple(n for n in entry_point_names() if n not in BOTS)


def _choices() -> str:
    return ", ".join(player_names()) + ", or module:Class"


@lru_cache(maxsize=256)
def player_factory(name: str) -> PlayerFactory:
    """The factory a player name stands for (see the module docstring); raises
    :class:`UnknownPlayerError` naming the choices, or saying why an import failed."""
    built_in = _BUILT_IN.get(name)
    if built_in is not None:
        return built_in
    if ":" in name:
        module_name, _, attr = name.partition(":")
        if not module_name or not attr:
            raise UnknownPlayerError(f"player {name!r}: expected module:Class")
        try:
            obj: Any = importlib.import_module(module_name)
        except ImportError as exc:
            raise UnknownPlayerError(f"player {name!r}: cannot import {module_name!r} ({exc})") from None
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise UnknownPlayerError(f"player {name!r}: {module_name!r} has no {attr!r}")
            obj = getattr(obj, part)
    else:
        found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
        if not found:
            raise UnknownPlayerError(f"unknown bot {name!r} (bots: {_choices()})")
        try:
            obj = found[0].load()
        except (ImportError, AttributeError) as exc:
            raise UnknownPlayerError(f"player {name!r}: its entry point does not load ({exc})") from None
    if not callable(obj):
        raise UnknownPlayerError(f"player {name!r} is not a class or function")
    factory: PlayerFactory = obj
    return factory


def check_player(name: str) -> None:
    """Raise :class:`UnknownPlayerError` unless ``name`` resolves (imports it: a typo fails at
    once, not in a worker hours later)."""
    player_factory(name)


def make_bot(name: str, rng: random.Random | None = None, ruleset: VariantRules = LONGGANG) -> Player:
    """The player ``name`` (a built-in bot, ``module:Class`` or an entry point) for ``ruleset``,
    drawing its own randomness from ``rng``. ``greedy`` plays every variant (shanten and
    improving tiles); ``strong`` is the variant's own (Longgang: the value of the hand,
    L19-L24; Gangci: the 次牌, G5). A player without ``name`` or ``observes`` gets them
    (its entry name; ``observes = True``: it is handed the full observation)."""
    player = player_factory(name)(rng, ruleset)
    if not callable(getattr(player, "act", None)):
        raise UnknownPlayerError(f"player {name!r} has no act(observation) method")
    for attr, default in (("observes", True), ("name", name)):
        if not hasattr(player, attr):
            try:
                setattr(player, attr, default)
            except AttributeError:
                raise UnknownPlayerError(f"player {name!r} needs a {attr!r} attribute") from None
    return player
