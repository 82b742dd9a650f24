"""Match records as training data (``caishen dataset``, docs/env.md "Records as data"): every
decision of every hand, replayed from the record, as (observation, mask, action, reward) rows
for behaviour cloning.

A row is one move of the record (``HandRecord.actions``): the observation (``obs_version``
``v1`` or ``v2``) and mask of the seat that made it, at that moment, exactly as the envs would
have shown them (the hand is replayed from the record's wall and dice through the same
:class:`~caishen.env.observer.Observer`); the action's index; and the reward of the hand for
that seat, the hand's own settlement (:func:`caishen.table.results.hand_chips`, the RL envs'
reward), on every row of the hand. Columns beside them: ``seat``, ``player`` (index into
``players``, the names, ``record:name`` when several records are read), ``hand`` and
``record`` (indices), ``step`` (the move's index in its hand).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from caishen.engine.game import Game
from caishen.env.encoding import NUM_ACTIONS, action_index, mask_into
from caishen.env.observer import Observer
from caishen.errors import ArgumentError
from caishen.table.record import MatchRecord
from caishen.table.results import hand_chips

FORMATS = (".npz", ".parquet")


@dataclass(slots=True)
class Dataset:
    """The rows as numpy arrays (see the module docstring)."""

    obs: np.ndarray[Any, np.dtype[np.float32]]
    mask: np.ndarray[Any, np.dtype[np.int8]]
    action: np.ndarray[Any, np.dtype[np.int16]]
    reward: np.ndarray[Any, np.dtype[np.float32]]
    seat: np.ndarray[Any, np.dtype[np.int8]]
    player: np.ndarray[Any, np.dtype[np.int32]]
    hand: np.ndarray[Any, np.dtype[np.int32]]
    record: np.ndarray[Any, np.dtype[np.int32]]
    step: np.ndarray[Any, np.dtype[np.int32]]
    players: list[str] = field(default_factory=list)
    obs_version: str = "v1"

    def __len__(self) -> int:
        return int(self.action.shape[0])

    def save(self, path: str | Path) -> None:
        """Write ``.npz`` (numpy, compressed) or ``.parquet`` (pyarrow: one row per decision,
        ``obs`` and ``mask`` as fixed-size lists)."""
        p = str(path)
        cols: dict[str, np.ndarray[Any, Any]] = {"obs": self.obs, "mask": self.mask, "action": self.action, "reward": self.reward,
                "seat": self.seat, "player": self.player, "hand": self.hand, "record": self.record,
                "step": self.step}
        if p.endswith(".npz"):
            extra: dict[str, Any] = {"players": np.asarray(self.players, dtype=str),
                                     "obs_version": np.asarray(self.obs_version), **cols}
            np.savez_compressed(p, **extra)
            return
        if not p.endswith(".parquet"):
            raise ArgumentError(f"{p}: the dataset file must end in .npz or .parquet")
        import importlib

        pa: Any = importlib.import_module("pyarrow")  # the parquet extra (untyped)
        pq: Any = importlib.import_module("pyarrow.parquet")

        arrays: dict[str, Any] = {}
        for k, v in cols.items():
            if v.ndim == 2:
                arrays[k] = pa.FixedSizeListArray.from_arrays(pa.array(v.reshape(-1)), v.shape[1])
            else:
                arrays[k] = pa.array(v)
        table = pa.table(arrays).replace_schema_metadata(
            {"players": "\n".join(self.players), "obs_version": self.obs_version})
        pq.write_table(table, p)


def load(path: str | Path) -> Dataset:
    """A dataset written by :meth:`Dataset.save` (``.npz``)."""
    with np.load(str(path)) as z:
        return Dataset(z["obs"], z["mask"], z["action"], z["reward"], z["seat"], z["player"], z["hand"],
                       z["record"], z["step"], [str(x) for x in z["players"]], str(z["obs_version"]))


def rows(records: Sequence[MatchRecord], obs_version: str = "v1", players: Iterable[str] = ()) -> Dataset:
    """Every decision of ``records`` (only those of players whose name matches one of the
    shell patterns ``players``, when given)."""
    patterns = list(players)
    observer = Observer(obs_version)
    names: list[str] = []
    index: dict[str, int] = {}
    obs_rows: list[np.ndarray[Any, Any]] = []
    mask_rows: list[np.ndarray[Any, Any]] = []
    cols: dict[str, list[float]] = {k: [] for k in ("action", "reward", "seat", "player", "hand", "record", "step")}
    several = len(records) > 1
    for r, rec in enumerate(records):
        keep = [not patterns or any(fnmatch.fnmatchcase(n, pat) for pat in patterns) for n in rec.players]
        for hr in rec.hands:
            game = Game(rec.ruleset, hr.wall, hr.dice, hr.dealer)
            observer.reset(game)
            start = len(cols["action"])
            hand_seats: list[int] = []
            for k, (seat, action) in enumerate(hr.actions):
                p = hr.seats[seat]
                if keep[p]:
                    name = f"{r}:{rec.players[p]}" if several else rec.players[p]
                    if name not in index:
                        index[name] = len(names)
                        names.append(name)
                    o = np.empty(observer.size, dtype=np.float32)
                    observer.encode_into(game, seat, o.data)
                    m = np.empty(NUM_ACTIONS, dtype=np.int8)
                    mask_into(game.legal_actions(seat), m.data)
                    obs_rows.append(o)
                    mask_rows.append(m)
                    for key, value in (("action", action_index(action)), ("seat", seat), ("player", index[name]),
                                       ("hand", hr.index), ("record", r), ("step", k)):
                        cols[key].append(value)
                    hand_seats.append(seat)
                observer.step(game, seat, action)
            out = game.outcome
            if out is None:  # an unfinished hand (a record downloaded in play): no reward yet
                chips: tuple[int, ...] = (0, 0, 0, 0)
            else:
                chips = hand_chips(out, rec.ruleset)
            cols["reward"].extend(float(chips[s]) for s in hand_seats)
            assert len(cols["reward"]) == len(cols["action"]) == start + len(hand_seats)
    size = observer.size
    return Dataset(
        np.stack(obs_rows) if obs_rows else np.zeros((0, size), dtype=np.float32),
        np.stack(mask_rows) if mask_rows else np.zeros((0, NUM_ACTIONS), dtype=np.int8),
        np.asarray(cols["action"], dtype=np.int16), np.asarray(cols["reward"], dtype=np.float32),
        np.asarray(cols["seat"], dtype=np.int8), np.asarray(cols["player"], dtype=np.int32),
        np.asarray(cols["hand"], dtype=np.int32), np.asarray(cols["record"], dtype=np.int32),
        np.asarray(cols["step"], dtype=np.int32), names, obs_version,
    )
