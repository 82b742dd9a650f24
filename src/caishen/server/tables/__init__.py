"""The live tables (docs/server.md, "How a move travels"): the part of the server that plays.

- :mod:`.live`: one :class:`LiveTable` per playing room, owning its match session: moves,
  the claim pause, the bots' pace, 托管, the turn timer, what each page is told and when, the
  database's outages, phrases and stickers, the same-address warning;
- :mod:`.chat`: a room's free-text chat;
- :mod:`.votes`: a table's votes, dismiss the room (解散房间) and pause the game;
- :mod:`.watchers`: the spectators of a table (观战): the public view, one state behind;
- :mod:`.registry`: the tables a process runs (:class:`Tables`): opening,
  resuming, the sweep, damaged rooms.

The node layer (:mod:`caishen.server.nodes`) runs these tables on several processes and
machines; the app joins each page's WebSocket to its table.
"""

from caishen.server.tables.live import (
    EVICT_SECONDS,
    STORAGE_LOST,
    SWEEP_SECONDS,
    TAKEOVER_SECONDS,
    UNOPENED_HOURS,
    Client,
    LiveTable,
    address_token,
    rebuild,
)
from caishen.server.tables.registry import Tables

__all__ = ["EVICT_SECONDS", "STORAGE_LOST", "SWEEP_SECONDS", "TAKEOVER_SECONDS", "UNOPENED_HOURS", "Client",
           "LiveTable", "Tables", "address_token", "rebuild"]
