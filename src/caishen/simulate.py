"""Large-scale bot simulation: many games, one row per hand, statistics per bot.

A *game* is one match (:mod:`caishen.table.match`, L25): hands with dealer rotation (L18) and
chips, until the match ends. Game ``i`` of a run with seed ``S`` is played from the seed
``HMAC-SHA256(b"caishen-simulate", S + ":" + i)`` only, with the bots' own randomness
seeded from it too, so a run gives the same rows whatever the number of workers or the
backend (local processes or Ray). Seats rotate by game: in game ``i`` the player listed
``j`` sits at seat ``(j + i) % 4``, so every bot is dealer first equally often.

Backends: ``local`` runs batches of games in the standard library's process pool
(:mod:`concurrent.futures`), ``ray`` runs the same batches as Ray tasks
(``pip install caishen[ray]``). Both stream results back in game order and never hold
the whole run in memory. Statistics are kept as running sums (:class:`Stats`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from caishen import fair
from caishen.bots import check_player, make_bot
from caishen.engine.game import Game
from caishen.engine.outcome import WinHow
from caishen.errors import CaishenError
from caishen.table.match import Table
from caishen.table.play import play
from caishen.variants.base import VariantRules
from caishen.variants.longgang.outcome import HandScore

SEATS: Final = 4
DRAW: Final = "draw"  # the ``how`` of a hand nobody won (流局)
SIM_KEY: Final = b"caishen-simulate"
Z95: Final = 1.959963984540054


class SimulationError(CaishenError):
    """Bad simulation settings (unknown bot, wrong number of players, bad backend...)."""

    code = "simulation"


# ---------------------------------------------------------------- seeds


def game_seed(seed: str, game: int) -> bytes:
    """Seed of game ``game`` (0-based) of a run with user seed ``seed``."""
    return hmac.digest(SIM_KEY, f"{seed}:{game}".encode(), "sha256")


def bot_rng(gseed: bytes, seat: int) -> random.Random:
    """The random source of the bot at ``seat`` in the game with seed ``gseed``."""
    d = hmac.digest(gseed, b"bot" + seat.to_bytes(1, "big"), "sha256")
    return random.Random(int.from_bytes(d[:8], "big"))


def seating(players: Sequence[str], game: int) -> tuple[str, str, str, str]:
    """Bot name at each seat in game ``game``: player ``j`` at seat ``(j + game) % 4``."""
    out = [""] * SEATS
    for j, name in enumerate(players):
        out[(j + game) % SEATS] = name
    return (out[0], out[1], out[2], out[3])


# ---------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class HandRow:
    """One hand of a simulation. ``winner``/``discarder`` are seats or -1; ``how`` is how the
    hand was won (:class:`~caishen.engine.outcome.WinHow`) or ``draw`` (流局); ``limit`` the limit
    hand's name or ""; ``chips`` each seat's chip change; ``bots`` the bot at each seat;
    ``win_type`` the variant's name for the win (Gangci's ``zha_dan``, ``an_ci``...) or for a
    declared draw (Longgang's ``nine_terminals``, 叫和局), else ""."""

    game: int
    hand: int
    commitment: str
    dealer: int
    winner: int
    discarder: int
    how: str
    limit: str
    tai: int
    chips: tuple[int, int, int, int]
    bots: tuple[str, str, str, str]
    win_type: str = ""

    @property
    def ending(self) -> str:
        """How the hand ended, in the variant's words: its win type, else ``how``."""
        return self.win_type or self.how


COLUMNS: Final = (
    "game", "hand", "commitment", "dealer", "winner", "discarder", "how", "limit", "tai",
    "chips_0", "chips_1", "chips_2", "chips_3", "bot_0", "bot_1", "bot_2", "bot_3", "win_type",
)


def row_record(row: HandRow) -> dict[str, Any]:
    """A flat record (parquet/jsonl column -> value)."""
    rec: dict[str, Any] = {
        "game": row.game, "hand": row.hand, "commitment": row.commitment, "dealer": row.dealer,
        "winner": row.winner, "discarder": row.discarder, "how": row.how, "limit": row.limit,
        "tai": row.tai,
    }
    for s in range(SEATS):
        rec[f"chips_{s}"] = row.chips[s]
    for s in range(SEATS):
        rec[f"bot_{s}"] = row.bots[s]
    rec["win_type"] = row.win_type
    return rec


# ---------------------------------------------------------------- playing


@dataclass(frozen=True, slots=True)
class SimConfig:
    """Everything a worker needs to play a batch (picklable)."""

    players: tuple[str, ...]
    ruleset: VariantRules
    seed: str
    single_hand: bool = False
    duplicate: bool = False
    # Fixed seatings, played in turn on each deal: game g plays seatings[g % k] on deal g // k
    # (caishen.arena's 1 vs 3 and 2 vs 2; when empty, the rotation of ``players``).
    seatings: tuple[tuple[str, str, str, str], ...] = ()


def play_game(config: SimConfig, game: int) -> list[HandRow]:
    """Play game ``game`` of the run and return its hands. A game is a match
    (:class:`caishen.table.match.Table`: seating and dealer rotation L2/L18, chips and going broke
    L24/L25) or, with ``single_hand``, one hand. Hand ``h`` is dealt from
    ``fair.hand_seed(game seed, h)`` like :class:`caishen.table.match.Match` does; player ``p``
    (the bot :func:`seating` puts at seat ``p`` for the first hand) draws its randomness
    from :func:`bot_rng`."""
    if config.seatings:  # every seating of the list plays the same deal (game // k)
        k = len(config.seatings)
        gseed = game_seed(config.seed, game // k)
        names = config.seatings[game % k]
    else:  # duplicate: the four rotations of the seating play the same deals (game // 4)
        gseed = game_seed(config.seed, game // SEATS if config.duplicate else game)
        names = seating(config.players, game)
    bots = [make_bot(names[p], bot_rng(gseed, p), config.ruleset) for p in range(SEATS)]
    table = Table(config.ruleset, SEATS)
    rows: list[HandRow] = []
    h = 0
    while True:
        hseed = fair.hand_seed(gseed, h)
        seats = table.seats
        g = Game(config.ruleset, fair.shuffled_wall(hseed, config.ruleset), fair.dice(hseed))
        play(g, [bots[p] for p in seats])
        out = g.outcome
        assert out is not None
        result = table.settle(out)
        chips = result.chips
        seat_bots = (names[seats[0]], names[seats[1]], names[seats[2]], names[seats[3]])
        if out.winner is None:
            # a drawn hand may still have moved chips (Gangci's kongs stand, G2.11)
            # a declared draw 叫和局 ends under the variant's name for it (its ending, L17)
            row = HandRow(game, h, fair.commitment(hseed), out.dealer, -1, -1, DRAW, "", 0,
                          (chips[0], chips[1], chips[2], chips[3]), seat_bots, out.draw_type or "")
        else:
            assert out.how is not None
            limit, tai = "", 0
            if isinstance(result.score, HandScore):  # Longgang's 台 and limit hands (L21, L22)
                score = result.score.winner
                limit, tai = "" if score.limit is None else score.limit.value, score.tai
            row = HandRow(
                game, h, fair.commitment(hseed), out.dealer, out.winner,
                -1 if out.from_seat is None else out.from_seat,
                out.how.value, limit, tai,
                (chips[0], chips[1], chips[2], chips[3]), seat_bots, out.win_type or "",
            )
        rows.append(row)
        h += 1
        if config.single_hand or table.over:
            return rows


def play_batch(config: SimConfig, start: int, stop: int) -> list[HandRow]:
    """Play games ``start .. stop-1``."""
    rows: list[HandRow] = []
    for g in range(start, stop):
        rows.extend(play_game(config, g))
    return rows


def batches(games: int, size: int) -> Iterator[tuple[int, int]]:
    """The batches ``(start, stop)`` of a run, made as they are needed: a run of a billion
    games starts playing at once instead of listing its batches first."""
    return ((a, min(a + size, games)) for a in range(0, games, size))


def default_batch_size(games: int, workers: int) -> int:
    """Batches small enough to balance load and show progress, large enough to amortise
    the per-task overhead."""
    return max(1, min(50, games // max(1, workers * 8) or 1))


def run_local(
    config: SimConfig, games: int, workers: int, batch_size: int | None = None
) -> Iterator[list[HandRow]]:
    """Play ``games`` games; yield each batch's rows in game order as they are done.
    ``workers`` <= 1 plays in this process."""
    size = batch_size or default_batch_size(games, workers)
    parts = batches(games, size)
    if workers <= 1:
        for a, b in parts:
            yield play_batch(config, a, b)
        return
    import concurrent.futures as cf
    import multiprocessing
    from collections import deque

    ctx = multiprocessing.get_context("spawn" if _threads_started() else "fork")
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        # A bounded window of in-flight batches keeps memory flat on long runs.
        window = workers * 4
        pending: deque[cf.Future[list[HandRow]]] = deque()
        for a, b in parts:
            pending.append(pool.submit(play_batch, config, a, b))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _threads_started() -> bool:
    import threading

    return threading.active_count() > 1


RAY_INSTALL: Final = "the ray backend needs Ray: pip install 'caishen[ray]'"
PARQUET_INSTALL: Final = "writing .parquet needs pyarrow: pip install 'caishen[parquet]'"


def _optional(module: str, install: str) -> Any:
    """Import an optional extra (untyped third-party modules are used as Any), or say in
    one line how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise SimulationError(install) from None


def run_ray(
    config: SimConfig,
    games: int,
    address: str | None = None,
    batch_size: int | None = None,
    max_in_flight: int | None = None,
) -> Iterator[list[HandRow]]:
    """The same batches as :func:`run_local`, as Ray tasks on a cluster (``address``:
    ``ray://host:port`` or ``auto``; a local Ray when None). Results are fetched with
    ``ray.wait`` as tasks finish, reordered so batches come out in game order, with at
    most ``max_in_flight`` tasks submitted at a time."""
    check_address(address)
    ray = _optional("ray", RAY_INSTALL)
    started_here = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(include_dashboard=False, log_to_driver=False)
        except (RuntimeError, ConnectionError, TimeoutError, ValueError, OSError) as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise SimulationError(f"cannot start or reach Ray at {address or 'a local Ray'}: {first}") from None
        started_here = True
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        size = batch_size or default_batch_size(games, cpus)
        n_parts = -(-games // size)
        parts = batches(games, size)
        limit = max_in_flight or max(2, cpus * 4)
        remote_batch = ray.remote(play_batch)
        cfg_ref = ray.put(config)
        in_flight: dict[Any, int] = {}
        done: dict[int, list[HandRow]] = {}
        nxt = 0
        emit = 0
        while emit < n_parts:
            while nxt < n_parts and len(in_flight) < limit:
                a, b = next(parts)
                in_flight[remote_batch.remote(cfg_ref, a, b)] = nxt
                nxt += 1
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                done[in_flight.pop(ref)] = ray.get(ref)
            while emit in done:
                yield done.pop(emit)
                emit += 1
    finally:
        if started_here:
            ray.shutdown()


# ---------------------------------------------------------------- statistics


@dataclass(slots=True)
class BotStats:
    """Running sums for one bot over every seat it played. Chips per hand: the mean over
    hands of the bot's average chip change across its seats at that hand."""

    name: str
    seat_hands: int = 0
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    limits: int = 0
    draws: int = 0
    hands: int = 0
    chips: float = 0.0
    chips_sq: float = 0.0
    # Per-game sums for a confidence interval that treats each game (match) as one
    # independent cluster of hands (hands of a match depend on each other via chips).
    g_n: int = 0
    g_y2: float = 0.0
    g_yn: float = 0.0
    g_n2: float = 0.0
    _cur_y: float = 0.0
    _cur_n: int = 0
    per_hand: list[float] | None = None

    def add_hand(self, row: HandRow, seats: list[int]) -> None:
        self.hands += 1
        self.seat_hands += len(seats)
        if row.how == DRAW:
            self.draws += 1
        if row.winner in seats:
            self.wins += 1
            if row.how == WinHow.SELF_DRAW:
                self.self_draws += 1
            if row.limit:
                self.limits += 1
        if row.discarder in seats and row.how != WinHow.SELF_DRAW:
            self.deal_ins += 1
        y = sum(row.chips[s] for s in seats) / len(seats)
        self.chips += y
        self.chips_sq += y * y
        self._cur_y += y
        self._cur_n += 1
        if self.per_hand is not None:
            self.per_hand.append(y)

    def end_game(self) -> None:
        if self._cur_n:
            self.g_n += 1
            self.g_y2 += self._cur_y**2
            self.g_yn += self._cur_y * self._cur_n
            self.g_n2 += self._cur_n**2
        self._cur_y = 0.0
        self._cur_n = 0

    @property
    def mean(self) -> float:
        return self.chips / self.hands if self.hands else 0.0

    def ci95(self) -> float:
        """Half-width of the 95% confidence interval of :attr:`mean`: the ratio estimator
        sum(Y_g)/sum(N_g) over games g, with its cluster (per-game) standard error."""
        g = self.g_n
        if g < 2 or not self.hands:
            return math.inf
        r = self.mean
        nbar = self.hands / g
        # sum_g (Y_g - r N_g)^2 expanded in running sums
        ss = self.g_y2 - 2 * r * self.g_yn + r * r * self.g_n2
        var = max(0.0, ss) / (g * (g - 1) * nbar * nbar)
        return Z95 * math.sqrt(var)

    def rate(self, count: int) -> float:
        """``count`` per hand (for draws, which every seat shares)."""
        return count / self.hands if self.hands else 0.0

    def seat_rate(self, count: int) -> float:
        """``count`` per hand per seat: a bot in two seats that wins 60% of the hands between
        them wins 30% a seat, comparable with a bot in one seat (like chips per hand)."""
        return count / self.seat_hands if self.seat_hands else 0.0


@dataclass(slots=True)
class Stats:
    """Per-bot statistics of a run, fed one game's rows at a time. The confidence
    intervals treat each cluster of ``cluster_size`` consecutive games as one independent
    sample (a game, or the rotations of one duplicate deal)."""

    names: tuple[str, ...]
    keep_per_hand: bool = False
    cluster_size: int = 1
    bots: dict[str, BotStats] = field(default_factory=dict)
    games: int = 0
    hands: int = 0
    draws: int = 0
    endings: dict[str, int] = field(default_factory=dict)  # hands by how they ended
    _game: int = -1
    _cluster: int = -1

    def __post_init__(self) -> None:
        for n in self.names:
            if n not in self.bots:
                self.bots[n] = BotStats(n, per_hand=[] if self.keep_per_hand else None)

    def add_rows(self, rows: Iterable[HandRow]) -> None:
        """Add hands; rows of one game must come together, games in order. Call
        :meth:`finish` after the last rows."""
        for row in rows:
            if row.game != self._game:
                self._game = row.game
                self.games += 1
                key = row.game // self.cluster_size
                if key != self._cluster:
                    if self._cluster >= 0:
                        self._end_cluster()
                    self._cluster = key
            self.hands += 1
            if row.how == DRAW:
                self.draws += 1
            self.endings[row.ending] = self.endings.get(row.ending, 0) + 1
            by_bot: dict[str, list[int]] = {}
            for s, n in enumerate(row.bots):
                by_bot.setdefault(n, []).append(s)
            for n, seats in by_bot.items():
                self.bots[n].add_hand(row, seats)

    def finish(self) -> None:
        """Close the last cluster of games (for the confidence intervals)."""
        if self._cluster >= 0:
            self._end_cluster()
            self._cluster = -1

    def _end_cluster(self) -> None:
        for b in self.bots.values():
            b.end_game()


def table_rows(stats: Stats) -> list[dict[str, Any]]:
    """The summary per bot as plain values (what the CLI table shows)."""
    out = []
    for name in stats.names:
        b = stats.bots[name]
        out.append({
            "bot": name,
            "seats": b.seat_hands // b.hands if b.hands else 0,
            "hands": b.hands,
            "win_rate": b.seat_rate(b.wins),
            "deal_in_rate": b.seat_rate(b.deal_ins),
            "self_draw_rate": b.seat_rate(b.self_draws),
            "chips_per_hand": b.mean,
            "ci95": b.ci95(),
            "limit_hands": b.limits,
            "limit_rate": b.seat_rate(b.limits),
            "draw_rate": b.rate(b.draws),
        })
    return out


# ---------------------------------------------------------------- output


class RowWriter:
    """Writes rows to ``.jsonl`` (standard library) or ``.parquet`` (pyarrow, optional),
    batch by batch."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._parquet = path.endswith(".parquet")
        self._file: Any = None
        self._writer: Any = None
        if self._parquet:
            _optional("pyarrow", PARQUET_INSTALL)
        elif not path.endswith(".jsonl"):
            raise SimulationError(f"{path}: output must end in .jsonl or .parquet")

    def write(self, rows: Sequence[HandRow]) -> None:
        if not rows:
            return
        if self._parquet:
            pa = _optional("pyarrow", PARQUET_INSTALL)
            pq = _optional("pyarrow.parquet", PARQUET_INSTALL)
            recs = [row_record(r) for r in rows]
            table = pa.Table.from_pylist(recs, schema=_arrow_schema())
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.path, table.schema)
            self._writer.write_table(table)
        else:
            if self._file is None:
                self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115
            for r in rows:
                self._file.write(json.dumps(row_record(r), ensure_ascii=False) + "\n")

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._file is not None:
            self._file.close()
        if self._writer is None and self._file is None and not self._parquet:
            open(self.path, "w", encoding="utf-8").close()


def _arrow_schema() -> Any:
    pa = _optional("pyarrow", PARQUET_INSTALL)
    ints = {"game", "hand", "dealer", "winner", "discarder", "tai", "chips_0", "chips_1", "chips_2", "chips_3"}
    return pa.schema([(c, pa.int64() if c in ints else pa.string()) for c in COLUMNS])


def read_rows(path: str) -> list[dict[str, Any]]:
    """Rows of a ``.jsonl`` or ``.parquet`` results file as records."""
    if path.endswith(".parquet"):
        pq = _optional("pyarrow.parquet", PARQUET_INSTALL)
        rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
        return rows
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------- driver


MAX_GAMES: Final = 1_000_000_000  # a year of play on a large cluster; more is a typo
_RAY_ADDRESS: Final = re.compile(r"auto|local|(ray://)?[A-Za-z0-9._-]+:[0-9]{1,5}|ray://[A-Za-z0-9._-]+")
PLOT_SUFFIXES: Final = (".png", ".pdf", ".svg")


def check_address(address: str | None) -> None:
    """A Ray address must be ``auto``, ``local``, ``host:port`` or ``ray://host[:port]``."""
    if address is not None and not _RAY_ADDRESS.fullmatch(address):
        raise SimulationError(f"--address {address[:80]!r}: expected auto, host:port or ray://host:port")


def check_output(path: str, suffixes: Sequence[str], option: str) -> None:
    """Before a long run: ``path`` ends in one of ``suffixes``, is not a directory, and its
    directory exists and is writable."""
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise SimulationError(f"{option} {path[:80]}: must end in {' or '.join(suffixes)}")
    if p.is_dir():
        raise SimulationError(f"{option} {path[:80]}: is a directory")
    parent = p.parent
    if not parent.is_dir():
        raise SimulationError(f"{option} {path[:80]}: no directory {str(parent)[:80]}")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise SimulationError(f"{option} {path[:80]}: not writable")


def check_settings(players: Sequence[str], games: int, workers: int, backend: str) -> None:
    """Raise :class:`SimulationError` naming the first bad setting."""
    if len(players) != SEATS:
        raise SimulationError(f"need {SEATS} players, got {len(players)}: {','.join(players)}")
    for p in players:
        try:
            check_player(p)  # imported here: a typo fails now, not in a worker hours later
        except ValueError as exc:
            raise SimulationError(str(exc)) from None
    if not 1 <= games <= MAX_GAMES:
        raise SimulationError(f"--games must be 1-{MAX_GAMES:,}, not {games}")
    if workers < 1:
        raise SimulationError(f"--workers must be at least 1, not {workers}")
    if backend not in ("local", "ray"):
        raise SimulationError(f"unknown backend {backend!r} (local, ray)")


def simulate(
    players: Sequence[str],
    games: int,
    ruleset: VariantRules,
    seed: str,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    on_batch: Callable[[list[HandRow]], None] | None = None,
    keep_per_hand: bool = False,
    single_hand: bool = False,
    batch_size: int | None = None,
    duplicate: bool = False,
) -> Stats:
    """Run a simulation and return its statistics; ``on_batch`` sees every batch of rows
    in game order (to write them out or show progress)."""
    check_settings(players, games, workers, backend)
    config = SimConfig(tuple(players), ruleset, seed, single_hand, duplicate)
    names = tuple(dict.fromkeys(players))
    stats = Stats(names, keep_per_hand=keep_per_hand, cluster_size=SEATS if duplicate else 1)
    if backend == "local":
        stream = run_local(config, games, workers, batch_size)
    elif backend == "ray":
        stream = run_ray(config, games, address, batch_size)
    else:
        raise SimulationError(f"unknown backend {backend!r} (local, ray)")
    for rows in stream:
        stats.add_rows(rows)
        if on_batch is not None:
            on_batch(rows)
    stats.finish()
    return stats


def digest_rows(rows: Iterable[HandRow]) -> str:
    """SHA-256 over the rows (to compare runs)."""
    h = hashlib.sha256()
    for r in rows:
        h.update(json.dumps(row_record(r), sort_keys=True).encode())
    return h.hexdigest()
