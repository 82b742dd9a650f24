"""Profiles' messages: the answers, and :class:`ProfileError`, the refusal of any profile
request (answered by the app's one handler of ``ApiError``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from caishen.server.protocol import ApiError


class ProfileError(ApiError):
    """A refused profile request (answered by the app's handler of :class:`ApiError`)."""

    code = "profile"


def no_profile() -> ProfileError:
    """The one answer to an unknown id and to another person's guest profile."""
    return ProfileError("no such profile (a guest's profile is shown to the guest only)", code="no_profile",
                        status=404)


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class VariantStatsOut(_Out):
    """One variant's part of a profile (chips of different variants are not alike: Gangci
    pays in hundreds)."""

    variant: str
    matches: int
    hands: int
    wins: int
    chips: int


class StatsOut(_Out):
    """A person's record. ``matches``: matches started with them at the table (``finished``:
    of those, over); ``hands``: hands finished; ``wins``: hands they won; ``win_rate``: wins
    per hand; ``chips``: the sum of their chips won or lost in those hands' settlements (the
    table fee 头钱 and loans are not a hand's); ``chips_per_hand``: that per hand. None where
    there is no hand. ``favourite_variant``: the one of most matches (then most hands, then
    the latest)."""

    matches: int
    finished: int
    hands: int
    wins: int
    win_rate: float | None
    chips: int
    chips_per_hand: float | None
    favourite_variant: str | None
    variants: list[VariantStatsOut]


class ProfileOut(_Out):
    """A profile: ``account`` whether the person has one (else a guest), ``mine`` whether it is
    yours, ``deleted`` an account deleted (``name`` is then "deleted player" and ``stats`` None)."""

    id: str
    name: str
    account: bool
    mine: bool
    deleted: bool
    stats: StatsOut | None


class RecentPlayerOut(_Out):
    """A person you played with: their name now; ``profile`` their profile's id if you may open
    it (an account), else None; your last match together (its code: you sat there), its
    variant, hands and when it was made (UTC, ISO)."""

    name: str
    profile: str | None
    last_match: str
    variant: str
    hands: int
    when: str
