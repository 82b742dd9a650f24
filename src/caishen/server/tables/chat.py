"""Free-text chat at a table (issue 30, table manners; docs/server.md, "Phrases, stickers and
chat"): off unless the room's owner turned it on. A line is cleaned here (spaces trimmed,
control and formatting characters dropped: a right-to-left override or a zero-width space
could make a line look like another person's), kept as plain text, and remembered: the table's
latest :data:`KEPT` lines go again to a page that connects, so a reconnect loses none."""

from __future__ import annotations

import unicodedata
from collections import deque
from typing import Final

from caishen.server.protocol import CHAT_CHARS, ChattedMessage, ProtocolError

KEPT: Final = 30  # lines a page that connects is told again
_JOINERS: Final = frozenset("\u200d")  # kept: the zero-width joiner of emoji sequences


def clean(text: str) -> str:
    """``text`` without control or formatting characters, runs of spaces made one, trimmed;
    refused (``empty_chat``) when nothing is left."""
    kept = "".join(" " if c.isspace() else c for c in text
                   if c in _JOINERS or c.isspace() or unicodedata.category(c) not in ("Cc", "Cf"))
    line = " ".join(kept.split())[:CHAT_CHARS]
    if not line:
        raise ProtocolError("empty_chat", "write something first")
    return line


class ChatLog:
    """A table's latest lines, numbered from 1 in the order the table took them."""

    __slots__ = ("lines", "count")

    def __init__(self) -> None:
        self.lines: deque[ChattedMessage] = deque(maxlen=KEPT)
        self.count = 0

    def add(self, seat: int, name: str, text: str) -> ChattedMessage:
        line = ChattedMessage(seat=seat, name=name, text=clean(text), at=self.count + 1)
        self.count += 1
        self.lines.append(line)
        return line

    def again(self) -> list[str]:
        """The kept lines as a page that connects is told them."""
        return [line.model_copy(update={"again": True}).model_dump_json() for line in self.lines]
