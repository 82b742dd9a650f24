"""Scenarios 局面: an exact situation of a hand, built from a TOML file and played step by step.

A scenario deals given tiles, stacks the wall so the draws come in a given order, plays listed
actions and checks expectations (the legal actions of a seat, the phase, the winner, the score,
the chips). It is how rule disputes are reported and how the engine's rules are tested; the
format is documented in ``docs/scenarios.md``::

    scn = load("tests/scenarios/longgang/L9-no-kong-after-pong.toml")
    run = play(scn)            # a Run: the game, each step's legal actions, the outcome
    failed = run.failures      # expectations that did not hold (empty: all hold)

Python callers that want a wall rather than a file use :func:`stacked_wall` and
:func:`stacked_game` (the same placement rules as the ``[deal]`` and ``[wall]`` tables).
"""

from __future__ import annotations

import random
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TypedDict, Unpack

from caishen.notation import NotationError, parse_tile, parse_tiles
from caishen.tiles import NUM_KINDS, SEAT_LETTERS, TileSet, is_flower, tile_name

# isort: split
# ---- the one block of engine, table and variant imports: port these lines after issue 8 ----
from caishen import fair
from caishen.engine.game import PASS, Action, ActionKind, Game, Outcome, Phase
from caishen.errors import CaishenError
from caishen.fair import tile_set
from caishen.ruleset import RulesetError
from caishen.table.match import Table
from caishen.table.record import RecordError, action_text, parse_action
from caishen.table.seating import draw_seats
from caishen.variants.longgang.outcome import HandScore
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.scoring import ScoreResult
from caishen.variants.luoyang_gangci.payments import Statement
from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI_DEFAULT
from caishen.variants.luoyang_gangci.rules import GangciRules, RulesError

__all__ = [
    "DICE",
    "VARIANTS",
    "WallOptions",
    "Expect",
    "Run",
    "Scenario",
    "ScenarioError",
    "Snapshot",
    "Step",
    "load",
    "loads",
    "play",
    "stacked_game",
    "stacked_wall",
    "tiles",
]

#: Dice of a Longgang scenario that names none (the dealer's 3+4 and 2+5, L4).
DICE: Final = (3, 4, 2, 5)
#: Dice of a Gangci scenario that names none (two dice, G3.1).
GANGCI_DICE: Final = (5, 6)
VARIANTS: Final = ("longgang", "luoyang-gangci")
SEATS: Final = 4

_TOP_KEYS: Final = frozenset({"variant", "dealer", "indicator", "dice", "ruleset", "deal", "wall", "match", "steps",
                               "expect"})
_MATCH_KEYS: Final = frozenset({"players", "seats", "waiting", "chips", "hands_played", "broke", "seat_draw"})
_WALL_KEYS: Final = frozenset({"draws", "tail", "head_at", "layout"})
_STEP_KEYS: Final = frozenset({"seat", "action"})
_EXPECT_KEYS: Final = frozenset({"after", "seat", "legal", "phase", "winner", "how", "fu", "tai", "total", "chips",
                                  "seats", "next_seats", "next_waiting", "broke", "match_over"})
_PHASES: Final = tuple(p.value for p in Phase)
# A claim window (L10), a rob window (L10) and the sea-floor turns (分张, L17): seats answer
# win or pass; a seat whose next listed step is no legal answer passes on its own.
_WINDOWS: Final = (Phase.CLAIM, Phase.ROB, Phase.SEA_FLOOR)
# Actions that only answer a window: a seat asked whose next step is one of these does not pass
# on its own (an illegal one is refused with the engine's reason).
_ANSWERS: Final = (ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG, ActionKind.PASS)


class ScenarioError(CaishenError):
    """A scenario file that cannot be read (TOML syntax, unknown key, bad tile, a tile placed
    twice, an unknown action), or a step that cannot be played. ``line`` is the file's line
    when known."""

    code = "scenario"

    def __init__(self, where: str, message: str, line: int | None = None) -> None:
        self.where = where
        self.line = line
        self.message = message
        at = f"{where}:{line}" if line is not None else where
        super().__init__(f"{at}: {message}")


# ---------------------------------------------------------------- the scenario as values


@dataclass(frozen=True, slots=True)
class Step:
    """One listed step: ``seat`` plays ``action`` (its text is ``text``)."""

    index: int  # 1-based, as ``after = N`` counts
    seat: int
    action: Action
    text: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Expect:
    """One ``[[expect]]`` check. ``after`` is the number of listed steps played (``None``:
    the end of the hand); every other field is ``None`` when the file does not check it.
    ``winner`` is a seat or ``-1`` for a drawn hand (``winner = "none"``)."""

    index: int  # 1-based position among the [[expect]] tables
    after: int | None
    seat: int | None = None
    legal: frozenset[str] | None = None
    phase: str | None = None
    winner: int | None = None
    how: str | None = None
    fu: int | None = None
    tai: int | None = None
    total: int | None = None
    chips: tuple[int, ...] | None = None
    line: int | None = None
    # The match around the hand ([match]): players by seat this hand, next hand's seats and
    # waiting players, players who went broke in the hand, whether the match is over.
    seats: tuple[int, ...] | None = None
    next_seats: tuple[int, ...] | None = None
    next_waiting: tuple[int, ...] | None = None
    broke: tuple[int, ...] | None = None
    match_over: bool | None = None

    def name(self) -> str:
        when = "end" if self.after is None else f"after step {self.after}"
        return f"expect {self.index} ({when})"


@dataclass(frozen=True, slots=True)
class MatchSetup:
    """The match a scenario's hand belongs to (``[match]``): players 4-6, who sits where this
    hand (``seats``, E S W N) and who waits, each player's chips before the hand, hands played
    and players already broke; or ``seat_draw``, the seed text of a seat draw 校位定莊 (L2.1)
    that seats the players."""

    players: int = SEATS
    seats: tuple[int, int, int, int] | None = None
    waiting: tuple[int, ...] | None = None
    chips: tuple[int, ...] | None = None
    hands_played: int = 0
    broke: tuple[int, ...] = ()
    seat_draw: str | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """A parsed scenario file (see the module docstring and ``docs/scenarios.md``)."""

    source: str
    variant: str
    dealer: int
    indicator: str
    dice: tuple[int, ...]
    ruleset: Ruleset | GangciRules
    gangci_rules: GangciRules | None
    deal: tuple[str, ...]  # per seat, "" for filler
    draws: str = ""
    tail: str = ""
    head_at: tuple[tuple[int, str], ...] = ()
    layout: tuple[int, ...] | None = None
    steps: tuple[Step, ...] = ()
    expects: tuple[Expect, ...] = ()
    match: MatchSetup | None = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The situation after ``after`` listed steps: each seat's legal action texts and the phase."""

    after: int
    step: Step | None
    phase: str
    legal: tuple[tuple[str, ...], ...]


@dataclass(slots=True)
class Run:
    """A played scenario: the game, a snapshot after each listed step, the outcome with its
    score and chips (``None`` until the hand ends; no score for a drawn hand), and the
    expectations that failed, each as one line."""

    scenario: Scenario
    game: Game
    snapshots: list[Snapshot] = field(default_factory=list)
    outcome: Outcome | None = None
    score: HandScore | None = None
    chips: tuple[int, ...] | None = None
    failures: list[str] = field(default_factory=list)
    payments: Statement | None = None  # Gangci: every payment of the hand (G2), kongs included
    table: Table | None = None  # the match around the hand: seats, ledger ([match])
    seats: tuple[int, int, int, int] = (0, 1, 2, 3)  # the players in E S W N this hand
    broke: tuple[int, ...] = ()  # players who went broke in the hand


# ---------------------------------------------------------------- tiles and the stacked wall


def tiles(text: str, ruleset: TileSet = LONGGANG) -> tuple[int, ...]:
    """Tiles in notation, tokens separated by spaces: ``123m 55z f2`` (``f23``: f2 f3)."""
    out: list[int] = []
    for tok in text.split():
        if tok[0] == "f" and tok[1:].isdigit():
            out.extend(parse_tile("f" + d, ruleset) for d in tok[1:])
        else:
            out.extend(parse_tiles(tok, ruleset))
    return tuple(out)


class WallOptions(TypedDict, total=False):
    """Keyword arguments of :func:`stacked_wall` and :func:`stacked_game`."""

    draws: str
    indicator: str
    tail: str
    dealer: int
    dice: tuple[int, int, int, int]
    ruleset: Ruleset | GangciRules
    head_at: Mapping[int, str] | None


def stacked_wall(hands: Sequence[str], **options: Unpack[WallOptions]) -> tuple[int, ...]:
    """A wall (tile kinds in wall position order, see :mod:`caishen.engine.wall`) that deals
    ``hands[s]`` to seat ``s`` (16 tiles, the dealer 17; ``""``: filler), draws ``draws`` in
    order after the deal, gives ``tail`` as the replacement draws in order, turns
    ``indicator`` and puts single tiles at indices of the head order (``head_at``; the deal
    takes indices 0-64). Every other position gets the remaining tiles in a fixed order:
    left-over flowers and copies of the indicator deep in the dead wall, the rest in a fixed
    shuffle, so a filler hand holds no flower and no wild. Raises :class:`ValueError` for a
    wrong hand size, a tile placed more often than the set holds it or a position given twice."""
    draws = options.get("draws", "")
    indicator = options.get("indicator", "9s")
    tail = options.get("tail", "")
    dealer = options.get("dealer", 0)
    dice = options.get("dice", DICE)
    ruleset = options.get("ruleset", LONGGANG)
    head_at = options.get("head_at")
    lay = ruleset.wall_layout(dice, dealer, ruleset.wall_size)
    wall: list[int] = [-1] * ruleset.wall_size
    left = [0] * NUM_KINDS
    for k in tile_set(ruleset):
        left[k] += 1

    def put(pos: int, k: int) -> None:
        if wall[pos] != -1:
            raise ValueError(f"wall position {pos} given twice")
        if left[k] <= 0:
            copies = sum(1 for x in tile_set(ruleset) if x == k)
            raise ValueError(f"{tile_name(k)} placed more than {copies} times (a tile placed twice)")
        left[k] -= 1
        wall[pos] = k

    if ruleset.wild_indicator:
        put(lay.indicator_pos, parse_tile(indicator, ruleset))
    hand_tiles = [list(tiles(h, ruleset)) for h in hands]
    size = ruleset.hand_size
    for s, h in enumerate(hand_tiles):
        want = size + (1 if s == dealer else 0)
        if h and len(h) != want:
            raise ValueError(f"seat {SEAT_LETTERS[s]} must be dealt {want} tiles, got {len(h)}")
    head = lay.head
    i = 0
    rounds = size // 4
    for r in range(rounds):
        for j in range(SEATS):
            s = (dealer + j) % SEATS
            for t in range(4):
                if hand_tiles[s]:
                    put(head[i], hand_tiles[s][4 * r + t])
                i += 1
    for j in range(SEATS):  # 13-tile hands: one more each (G3.3), as the engine deals
        s = (dealer + j) % SEATS
        for t in range(4 * rounds, size):
            if hand_tiles[s]:
                put(head[i], hand_tiles[s][t])
            i += 1
    if hand_tiles[dealer]:
        put(head[i], hand_tiles[dealer][size])
    i += 1
    for k in tiles(draws, ruleset):
        put(head[i], k)
        i += 1
    for j, k in enumerate(tiles(tail, ruleset)):
        put(lay.tail[j], k)
    for idx, text in (head_at or {}).items():
        if not 0 <= idx < len(head):
            raise ValueError(f"head_at index {idx} is outside 0-{len(head) - 1}")
        put(head[idx], parse_tile(text, ruleset))
    # Left-over flowers and wilds deep in the dead wall (tail indices 19, 18, ...), the rest
    # shuffled: filler never brings a surprise wild or flower.
    ind = parse_tile(indicator, ruleset) if ruleset.wild_indicator else -1
    flowers = [k for k in range(NUM_KINDS) if is_flower(k) or k == ind for _ in range(left[k])]
    j = 19
    for k in flowers:
        while wall[lay.tail[j]] != -1:
            j -= 1
        put(lay.tail[j], k)
    rest = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    random.Random(0).shuffle(rest)
    it = iter(rest)
    for pos in (*head, *lay.tail):
        if wall[pos] == -1:
            put(pos, next(it))
    return tuple(wall)


def stacked_game(hands: Sequence[str], **options: Unpack[WallOptions]) -> Game:
    """A :class:`Game` on a stacked wall (same arguments as :func:`stacked_wall`)."""
    wall = stacked_wall(hands, **options)
    return Game(options.get("ruleset", LONGGANG), wall, options.get("dice", DICE), options.get("dealer", 0))


# ---------------------------------------------------------------- loading


class _Lines:
    """Best-effort line numbers of keys and array tables, for error messages."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def table(self, name: str, index: int) -> int | None:
        """Line of the ``index``-th (1-based) ``[[name]]`` header."""
        n = 0
        for i, line in enumerate(self.lines, 1):
            if re.match(rf"\s*\[\[\s*{re.escape(name)}\s*\]\]", line):
                n += 1
                if n == index:
                    return i
        return None

    def key(self, key: str, after: int | None = None) -> int | None:
        """Line of the first ``key = ...`` (at or after line ``after``)."""
        start = after or 1
        pat = re.compile(rf"\s*\"?{re.escape(key)}\"?\s*=")
        for i, line in enumerate(self.lines[start - 1:], start):
            if pat.match(line):
                return i
        return None


class _Reader:
    def __init__(self, source: str, text: str) -> None:
        self.source = source
        self.lines = _Lines(text)

    def error(self, what: str, message: str, line: int | None = None) -> ScenarioError:
        return ScenarioError(self.source, f"{what}: {message}" if what else message, line)

    def check_keys(self, data: Mapping[str, object], known: frozenset[str], what: str,
                   line: int | None = None) -> None:
        for key in data:
            if key not in known:
                raise self.error(f"{what}.{key}" if what else key,
                                 f"unknown key {key!r} (known: {', '.join(sorted(known))})",
                                 self.lines.key(key, line))

    def string(self, value: object, what: str, line: int | None) -> str:
        if not isinstance(value, str):
            raise self.error(what, f"must be a string, not {type(value).__name__}", line)
        return value

    def integer(self, value: object, what: str, line: int | None) -> int:
        if type(value) is not int:
            raise self.error(what, f"must be an integer, not {type(value).__name__}", line)
        return value

    def seat(self, value: object, what: str, line: int | None) -> int:
        text = self.string(value, what, line)
        if text not in SEAT_LETTERS or len(text) != 1:
            raise self.error(what, f"must be a seat E, S, W or N, not {text!r}", line)
        return SEAT_LETTERS.index(text)

    def table(self, value: object, what: str, line: int | None) -> dict[str, object]:
        if not isinstance(value, dict):
            raise self.error(what, f"must be a table, not {type(value).__name__}", line)
        return {str(k): v for k, v in value.items()}


def load(path: str | Path) -> Scenario:
    """The scenario of a TOML file. Raises :class:`ScenarioError` naming the file (and line)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(str(p), f"cannot read: {exc}") from None
    return loads(text, str(p))


def loads(text: str, source: str = "<scenario>") -> Scenario:
    """The scenario of TOML text (``source`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ScenarioError(source, f"not valid TOML: {msg}", int(m.group(1)) if m else None) from None
    r = _Reader(source, text)
    r.check_keys(data, _TOP_KEYS, "")
    line = r.lines.key
    if "variant" not in data:
        raise r.error("variant", f"missing (one of {', '.join(VARIANTS)})")
    variant = r.string(data["variant"], "variant", line("variant"))
    if variant not in VARIANTS:
        raise r.error("variant", f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})", line("variant"))
    gangci = variant == "luoyang-gangci"
    dealer = r.seat(data.get("dealer", "E"), "dealer", line("dealer"))
    dice = _dice(r, data.get("dice", list(GANGCI_DICE if gangci else DICE)), 2 if gangci else 4, line("dice"))
    overrides = r.table(data.get("ruleset", {}), "ruleset", line("ruleset"))
    gangci_rules: GangciRules | None = None
    ruleset: Ruleset | GangciRules
    try:
        if gangci:
            gangci_rules = GANGCI_DEFAULT.replace(**overrides)
            ruleset = gangci_rules
        else:
            ruleset = LONGGANG.replace(**overrides)
    except (RulesetError, RulesError) as exc:
        raise r.error("ruleset", str(exc).removeprefix("replace: ")) from None
    indicator = r.string(data.get("indicator", "1z" if gangci else "9s"), "indicator", line("indicator"))
    _tiles_of(r, indicator, ruleset, "indicator", line("indicator"))
    deal_t = r.table(data.get("deal", {}), "deal", None)
    for key in deal_t:
        if key not in SEAT_LETTERS or len(key) != 1:
            raise r.error("deal", f"unknown key {key!r} (seats are E, S, W, N)", line(key))
    deal = tuple(r.string(deal_t.get(s, ""), f"deal.{s}", line(s)) for s in SEAT_LETTERS)
    wall_t = r.table(data.get("wall", {}), "wall", None)
    r.check_keys(wall_t, _WALL_KEYS, "wall")
    draws = r.string(wall_t.get("draws", ""), "wall.draws", line("draws"))
    tail = r.string(wall_t.get("tail", ""), "wall.tail", line("tail"))
    head_at: list[tuple[int, str]] = []
    for key, value in r.table(wall_t.get("head_at", {}), "wall.head_at", line("head_at")).items():
        if not key.isdigit():
            raise r.error("wall.head_at", f"keys are head indices (0, 1, ...), not {key!r}", line("head_at"))
        head_at.append((int(key), r.string(value, f"wall.head_at.{key}", line("head_at"))))
    full: tuple[int, ...] | None = None
    if "layout" in wall_t:
        if any(deal) or draws or tail or head_at or "indicator" in data:
            raise r.error("wall.layout", "a full layout replaces deal, draws, tail, head_at and indicator: "
                          "give one or the other", line("layout"))
        full = _tiles_of(r, r.string(wall_t["layout"], "wall.layout", line("layout")), ruleset,
                         "wall.layout", line("layout"))
    steps = _steps(r, data.get("steps", []))
    expects = _expects(r, data.get("expect", []), len(steps))
    match = _match(r, data["match"], line("match")) if "match" in data else None
    scn = Scenario(source, variant, dealer, indicator, dice, ruleset, gangci_rules, deal, draws, tail,
                   tuple(head_at), full, steps, expects, match)
    _census(r, scn)
    return scn


def _players(r: _Reader, value: object, what: str, line: int | None, players: int) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(x) is int and 0 <= x < players for x in value):
        raise r.error(what, f"must be a list of players 0-{players - 1}", line)
    if len(set(value)) != len(value):
        raise r.error(what, "names a player twice", line)
    return tuple(value)


def _match(r: _Reader, value: object, line: int | None) -> MatchSetup:
    t = r.table(value, "match", line)
    r.check_keys(t, _MATCH_KEYS, "match", line)
    n = r.integer(t.get("players", SEATS), "match.players", line)
    if not SEATS <= n <= 6:
        raise r.error("match.players", f"a match has 4-6 players, not {n}", line)
    seats = _players(r, t["seats"], "match.seats", line, n) if "seats" in t else None
    if seats is not None and len(seats) != SEATS:
        raise r.error("match.seats", "gives the players in E, S, W, N: four of them", line)
    waiting = _players(r, t["waiting"], "match.waiting", line, n) if "waiting" in t else None
    if seats is not None:
        rest = tuple(p for p in range(n) if p not in seats)
        waiting = rest if waiting is None else waiting
        if sorted(waiting) != sorted(rest):
            raise r.error("match.waiting", f"must be the players not seated: {list(rest)}", line)
    chips: tuple[int, ...] | None = None
    if "chips" in t:
        raw = t["chips"]
        if not isinstance(raw, list) or len(raw) != n or not all(type(x) is int for x in raw):
            raise r.error("match.chips", f"must give the chips of each of the {n} players", line)
        chips = tuple(raw)
    hands = r.integer(t.get("hands_played", 0), "match.hands_played", line)
    broke = _players(r, t.get("broke", []), "match.broke", line, n)
    draw = r.string(t["seat_draw"], "match.seat_draw", line) if "seat_draw" in t else None
    if draw is not None and seats is not None:
        raise r.error("match.seat_draw", "a seat draw seats the players: give it or seats, not both", line)
    s4 = None if seats is None else (seats[0], seats[1], seats[2], seats[3])
    return MatchSetup(n, s4, waiting, chips, hands, broke, draw)


def _dice(r: _Reader, value: object, n: int, line: int | None) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != n or not all(type(d) is int and 1 <= d <= 6 for d in value):
        raise r.error("dice", f"must be a list of {n} rolls 1-6, not {value!r}", line)
    return tuple(value)


def _tiles_of(r: _Reader, text: str, ruleset: TileSet, what: str, line: int | None) -> tuple[int, ...]:
    try:
        return tiles(text, ruleset)
    except NotationError as exc:
        raise r.error(what, f"bad tiles {text!r}: {exc}", line) from None


def _array(r: _Reader, value: object, name: str,
           known: frozenset[str]) -> list[tuple[int, int | None, str, dict[str, object]]]:
    """The tables of an array of tables ``[[name]]``: (1-based index, line, name for errors, table)."""
    if not isinstance(value, list):
        raise r.error(name, f"must be an array of tables [[{name}]]", r.lines.key(name))
    out: list[tuple[int, int | None, str, dict[str, object]]] = []
    for i, item in enumerate(value, 1):
        at = r.lines.table(name, i)
        what = f"{name}[{i}]"
        t = r.table(item, what, at)
        r.check_keys(t, known, what, at)
        out.append((i, at, what, t))
    return out


def _steps(r: _Reader, value: object) -> tuple[Step, ...]:
    out: list[Step] = []
    for i, at, what, t in _array(r, value, "steps", _STEP_KEYS):
        for key in ("seat", "action"):
            if key not in t:
                raise r.error(what, f"missing {key!r}", at)
        seat = r.seat(t["seat"], f"{what}.seat", at)
        text = r.string(t["action"], f"{what}.action", at)
        try:
            action = parse_action(text, f"{what}.action")
        except RecordError as exc:
            raise ScenarioError(r.source, f"unknown action: {exc}", at) from None
        out.append(Step(i, seat, action, action_text(action), at))
    return tuple(out)


def _expects(r: _Reader, value: object, n_steps: int) -> tuple[Expect, ...]:
    out: list[Expect] = []
    for i, at, what, t in _array(r, value, "expect", _EXPECT_KEYS):
        if "after" not in t:
            raise r.error(what, "missing 'after' (a step count or \"end\")", at)
        raw = t["after"]
        after: int | None
        if raw == "end":
            after = None
        else:
            after = r.integer(raw, f"{what}.after", at)
            if not 0 <= after <= n_steps:
                raise r.error(f"{what}.after", f"must be 0-{n_steps} (the steps listed) or \"end\", not {after}", at)
        seat = r.seat(t["seat"], f"{what}.seat", at) if "seat" in t else None
        legal: frozenset[str] | None = None
        if "legal" in t:
            if seat is None:
                raise r.error(what, "'legal' needs 'seat' (whose legal actions)", at)
            items = t["legal"]
            if not isinstance(items, list):
                raise r.error(f"{what}.legal", "must be a list of action texts", at)
            texts: list[str] = []
            for x in items:
                try:
                    texts.append(action_text(parse_action(r.string(x, f"{what}.legal", at), f"{what}.legal")))
                except RecordError as exc:
                    raise ScenarioError(r.source, f"unknown action: {exc}", at) from None
            legal = frozenset(texts)
        phase = r.string(t["phase"], f"{what}.phase", at) if "phase" in t else None
        if phase is not None and phase not in _PHASES:
            raise r.error(f"{what}.phase", f"must be one of {', '.join(_PHASES)}, not {phase!r}", at)
        winner: int | None = None
        if "winner" in t:
            winner = -1 if t["winner"] == "none" else r.seat(t["winner"], f"{what}.winner", at)
        how = r.string(t["how"], f"{what}.how", at) if "how" in t else None
        nums = {k: (r.integer(t[k], f"{what}.{k}", at) if k in t else None) for k in ("fu", "tai", "total")}
        chips: tuple[int, ...] | None = None
        if "chips" in t:
            ct = r.table(t["chips"], f"{what}.chips", at)
            if set(ct) != set(SEAT_LETTERS):
                raise r.error(f"{what}.chips", "must give every seat E, S, W, N", at)
            chips = tuple(r.integer(ct[s], f"{what}.chips.{s}", at) for s in SEAT_LETTERS)
        if len(t) == 1 or (seat is not None and len(t) == 2):
            raise r.error(what, "checks nothing (give legal, phase, winner, how, fu, tai, total or chips)", at)
        lists: dict[str, tuple[int, ...] | None] = {}
        for key in ("seats", "next_seats", "next_waiting", "broke"):
            raw_list = t.get(key)
            if raw_list is not None and (not isinstance(raw_list, list) or not all(type(x) is int for x in raw_list)):
                raise r.error(f"{what}.{key}", "must be a list of players (0, 1, ...)", at)
            lists[key] = None if raw_list is None else tuple(raw_list)
        over = t.get("match_over")
        if over is not None and not isinstance(over, bool):
            raise r.error(f"{what}.match_over", "must be true or false", at)
        out.append(Expect(i, after, seat, legal, phase, winner, how, nums["fu"], nums["tai"], nums["total"],
                          chips, at, lists["seats"], lists["next_seats"], lists["next_waiting"], lists["broke"],
                          over))
    return tuple(out)


def _census(r: _Reader, scn: Scenario) -> None:
    """Dealt sizes, and no kind placed more often than the set holds it (a tile placed twice)."""
    rs = scn.ruleset
    placed: list[tuple[str, int | None, tuple[int, ...]]] = []
    if scn.layout is not None:
        placed.append(("wall.layout", r.lines.key("layout"), scn.layout))
        if len(scn.layout) != rs.wall_size:
            raise r.error("wall.layout", f"must hold all {rs.wall_size} tiles, not {len(scn.layout)}",
                          r.lines.key("layout"))
    else:
        placed.append(("indicator", r.lines.key("indicator"), _tiles_of(r, scn.indicator, rs, "indicator", None)))
        for s, text in enumerate(scn.deal):
            key = SEAT_LETTERS[s]
            ts = _tiles_of(r, text, rs, f"deal.{key}", r.lines.key(key))
            want = rs.hand_size + (1 if s == scn.dealer else 0)
            if text and len(ts) != want:
                raise r.error(f"deal.{key}", f"must be {want} tiles ({'dealer' if s == scn.dealer else 'not the dealer'}),"
                              f" not {len(ts)}", r.lines.key(key))
            placed.append((f"deal.{key}", r.lines.key(key), ts))
        placed.append(("wall.draws", r.lines.key("draws"), _tiles_of(r, scn.draws, rs, "wall.draws", None)))
        placed.append(("wall.tail", r.lines.key("tail"), _tiles_of(r, scn.tail, rs, "wall.tail", None)))
        for idx, text in scn.head_at:
            placed.append((f"wall.head_at.{idx}", r.lines.key("head_at"),
                           _tiles_of(r, text, rs, f"wall.head_at.{idx}", None)))
    limit = [0] * NUM_KINDS
    for k in tile_set(rs):
        limit[k] += 1
    count = [0] * NUM_KINDS
    for what, line, ts in placed:
        for k in ts:
            count[k] += 1
            if count[k] > limit[k]:
                raise r.error(what, f"{tile_name(k)} placed {count[k]} times: a tile placed twice "
                              f"(the set holds {limit[k]})", line)


# ---------------------------------------------------------------- playing


def _legal(game: Game, seat: int) -> tuple[str, ...]:
    return tuple(action_text(a) for a in game.legal_actions(seat))


def _snapshot(game: Game, after: int, step: Step | None) -> Snapshot:
    return Snapshot(after, step, game.phase.value, tuple(_legal(game, s) for s in range(SEATS)))


def _next_of(steps: Sequence[Step], i: int, seat: int) -> Step | None:
    return next((st for st in steps[i:] if st.seat == seat), None)


def _answers(game: Game, st: Step) -> bool:
    """Whether ``st`` is its seat's answer to the open window (an illegal chow, pong, kong or
    pass counts: playing it reports the engine's reason)."""
    if st.seat not in game.to_move():
        return False
    if st.action in game.legal_actions(st.seat):
        return True
    return game.phase in _WINDOWS and st.action.kind in _ANSWERS


def _window(game: Game) -> bool:
    """A window is open: a discard, a kong, a sea-floor turn, or a turn in which the seat may
    pass (the opening concealed-kong round, L9)."""
    if game.phase in _WINDOWS:
        return True
    movers = game.to_move()
    return game.phase is Phase.TURN and bool(movers) and PASS in game.legal_actions(movers[0])


def _answer_window(game: Game, steps: Sequence[Step], i: int) -> bool:
    """Inside a window: pass for one seat whose next listed step is no legal answer. False
    when every seat asked has a legal answer listed (so the next listed step must be one)."""
    for seat in game.to_move():
        nxt = _next_of(steps, i, seat)
        if nxt is None or nxt.action not in game.legal_actions(seat):
            game.step(seat, PASS)
            return True
    return False


def _table(scn: Scenario) -> Table:
    """The match around the hand: the ``[match]`` setup, else four players in seat order."""
    m = scn.match
    if m is None:
        return Table(scn.ruleset, SEATS)
    draw = None if m.seat_draw is None else draw_seats(fair.seed_from_text(m.seat_draw), m.players)
    table = Table(scn.ruleset, m.players, draw)
    if m.seats is not None:
        table.seats = m.seats
        table.waiting = m.waiting if m.waiting is not None else ()
    chips = m.chips if m.chips is not None else tuple(table.ledger.chips)
    table.ledger.restore(chips, m.hands_played, m.broke)
    table.hands_played = m.hands_played
    return table


def _settle(run: Run) -> None:
    game = run.game
    out = game.outcome
    if out is None or run.outcome is not None:
        return
    run.outcome = out
    table = run.table
    assert table is not None
    result = table.settle(out)
    if isinstance(result.score, HandScore):
        run.score = result.score
    elif isinstance(result.score, Statement):  # G2: kong payments during the hand, then the win
        run.payments = result.score
    run.chips = result.chips
    run.broke = result.broke


def play(scn: Scenario) -> Run:
    """Play a scenario's steps and check its expectations. Raises :class:`ScenarioError` when a
    step cannot be played (not that seat's move, or not legal: the message says why) or the
    a failed expectation is listed in :attr:`Run.failures`."""
    # Gangci throws two dice (G3.1); the engine's games carry four, the pair twice.
    d = scn.dice if len(scn.dice) == 4 else scn.dice * 2
    dice = (d[0], d[1], d[2], d[3])
    try:
        if scn.layout is not None:
            wall = scn.layout
        else:
            wall = stacked_wall(scn.deal, draws=scn.draws, indicator=scn.indicator, tail=scn.tail,
                                dealer=scn.dealer, dice=dice, ruleset=scn.ruleset, head_at=dict(scn.head_at))
        game = Game(scn.ruleset, wall, dice, scn.dealer)
    except ValueError as exc:
        raise ScenarioError(scn.source, f"cannot build the wall: {exc}") from None
    run = Run(scn, game)
    try:
        run.table = _table(scn)
    except CaishenError as exc:
        raise ScenarioError(scn.source, f"match: {exc}") from None
    run.seats = run.table.seats
    steps = scn.steps
    run.snapshots.append(_snapshot(game, 0, None))
    _check(run, 0)
    for i, st in enumerate(steps):
        while _window(game) and not _answers(game, st):
            if not _answer_window(game, steps, i):
                break
        try:
            game.step(st.seat, st.action)
        except ValueError as exc:
            raise ScenarioError(scn.source, f"steps[{st.index}] {SEAT_LETTERS[st.seat]} {st.text}: {exc}",
                                st.line) from None
        _settle(run)
        run.snapshots.append(_snapshot(game, st.index, st))
        _check(run, st.index)
    # The end of the hand: open windows are passed (nobody has a step left).
    while _window(game) and game.to_move():
        game.step(game.to_move()[0], PASS)
    _settle(run)
    _check(run, None)
    return run


def _check(run: Run, after: int | None) -> None:
    game = run.game
    for ex in run.scenario.expects:
        if ex.after != after:
            continue
        problems: list[str] = []
        if ex.legal is not None and ex.seat is not None:
            got = frozenset(_legal(game, ex.seat))
            if got != ex.legal:
                diff = [f"{name} {sorted(d)}" for name, d in (("missing", ex.legal - got), ("unexpected", got - ex.legal))
                        if d]
                problems.append(f"legal of {SEAT_LETTERS[ex.seat]}: {', '.join(diff)}")
        if ex.phase is not None and ex.phase != game.phase.value:
            problems.append(f"phase {game.phase.value}, expected {ex.phase}")
        problems.extend(_outcome_problems(run, ex))
        if problems:
            run.failures.append(f"{ex.name()}" + (f" line {ex.line}" if ex.line else "") + ": " + "; ".join(problems))


def _outcome_problems(run: Run, ex: Expect) -> list[str]:
    problems: list[str] = []
    if ex.seats is not None and run.seats != ex.seats:
        problems.append(f"seats {list(run.seats)}, expected {list(ex.seats)}")
    wants = (ex.winner, ex.how, ex.fu, ex.tai, ex.total, ex.chips, ex.next_seats, ex.next_waiting, ex.broke,
             ex.match_over)
    if all(w is None for w in wants):
        return problems
    out = run.outcome
    if out is None:
        return [*problems, f"the hand is not over (phase {run.game.phase.value})"]
    table = run.table
    assert table is not None
    for label, want_t, got_t in (("next seats", ex.next_seats, table.seats),
                                 ("next waiting", ex.next_waiting, table.waiting), ("broke", ex.broke, run.broke)):
        if want_t is not None and tuple(got_t) != want_t:
            problems.append(f"{label} {list(got_t)}, expected {list(want_t)}")
    if ex.match_over is not None and table.over != ex.match_over:
        problems.append(f"match over {str(table.over).lower()}, expected {str(ex.match_over).lower()}")
    if ex.winner is not None:
        got = -1 if out.winner is None else out.winner
        if got != ex.winner:
            problems.append(f"winner {_seat_name(got)}, expected {_seat_name(ex.winner)}")
    if ex.how is not None:
        how = out.win_type or (out.how.value if out.how is not None else f"draw ({out.draw_reason})")
        if how != ex.how:
            problems.append(f"how {how}, expected {ex.how}")
    w: ScoreResult | None = run.score.winner if run.score is not None else None
    for name, want in (("fu", ex.fu), ("tai", ex.tai), ("total", ex.total)):
        if want is None:
            continue
        if w is None:
            problems.append(f"{name}: the hand has no score (a draw)")
            continue
        got_n = int(getattr(w, name))
        if got_n != want:
            problems.append(f"{name} {got_n}, expected {want}")
    if ex.chips is not None and run.chips != ex.chips:
        got_c = run.chips or (0,) * SEATS
        problems.append("chips " + _chips_text(got_c) + ", expected " + _chips_text(ex.chips))
    return problems


def _seat_name(s: int) -> str:
    return "none" if s < 0 else SEAT_LETTERS[s]


def _chips_text(chips: Sequence[int]) -> str:
    return "{" + ", ".join(f"{SEAT_LETTERS[s]} = {c}" for s, c in enumerate(chips)) + "}"
