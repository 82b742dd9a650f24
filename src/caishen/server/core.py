"""The game centre's one door to the rules core: every import of engine, match, records and
bots is here, so the rest of :mod:`caishen.server` speaks only in protocol types, tile names
and action texts. Re-pointing the server at a new core means changing this file alone.

What it offers: the variants and their switches (:func:`variants`, :func:`build_ruleset`),
a :class:`~caishen.table.session.MatchSession` per table (:func:`new_session`, :func:`resume_session`),
a seat's view of the table (:func:`table_view`, from that seat's own observation only), hand
results, records, ``caishen verify``'s check (:func:`verify_text`) and replays.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import random
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from caishen import fair
from caishen import variants as registry
from caishen.bots import BOTS, check_player, make_bot
from caishen.bots.advice import good_discards
from caishen.engine.actions import Action, ActionKind, IllegalActionError
from caishen.engine.game import Game
from caishen.engine.observation import Observation
from caishen.hand import Hand, Meld, MeldKind
from caishen.ruleset import RulesetError
from caishen.server.lobby_text import PRESET_TEXT, SWITCH_TITLE
from caishen.server.protocol import (
    ChoiceView,
    DiscardAdviceView,
    EventView,
    FairHandOut,
    HandEndView,
    HelpView,
    MatchEndView,
    MeldView,
    PaymentView,
    PresetOut,
    RebuyView,
    ReplayFrameOut,
    RuleOut,
    ScoreItemView,
    ScoreLineView,
    SeatView,
    StandingView,
    SwitchOut,
    TableView,
    TransferView,
    VariantOut,
    VerifyOut,
    WaitView,
)
from caishen.server.switch_zh import SWITCH_DOC_ZH
from caishen.shapes.analysis import shanten, waits
from caishen.table import movesig
from caishen.table.match import MatchError
from caishen.table.players import Player, player_rng
from caishen.table.record import (
    HandRecord,
    MatchRecord,
    Mix,
    RecordError,
    ReplayError,
    VerifyError,
    iter_hand,
    loads,
)
from caishen.table.replay import verify
from caishen.table.session import MatchSession, Move
from caishen.table.signing import (
    SignatureError,
    load_or_create_key,
    public_key_hex,
    sign_record,
    sign_text,
    signature_of,
    verify_signature,
)
from caishen.tiles import FLOWERS, NUM_KINDS, is_flower, tile_name, wind_of
from caishen.variants.base import VariantRules
from caishen.variants.longgang.outcome import HandScore, score_outcome
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.scoring import ScoreResult, format_group
from caishen.variants.longgang.settlement import MAX_PLAYERS, settle

__all__ = [
    "BOT_LEVELS",
    "PLAYERS_ENV",
    "bot_levels",
    "parse_levels",
    "Action",
    "Player",
    "event_json",
    "in_window",
    "meld_counts",
    "newest_discard",
    "opens_window",
    "public_step",
    "took_effect",
    "window_answers",
    "IllegalActionError",
    "MatchError",
    "MatchSession",
    "Move",
    "Observation",
    "RoomError",
    "Session",
    "action_of",
    "auto_action",
    "stand_in_action",
    "build_ruleset",
    "commitment",
    "hand_end_view",
    "iter_hand",
    "loads",
    "move_row",
    "signed_by",
    "StoredMove",
    "public_events",
    "new_session",
    "record_text",
    "signed_text",
    "replay_frames",
    "record_match_end",
    "result_hands",
    "resume_session",
    "ruleset_from_json",
    "ruleset_json",
    "changed_rules",
    "stand_in",
    "standings",
    "table_view",
    "table_view_json",
    "variants",
    "verify_text",
]

Session = MatchSession
BOT_LEVELS: Final = tuple(BOTS)
WINDS: Final = ("E", "S", "W", "N")

# Switch groups by rule ID (docs/rules/longgang.md), in the order the lobby shows them.
_GROUPS: Final = (
    ("Tiles and seats 牌与座位", ("L1", "L2", "L9", "L13")),
    ("Wilds 财神", ("L4", "L5", "L7", "L8", "L10", "L16")),
    ("Winning hands 胡牌", ("L14", "L15")),
    ("Wall and draws 牌墙与流局", ("L6", "L17")),
    ("胡数 (fu)", ("L20", "L23")),
    ("台数 (tai) and limits 腊子", ("L21", "L22")),
    ("Chips 筹码", ("L24", "L25")),
    ("Table 牌桌", ("L12",)),
    ("Bases 起底", ("G1", "G2", "G2.1")),
    ("Dice and deal 掷骰", ("G3", "G3.1")),
    ("Match 牌局", ("G8", "G8.1", "G8.2")),
)
_GROUP_OF: Final = {rule: title for title, rules in _GROUPS for rule in rules}
# The groups' titles on a page in Chinese: the title's last word, but for these.
_GROUP_ZH: Final = {"胡数 (fu)": "胡数", "台数 (tai) and limits 腊子": "台数与腊子"}
_GROUP_ZH_OF: Final = {rule: _GROUP_ZH.get(title, title.split(" ")[-1]) for title, rules in _GROUPS for rule in rules}
# Not offered in a room: the name and the match length (its own control).
_FIXED: Final = frozenset({"name", "hands_per_match"})


class RoomError(ValueError):
    """Room settings that cannot be played (unknown variant, bad switch, bad bot level)."""


# ---------------------------------------------------------------- variants and rules


def _wire_value(value: object) -> bool | int | list[int] | str:
    """A switch's value as JSON and the API carry it: a tuple (of ints) as a list."""
    return list(value) if isinstance(value, tuple) else value  # type: ignore[return-value]


def variants() -> list[VariantOut]:
    """Every registered variant with its switches, grouped by rule ID, each with its one-line
    explanation (in English and in Chinese) and valid values. The table plays every registered variant."""
    out: list[VariantOut] = []
    order = {title: i for i, (title, _) in enumerate(_GROUPS)}
    for name in registry.names():
        v = registry.get(name)
        rules = v.presets.get(name) or next(iter(v.presets.values()))
        playable = True
        switches = [
            SwitchOut(
                name=sw.name, value=_wire_value(sw.value),
                rule=sw.rule, doc=sw.doc, doc_zh=SWITCH_DOC_ZH.get(sw.name, sw.doc),
                title=(title := SWITCH_TITLE.get(sw.name, (sw.name, sw.name)))[0], title_zh=title[1],
                group=_GROUP_OF.get(sw.rule, "Other 其他"),
                group_zh=_GROUP_ZH_OF.get(sw.rule, "其他"),
                editable=playable and sw.name not in _FIXED, allowed=sw.allowed,
                choices=[c for c in sw.choices or () if isinstance(c, str)],
            )
            for sw in rules.switches()
        ]
        switches.sort(key=lambda x: order.get(x.group, len(order)))
        out.append(VariantOut(name=name, playable=playable, note="", switches=switches,
                              presets=_presets(rules, v.presets), to_break=isinstance(rules, Ruleset),
                              bots=list(_levels_playing(name, bot_levels()))))
    return out


@functools.cache
def _levels_playing(variant: str, levels: tuple[str, ...]) -> tuple[str, ...]:
    """Those of ``levels`` that play ``variant``'s own rules (each made once, by
    :func:`check_bot`): the lobby offers only these."""
    v = registry.get(variant)
    rules = v.presets.get(variant) or next(iter(v.presets.values()))
    out = []
    for level in levels:
        try:
            check_bot(level, rules)
        except RoomError:
            continue
        out.append(level)
    return tuple(out)


def _presets(base: VariantRules, presets: Mapping[str, VariantRules]) -> list[PresetOut]:
    """A variant's presets as a room can start from them: each with the switches it sets apart
    from the variant's own rules (``base``), the variant's own rules first."""
    out = []
    for name, rules in sorted(presets.items(), key=lambda kv: kv[1] is not base):
        text = PRESET_TEXT.get(name, (name, name, "", ""))
        changed = {sw.name: _wire_value(sw.value) for sw, default in zip(rules.switches(), base.switches(), strict=True)
                   if sw.name not in _FIXED and sw.value != default.value}
        out.append(PresetOut(name=name, title=text[0], title_zh=text[1], doc=text[2], doc_zh=text[3], switches=changed))
    return out


def build_ruleset(variant: str, switches: dict[str, bool | int | list[int] | str], hands: int) -> VariantRules:
    """The ruleset of a room: a preset, the switches changed, the match length (0: to 断筹,
    Longgang only: the other variants have no going broke)."""
    known = registry.names()
    if variant not in known:
        raise RoomError(f"unknown variant {variant!r} (variants: {', '.join(known)})")
    base = registry.get(variant).presets[variant]
    fixed = sorted(set(switches) & _FIXED)
    if fixed:
        raise RoomError(f"switch {fixed[0]!r} cannot be set for a room")
    to_break = isinstance(base, Ruleset)
    if hands not in ((0, 8, 16, 24) if to_break else (8, 16, 24)):
        raise RoomError("hands must be 8, 16, 24" + (", or 0 (play until 断筹)" if to_break else f" for {variant}"))
    # Checking a ruleset is about 0.7 ms, a fifteenth of what opening a room costs the server:
    # the rooms of a centre ask for a handful of house rules over and over (issue 31).
    def build() -> VariantRules:
        try:
            return base.replace(**switches).replace(hands_per_match=hands)  # 0: until 断筹 (L25.5)
        except RulesetError as exc:
            raise RoomError(str(exc)) from None

    return _remembered(_BUILT, (variant, json.dumps(switches, sort_keys=True), hands), build)


def ruleset_json(r: VariantRules) -> str:
    return json.dumps({sw.name: _wire_value(sw.value) for sw in r.switches()})


# Every room's rules, one object for each distinct (variant, stored rules): the rules code
# remembers rulesets by identity (caishen.variants.longgang.scoring keeps up to 4,096 of them,
# each with its counting tables), so a new but equal object for every room and every rebuild
# kept about one ruleset a match for good (issue 26: bench_memory grew 40 MiB over 900
# matches). Rulesets are immutable values: sharing them is safe.
_RULESETS: Final[dict[tuple[str, str], VariantRules]] = {}
_RULESETS_KEPT: Final = 256  # distinct house rules remembered (cleared when full)
_K = TypeVar("_K")
_BUILT: Final[dict[tuple[str, str, int], VariantRules]] = {}  # build_ruleset's: (variant, switches, hands)


def _remembered(cache: dict[_K, VariantRules], key: _K, make: Callable[[], VariantRules]) -> VariantRules:
    """``cache[key]``, made by ``make()`` the first time (the cache cleared once it holds
    ``_RULESETS_KEPT``)."""
    r = cache.get(key)
    if r is None:
        r = make()
        if len(cache) >= _RULESETS_KEPT:
            cache.clear()
        cache[key] = r
    return r


def ruleset_from_json(text: str, variant: str = LONGGANG.name) -> VariantRules:
    """A room's stored rules under its variant (the same object for the same rules)."""
    def build() -> VariantRules:
        data: dict[str, Any] = json.loads(text)
        return registry.get(variant).presets[variant].replace(**data)

    return _remembered(_RULESETS, (variant, text), build)


def changed_rules(variant: str, text: str) -> list[RuleOut]:
    """The house rules of a room (its stored rules, ``text``) that differ from its variant's
    defaults; the match length is shown on its own."""
    base = registry.get(variant).presets[variant]
    room = ruleset_from_json(text, variant)
    return [RuleOut(name=sw.name, rule=sw.rule, value=_wire_value(sw.value), doc=sw.doc,
                    doc_zh=SWITCH_DOC_ZH.get(sw.name, sw.doc))
            for sw, default in zip(room.switches(), base.switches(), strict=True)
            if sw.name not in _FIXED and sw.value != default.value]


PLAYERS_ENV: Final = "CAISHEN_PLAYERS"
_LEVEL_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,20}")


def parse_levels(spec: str) -> dict[str, str]:
    """The operator's bot levels (``caishen serve --players`` / ``$CAISHEN_PLAYERS``): a
    comma-separated list of ``level=player`` (``ppo=mypkg.agent:PPOPlayer``) or of entry-point
    names of the ``caishen.players`` group (``ppo``: the level is the name). Each player is
    imported now, so a typo stops the server at start, not a table later."""
    out: dict[str, str] = {}
    for item in (x.strip() for x in spec.split(",")):
        if not item:
            continue
        level, eq, target = item.partition("=")
        level, target = level.strip(), (target.strip() if eq else level.strip())
        if not _LEVEL_NAME.fullmatch(level):
            raise RoomError(f"bot level {level[:40]!r}: 1-20 letters, digits, - or _ (write level=module:Class)")
        if level in BOTS or level in SHIPPED_LEVELS or level in out:
            raise RoomError(f"bot level {level!r} is listed twice or is built in")
        try:
            check_player(target)
        except ValueError as exc:
            raise RoomError(f"bot level {level!r}: {exc}") from None
        out[level] = target
    return out


def operator_levels() -> dict[str, str]:
    """The levels the operator added (``$CAISHEN_PLAYERS``, read at each call: the table
    processes of ``--workers`` inherit it), level -> player name for :func:`make_bot`."""
    return parse_levels(os.environ.get(PLAYERS_ENV, ""))


SHIPPED_LEVELS: Final = ("learned",)
"""Levels the package ships as players found by name (its own ``caishen.players`` entry
points): ``learned``, the trained network (caishen.env.policy.LearnedPlayer), Longgang only."""


def bot_levels() -> tuple[str, ...]:
    """Every bot level a room may choose: the built-in bots, the shipped ones, then the
    operator's."""
    return BOTS + SHIPPED_LEVELS + tuple(operator_levels())


def check_bot(level: str, ruleset: VariantRules | None = None) -> None:
    """Refuse a level no room may choose, or one that does not play ``ruleset`` (``learned``
    plays Longgang only): the bot is made once here, so a table never fails to seat it."""
    levels = bot_levels()
    if level not in levels:
        raise RoomError(f"unknown bot level {level!r} (levels: {', '.join(levels)})")
    if ruleset is not None and level not in BOTS:
        try:
            make_bot(operator_levels().get(level, level), None, ruleset)
        except ValueError as exc:
            raise RoomError(f"bot level {level!r}: {exc}") from None


# ---------------------------------------------------------------- sessions


def _players(ruleset: VariantRules, bots: Sequence[str | None], seed: bytes) -> list[Player | None]:
    extra = operator_levels() if any(b is not None and b not in BOTS for b in bots) else {}
    return [None if b is None else make_bot(extra.get(b, b), player_rng(seed, i), ruleset) for i, b in enumerate(bots)]


def new_seed() -> bytes:
    return fair.new_seed()


def new_session(
    ruleset: VariantRules, bots: Sequence[str | None], seed: bytes, names: Sequence[str], seat_draw: bool = False,
    paced: bool = False, deal: bool = True, room: str | None = None,
) -> MatchSession:
    """A match where ``bots[i]`` is player ``i``'s bot level, ``None`` for a person; with
    ``seat_draw`` the players are seated by the draw 校位定莊 (L2); ``paced``: the bots move
    only when the table plays them (:meth:`MatchSession.bot_to_move`); ``deal=False``: the first
    hand waits for :meth:`MatchSession.start` (the people's contributions first); ``room``: the
    room's code, which the people's moves are signed for (:mod:`caishen.table.movesig`)."""
    session = MatchSession(ruleset, _players(ruleset, bots, seed), seed=seed, names=names, seat_draw=seat_draw,
                           paced=paced, deal=deal)
    session.match.room = room
    return session


# A stored move: seat, record text, and who vouches for it (caishen.table.movesig): the
# person's signature, "server" or "unsigned" (None: stored before the centre marked moves),
# and the public key of a signature.
StoredMove = tuple[int, str, str | None, str | None]


def resume_session(
    ruleset: VariantRules, bots: Sequence[str | None], seed: bytes, names: Sequence[str],
    hands: Sequence[Sequence[StoredMove]], seat_draw: bool = False, paced: bool = False,
    mixes: Sequence[Mix | None] = (), room: str | None = None,
) -> MatchSession:
    """The session rebuilt from the stored moves of every hand started (the last may be
    unfinished), each dealt with what was mixed into it (``mixes``, stored with the hand), each
    move with who vouches for it."""
    moves = [[Move(s, Action.parse(t), sig, key) for s, t, sig, key in h] for h in hands]
    return MatchSession.resume(ruleset, _players(ruleset, bots, seed), seed=seed, names=names, hands=moves,
                               seat_draw=seat_draw, paced=paced, mixes=mixes, room=room)


def stand_in(ruleset: VariantRules) -> Player:
    """The bot that plays a person's seat after a timeout."""
    return make_bot("greedy", random.Random(secrets.randbits(64)), ruleset)


def auto_action(bot: Player, session: MatchSession, seat: int) -> Action:
    return bot.act(session.observation(seat))


def stand_in_action(bot: Player, session: MatchSession, seat: int, policy: str) -> Action:
    """The move of an away person's stand-in (托管). ``full``: the bot's own. ``discard`` (the
    regional apps' 托管, a room's default): it only draws and discards: it passes every claim and
    every win on a discard it is offered, declares no kong and no self-drawn win, and discards
    the tile just drawn (摸打), or the bot's discard when that tile may not be discarded (a
    wild) or nothing was drawn (after a claim the person made)."""
    if policy == "full":
        return auto_action(bot, session, seat)
    legal = session.legal_actions(seat)
    for a in legal:
        if a.kind is ActionKind.PASS:
            return a
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    if not discards:  # nothing to discard (no variant asks this of a seat): the bot decides
        return auto_action(bot, session, seat)
    drawn = session.drawn_tile(seat)
    for a in discards:
        if a.tile == drawn:
            return a
    chosen = auto_action(bot, session, seat)
    return chosen if chosen.kind is ActionKind.DISCARD else discards[-1]


def public_step(session: MatchSession) -> int:
    """The moves of the hand in play a player is told of: every move but the passes (a pass
    counted would tell how many seats could have claimed), and of one window's claims only
    the one that took effect (one that lost, counted, would tell that someone had claimed);
    while a claim window is open, the step after the move that opened it: every seat asked
    answers at that step (a claim counted as it came told the others someone had claimed, and
    refused their answers as stale). :func:`caishen.table.movesig.steps` says the same of a
    record. The ``step`` of views, events and ``act`` messages."""
    counted = session.steps()
    if counted.opened is not None and session.dealt and in_window(session):
        return counted.opened
    return counted.count


def passed_at_this_step(session: MatchSession, seat: int) -> bool:
    """``seat`` passed on a claim since the last move that counts as a step: asked again now
    (to discard the tile it drew next), it is asked at the same :func:`public_step`, and an
    answer sent twice to the claim (a double tap, a state told twice) is stale, not illegal."""
    for m in reversed(session.moves):
        if m.action.kind is not ActionKind.PASS:
            return False
        if m.seat == seat:
            return True
    return False


def opens_window(m: Move) -> bool:
    """A move others may answer (claim a discard, rob an added kong): the claim pause follows it."""
    return m.action.kind is ActionKind.DISCARD or m.action.kind is ActionKind.ADDED_KONG


def in_window(session: MatchSession) -> bool:
    """A discard or an added kong is being decided on (some seat may claim or rob it)."""
    return str(session.game.phase) in _WINDOW_PHASES


def _opened_at(ms: Sequence[Move]) -> int:
    """The index of the last move that opened a claim window (-1: none)."""
    i = len(ms) - 1
    while i >= 0 and not opens_window(ms[i]):
        i -= 1
    return i


def moves_but_answers(session: MatchSession) -> int:
    """The moves of the hand in play but the answers given in the claim window open now: the
    moves up to the one that opened it (the turn timer's count: an answer does not restart
    the others' countdown)."""
    ms = session.moves
    if not session.dealt or not in_window(session):
        return len(ms)
    return _opened_at(ms) + 1


def window_answers(session: MatchSession) -> list[tuple[Move, int]]:
    """The answers given so far in the claim window open now (none out of one), each with the
    :func:`public_step` after it (the window's: answers do not move it while it is open); the
    moves after the one that opened the window."""
    ms = session.moves
    first = moves_but_answers(session)
    if first == len(ms):
        return []
    step = public_step(session)
    return [(m, step) for m in ms[first:]]


_TAKE_A_DISCARD: Final = frozenset({ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG})


def newest_discard(session: MatchSession) -> int | None:
    """The seat whose river ends with the hand's newest discard (``TableView.newest_discard``):
    the last discard, unless a chow, pong or kong took it; ``None`` before any. The answers of
    a window still open have taken nothing yet."""
    ms = session.moves
    i = _opened_at(ms) if in_window(session) else len(ms) - 1
    while i >= 0:
        kind = ms[i].action.kind
        if kind is ActionKind.DISCARD:
            return ms[i].seat
        if kind in _TAKE_A_DISCARD:
            return None
        i -= 1
    return None


def _int_or_null(n: int | None) -> str:
    return "null" if n is None else str(n)


def meld_counts(session: MatchSession) -> tuple[int, ...]:
    return tuple(len(session.game.melds(s)) for s in range(4))


def took_effect(m: Move, session: MatchSession, melds_before: Sequence[int]) -> bool:
    """Whether a claim chosen in a window (chow, pong, kong, win) happened once the window
    closed: a claim that lost to a win, or a chow to a pong, was never made and is never told."""
    k = m.action.kind
    if k is ActionKind.PASS:
        return False
    if k is ActionKind.WIN:
        out = session.game.outcome
        return out is not None and out.winner == m.seat
    if k in (ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG):
        return len(session.game.melds(m.seat)) > melds_before[m.seat]
    return True


def event_json(m: Move, viewer: int | None, hand: int, step: int) -> str | None:
    """A move told on its own (:class:`~caishen.server.protocol.EventMessage`), as ``viewer``
    may learn of it; ``None`` for a pass."""
    one = public_events((m,), viewer)
    if not one:
        return None
    return f'{{"type":"event","hand":{hand},"step":{step},' + one[0][1:]


def move_row(m: Move) -> StoredMove:
    """A move as it is stored: seat, record text, who vouches for it and the signature's key."""
    return m.seat, m.action.text(), m.sig, m.key


def signed_by(key: str, sig: str, room: str, hand: int, step: int, action: Action) -> bool:
    """Whether ``sig`` is ``key``'s signature over the move's canonical bytes (room, hand, the
    public step, the action's record text: :func:`caishen.table.movesig.move_message`)."""
    return movesig.verify_move(key, sig, movesig.move_message(room, hand, step, action.text()))


def action_of(text: str) -> Action:
    """An action from its record text; ActionTextError (a ValueError) when it is not one."""
    return Action.parse(text)


def commitment(session: MatchSession) -> str:
    return session.commitment


def next_commitment(session: MatchSession) -> str | None:
    return None if session.match.over else session.match.next_commitment


# ---------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class SeatPeople:
    """Who sits at the table, by player index (not seat): names, bot levels, presence."""

    names: tuple[str, ...]
    bots: tuple[str | None, ...]
    connected: frozenset[int] = frozenset()
    away: frozenset[int] = frozenset()
    takeover: frozenset[int] = frozenset()  # players whose seat the others may hand to a bot now
    ready: frozenset[int] = frozenset()  # between hands: players who asked for the next hand


@dataclass(slots=True)
class ViewExtras:
    code: str
    variant: str
    hands_total: int | None
    deadline_ms: int | None = None
    help_on: bool = False
    help_allowed: bool = False
    events: list[EventView] = field(default_factory=list)


def _meld(m: Meld, visible: bool) -> MeldView:
    hidden = m.kind is MeldKind.CONCEALED_KONG and not visible
    return MeldView(kind=m.kind.name.lower(), tiles=["back"] * len(m.tiles) if hidden else [tile_name(k) for k in m.tiles])


_TILE_NAMES: Final = tuple(tile_name(k) for k in range(NUM_KINDS))


def _names(ks: Sequence[int]) -> list[str]:
    return [_TILE_NAMES[k] for k in ks]


_CHOICES: dict[Action, ChoiceView] = {}
_WINDOW_PHASES: Final = frozenset({"claim", "rob"})


def _choice(a: Action) -> ChoiceView:
    """The button of a legal action (cached: there are a few hundred actions in all)."""
    got = _CHOICES.get(a)
    if got is None:
        got = _CHOICES[a] = _make_choice(a)
    return got


def _make_choice(a: Action) -> ChoiceView:
    tiles: list[int] = []
    if a.kind is ActionKind.CHOW:
        tiles = [a.chow_low, a.chow_low + 1, a.chow_low + 2]
    elif a.kind is ActionKind.PONG:
        tiles = [a.tile] * 3
    elif a.kind in (ActionKind.EXPOSED_KONG, ActionKind.ADDED_KONG, ActionKind.CONCEALED_KONG):
        tiles = [a.tile] * 4
    return ChoiceView(
        action=a.text(), kind=a.kind.name.lower(),
        tile=tile_name(a.tile) if a.tile >= 0 else None, tiles=_names(tiles),
    )


def public_event(m: Move, viewer: int | None) -> EventView | None:
    """A move as ``viewer`` may learn of it: passes are private; a concealed kong's tile too."""
    a = m.action
    if a.kind is ActionKind.PASS:
        return None
    hide = a.kind is ActionKind.CONCEALED_KONG and viewer != m.seat
    return EventView(seat=m.seat, kind=a.kind.name.lower(), tile=None if hide or a.tile < 0 else tile_name(a.tile))


def _unseen(obs: Observation, k: int) -> int:
    """Copies of ``k`` this seat has not seen: not in its hand, melds, flowers, any discard,
    any other open meld or the indicator (others' concealed kongs count as unseen)."""
    n = 1 if is_flower(k) else 4
    n -= obs.hand.concealed.count(k) + obs.hand.flowers.count(k)
    for s in range(4):
        for m in obs.melds[s]:
            if s == obs.seat or m.kind is not MeldKind.CONCEALED_KONG:
                n -= m.tiles.count(k)
        n -= obs.discards[s].count(k)
        if s != obs.seat:
            n -= obs.flowers[s].count(k)
    if obs.indicator is not None and obs.indicator == k:
        n -= 1
    return max(n, 0)


def _help(obs: Observation, ruleset: VariantRules) -> HelpView:
    """The learner's help: shanten and waits; on a turn to discard, the sensible discards
    with the shanten after each and the unseen tiles that would improve the hand."""
    hand = Hand(obs.hand.concealed, obs.hand.melds, obs.hand.flowers)
    advice: list[DiscardAdviceView] = []
    if any(a.kind is ActionKind.DISCARD for a in obs.legal_actions):
        try:
            advice = [DiscardAdviceView(tile=tile_name(d.tile), shanten=d.shanten, improving=_names(d.improving),
                                        unseen=d.unseen) for d in good_discards(obs, ruleset)[:5]]
        except ValueError:
            advice = []
    try:
        sh = advice[0].shanten if advice else shanten(hand, ruleset, obs.wilds)
    except ValueError:
        sh = -1
    ws: list[WaitView] = []
    if sh == 0 and not advice:
        try:
            ws = [WaitView(tile=tile_name(k), unseen=_unseen(obs, k)) for k in waits(hand, ruleset, obs.wilds)]
        except ValueError:
            ws = []
    return HelpView(shanten=sh, waits=ws, discards=advice)


def _held(obs: Observation) -> list[int]:
    """Concealed tiles, sorted, then the flowers held in the hand (an own flower kept as a wild, L7)."""
    held = list(obs.hand.flowers)
    for f in obs.flowers[obs.seat]:
        held.remove(f)
    return sorted(obs.hand.concealed) + sorted(held)


def _seat_views(
    obs: Observation, seats: Sequence[int], people: SeatPeople, viewer: int | None, reveal: bool
) -> list[SeatView]:
    out: list[SeatView] = []
    for s in range(4):
        p = seats[s]
        out.append(SeatView(
            seat=s, wind=WINDS[s], name=people.names[p], bot=people.bots[p],
            connected=people.bots[p] is not None or p in people.connected, away=p in people.away,
            dealer=s == obs.dealer,
            melds=[_meld(m, reveal or s == viewer) for m in obs.melds[s]],
            flowers=_names(obs.flowers[s]), discards=_names(obs.discards[s]),
            concealed=obs.concealed_counts[s],
        ))
    return out


def _view(
    game: Game, seats: Sequence[int], seat: int | None, people: SeatPeople, extras: ViewExtras,
    hand_index: int, step: int, above: bool,
) -> TableView:
    """The table as ``seat`` sees it (``None``: a player waiting out the hand, 替补)."""
    obs = game.observation(seat if seat is not None else 0)
    mine = seat is not None
    # from above: every seat's tiles and wilds (the indicator's, and each seat's own flower 坐花, L7);
    # ``wilds`` is then what is wild for every seat (L4, L5): a seat's own flower is its own
    # alone, and is marked in its hand (``all_wilds``), not in the centre as if everyone's
    everyone = [game.observation(s) for s in range(4)] if above else []
    wilds = sorted(obs.wilds) if mine else sorted(set.intersection(*(set(o.wilds) for o in everyone))) if everyone else []
    return TableView(
        code=extras.code, variant=extras.variant, me=seat, hand=hand_index, step=step,
        hands_total=extras.hands_total, phase=str(obs.phase), dealer=obs.dealer, current=obs.current,
        to_move=list(obs.to_move) if mine else [],
        indicator=None if obs.indicator is None else tile_name(obs.indicator),
        wilds=_names(wilds), own_flower=tile_name(FLOWERS[wind_of(seat, obs.dealer)]) if mine and seat is not None else None,
        live_tiles=obs.live_tiles, sea_floor_tiles=obs.sea_floor_tiles,
        tiles=_names(_held(obs)) if mine else [],
        all_tiles=[_names(_held(o)) for o in everyone] if above else None,
        all_wilds=[_names(sorted(o.wilds)) for o in everyone] if above else None,
        my_flowers=_names(_held(obs)[len(obs.hand.concealed):]) if mine else [],
        seats=_seat_views(obs, seats, people, seat, above),
        last_discard=None if obs.last_discard is None else tile_name(obs.last_discard),
        choices=[], deadline_ms=extras.deadline_ms, away=False, events=extras.events,
        commitment="", hand_end=None, match_over=False, standings=[], help=None,
        help_allowed=extras.help_allowed,
    )


def table_view(session: MatchSession, player: int, people: SeatPeople, extras: ViewExtras) -> TableView:
    """What player ``player`` may see now: built from its own observation and legal actions."""
    seat = session.seat_of(player)
    v = _view(session.game, session.seats, seat, people, extras, session.hand_index, public_step(session), False)
    v.commitment = commitment(session)
    v.away = player in people.away
    if seat is not None and seat in session.waiting_for():
        v.choices = [_choice(a) for a in session.legal_actions(seat)]
    if seat is not None and extras.help_on and extras.help_allowed and not session.hand_over:
        v.help = _help(session.observation(seat), session.ruleset)
    _ends(session, people, v)
    if seat is not None and (d := session.drawn_tile(seat)) is not None:
        v.drawn = tile_name(d)
    v.takeover = [s for s in range(4) if session.seats[s] in people.takeover]
    v.ready = [s for s in range(4) if session.seats[s] in people.ready] if session.hand_over else []
    return v


def public_view(session: MatchSession, people: SeatPeople, extras: ViewExtras) -> TableView:
    """What every player sees alike (a spectator's view, :mod:`caishen.server.tables.watchers`): the
    view of no seat (``me`` null, as a player waiting out the hand): discards, open melds
    (concealed kongs as backs), flowers, each hand's tile count, the wall, whose turn, the
    scores; no tile of any hand, no wild, no choice, no drawn tile, no clock, no help. Once
    the hand is over, its end as every player is shown it (every hand laid open then)."""
    v = _view(session.game, session.seats, None, people, extras, session.hand_index, public_step(session), False)
    v.commitment = commitment(session)
    _ends(session, people, v)
    return v


def _ends(session: MatchSession, people: SeatPeople, v: TableView) -> None:
    """What every view says alike of the hand's and the match's end and the standings."""
    if session.hand_over and session.last_hand is not None:
        # the hand was scored once when it was settled: every view of it reuses that score
        score = session.match.results[-1].score
        v.hand_end = hand_end_view(session.last_hand, score if isinstance(score, HandScore) else None, people.names,
                                   session.ruleset, session.match.hands[:-1])
    v.match_over = session.over
    v.match_end = match_end_view(session, people.names)
    v.newest_discard = newest_discard(session)
    v.standings = standings(people.names, list(session.match.table.ledger.chips))


# The same view as JSON text, put together from fragments: what the table sends on every
# move. ``table_view(...).model_dump_json()`` is the reference (tests/test_server_view.py
# checks the two texts are equal). Building and dumping the pydantic models, or even plain
# dicts through ``json``, was one of the biggest items of a move's cost at a busy centre;
# here a tile, an action button and a public move are JSON text made once.

_DUMPS: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_Q: Final = tuple(_DUMPS(n) for n in _TILE_NAMES)  # '"5p"'
_BACK: Final = '"back"'
_KIND_NAMES: Final = {k: k.name.lower() for k in ActionKind}
_MELD_NAMES: Final = {k: k.name.lower() for k in MeldKind}
_BOOL: Final = ("false", "true")
_CHOICE_JSON: dict[Action, str] = {}


def _tiles_json(ks: Sequence[int]) -> str:
    return "[" + ",".join([_Q[k] for k in ks]) + "]"


def _opt(text: str | None) -> str:
    return "null" if text is None else _DUMPS(text)


def _choice_json(a: Action) -> str:
    got = _CHOICE_JSON.get(a)
    if got is None:
        got = _CHOICE_JSON[a] = _choice(a).model_dump_json()
    return got


def public_events(done: Sequence[Move], viewer: int | None) -> list[str]:
    """The moves just made as ``viewer`` may learn of them, as JSON objects (see :func:`public_event`)."""
    out: list[str] = []
    for m in done:
        a = m.action
        if a.kind is ActionKind.PASS:
            continue
        hide = a.kind is ActionKind.CONCEALED_KONG and viewer != m.seat
        tile = "null" if hide or a.tile < 0 else _Q[a.tile]
        out.append(f'{{"seat":{m.seat},"kind":"{_KIND_NAMES[a.kind]}","tile":{tile}}}')
    return out


def _meld_json(m: Meld, visible: bool) -> str:
    tiles = "[" + ",".join([_BACK] * len(m.tiles)) + "]" if not visible else _tiles_json(m.tiles)
    return f'{{"kind":"{_MELD_NAMES[m.kind]}","tiles":{tiles}}}'


def table_view_json(
    session: MatchSession, player: int, people: SeatPeople, extras: ViewExtras, events: Sequence[str],
) -> str:
    """``table_view(session, player, people, extras)`` as JSON text, built without pydantic
    (``events`` stand in for ``extras.events``: :func:`public_events`)."""
    game = session.game
    seat = session.seat_of(player)
    mine = seat is not None
    obs = game.observation(seat if seat is not None else 0)
    held = _held(obs) if mine else []
    seats = session.seats
    rows: list[str] = []
    for s in range(4):
        p = seats[s]
        bot = people.bots[p]
        melds = ",".join([_meld_json(m, m.kind is not MeldKind.CONCEALED_KONG or s == seat) for m in obs.melds[s]])
        rows.append(
            f'{{"seat":{s},"wind":"{WINDS[s]}","name":{_DUMPS(people.names[p])},"bot":{_opt(bot)},'
            f'"connected":{_BOOL[bot is not None or p in people.connected]},"away":{_BOOL[p in people.away]},'
            f'"dealer":{_BOOL[s == obs.dealer]},"melds":[{melds}],"flowers":{_tiles_json(obs.flowers[s])},'
            f'"discards":{_tiles_json(obs.discards[s])},"concealed":{obs.concealed_counts[s]}}}'
        )
    choices = ""
    if seat is not None and seat in session.waiting_for():
        choices = ",".join([_choice_json(a) for a in session.legal_actions(seat)])
    help_view = "null"
    if seat is not None and extras.help_on and extras.help_allowed and not session.hand_over:
        help_view = _help(session.observation(seat), session.ruleset).model_dump_json()
    hand_end = "null"
    if session.hand_over and session.last_hand is not None:
        score = session.match.results[-1].score  # scored once, when the hand was settled
        hand_end = hand_end_view(session.last_hand, score if isinstance(score, HandScore) else None, people.names,
                                 session.ruleset, session.match.hands[:-1]).model_dump_json()
    ranks = _standings_json(tuple(people.names), tuple(session.match.table.ledger.chips))
    hands_total = "null" if extras.hands_total is None else extras.hands_total
    deadline = "null" if extras.deadline_ms is None else extras.deadline_ms
    drawn = None if seat is None else session.drawn_tile(seat)
    end = match_end_view(session, people.names)
    return (
        f'{{"type":"state","code":{_DUMPS(extras.code)},"variant":{_DUMPS(extras.variant)},'
        f'"me":{"null" if seat is None else seat},"hand":{session.hand_index},"step":{public_step(session)},'
        f'"hands_total":{hands_total},"phase":{_DUMPS(str(obs.phase))},"dealer":{obs.dealer},'
        f'"current":{obs.current},"to_move":[{",".join(map(str, obs.to_move)) if mine else ""}],'
        f'"indicator":{"null" if obs.indicator is None else _Q[obs.indicator]},'
        f'"wilds":{_tiles_json(sorted(obs.wilds) if mine else ())},'
        f'"own_flower":{"null" if seat is None else _Q[FLOWERS[wind_of(seat, obs.dealer)]]},'
        f'"live_tiles":{obs.live_tiles},"sea_floor_tiles":{obs.sea_floor_tiles},'
        f'"tiles":{_tiles_json(held)},"all_tiles":null,"all_wilds":null,"my_flowers":{_tiles_json(held[len(obs.hand.concealed):])},'
        f'"seats":[{",".join(rows)}],'
        f'"last_discard":{"null" if obs.last_discard is None else _Q[obs.last_discard]},'
        f'"choices":[{choices}],"deadline_ms":{deadline},"away":{_BOOL[player in people.away]},'
        f'"events":[{",".join(events)}],"commitment":{_DUMPS(commitment(session))},"hand_end":{hand_end},'
        f'"match_over":{_BOOL[session.over]},"standings":[{ranks}],"help":{help_view},'
        f'"help_allowed":{_BOOL[extras.help_allowed]},'
        f'"takeover":[{",".join([str(s) for s in range(4) if seats[s] in people.takeover])}],'
        f'"drawn":{"null" if drawn is None else _Q[drawn]},'
        f'"match_end":{"null" if end is None else end.model_dump_json()},'
        f'"newest_discard":{_int_or_null(newest_discard(session))},'
        f'"ready":[{",".join([str(s) for s in range(4) if seats[s] in people.ready]) if session.hand_over else ""}]}}'
    )


def match_end_view(session: MatchSession, names: Sequence[str]) -> MatchEndView | None:
    """Why the match is over (None while it is not): every hand played, or who went broke."""
    if not session.over:
        return None
    r = session.match.table.result()
    return MatchEndView(ended_by=r.ended_by or "hands", hands=r.hands, broke=[names[p] for p in r.broke])


def record_match_end(record_json: str) -> MatchEndView | None:
    """Why a stored match is over (None while it is not), from its record's result."""
    rec = loads(record_json)
    r = rec.result
    if not r.get("over"):
        return None
    broke = [rec.players[p] for p in r.get("broke", []) if isinstance(p, int) and 0 <= p < len(rec.players)]
    return MatchEndView(ended_by=str(r.get("ended_by") or "hands"), hands=int(r.get("hands", len(rec.hands))), broke=broke)


_STANDINGS: dict[tuple[tuple[str, ...], tuple[int, ...]], str] = {}
_STANDINGS_KEPT: Final = 4096  # (names, chips) remembered (cleared when full)


def _standings_json(names: tuple[str, ...], chips: tuple[int, ...]) -> str:
    """The standings of a view as JSON items, made once for each (names, chips): the chips
    change only when a hand is settled, and every view in between shows the same."""
    key = (names, chips)
    got = _STANDINGS.get(key)
    if got is None:
        if len(_STANDINGS) >= _STANDINGS_KEPT:
            _STANDINGS.clear()
        got = _STANDINGS[key] = ",".join([f'{{"name":{_DUMPS(names[p])},"chips":{c},"rank":{r}}}'
                                          for p, c, r in _ranks(chips)])
    return got


def _ranks(chips: Sequence[int]) -> list[tuple[int, int, int]]:
    """(player, chips, rank) from the most chips down: :func:`standings` without the names."""
    order = sorted(range(len(chips)), key=lambda i: -chips[i])
    return [(p, chips[p], 1 + sum(1 for c in chips if c > chips[p])) for p in order]


def standings(names: Sequence[str], chips: Sequence[int]) -> list[StandingView]:
    order = sorted(range(len(names)), key=lambda i: -chips[i])
    rank = {p: 1 + sum(1 for q in range(len(names)) if chips[q] > chips[p]) for p in order}
    return [StandingView(name=names[p], chips=chips[p], rank=rank[p]) for p in order]


def _items(r: ScoreResult | None) -> list[ScoreItemView]:
    if r is None:
        return []
    return [
        ScoreItemView(
            rule=it.rule, chinese=it.chinese, english=it.english,
            fu=it.value if it.unit == "fu" else 0, tai=it.value if it.unit == "tai" else 0,
            note=it.unit if it.unit in ("limit", "note") else "",
        )
        for it in r.items
    ]


def _scores(game: Game, ruleset: VariantRules) -> HandScore | None:
    """The scored hands of a finished Longgang game replayed from a record (None: a draw)."""
    if game.outcome is None or not isinstance(ruleset, Ruleset):
        return None
    return score_outcome(game.outcome, ruleset)


def _whats(hand: HandRecord, hs: HandScore | None, ruleset: VariantRules | None,
           after_broke: bool) -> dict[tuple[int, int], str]:
    """How each payment of a won Longgang hand is made (the settlement's own words: the total,
    the dealer's doubling, the bonus, with the after-broke figures where they applied), by
    (payer, payee)."""
    winner = hand.result.get("winner")
    if hs is None or winner is None or not isinstance(ruleset, Ruleset):
        return {}
    w = hs.winner
    try:
        st = settle(winner, w.total, w.bonus_tai, hs.loser_totals, hand.dealer, ruleset,
                    limit=w.limit is not None, after_broke=after_broke, pays_all=hs.pays_all)
    except ValueError:
        return {}
    return {(t.payer, t.payee): t.what for t in st.owed}


def _after_broke(before: Sequence[HandRecord], players: int) -> bool:
    """Whether the hand after ``before`` (the match's hands before it) was settled with the
    after-broke bonus and limits (L24.7: once a player has gone broke; six players from the
    start), as the match's ledger did."""
    return players == MAX_PLAYERS or any(h.result.get("broke") for h in before)


def _rebuys(hand: HandRecord, before: Sequence[HandRecord], names: Sequence[str],
            ruleset: VariantRules | None) -> list[RebuyView]:
    """The chips lent after ``hand`` (L25.4): each player's chips after it less those before it
    and what the hand paid them, where that is not 0. Only where a player went broke in it."""
    res = hand.result
    if not res.get("broke") or not isinstance(ruleset, Ruleset):
        return []
    was = ([int(c) for c in before[-1].result["chips_after"]] if before
           else [ruleset.start_chips - ruleset.table_fee] * len(names))
    won = [0] * len(names)
    for s, p in enumerate(hand.seats):
        won[p] = int(res["chips"][s])
    return [RebuyView(name=names[p], chips=lent) for p in range(len(names))
            if (lent := int(res["chips_after"][p]) - was[p] - won[p])]


def hand_end_view(
    hand: HandRecord, scores: HandScore | None, names: Sequence[str], ruleset: VariantRules | None = None,
    before: Sequence[HandRecord] = (),
) -> HandEndView:
    """The itemised score table of a finished hand: each seat's items (rule, item, 胡, 台), how
    its total is reached (as the CLI prints it), its chips won or lost and its chips after the
    hand; who paid whom (``before``: the match's hands before it; once a player went broke in
    one, the after-broke figures applied, :func:`_after_broke`); the winning hand split into its
    scored sets; who went broke in it and the chips lent to them (L25.4)."""
    res = hand.result
    broke_before = _after_broke(before, len(names))
    hs = scores
    lines: list[ScoreLineView] = []
    for s in range(4):
        p = hand.seats[s]
        r: ScoreResult | None = None
        if hs is not None:
            r = hs.winner if res.get("winner") == s else hs.losers.get(s)
        lines.append(ScoreLineView(
            seat=s, name=names[p], winner=res.get("winner") == s, hand=str(res["hands"][s]),
            items=_items(r), fu=r.fu if r else 0, tai=r.tai if r else 0,
            total=(hs.winner.total if res.get("winner") == s else hs.loser_totals.get(s, 0)) if hs else 0,
            limit=None if r is None or r.limit is None else r.limit.value,
            chips=int(res["chips"][s]), chips_after=int(res["chips_after"][p]),
            formula="" if r is None else r.total_line(),
        ))
    whats = _whats(hand, hs, ruleset, broke_before)
    transfers = [TransferView(payer=int(t[0]), payee=int(t[1]), chips=int(t[2]), rule=str(t[3]),
                              what=whats.get((int(t[0]), int(t[1])), ""))
                 for t in res.get("transfers", [])]
    score = res.get("score")
    payments = score.get("payments", []) if isinstance(score, dict) else []  # Gangci's statement (G2)
    # who gave the winning tile: the last discard, or the added kong robbed (抢杠)
    gave = {"discard": ActionKind.DISCARD, "rob-kong": ActionKind.ADDED_KONG}.get(str(res.get("how")))
    discarder = None if gave is None else next((seat for seat, a in reversed(hand.actions) if a.kind is gave), None)
    return HandEndView(
        index=hand.index, winner=res.get("winner"), how=res.get("how"), tile=res.get("tile"), draw=res.get("draw"),
        lines=lines, seed=hand.seed.hex() if hand.seed else "", commitment=hand.commitment,
        win_type=res.get("win_type"), draw_type=res.get("draw_type"), declared_by=res.get("declared_by"),
        payments=[PaymentView(rule=p["rule"], chinese=p["chinese"], english=p["english"],
                              payer=WINDS.index(p["payer"]), payee=WINDS.index(p["payee"]),
                              amount=p["amount"], formula=p["formula"]) for p in payments],
        discarder=discarder, transfers=transfers,
        sets=[format_group(g) for g in hs.winner.groups] if hs is not None else [],
        form=str(hs.winner.arrangement.form) if hs is not None and hs.winner.arrangement is not None else None,
        **({"start_chips": ruleset.start_chips, "fee": ruleset.table_fee}
           if hand.index == 0 and isinstance(ruleset, Ruleset) and ruleset.table_fee else {}),
        broke=[names[int(p)] for p in res.get("broke", [])], rebuys=_rebuys(hand, before, names, ruleset),
    )


# ---------------------------------------------------------------- records, fairness, replays


def record_of(session: MatchSession) -> MatchRecord:
    """The record of the finished hands. The master seed is revealed only once the match is
    over: until then it would give away the hands to come; each finished hand reveals its own.
    A record of a match still in play says so (``in_play``)."""
    rec = session.record()
    if not session.over:
        rec = dataclasses.replace(rec, seed=None, in_play=True)  # the seat draw stays: it seated the hands
    return rec


def record_text(session: MatchSession) -> str:
    """The record as JSON, signed with the centre's key (docs/fairness.md): a finished match's,
    and one in play (marked ``"in_play": true``)."""
    rec = record_of(session)
    return sign_text(rec.dumps(), rec.canonical(), load_or_create_key())


def centre_key() -> str:
    """The public key the centre signs its records with (64 hex digits, Ed25519): what
    ``caishen keys show`` prints on its machine, published at ``GET /api/signing-key``."""
    return public_key_hex(load_or_create_key())


def signed_text(text: str) -> str:
    """A stored record as the centre serves it: signed by the centre's key. Records stored
    before the centre signed them (unsigned) are signed now; a signed one is served as it is."""
    return text if signature_of(text) is not None else sign_record(text, load_or_create_key())


def _fair_row(h: HandRecord) -> FairHandOut:
    return FairHandOut(index=h.index, commitment=h.commitment, seed=h.seed.hex() if h.seed else None,
                       contributions=[c.hex() if isinstance(c, bytes) else c for c in h.contributions])


def fairness(session: MatchSession) -> list[FairHandOut]:
    """Commitment and revealed seed of every hand dealt, then the commitment of the next one."""
    out = [_fair_row(h) for h in session.match.hands]
    if not session.dealt:  # the first hand's commitment is out; the people are contributing
        out.append(FairHandOut(index=0, commitment=commitment(session), seed=None))
    elif not session.hand_over:
        out.append(FairHandOut(index=session.hand_index, commitment=commitment(session), seed=None))
    else:
        nxt = next_commitment(session)
        if nxt is not None:
            out.append(FairHandOut(index=session.hand_index + 1, commitment=nxt, seed=None))
    return out


def verify_text(text: str) -> VerifyOut:
    """``caishen verify --key <the centre's key>`` on a record's JSON text (an unsigned record
    is checked without the key)."""
    try:
        rec = loads(text)
        s = verify(rec)
        signed = ""
        if rec.signature is not None:
            verify_signature(text, centre_key())
            signed = "; signed by this centre's key" + (" (in play)" if rec.in_play else "")
    except (RecordError, VerifyError, ReplayError, SignatureError) as exc:
        return VerifyOut(ok=False, message=str(exc))
    return VerifyOut(
        ok=True,
        message=f"OK: {s.hands} hands, {s.draws} draws and {s.actions} actions match the committed seeds; "
                f"results reproduced{s.moves_text()}{signed}",
    )


def result_hands(record_json: str) -> tuple[list[str], list[HandEndView], list[FairHandOut], list[int]]:
    """Players, score tables, fairness rows and final chips of a stored record."""
    rec = loads(record_json)
    ends: list[HandEndView] = []
    for i, h in enumerate(rec.hands):
        game: Game | None = None
        for g, _ in iter_hand(h, rec.ruleset):
            game = g
        assert game is not None
        ends.append(hand_end_view(h, _scores(game, rec.ruleset), rec.players, rec.ruleset, rec.hands[:i]))
    fair_rows = [_fair_row(h) for h in rec.hands]
    return list(rec.players), ends, fair_rows, [int(c) for c in rec.result.get("chips", [])]


def replay_frames(record_json: str, index: int, seat: int | None, code: str) -> list[ReplayFrameOut]:
    """Hand ``index`` of a record move by move, seen from ``seat`` or from above (``None``)."""
    rec = loads(record_json)
    if not 0 <= index < len(rec.hands):
        raise RoomError(f"no hand {index}")
    hand = rec.hands[index]
    people = SeatPeople(tuple(rec.players), tuple(None for _ in rec.players), frozenset(range(len(rec.players))))
    extras = ViewExtras(code=code, variant=registry.variant_of(rec.ruleset).name, hands_total=rec.ruleset.hands_per_match)
    frames: list[ReplayFrameOut] = []
    for game, step in iter_hand(hand, rec.ruleset):
        view = _view(game, hand.seats, seat, people, extras, index, 0 if step is None else step.index + 1,
                     seat is None)
        if seat is None:
            view.me = None
        view.commitment = hand.commitment
        if step is not None:
            ev = public_event(Move(step.seat, step.action), seat)
            view.events = [ev] if ev else []
        frames.append(ReplayFrameOut(
            step=0 if step is None else step.index + 1,
            move=None if step is None else step.action.text(),
            seat=None if step is None else step.seat, view=view,
        ))
    if frames and game.outcome is not None:
        frames[-1].view.hand_end = hand_end_view(hand, _scores(game, rec.ruleset), rec.players, rec.ruleset,
                                                 rec.hands[:index])
        # the hand is over: every hand is shown, as in the score table
        frames[-1].view.all_tiles = [_names(_held(game.observation(s))) for s in range(4)]
        frames[-1].view.all_wilds = [_names(sorted(game.observation(s).wilds)) for s in range(4)]
    return frames

