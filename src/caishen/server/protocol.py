"""The game centre's wire types (pydantic): REST bodies, WebSocket messages and table views.

Client messages are a tagged union on ``type`` (:data:`ClientMessage`), parsed by
:func:`parse_client_message` after a size check; anything else is rejected with an
:class:`ErrorMessage` and changes nothing. The server sends each seat a :class:`TableView`
built from that seat's own observation only (``caishen.server.core.table_view``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

MAX_MESSAGE_BYTES = 1024  # every client message fits in far less; bigger ones are refused


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------- client -> server


class ActMessage(_Strict):
    """Play ``action`` (record text, e.g. ``discard 5p``, ``pong 5p``, ``win``, ``pass``,
    ``declare_draw``) in the
    state the client saw: hand ``hand`` after ``step`` moves. A stale pair is refused (replays)."""

    type: Literal["act"]
    action: str = Field(max_length=40)
    hand: int = Field(ge=0)
    step: int = Field(ge=0)


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


ClientMessage = Annotated[
    ActMessage | NextMessage | BackMessage | HelpMessage | PingMessage, Field(discriminator="type")
]
_CLIENT: TypeAdapter[ActMessage | NextMessage | BackMessage | HelpMessage | PingMessage] = TypeAdapter(
    ClientMessage
)


class ProtocolError(ValueError):
    """A client message that is refused; ``code`` names why (``too_big``, ``bad_message``...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_client_message(text: str) -> ActMessage | NextMessage | BackMessage | HelpMessage | PingMessage:
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


# ---------------------------------------------------------------- server -> client


class ErrorMessage(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str


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


class HelpView(BaseModel):
    shanten: int
    waits: list[WaitView]


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


class PaymentView(BaseModel):
    """One payment of a Gangci hand (G2): ``amount`` from seat ``payer`` to seat ``payee``."""

    rule: str
    chinese: str
    english: str
    payer: int
    payee: int
    amount: int
    formula: str


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
    my_flowers: list[str]
    seats: list[SeatView]
    last_discard: str | None
    choices: list[ChoiceView]
    deadline_ms: int | None
    away: bool
    events: list[EventView]
    commitment: str
    hand_end: HandEndView | None
    match_over: bool
    standings: list[StandingView]
    help: HelpView | None
    help_allowed: bool


# ---------------------------------------------------------------- REST


class NameBody(_Strict):
    name: str = Field(min_length=1, max_length=24)


class MeOut(BaseModel):
    id: str | None
    name: str | None


class SwitchOut(BaseModel):
    name: str
    value: bool | int | list[int] | str
    rule: str
    doc: str
    doc_zh: str  # the lobby's Chinese explanation (caishen.server.switch_zh)
    group: str
    group_zh: str  # the group's title on a page in Chinese
    editable: bool
    allowed: str = ""
    choices: list[str] = []  # the values of a switch that takes one of several words (a select)


class VariantOut(BaseModel):
    name: str
    playable: bool
    note: str
    switches: list[SwitchOut]
    to_break: bool = True  # a room may play until 断筹 (Longgang's going broke, L25)


class RoomBody(_Strict):
    variant: str = Field(default="longgang", max_length=40)
    switches: dict[str, bool | int | list[int] | str] = Field(default_factory=dict, max_length=80)
    hands: int = Field(default=8, description="8, 16 or 24 hands; 0 plays until 断筹 (L25)")
    friends: int = Field(default=0, ge=0, le=3, description="seats kept for friends besides yours")
    bot: str = Field(default="greedy", max_length=20)
    turn_seconds: int = Field(default=20, ge=0, le=600, description="0: no timer")
    help_allowed: bool = True


class SeatOut(BaseModel):
    player: int
    name: str | None
    bot: str | None
    mine: bool


class RuleOut(BaseModel):
    """A house rule of a room that differs from its variant's defaults."""

    name: str
    rule: str
    value: bool | int | list[int] | str
    doc: str
    doc_zh: str


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
    rules: list[RuleOut] = []  # the house rules changed from the variant's defaults


class MatchSummaryOut(BaseModel):
    code: str
    variant: str
    status: str
    created: str
    hands_played: int
    players: list[str]
    chips: list[int]


class FairHandOut(BaseModel):
    index: int
    commitment: str
    seed: str | None


class ResultOut(BaseModel):
    code: str
    variant: str
    status: str
    players: list[str]
    standings: list[StandingView]
    hands: list[HandEndView]
    fairness: list[FairHandOut]


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
