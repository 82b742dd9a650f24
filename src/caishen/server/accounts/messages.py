"""Accounts' messages: the request bodies and answers, and :class:`AccountError`, the
refusal of any account request (answered by the app's one handler of ``ApiError``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from caishen.server.protocol import ApiError

LOGIN_MIN, LOGIN_MAX = 3, 32  # the bounds a body is checked against
PASSWORD_MIN, PASSWORD_MAX = 8, 256


class AccountError(ApiError):
    """A refused account request (answered by the app's handler of :class:`ApiError`)."""

    code = "account"


def bad_login() -> AccountError:
    """The one answer to a wrong login name and to a wrong password."""
    return AccountError("wrong login name or password", code="bad_login", status=401)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClaimBody(_Strict):
    login: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)
    name: str | None = Field(default=None, max_length=24)  # the display name, when there is no guest yet


class LoginBody(_Strict):
    login: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class PasswordBody(_Strict):
    old: str = Field(min_length=1, max_length=PASSWORD_MAX)
    new: str = Field(min_length=1, max_length=PASSWORD_MAX)


class DeleteBody(_Strict):
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class AccountOut(BaseModel):
    """You: the person (``id``, ``name``; None with no cookie) and the login name if claimed."""

    id: str | None
    name: str | None
    login: str | None


class SessionOut(BaseModel):
    """One signed-in browser of yours: ``id`` is a handle (not the cookie's secret)."""

    id: str
    created: str
    last_used: str
    current: bool


class EndedOut(BaseModel):
    """How many sessions a request ended."""

    sessions: int
