"""Clubs 亲友圈 (issue 30, item 2): a club with an invite code, its members and their roles
(owner, admins, members; requests to join, a blacklist), its rule templates, its tables (for
members only) and a season's leaderboard. docs/server.md, "Clubs".

- :mod:`.messages`: the requests and answers, and :class:`~.messages.ClubError`;
- :mod:`.store`: the store queries (tables ``clubs``, ``club_members``, ``club_templates``,
  ``club_rooms``: migration 0010);
- :mod:`.routes`: the pages and ``/api/clubs/...``, every action checked against the role.
"""

from __future__ import annotations

from caishen.server.clubs.routes import check_seat, install, recheck_seat, room_club

__all__ = ["check_seat", "install", "recheck_seat", "room_club"]
