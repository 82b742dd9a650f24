"""Profiles' routes: the profile page and its API, recent players, a match's players' profiles
(docs/server.md, "Profiles and share cards")."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path as PathLib
from typing import Annotated

from fastapi import FastAPI, Path, Request
from fastapi.responses import FileResponse

from caishen.server.profiles.counting import count, stats_of
from caishen.server.profiles.messages import ProfileError, ProfileOut, RecentPlayerOut, no_profile
from caishen.server.profiles.store import DELETED_NAME, ProfileStore
from caishen.server.protocol import signed_in
from caishen.server.store import Store

STATIC = PathLib(__file__).resolve().parent.parent / "static"
ME = "me"  # /profile/me, /api/players/me/profile: the person the cookie names
_ID = r"^[A-Za-z0-9_-]{1,40}$"
_CODE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def install(app: FastAPI, store: Store, uid_of: Callable[[Request], str | None]) -> ProfileStore:
    """Add the profile routes and page to ``app``; ``uid_of``: the person a request's cookie
    names (``caishen.server.app``)."""
    profiles = ProfileStore(store.engine)


    @app.get("/profile/{pid}", include_in_schema=False)
    def profile_page(pid: str) -> FileResponse:
        return FileResponse(STATIC / "profile.html", media_type="text/html")

    @app.get("/api/players/{pid}/profile")
    def get_profile(request: Request, pid: Annotated[str, Path(pattern=_ID)]) -> ProfileOut:
        """A person's profile (``me``: yours). An account's is public; a guest's is shown to
        the guest only (``no_profile`` to anyone else, as for an unknown id); a deleted
        account's says "deleted player" and nothing more."""
        viewer = uid_of(request)
        uid = signed_in(uid_of(request)) if pid == ME else pid
        person = profiles.person(uid)
        if person is None:
            raise no_profile()
        mine = uid == viewer
        if person.deleted:
            return ProfileOut(id=uid, name=DELETED_NAME, account=False, mine=mine, deleted=True, stats=None)
        if not person.account and not mine:
            raise no_profile()
        stats = stats_of(count(profiles.seats(uid), profiles.hands(uid)))
        return ProfileOut(id=uid, name=person.name, account=person.account, mine=mine, deleted=False, stats=stats)

    @app.get("/api/my/recent-players")
    def recent_players(request: Request) -> list[RecentPlayerOut]:
        """The people you last played with (bots and deleted accounts left out), the most
        recent first, each with your last match together: to invite them again."""
        uid = signed_in(uid_of(request))
        return [RecentPlayerOut(name=r.name, profile=r.user if r.account else None, last_match=r.code,
                                variant=r.variant, hands=r.hands, when=r.created.isoformat(timespec="seconds") + "Z")
                for r in profiles.recent(uid)]

    @app.get("/api/matches/{code}/profiles")
    def match_profiles(request: Request, code: str) -> list[str | None]:
        """For each player of the match (in the order of ``players``): their profile's id where
        you may open it (an account's, or yours), else None (a bot, a guest, a deleted account)."""
        room = store.room(code) if _CODE.match(code) else None
        if room is None:
            raise ProfileError("no such room", code="no_room", status=404)
        viewer = uid_of(request)
        users = [p.user for p in room.players]
        public = profiles.with_accounts(u for u in users if u is not None)
        return [u if u is not None and (u in public or u == viewer) else None for u in users]

    app.state.profiles = profiles
    return profiles
