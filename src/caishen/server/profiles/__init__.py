"""Profiles and recent players (issue 30, item 4). docs/server.md, "Profiles and share cards".

- ``GET /profile/ID`` (``/profile/me``: yours): the profile page;
- ``GET /api/players/ID/profile`` (``me``: yours): matches, hands, wins, win rate, chips per
  hand and the favourite variant, counted from the stored hand records;
- ``GET /api/my/recent-players``: the people you last played with (no bots), most recent first;
- ``GET /api/matches/CODE/profiles``: for each player of a match, their profile's id where
  you may open it (None: a bot, a guest, a deleted account).

What is public: the profile of a person with an **account** (anyone with its link); a
**guest**'s profile only to the guest (to anyone else it is "no such profile", the same answer
as an unknown id); a **deleted** account's is "deleted player" with nothing else. A profile
shows counts only, never a room code (a code opens the match's pages).

Every refusal is a :class:`ProfileError` answered as ``{"detail", "code"}``, never a 500.
The share card of a match is drawn by the result page itself (static/sharecard.js).
"""

from caishen.server.profiles.routes import install

__all__ = ["install"]
