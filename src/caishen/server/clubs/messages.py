"""The clubs' messages: request bodies (strict: an unknown field is refused) and answers, and
:class:`ClubError`, every refusal with its code and HTTP status."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from caishen.server.protocol import ApiError, RoomBody

Role = Literal["owner", "admin", "member", "pending", "declined", "blacklisted"]  # declined: an admin said no to the request


class ClubError(ApiError):
    """A refused club request (answered by the app's handler of :class:`ApiError`)."""

    code = "club"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewClubBody(_Strict):
    name: str = Field(min_length=1, max_length=40)
    approval: bool = False  # joining by the code needs an admin's yes


class ClubSettingsBody(_Strict):
    """The owner's settings: approval, and the season's dates (both None: the calendar month)."""

    approval: bool | None = None
    season_start: date | None = Field(default=None, strict=False)
    season_end: date | None = Field(default=None, strict=False)
    calendar_month: bool = False  # True: forget the dates, the season is the calendar month again


class RoleBody(_Strict):
    role: Literal["admin", "member"]


class TemplateBody(_Strict):
    name: str = Field(min_length=1, max_length=40)
    options: RoomBody


class OpenTableBody(_Strict):
    template: str = Field(min_length=1, max_length=40)
    # seats kept for members besides the opener's; None: the template's. The other seats get bots.
    friends: int | None = Field(default=None, ge=0, le=3)


class ClubOut(BaseModel):
    """A club as anyone with its code sees it (the invite page), and your role in it."""

    code: str
    name: str
    link: str
    approval: bool
    members: int
    role: Role | None
    owner: str = ""  # the owner's name, so an invite says whose club it is
    ask_again_at: str | None = None  # declined: when the person may ask again (UTC, ISO)


class MyClubOut(BaseModel):
    code: str
    name: str
    role: Role
    members: int


class MemberOut(BaseModel):
    id: str
    name: str
    role: Role
    online: bool  # had the club's page open in the last ONLINE_SECONDS
    playing: str | None  # the code of the club's table they sit at, if a match there is on


class TemplateOut(BaseModel):
    name: str
    options: RoomBody


class TableOut(BaseModel):
    code: str
    template: str | None
    variant: str
    status: str
    players: list[str | None]  # None: a seat open for a member
    hands: int


class MatchOut(BaseModel):
    code: str
    template: str | None
    variant: str
    status: str
    created: str
    players: list[str]
    chips: list[int]  # the final chips once over, else empty


class ClubViewOut(BaseModel):
    """The club page: for its members only."""

    club: ClubOut
    members: list[MemberOut]
    requests: list[MemberOut]  # asking to join (for admins; empty for the others)
    declined: list[MemberOut] = []  # requests declined in the last day (for admins, who may undo it)
    blacklist: list[MemberOut]  # (for admins; empty for the others)
    templates: list[TemplateOut]
    tables: list[TableOut]
    matches: list[MatchOut]
    season_start: date
    season_end: date
    season_set: bool  # the owner set the dates (else: the calendar month)


class LeaderOut(BaseModel):
    """One person's season: totals and per hand."""

    id: str
    name: str
    matches: int
    hands: int
    wins: int
    chips: int
    wins_per_hand: float
    chips_per_hand: float


class LeaderboardOut(BaseModel):
    season_start: date
    season_end: date
    rows: list[LeaderOut]
