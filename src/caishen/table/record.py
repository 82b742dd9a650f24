"""Match records 对局记录: a versioned JSON form of a match, replay and verification.

A record holds the ruleset (every switch), the players, and for every hand the seat of each
player, the commitment and the revealed seed, the dice and the wall, every action in order
(seat + action), every draw (seat, wall position, tile) and the result (scores, chips).
The format is described in ``docs/records.md``; :data:`VERSION` changes whenever it does.

* :func:`replay_hand` replays one hand on its recorded wall and returns the finished
  :class:`~caishen.engine.game.Game`; an illegal move raises :class:`ReplayError` naming the move's
  index and the engine's reason. :func:`iter_hand` does the same move by move.
* :func:`replay` replays a whole match and checks that every draw, every result (outcome,
  scores, chips) and the seating come out exactly as recorded.
* :func:`verify` does the same from the revealed seeds: commitment, wall, dice and every
  draw are recomputed (:mod:`caishen.fair`) and compared; the first mismatch raises
  :class:`VerifyError` (hand index, draw index, expected vs recorded).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from caishen import __version__, fair
from caishen.engine.actions import Action, ActionTextError, IllegalActionError
from caishen.engine.game import Game
from caishen.errors import CaishenError
from caishen.notation import NotationError, parse_tile
from caishen.ruleset import RulesetError
from caishen.table import movesig, strict_json
from caishen.table.seating import SeatDraw
from caishen.table.signing import Signature, SignatureError, signature_from_json
from caishen.table.strict_json import StrictJSONError
from caishen.tiles import NUM_KINDS, tile_name
from caishen.variants import get, variant_of
from caishen.variants.base import VariantRules

FORMAT: Final = "caishen-record"
V1_VARIANT: Final = "longgang"  # version 1 records are all Longgang
# 2: names its variant; 3: each hand names its fair algorithm (docs/fairness.md), and
# caishen-fair-2 hands hold the chain, the players' contributions and the order of events.
# Versions 1 (Longgang) and 2 are still read: their hands are caishen-fair-1.
VERSION: Final = 3
_TIMELINE_WORDS: Final = ("commit", "deal", "reveal")



class RecordError(CaishenError):
    """A record that is not a well-formed record of this version; the message names the
    place (e.g. ``hands[3].actions[17]``) and the problem."""

    code = "record"

class ReplayError(CaishenError):
    """Replaying a record failed: an illegal move, a draw or a result that does not match.
    ``hand`` is the hand's index (``None`` for the match result), ``index`` the action's (or
    draw's) index, ``what`` one of ``action``, ``draw``, ``deal``, ``result``, ``seats``, ``end``.
    The message names the hand as the pages do, from 1, and its place in the file (:func:`_where`)."""

    code = "replay"

    def __init__(self, hand: int | None, index: int | None, what: str, reason: str) -> None:
        self.hand = hand
        self.index = index
        self.what = what
        self.reason = reason
        super().__init__(f"{_where(hand, None if index is None else f'{what}s[{index}]')}: {reason}")


class VerifyError(CaishenError):
    """A record that fails the fairness check: ``hand`` index, ``draw`` index (``None`` for the
    commitment, the wall or the dice), what was ``expected`` and what was ``recorded``."""

    code = "verify"

    def __init__(self, hand: int, draw: int | None, problem: str, expected: str, recorded: str) -> None:
        self.hand = hand
        self.draw = draw
        self.problem = problem
        self.expected = expected
        self.recorded = recorded
        super().__init__(f"{_where(hand, None if draw is None else f'draws[{draw}]')}: {problem}: expected {expected}, "
                         f"recorded {recorded}")


def _where(hand: int | None, part: str | None) -> str:
    """Where in a record a check failed, for a player and for a reader of the file: the hand
    counted from 1 as the pages count it, then its place in the JSON, e.g. ``hand 3
    (hands[2].actions[17])``; ``match`` for the match's own result."""
    if hand is None:
        return "match"
    return f"hand {hand + 1} (hands[{hand}]{'' if part is None else '.' + part})"


# ---------------------------------------------------------------- actions as text


def _tile(text: str, where: str) -> int:
    try:
        return parse_tile(text)
    except NotationError:
        raise RecordError(f"{where}: {text[:80]!r} is not a tile (e.g. 5p, 7z, f2)") from None


def action_text(a: Action) -> str:
    """An action in its one text form (:meth:`Action.text`)."""
    return a.text()


def parse_action(text: str, where: str = "action") -> Action:
    """The :class:`Action` of a record text (:meth:`Action.parse`); errors name ``where``."""
    try:
        return Action.parse(text)
    except ActionTextError as exc:
        raise RecordError(f"{where}: {exc}") from None


# ---------------------------------------------------------------- the record types


@dataclass(frozen=True, slots=True)
class Mix:
    """What the players mixed into a hand's wall (``caishen-fair-2``): by seat (0 = East) a
    32-byte contribution or the word that says why there is none (:data:`fair.NO_CONTRIBUTION`),
    and the events up to the deal in the order they happened: ``commit`` (the commitment was
    published), ``contribute S`` (seat S's contribution arrived), ``deal``."""

    contributions: tuple[bytes | str, ...]
    timeline: tuple[str, ...]

    @classmethod
    def nothing(cls, why: Sequence[str] = ("bot", "bot", "bot", "bot")) -> Mix:
        """Nobody contributed (a table of bots: every seat ``bot``)."""
        return cls(tuple(why), ("commit", "deal"))

    @property
    def values(self) -> tuple[bytes | None, ...]:
        """The contributions by seat, ``None`` where there is none."""
        return tuple(c if isinstance(c, bytes) else None for c in self.contributions)


def _contribution_json(c: bytes | str) -> str:
    return c.hex() if isinstance(c, bytes) else c


_NAMES: Final = tuple(tile_name(k) for k in range(NUM_KINDS))  # a hand's record names some 250 tiles


def canonical_json(data: Any) -> bytes:
    """JSON with sorted keys and no spaces, characters as themselves, as UTF-8: the bytes a
    hand's digest and a record's signature cover (docs/fairness.md)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand. ``seats[s]``: the player (index into the match's players) in seat ``s``
    (0 = East). ``seed`` is ``None`` while not revealed. ``draws``: ``(seat, wall position,
    tile)`` for every tile taken from the wall, deal included, in order."""

    index: int
    dealer: int
    seats: tuple[int, ...]
    commitment: str
    seed: bytes | None
    dice: tuple[int, int, int, int]
    wall: tuple[int, ...]
    actions: tuple[tuple[int, Action], ...]
    draws: tuple[tuple[int, int, int], ...]
    result: dict[str, Any]
    # The fair algorithm the hand was dealt by (caishen.fair); caishen-fair-2 hands also hold the
    # digest of the previous hand (``prev``), the players' contributions and the events.
    algorithm: str = fair.FAIR_1
    prev: bytes = fair.NO_PREV
    contributions: tuple[bytes | str, ...] = ()
    timeline: tuple[str, ...] = ()
    # A game centre's hands (caishen.table.movesig): by seat, the public key its person signed
    # with (None: none); for every action, its signature or "server" / "unsigned". Empty: the
    # moves were not signed (self-play, terminal play, records written before).
    signers: tuple[str | None, ...] = ()
    signatures: tuple[str, ...] = ()
    # The hand's JSON text, made once: the game centre writes it when the hand ends and again
    # in the whole match's record.
    _text: str | None = field(default=None, init=False, repr=False, compare=False)
    # ... and its JSON object, made once (a settled hand's digest and its text both need it);
    # read only here, never handed out: :meth:`to_json` gives a fresh one to every caller
    _data: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    # ... and its canonical JSON, made once: the hand's digest when it is settled, and the
    # match record's signature at the match's end (:meth:`MatchRecord.canonical`)
    _canon: bytes | None = field(default=None, init=False, repr=False, compare=False)

    def _json_once(self) -> dict[str, Any]:
        data = self._data
        if data is None:
            data = self.to_json()
            object.__setattr__(self, "_data", data)
        return data

    def json_text(self) -> str:
        """:meth:`to_json` as JSON text (``json.dumps``, ``ensure_ascii=False``), made once."""
        text = self._text
        if text is None:
            text = json.dumps(self._json_once(), ensure_ascii=False)
            object.__setattr__(self, "_text", text)
        return text

    def digest(self) -> bytes:
        """SHA-256 of the hand's canonical JSON (:func:`canonical_json`): what the next hand's
        ``prev`` holds under ``caishen-fair-2``."""
        return hashlib.sha256(self.canonical()).digest()

    def canonical(self) -> bytes:
        """The hand's canonical JSON (:func:`canonical_json`), made once."""
        canon = self._canon
        if canon is None:
            canon = canonical_json(self._json_once())
            object.__setattr__(self, "_canon", canon)
        return canon

    def to_json(self) -> dict[str, Any]:
        out = self._json()
        out["algorithm"] = self.algorithm
        if self.algorithm == fair.FAIR_2:
            out["prev"] = self.prev.hex()
            out["contributions"] = [_contribution_json(c) for c in self.contributions]
            out["timeline"] = list(self.timeline)
        if self.signatures:
            out["signers"] = list(self.signers)
            out["signatures"] = list(self.signatures)
        return out

    def _json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "dealer": self.dealer,
            "seats": list(self.seats),
            "commitment": self.commitment,
            "seed": None if self.seed is None else self.seed.hex(),
            "dice": list(self.dice),
            "wall": " ".join([_NAMES[k] for k in self.wall]),
            "actions": [[s, action_text(a)] for s, a in self.actions],
            "draws": [[s, p, _NAMES[k]] for s, p, k in self.draws],
            "result": self.result,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "hand", version: int = VERSION) -> HandRecord:
        d = _obj(data, where)
        algorithm = fair.FAIR_1
        prev = fair.NO_PREV
        contributions: tuple[bytes | str, ...] = ()
        timeline: tuple[str, ...] = ()
        signers: tuple[str | None, ...] = ()
        signatures: tuple[str, ...] = ()
        if version >= 3 and ("signatures" in d or "signers" in d):
            signers, signatures = _signed(d.get("signers"), d.get("signatures"), len(_list(d, "actions", where)), where)
        if version >= 3:
            algorithm = d.get("algorithm")  # type: ignore[assignment]
            if algorithm not in fair.ALGORITHMS:
                raise RecordError(f"{where}.algorithm: one of {', '.join(fair.ALGORITHMS)}, not {_short(algorithm)}")
            if algorithm == fair.FAIR_2:
                prev = _hex(d.get("prev"), 32, f"{where}.prev")
                contributions = _contributions(d.get("contributions"), f"{where}.contributions")
                timeline = _timeline(d.get("timeline"), f"{where}.timeline")
        seats = tuple(_int(x, f"{where}.seats[{i}]") for i, x in enumerate(_list(d, "seats", where)))
        if len(seats) != 4:
            raise RecordError(f"{where}.seats: must name 4 players, not {len(seats)}")
        dice_l = [_int(x, f"{where}.dice[{i}]") for i, x in enumerate(_list(d, "dice", where))]
        if len(dice_l) != 4:
            raise RecordError(f"{where}.dice: must be 4 rolls")
        seed_text = d.get("seed")
        seed: bytes | None = None
        if seed_text is not None:
            if not isinstance(seed_text, str):
                raise RecordError(f"{where}.seed: must be a hex string or null")
            try:
                seed = bytes.fromhex(seed_text)
            except ValueError:
                raise RecordError(f"{where}.seed: not hex: {seed_text!r}") from None
        wall_text = _str(d, "wall", where)
        wall = tuple(_tile(t, f"{where}.wall[{i}]") for i, t in enumerate(wall_text.split()))
        actions: list[tuple[int, Action]] = []
        for i, item in enumerate(_list(d, "actions", where)):
            w = f"{where}.actions[{i}]"
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], str):
                raise RecordError(f"{w}: must be [seat, action text]")
            actions.append((_seat(item[0], w), parse_action(item[1], w)))
        draws: list[tuple[int, int, int]] = []
        for i, item in enumerate(_list(d, "draws", where)):
            w = f"{where}.draws[{i}]"
            if not isinstance(item, list) or len(item) != 3 or not isinstance(item[2], str):
                raise RecordError(f"{w}: must be [seat, wall position, tile]")
            draws.append((_seat(item[0], w), _int(item[1], w), _tile(item[2], w)))
        result = d.get("result")
        if not isinstance(result, dict):
            raise RecordError(f"{where}.result: must be an object")
        return cls(
            index=_int(d.get("index"), f"{where}.index"),
            dealer=_seat(d.get("dealer"), f"{where}.dealer"),
            seats=seats,
            commitment=_str(d, "commitment", where),
            seed=seed,
            dice=(dice_l[0], dice_l[1], dice_l[2], dice_l[3]),
            wall=wall,
            actions=tuple(actions),
            draws=tuple(draws),
            result=result,
            algorithm=algorithm,
            prev=prev,
            contributions=contributions,
            timeline=timeline,
            signers=signers,
            signatures=signatures,
        )


def _signed(keys: Any, sigs: Any, actions: int, where: str) -> tuple[tuple[str | None, ...], tuple[str, ...]]:
    """A hand's ``signers`` (4 public keys or null, by seat) and ``signatures`` (one per action)."""
    if not isinstance(keys, list) or len(keys) != 4 or not all(k is None or movesig.is_key(k) for k in keys):
        raise RecordError(f"{where}.signers: 4 public keys (130 hex digits) or null, by seat")
    if not isinstance(sigs, list) or len(sigs) != actions:
        raise RecordError(f"{where}.signatures: one for each of the {actions} actions")
    for i, s in enumerate(sigs):
        if s not in movesig.MARKS and not movesig.is_signature(s):
            raise RecordError(f"{where}.signatures[{i}]: 128 hex digits, \"server\" or \"unsigned\", not {_short(s)}")
    return tuple(keys), tuple(sigs)


def _hex(x: Any, size: int, where: str) -> bytes:
    try:
        raw = bytes.fromhex(x) if isinstance(x, str) else b""
    except ValueError:
        raw = b""
    if len(raw) != size:
        raise RecordError(f"{where}: must be {2 * size} hex digits, not {_short(x)}")
    return raw


def _contributions(x: Any, where: str) -> tuple[bytes | str, ...]:
    if not isinstance(x, list) or len(x) != 4:
        raise RecordError(f"{where}: must be a list of 4 (by seat)")
    out: list[bytes | str] = []
    for i, c in enumerate(x):
        if c in fair.NO_CONTRIBUTION:
            out.append(c)
        else:
            out.append(_hex(c, fair.CONTRIBUTION_BYTES, f"{where}[{i}]"))
    return tuple(out)


def _timeline(x: Any, where: str) -> tuple[str, ...]:
    if not isinstance(x, list):
        raise RecordError(f"{where}: must be a list of events")
    for i, e in enumerate(x):
        if not isinstance(e, str) or not (e in _TIMELINE_WORDS or e in ("contribute 0", "contribute 1",
                                                                        "contribute 2", "contribute 3")):
            raise RecordError(f"{where}[{i}]: an event is commit, contribute S (S = 0-3), deal or reveal, "
                              f"not {_short(e)}")
    return tuple(x)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match: ruleset, player names, the master seed when the match was seeded (revealed
    with the record), the hands, and the match result (chips per player, why it ended)."""

    ruleset: VariantRules
    players: tuple[str, ...]
    seed: bytes | None
    hands: tuple[HandRecord, ...]
    result: dict[str, Any]
    # The table's Ed25519 signature over the record as written (caishen.table.signing), if any.
    signature: Signature | None = None
    # The seat draw 校位定莊 that seated the first hand (L2); None: player i in seat i.
    seat_draw: SeatDraw | None = None
    # Written while the match was still being played (a game centre's mid-match download):
    # the hands so far, signed as "in play"; the match result is the standings so far.
    in_play: bool = False
    # The game centre's room code: part of what each person's move is signed over (movesig).
    room: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self._json([h.to_json() for h in self.hands])

    def _json(self, hands: list[Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "caishen": __version__,  # the writer, for bug reports (not checked)
            "variant": variant_of(self.ruleset).name,
            "ruleset": {sw.name: (list(sw.value) if isinstance(sw.value, tuple) else sw.value) for sw in self.ruleset.switches()},
            "players": list(self.players),
            "seed": None if self.seed is None else self.seed.hex(),
            "hands": hands,
            "result": self.result,
        }
        if self.seat_draw is not None:
            out["seat_draw"] = self.seat_draw.to_json()
        if self.in_play:
            out["in_play"] = True
        if self.room is not None:
            out["room"] = self.room
        if self.signature is not None:
            out["signature"] = {"algorithm": "ed25519", "key": self.signature.key, "value": self.signature.value}
        return out

    def dumps(self, indent: int | None = None) -> str:
        """The record as JSON text (one line by default). On one line the hands' texts are
        each made once (:meth:`HandRecord.json_text`) and put in place of the empty list: the
        same text as ``json.dumps(self.to_json(), ensure_ascii=False)``."""
        if indent is not None:
            return json.dumps(self.to_json(), ensure_ascii=False, indent=indent)
        # a quote inside a string is escaped, so the key is the only place this text occurs
        head, _, tail = json.dumps(self._json([]), ensure_ascii=False).partition('"hands": []')
        return f'{head}"hands": [{", ".join(h.json_text() for h in self.hands)}]{tail}'

    def canonical(self) -> bytes:
        """``canonical_json(self.to_json())`` without a ``signature``: what the record's signature
        covers (:func:`caishen.table.signing.canonical`), with each hand's part made once
        (:meth:`HandRecord.canonical`) and put in place of the empty list, as :meth:`dumps` does."""
        top = self._json([])
        top.pop("signature", None)
        head, mark, tail = canonical_json(top).partition(b'"hands":[]')
        if not mark:  # not reached: the key is always there
            full = self.to_json()
            full.pop("signature", None)
            return canonical_json(full)
        return head + b'"hands":[' + b",".join([h.canonical() for h in self.hands]) + b"]" + tail

    @classmethod
    def from_json(cls, data: Any) -> MatchRecord:
        d = _obj(data, "record")
        if d.get("format") != FORMAT:
            raise RecordError(f"record: not a caishen record (format {d.get('format')!r}, expected {FORMAT!r})")
        version = d.get("version")
        if type(version) is not int or version not in (1, 2, VERSION):
            raise RecordError(f"record: version {_short(version)} is not supported (this reads versions 1 to {VERSION})")
        name = d.get("variant", V1_VARIANT) if version == 1 else d.get("variant")
        if not isinstance(name, str):
            raise RecordError(f"record.variant: must be a variant's name, not {_short(name)}")
        try:
            variant = get(name)
        except RulesetError as exc:
            raise RecordError(f"record.variant: {exc}") from None
        rs = _obj(d.get("ruleset"), "record.ruleset")
        if version == 1:
            rs = _v1_ruleset(rs)
        base = variant.presets[variant.name]
        # Switches added after a record was written: the values that play as it was played.
        rs = {**{k: v for k, v in _ADDED_SWITCHES.get(variant.name, {}).items() if k not in rs}, **rs}
        try:
            ruleset = base.replace(**rs)
        except RulesetError as exc:
            raise RecordError(f"record.ruleset: {exc}") from None
        # A record replays under exactly its own rules: nothing is filled in from today's preset.
        missing = [sw.name for sw in base.switches() if sw.name not in rs]
        if missing:
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            raise RecordError(f"record.ruleset: missing {', '.join(missing[:3])}{more} (a record names every switch)")
        players = _list(d, "players", "record")
        if not all(isinstance(p, str) for p in players) or not 4 <= len(players) <= 6:
            raise RecordError("record.players: must be 4-6 names")
        seed_text = d.get("seed")
        if seed_text is not None and not isinstance(seed_text, str):
            raise RecordError("record.seed: must be a hex string or null")
        try:
            seed = None if seed_text is None else bytes.fromhex(seed_text)
        except ValueError:
            raise RecordError(f"record.seed: not hex: {seed_text!r}") from None
        hands = tuple(
            HandRecord.from_json(h, f"hands[{i}]", version) for i, h in enumerate(_list(d, "hands", "record"))
        )
        result = d.get("result")
        if not isinstance(result, dict):
            raise RecordError("record.result: must be an object")
        try:
            signature = None if d.get("signature") is None else signature_from_json(d["signature"])
        except SignatureError as exc:
            raise RecordError(f"record.{exc}") from None
        in_play = d.get("in_play", False)
        if type(in_play) is not bool:
            raise RecordError(f"record.in_play: must be true or false, not {_short(in_play)}")
        room = d.get("room")
        if room is not None and not isinstance(room, str):
            raise RecordError(f"record.room: a room's code, not {_short(room)}")
        return cls(ruleset, tuple(players), seed, hands, result, signature, _seat_draw(d.get("seat_draw"), len(players)),
                   in_play, room)


# Switches of version 1 records that 0.2 removed: nothing read them (or, for the Gangci bases,
# nothing played them), so a record holding these values replays the same without them.
_V1_REMOVED: Final[dict[str, object]] = {
    "round_wind_tai": False, "human_table_mode": False, "gangci": False,
    "kong_base": 100, "bomb_base": 200, "kong_ci_base": 600,
}


# Switches added by issue 10 (second Longgang pass), with the value that plays exactly as
# caishen did before them: a record written earlier (version 1 or 2) names none of them and
# replays with these (the dead wall kept 20 tiles at the start; no opening kong round; ...).
_ADDED_SWITCHES: Final[dict[str, dict[str, object]]] = {"longgang": {
    "one_dragon_tai": False, "concealed_hand_tai": False, "all_claimed_tai": False,
    "four_winds_wild_rule": True, "four_guardians_limit": False, "rare_limits": False,
    "all_green_limit": False, "draw_on_three_wins": False, "discarder_pays_all": False,
    "late_discard_tiles": 8, "indicator_splits_tail": False, "opening_kong_round": False,
    "sixteen_unconnected_limit": False, "sixteen_knitted_limit": False, "red_peacock_limit": False,
    "red_dots_limit": False, "red_spot_limit": False, "all_black_limit": False,
    "million_stones_limit": False,
    # issue 10 item 12: 九么九和, a declared draw
    "draw_on_nine_terminals": False,
    # issue 10 item 12: 国士无双, a limit that wins at any time
    "thirteen_orphans_limit": False,
}}


def _v1_ruleset(rs: dict[str, Any]) -> dict[str, Any]:
    """A version 1 record's ruleset without the removed switches; one that set one of them to
    anything but the value nothing read cannot be replayed faithfully and is refused. Switches
    added since get the value that replays those records from :data:`_ADDED_SWITCHES`, as
    version 2 records written before them do."""
    out = dict(rs)
    for name, unread in _V1_REMOVED.items():
        if name in out:
            value = out.pop(name)
            if type(value) is not type(unread) or value != unread:
                raise RecordError(f"record.ruleset: {name} = {_short(value)} is a version 1 switch that "
                                  f"caishen 0.2 removed; only {_short(unread)} replays")
    return out


def _seat_draw(data: Any, players: int) -> SeatDraw | None:
    """A record's ``seat_draw`` (L2): the tiles drawn and the dice; the seating must follow."""
    if data is None:
        return None
    d = _obj(data, "record.seat_draw")
    tiles, dice = d.get("tiles"), d.get("dice")
    if not isinstance(tiles, list) or not all(t in fair.SEAT_TILES for t in tiles) or len(tiles) != players:
        raise RecordError(f"record.seat_draw.tiles: {players} of {' '.join(fair.SEAT_TILES[:players])}, one each")
    if not isinstance(dice, list) or len(dice) != 2 or not all(type(x) is int for x in dice):
        raise RecordError("record.seat_draw.dice: two dice")
    try:
        draw = SeatDraw.from_draw(tuple(fair.SEAT_TILES.index(t) for t in tiles), (dice[0], dice[1]))
    except ValueError as exc:
        raise RecordError(f"record.seat_draw: {exc}") from None
    if d.get("seats") != list(draw.seats) or d.get("waiting") != list(draw.waiting):
        raise RecordError(f"record.seat_draw: these tiles and dice seat {list(draw.seats)}, waiting {list(draw.waiting)}")
    return draw


def loads(text: str) -> MatchRecord:
    """A record from JSON text."""
    try:
        data = strict_json.loads(text)
    except StrictJSONError as exc:
        raise RecordError(str(exc)) from None
    return MatchRecord.from_json(data)


def _short(x: Any) -> str:
    """``repr`` of a value from a record, at most about 80 characters."""
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def load(path: str | Path) -> MatchRecord:
    """A record from a file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not UTF-8 text: {exc}") from None
    try:
        return loads(text)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None


def save(record: MatchRecord, path: str | Path, indent: int | None = None) -> None:
    Path(path).write_text(record.dumps(indent) + "\n", encoding="utf-8")


def hand_from_game(
    index: int,
    seats: Sequence[int],
    seed: bytes,
    game: Game,
    actions: Sequence[tuple[int, Action]],
    result: dict[str, Any],
    prev: bytes | None = None,
    mix: Mix | None = None,
    marks: Sequence[tuple[str | None, str | None]] | None = None,
) -> HandRecord:
    """The record of a hand played on ``game``, seed revealed: dealt from ``seed`` itself
    (``caishen-fair-1``), or with ``prev`` and ``mix`` from ``fair.wall_seed`` (``caishen-fair-2``:
    the timeline ends with ``reveal``)."""
    wall = game.wall
    fair2 = prev is not None and mix is not None
    signers: list[str | None] = [None] * 4
    signatures: list[str] = []
    for (seat, _), (sig, key) in zip(actions, marks or (), strict=False):
        if sig is not None and key is not None and movesig.is_signature(sig) and signers[seat] in (None, key):
            signers[seat] = key
            signatures.append(sig)
        else:
            # a move without a mark in a hand of marked ones (stored before the centre marked
            # them, migration 0007): nobody vouches for it
            signatures.append(sig if sig in movesig.MARKS else movesig.UNSIGNED)
    return HandRecord(
        index=index,
        dealer=game.dealer,
        seats=tuple(seats),
        commitment=fair.chained_commitment(seed, prev, index) if prev is not None and mix is not None
        else fair.commitment(seed),
        seed=seed,
        dice=game.dice,
        wall=wall,
        actions=tuple(actions),
        draws=tuple((s, p, wall[p]) for s, p in game.draws),
        result=result,
        algorithm=fair.FAIR_2 if fair2 else fair.FAIR_1,
        prev=prev if prev is not None and fair2 else fair.NO_PREV,
        contributions=mix.contributions if mix is not None and fair2 else (),
        timeline=(*mix.timeline, "reveal") if mix is not None and fair2 else (),
        signers=tuple(signers) if marks else (),
        signatures=tuple(signatures) if marks else (),
    )


# ---------------------------------------------------------------- JSON helpers


def _obj(x: Any, where: str) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise RecordError(f"{where}: must be a JSON object")
    return x


def _list(d: Mapping[str, Any], key: str, where: str) -> list[Any]:
    x = d.get(key)
    if not isinstance(x, list):
        raise RecordError(f"{where}.{key}: must be a list")
    return x


def _str(d: Mapping[str, Any], key: str, where: str) -> str:
    x = d.get(key)
    if not isinstance(x, str):
        raise RecordError(f"{where}.{key}: must be a string")
    return x


def _int(x: Any, where: str) -> int:
    if type(x) is not int:
        raise RecordError(f"{where}: must be an integer, not {x!r}")
    return x


def _seat(x: Any, where: str) -> int:
    s = _int(x, where)
    if not 0 <= s <= 3:
        raise RecordError(f"{where}: seat must be 0-3, not {s}")
    return s


# ---------------------------------------------------------------- replay


@dataclass(frozen=True, slots=True)
class Step:
    """One replayed move: its index, seat and action, and the draws it caused
    (``(seat, wall position, tile)``)."""

    index: int
    seat: int
    action: Action
    draws: tuple[tuple[int, int, int], ...]


def _draw_text(d: tuple[int, int, int]) -> str:
    return f"seat {d[0]} takes {tile_name(d[2])} from wall position {d[1]}"


def _check_draws(
    hand: HandRecord, game: Game, wall: Sequence[int], upto: int, fair_mode: bool
) -> None:
    """Compare the engine's draws ``upto`` its latest with the recorded ones."""
    rec = hand.draws
    for i in range(upto, len(game.draws)):
        seat, pos = game.draws[i]
        expected = (seat, pos, wall[pos])
        if i >= len(rec):
            if fair_mode:
                raise VerifyError(hand.index, i, "draw missing from the record", _draw_text(expected), "nothing")
            raise ReplayError(hand.index, i, "draw", f"the engine draws ({_draw_text(expected)}) but the record has no draw {i}")
        if rec[i] != expected:
            if fair_mode:
                raise VerifyError(hand.index, i, "draw does not match the wall", _draw_text(expected), _draw_text(rec[i]))
            raise ReplayError(
                hand.index, i, "draw", f"the engine draws ({_draw_text(expected)}), the record says ({_draw_text(rec[i])})"
            )


def replay_steps(
    hand: HandRecord, ruleset: VariantRules, wall: tuple[int, ...], dice: tuple[int, int, int, int], fair_mode: bool
) -> Iterator[tuple[Game, Step | None]]:
    try:
        game = Game(ruleset, wall, dice, hand.dealer)
    except ValueError as exc:
        raise ReplayError(hand.index, None, "deal", f"cannot deal: {exc}") from None
    _check_draws(hand, game, wall, 0, fair_mode)
    yield game, None
    for i, (seat, action) in enumerate(hand.actions):
        if game.is_over:
            raise ReplayError(hand.index, i, "action", f"the hand is already over, but the record goes on with seat {seat} {action_text(action)}")
        before = len(game.draws)
        try:
            game.step(seat, action)
        except IllegalActionError as exc:
            raise ReplayError(hand.index, i, "action", f"seat {seat} {action_text(action)} is illegal: {exc}") from None
        _check_draws(hand, game, wall, before, fair_mode)
        yield game, Step(i, seat, action, tuple((s, p, wall[p]) for s, p in game.draws[before:]))
    if not game.is_over:
        raise ReplayError(hand.index, None, "end", f"the record ends after {len(hand.actions)} actions but the hand is not over")
    if len(game.draws) != len(hand.draws):
        i = len(game.draws)
        if fair_mode:
            raise VerifyError(hand.index, i, "extra draw in the record", "no more draws", _draw_text(hand.draws[i]))
        raise ReplayError(hand.index, i, "draw", f"the record has {len(hand.draws)} draws, the engine made {len(game.draws)}")


def iter_hand(hand: HandRecord, ruleset: VariantRules) -> Iterator[tuple[Game, Step | None]]:
    """Replay a hand on its recorded wall move by move: first ``(game, None)`` after the deal,
    then ``(game, step)`` after every action (the same game object, changed in place).
    Raises :class:`ReplayError` at the first illegal move or mismatched draw."""
    return replay_steps(hand, ruleset, hand.wall, hand.dice, False)


def replay_hand(record: MatchRecord, index: int) -> Game:
    """Replay hand ``index`` of ``record`` on its recorded wall; the finished game."""
    if not 0 <= index < len(record.hands):
        raise RecordError(f"no hand {index}: the record has {len(record.hands)}")
    return last_game(iter_hand(record.hands[index], record.ruleset))


def game_from_record(record: MatchRecord | str | Path, index: int = 0) -> Game:
    """Hand ``index`` of a match record (a :class:`MatchRecord` or a JSON file) replayed move by
    move on its recorded wall: the finished game. Raises :class:`ReplayError` naming the first
    illegal move (its index and reason) or mismatched draw; :func:`replay` also checks every
    score and chip."""
    return replay_hand(record if isinstance(record, MatchRecord) else load(record), index)


def last_game(steps: Iterator[tuple[Game, Step | None]]) -> Game:
    game: Game | None = None
    for g, _ in steps:
        game = g
    assert game is not None
    return game


__all__ = [
    "FORMAT",
    "VERSION",
    "HandRecord",
    "MatchRecord",
    "Mix",
    "canonical_json",
    "RecordError",
    "ReplayError",
    "Step",
    "VerifyError",
    "action_text",
    "hand_from_game",
    "iter_hand",
    "load",
    "loads",
    "parse_action",
    "replay_hand",
    "save",
]
