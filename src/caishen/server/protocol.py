"""The game centre's wire types (pydantic): REST bodies, WebSocket messages and table views.

Client messages are a tagged union on ``type`` (:data:`ClientMessage`), parsed by
:func:`parse_client_message` after a size check; anything else is rejected with an
:class:`ErrorMessage` and changes nothing. The server sends each seat a :class:`TableView`
built from that seat's own observation only (``caishen.server.core.table_view``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from caishen.errors import CaishenError
from caishen.table import movesig

MAX_MESSAGE_BYTES = 1024  # every client message fits in far less; bigger ones are refused


class _Strict(BaseModel):
    """Every model a client sends: unknown fields refused, and no coercion (pydantic's strict
    mode): ``"hand": "0"``, ``"hand": false`` or ``"on": "yes"`` is a ``bad_message``."""

    model_config = ConfigDict(extra="forbid", strict=True)


# ---------------------------------------------------------------- client -> server


class ActMessage(_Strict):
    """Play ``action`` (record text, e.g. ``discard 5p``, ``pong 5p``, ``win``, ``pass``,
    ``declare_draw``) in the
    state the client saw: hand ``hand`` after ``step`` moves. A stale pair is refused (replays).
    ``sig``: the person's ECDSA P-256 signature (``r || s``, 128 hex digits) over the move's
    canonical bytes (:func:`caishen.table.movesig.move_message`: room, hand, step, action) by
    the key this connection registered (:class:`KeyMessage`); without it the move is recorded
    ``unsigned``."""

    type: Literal["act"]
    action: str = Field(max_length=40)
    hand: int = Field(ge=0)
    step: int = Field(ge=0)
    sig: str | None = Field(default=None, pattern=r"^[0-9a-f]{128}$")


class KeyMessage(_Strict):
    """The public key this connection's page signs its moves with (docs/fairness.md, "Signed
    moves"): the uncompressed P-256 point (``04 || x || y``) as 130 lowercase hex digits, as
    ``crypto.subtle.exportKey("raw", key)`` gives it; a value that is not a point on the curve
    is a ``bad_message``."""

    type: Literal["key"]
    key: str = Field(pattern=r"^04[0-9a-f]{128}$")

    @field_validator("key")
    @classmethod
    def _on_curve(cls, v: str) -> str:
        movesig.public_key(v)  # ValueError: not a point on P-256
        return v


class NextMessage(_Strict):
    """Ready for the next hand (after the score table)."""

    type: Literal["next"]
    hand: int = Field(ge=0)


class BackMessage(_Strict):
    """Take the seat back from the stand-in bot after a timeout."""

    type: Literal["back"]


class HelpMessage(_Strict):
    """Turn the learner's help (shanten, waits) on or off, where the room allows it."""

    type: Literal["help"]
    on: bool


class PingMessage(_Strict):
    type: Literal["ping"]


PONG: Final = '{"type":"pong"}'  # the answer to a ping, after everything sent before it


class TakeoverMessage(_Strict):
    """In a room without a turn timer: let a stand-in bot play engine seat ``seat``, whose
    person has been away (no connection) for 3 minutes; they take it back on return."""

    type: Literal["takeover"]
    seat: int = Field(ge=0, le=3)


class ContributeMessage(_Strict):
    """The page's own randomness for hand ``hand`` (docs/fairness.md, caishen-fair-2): 32 bytes
    from ``crypto.getRandomValues`` as 64 lowercase hex digits, sent after the table published
    the hand's commitment and before its deal."""

    type: Literal["contribute"]
    hand: int = Field(ge=0)
    value: str = Field(pattern=r"^[0-9a-f]{64}$")


# Quick phrases and stickers (issue 30, table manners): a fixed list, each shown in the
# reader's language by the page (static/common.js, ``say_*``), never free text; the stickers
# are pictures shipped with the package (static/stickers/, made here).
PHRASES: Final = ("hello", "hurry", "nice", "thanks", "sorry", "again", "bye")
STICKERS: Final = ("smile", "laugh", "cry", "angry", "tea", "thumb")
Say = Literal["hello", "hurry", "nice", "thanks", "sorry", "again", "bye",
              "smile", "laugh", "cry", "angry", "tea", "thumb"]


class SayMessage(_Strict):
    """A quick phrase or a sticker from a seated person, shown at their seat to everyone at
    the table (rate-limited per connection and per person, caishen.server.conns)."""

    type: Literal["say"]
    say: Say


class RemoveMessage(_Strict):
    """The room's owner removes person ``player`` (a room's player index) from the table, one
    of a group told by the same-address warning (issue 30): a bot plays the seat to the end."""

    type: Literal["remove"]
    player: int = Field(ge=0, le=5)


CHAT_CHARS: Final = 120  # the longest line of free-text chat


class ChatMessage(_Strict):
    """A line of free text from a seated person (rooms with ``chat`` on; issue 30, table
    manners): at most :data:`CHAT_CHARS` characters, kept as plain text; rate-limited as the
    quick phrases are."""

    type: Literal["chat"]
    text: str = Field(min_length=1, max_length=CHAT_CHARS)


# Votes of the people at the table (issue 30, table manners; docs/server.md "Votes"):
# dismiss the room (解散房间) or pause the game, run by caishen.server.tables.votes.
VoteKind = Literal["dismiss", "pause"]


class VoteMessage(_Strict):
    """A seated person asks the table to vote on ``kind`` (their own yes counts)."""

    type: Literal["vote"]
    kind: VoteKind


class BallotMessage(_Strict):
    """A seated person's answer to vote number ``vote`` (the :class:`VoteStateMessage`'s)."""

    type: Literal["ballot"]
    vote: int = Field(ge=0)
    yes: bool


class ResumeMessage(_Strict):
    """A seated person ends the pause the table voted for."""

    type: Literal["resume"]


AnyClientMessage = (
    ActMessage | NextMessage | BackMessage | HelpMessage | PingMessage | TakeoverMessage | ContributeMessage
    | KeyMessage | SayMessage | ChatMessage | RemoveMessage | VoteMessage | BallotMessage | ResumeMessage
)
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
_CLIENT: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)


class ApiError(CaishenError):
    """A refused HTTP request of any part of the centre (accounts, clubs, profiles): ``code``
    names why, ``status`` is the HTTP status; answered as JSON ``{"detail", "code"}`` (with
    ``Retry-After`` when ``retry_after`` is set) by the app's one handler."""

    code = "refused"

    def __init__(self, message: str, *, code: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message, code=code)
        self.status = status
        self.retry_after = retry_after


# Characters that are letters or symbols to Unicode but show nothing: the Braille blank, the
# Hangul fillers. A name of them alone looked empty on every page ("⠀⠀" was taken).
_BLANK: Final = "\u2800\u3164\u115f\u1160\uffa0"
_AROUND: Final = re.compile(f"^[\\s{_BLANK}]+|[\\s{_BLANK}]+$")


def clean_name(text: str, limit: int = 24, what: str = "name") -> str:
    """A name as shown (a person's, a club's, a template's): no control characters, no space or
    blank characters around it, at most ``limit`` characters; ``empty_name`` (422) if nothing
    that shows is left. Every part's one cleaning (the pages show names as text anyway)."""
    text = _AROUND.sub("", "".join(ch for ch in text if unicodedata.category(ch)[0] != "C"))
    if not text:
        raise ApiError(f"the {what} is empty", code="empty_name", status=422)  # the page says it in its language
    return text[:limit]


def signed_in(uid: str | None) -> str:
    """The person a request's cookie names (``uid_of(request)``, which ``caishen.server.app``
    hands each part), or ``not_signed_in`` (401) if it names nobody: every part's one check."""
    if uid is None:
        raise ApiError("you are not signed in: pick a name first (POST /api/me)", code="not_signed_in", status=401)
    return uid


class ProtocolError(ValueError):
    """A client message that is refused; ``code`` names why (``too_big``, ``bad_message``...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_client_message(text: str) -> AnyClientMessage:
    """A client message from its JSON text: size first, then the schema."""
    if len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_big", f"message larger than {MAX_MESSAGE_BYTES} bytes")
    try:
        return _CLIENT.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first.get("type") == "json_invalid":
            raise ProtocolError("bad_json", "message is not JSON") from None
        if first.get("type") == "union_tag_invalid" or first.get("type") == "union_tag_not_found":
            raise ProtocolError("unknown_type", "unknown message type") from None
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise ProtocolError("bad_message", f"invalid message: {where}: {first.get('msg')}") from None


def parse_since(text: str | None) -> tuple[int, int] | None:
    """The ``?since=H:S`` of a WebSocket that reconnects: the hand and step of the last event
    or state its page saw. Anything but two plain numbers is taken as no ``since`` (the page
    gets its state, as a first connection does)."""
    if text is None or len(text) > 16:
        return None
    hand, colon, step = text.partition(":")
    if not colon or not (hand.isascii() and hand.isdigit() and step.isascii() and step.isdigit()):
        return None
    return int(hand), int(step)


# ---------------------------------------------------------------- server -> client


class FairMessage(BaseModel):
    """To a page that contributes (docs/fairness.md): hand ``hand``'s ``commitment`` is out and
    the table takes contributions (``open``), or it was dealt (``dealt``); ``mine``: what the
    table holds from this person's seat (hex), ``None`` for nothing."""

    type: Literal["fair"] = "fair"
    hand: int
    commitment: str
    open: bool
    dealt: bool
    mine: str | None


class ErrorMessage(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str


class SaidMessage(BaseModel):
    """Engine seat ``seat`` said ``say`` (a quick phrase or a sticker: :data:`PHRASES`,
    :data:`STICKERS`); sent to every page at the table, the sender's included."""

    type: Literal["said"] = "said"
    seat: int
    say: Say


class ChattedMessage(BaseModel):
    """Engine seat ``seat`` (named ``name``) wrote ``text``, plain text that every page shows
    as text, never as markup; ``at`` numbers the table's lines. A page that connects gets the
    table's latest lines again (``again``), so nothing it was told is lost by a reconnect."""

    type: Literal["chatted"] = "chatted"
    seat: int
    name: str
    text: str
    at: int
    again: bool = False


class VoterView(BaseModel):
    """One person asked in a vote: their name, engine seat in the hand in play (``None``
    while sitting a hand out), and answer so far (``None``: not yet)."""

    name: str
    seat: int | None
    vote: Literal["yes", "no"] | None


class VoteStateMessage(BaseModel):
    """Where vote number ``vote`` stands, told to every page at the table when it opens, at
    each answer and when it ends (``outcome``). ``mine``: this page's person is asked and has
    not answered; ``ms_left``: until it times out; ``cooldown_ms``: once it has ended, until
    the table takes a new vote."""

    type: Literal["vote_state"] = "vote_state"
    vote: int
    kind: VoteKind
    starter: str
    voters: list[VoterView]
    mine: bool
    ms_left: int
    outcome: Literal["passed", "failed"] | None = None
    cooldown_ms: int = 0


class PausedMessage(BaseModel):
    """The table is paused by a vote (``on``; it resumes by itself after ``ms_left``) or goes
    on again (``by``: who resumed it, ``None`` when its time ran out)."""

    type: Literal["paused"] = "paused"
    on: bool
    ms_left: int = 0
    by: str | None = None


class WatchersMessage(BaseModel):
    """The names of the people watching the table (spectators, 观战), told to every page at
    the table, players' and spectators', when one comes or goes, and to a page that connects
    while someone watches (caishen.server.tables.watchers)."""

    type: Literal["watchers"] = "watchers"
    names: list[str]


class SameAddressMessage(BaseModel):
    """Players of the room connected from one network address (issue 30, table manners): the
    names of each group, told to every page at the table when a group forms or grows, and to
    a page that connects while one stands. The address itself is never told nor stored."""

    type: Literal["same_address"] = "same_address"
    groups: list[list[str]]
    players: list[list[int]] = []  # the same groups as the room's player indexes (the owner may remove one)


class RemovedMessage(BaseModel):
    """The room's owner removed ``name`` (player ``player``) from the table: a bot plays the
    seat to the end of the match."""

    type: Literal["removed"] = "removed"
    player: int
    name: str


class StorageMessage(BaseModel):
    """The table's database could not be written (``ok`` false: the table is paused, back at
    its last stored move, and retries by itself) or can be again (``ok`` true). The page shows
    "connection to storage lost, retrying" in its language meanwhile (docs/server.md, "Faults")."""

    type: Literal["storage"] = "storage"
    ok: bool
    message: str = ""


class MeldView(BaseModel):
    """A declared set: ``kind`` chow/pong/exposed_kong/added_kong/concealed_kong; ``tiles`` as
    tile names, ``"back"`` for a concealed kong's tiles another seat may not see."""

    kind: str
    tiles: list[str]


class SeatView(BaseModel):
    """One seat as a given seat may see it."""

    seat: int
    wind: str
    name: str
    bot: str | None  # bot level for a bot's seat, None for a person
    connected: bool
    away: bool  # a stand-in bot plays after a timeout
    dealer: bool
    melds: list[MeldView]
    flowers: list[str]
    discards: list[str]
    concealed: int


class ChoiceView(BaseModel):
    """A legal action: its record text (what to send back), kind and tiles for the buttons."""

    action: str
    kind: str
    tile: str | None
    tiles: list[str]


class WaitView(BaseModel):
    tile: str
    unseen: int


class DiscardAdviceView(BaseModel):
    """A sensible discard (caishen.bots.advice, the terminal's "good discards"): the shanten
    after it and the unseen tiles that would then improve the hand (its waits when ready)."""

    tile: str
    shanten: int
    improving: list[str]
    unseen: int


class HelpView(BaseModel):
    shanten: int
    waits: list[WaitView]
    discards: list[DiscardAdviceView] = []  # on my turn to discard: the sensible discards, best first


class ScoreItemView(BaseModel):
    rule: str
    chinese: str
    english: str
    fu: int
    tai: int
    note: str


class ScoreLineView(BaseModel):
    """One seat's part of the hand's score table."""

    seat: int
    name: str
    winner: bool
    hand: str
    items: list[ScoreItemView]
    fu: int
    tai: int
    total: int
    limit: str | None
    chips: int
    chips_after: int
    formula: str = ""  # how the total is reached, as the CLI prints it (ScoreResult.total_line)


class PaymentView(BaseModel):
    """One payment of a Gangci hand (G2): ``amount`` from seat ``payer`` to seat ``payee``."""

    rule: str
    chinese: str
    english: str
    payer: int
    payee: int
    amount: int
    formula: str


class TransferView(BaseModel):
    """Chips paid in a hand: ``chips`` from seat ``payer`` to seat ``payee`` by rule ``rule``
    (L24.2 to the winner, L24.4 between losers, L24.6 a limit, L24.8 包三家, L25.3 what a broke
    player had left); ``what`` how the amount is made (the dealer's doubling, the bonus)."""

    payer: int
    payee: int
    chips: int
    rule: str
    what: str


class MatchEndView(BaseModel):
    """Why the match ended: ``hands`` (every hand played), ``broke`` (断筹: who went broke) or
    ``dismissed`` (its people voted to end it; ``hands``: the hands finished before)."""

    ended_by: str
    hands: int
    broke: list[str]


class RebuyView(BaseModel):
    """Chips lent after the hand to a player who went broke (加筹, L25.4): ``chips`` the player
    ``name`` borrowed (above 0) or lent (below 0); a player who sits out lends too."""

    name: str
    chips: int


class HandEndView(BaseModel):
    index: int
    winner: int | None
    how: str | None
    tile: str | None
    draw: str | None
    lines: list[ScoreLineView]
    seed: str
    commitment: str
    win_type: str | None = None          # the variant's name of the win (Gangci: zha_dan, an_ci...)
    draw_type: str | None = None         # a declared draw 叫和局: the variant's name (nine_terminals)
    declared_by: int | None = None       # ... and the engine seat that declared it
    payments: list[PaymentView] = []     # Gangci: every payment of the hand, kongs first (G2)
    discarder: int | None = None         # a win on a discard or a robbed kong: the engine seat that gave it
    transfers: list[TransferView] = []   # who paid whom: each seat's chips are what it got less what it paid
    sets: list[str] = []                 # the winning hand split into the sets that were scored (notation)
    form: str | None = None              # ... and its form: standard, pairs (八对半, L14), bulldozer (推土机)
    # the first hand of a Longgang match: the chips each brought and the table fee 头钱 each
    # paid at the start (L25), so that the chips after the hand add up (0 on later hands)
    start_chips: int = 0
    fee: int = 0
    broke: list[str] = []                # the players who went broke (断筹) in this hand, in order (L25)
    rebuys: list[RebuyView] = []         # ... and the chips lent to them after it (L25.4): in chips_after already


class StandingView(BaseModel):
    name: str
    chips: int
    rank: int


class EventView(BaseModel):
    """A public move (discards, claims, kongs, wins; never a pass, which would tell who could claim)."""

    seat: int
    kind: str
    tile: str | None


class TableView(BaseModel):
    type: Literal["state"] = "state"
    code: str
    variant: str
    me: int | None  # my engine seat this hand (None: waiting out a hand)
    hand: int
    step: int
    hands_total: int | None
    phase: str
    dealer: int
    current: int
    to_move: list[int]
    indicator: str | None
    wilds: list[str]
    own_flower: str | None
    live_tiles: int
    sea_floor_tiles: int
    tiles: list[str]  # my concealed tiles, sorted
    all_tiles: list[list[str]] | None = None  # every seat's concealed tiles: replays seen from above
    all_wilds: list[list[str]] | None = None  # beside all_tiles: the kinds wild for each seat (财神, 花财神, 坐花)
    my_flowers: list[str]
    seats: list[SeatView]
    last_discard: str | None
    choices: list[ChoiceView]
    deadline_ms: int | None
    away: bool
    # the moves since the last state, in order, where they come inside it (the instant pace with
    # one person, docs/server.md "Paced play"; a replay's frame: its own move); else empty
    events: list[EventView]
    commitment: str
    hand_end: HandEndView | None
    match_over: bool
    standings: list[StandingView]
    help: HelpView | None
    help_allowed: bool
    takeover: list[int] = []  # seats the others may hand to a stand-in bot now (away 3 minutes, no timer)
    drawn: str | None = None  # the tile I just drew (my turn began with it): only in my own view
    match_end: MatchEndView | None = None  # once the match is over: why
    # the seat whose river ends with the hand's newest discard (the page marks that tile);
    # null before any, once it was claimed, and in a replay's frame (replay.js marks its own)
    newest_discard: int | None = None
    ready: list[int] = []  # between hands: the seats whose players asked for the next hand


class EventMessage(BaseModel):
    """One move told as it happens (docs/server.md, "Paced play"): a discard, claim, kong,
    flower or win, never a pass. ``step`` is the table's step after it. A page plays these in
    order (a discard slides to its river, a claim flashes its word); the states that follow
    carry the table as it is."""

    type: Literal["event"] = "event"
    hand: int
    step: int
    seat: int
    kind: str
    tile: str | None


# ---------------------------------------------------------------- REST


class NameBody(_Strict):
    name: str = Field(min_length=1, max_length=24)


class MeOut(BaseModel):
    id: str | None
    name: str | None


class LoggedOutOut(BaseModel):
    """``POST /api/logout-everywhere``: how many sessions (browsers) were signed out."""

    sessions: int


class SwitchOut(BaseModel):
    name: str
    value: bool | int | list[int] | str
    rule: str
    doc: str
    doc_zh: str  # the lobby's Chinese explanation (caishen.server.switch_zh)
    title: str = ""  # the switch's plain name (caishen.server.lobby_text)
    title_zh: str = ""
    group: str
    group_zh: str  # the group's title on a page in Chinese
    editable: bool
    allowed: str = ""
    choices: list[str] = []  # the values of a switch that takes one of several words (a select)


class PresetOut(BaseModel):
    """A set of house rules a room can start from: its name (a preset of the variant), plain
    title and one line in each language, and the switches it sets apart from the variant's
    defaults (docs/server.md, "House-rule presets")."""

    name: str
    title: str
    title_zh: str
    doc: str
    doc_zh: str
    switches: dict[str, bool | int | list[int] | str]


class SigningKeyOut(BaseModel):
    """The centre's published signing key (docs/fairness.md, "Checking a match yourself")."""

    algorithm: Literal["ed25519"] = "ed25519"
    key: str  # 64 hex digits: `caishen verify --key KEY record.json`


class VariantOut(BaseModel):
    name: str
    playable: bool
    note: str
    switches: list[SwitchOut]
    presets: list[PresetOut] = []  # the variant's own rules first
    to_break: bool = True  # a room may play until 断筹 (Longgang's going broke, L25)
    bots: list[str] = []  # the bot levels that play this variant (learned: Longgang only)


class RoomBody(_Strict):
    variant: str = Field(default="longgang", max_length=40)
    switches: dict[str, bool | int | list[int] | str] = Field(default_factory=dict, max_length=80)
    hands: int = Field(default=8, description="8, 16 or 24 hands; 0 plays until 断筹 (L25)")
    friends: int = Field(default=0, ge=0, le=3, description="seats kept for friends besides yours")
    bot: str = Field(default="greedy", max_length=20)
    turn_seconds: int = Field(default=20, ge=0, le=600, description="0: no timer")
    help_allowed: bool = True
    pace: Literal["normal", "fast", "instant"] = Field(
        default="normal", description="how fast the bots move; with two or more people the claim pause holds at every pace")
    stand_in: Literal["discard", "full"] = Field(
        default="discard", description="托管: what an away person's stand-in plays: draws and discards only, or as a bot")
    spectators: bool = Field(default=False, description="friends may watch: public information only, one move behind")
    chat: bool = Field(default=False, description="free-text chat beside the fixed phrases and stickers")


class StartBody(_Strict):
    """Start now (the room's owner): ``bot``, the level of the bots that take the open seats;
    none: the room's own level."""

    bot: str | None = Field(default=None, max_length=20)


class SeatOut(BaseModel):
    player: int
    name: str | None
    bot: str | None
    mine: bool
    removed: bool = False  # removed from the table by the room's owner: a bot plays it


class RuleOut(BaseModel):
    """A house rule of a room that differs from its variant's defaults."""

    name: str
    rule: str
    value: bool | int | list[int] | str
    doc: str
    doc_zh: str


class RoomClubOut(BaseModel):
    """The club a room belongs to (its tables seat only its members): its code and name."""

    code: str
    name: str


class RoomOut(BaseModel):
    code: str
    link: str
    variant: str
    status: str
    hands: int
    turn_seconds: int
    help_allowed: bool
    seats: list[SeatOut]
    owner: bool
    pace: str = "normal"
    stand_in: str = "discard"  # what an away person's stand-in plays (托管): discard or full
    spectators: bool = False  # friends may watch (public information only, one move behind)
    chat: bool = False  # free-text chat at the table
    rules: list[RuleOut] = []  # the house rules changed from the variant's defaults
    damage: str | None = None  # status "damaged": why its stored moves cannot be replayed
    club: RoomClubOut | None = None  # a club's table: only its members take a seat


class MatchSummaryOut(BaseModel):
    code: str
    variant: str
    status: str
    created: str
    hands_played: int
    players: list[str | None]  # None: a seat still open (a waiting room; the pages say "open seat")
    chips: list[int]  # by player, as players
    me: int | None = None  # the asker's place in players and chips (the page marks it)


class FairHandOut(BaseModel):
    index: int
    commitment: str
    seed: str | None
    # caishen-fair-2: by seat, the contribution mixed in (hex) or why none (bot, none, timeout)
    contributions: list[str] = []


class ResultOut(BaseModel):
    code: str
    variant: str
    status: str
    players: list[str]
    standings: list[StandingView]
    hands: list[HandEndView]
    fairness: list[FairHandOut]
    match_end: MatchEndView | None = None  # once the match is over: why (every hand played, or who went broke)


class VerifyOut(BaseModel):
    ok: bool
    message: str


class ReplayFrameOut(BaseModel):
    step: int
    move: str | None
    seat: int | None
    view: TableView


class ReplayOut(BaseModel):
    code: str
    hand: int
    seat: int | None
    frames: list[ReplayFrameOut]
