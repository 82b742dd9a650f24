"""The game centre's log: one JSON object a line (``time``, ``level``, ``event``, ``message``,
and the ``room`` code where there is one), on standard error, for a log collector to read.

Log with ``log.warning(message, extra=fields(event="storage_lost", room=code, ...))``.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Final

log: Final = logging.getLogger("caishen.server")

_FIELDS: Final = "caishen_fields"


def fields(**values: object) -> dict[str, object]:
    """The ``extra`` of a log call: the values that go into the line's object besides the message."""
    return {_FIELDS: values}


def error_line(exc: BaseException) -> str:
    """An error as a log line or a refusal gives it: its message's first line, else its type's name."""
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


class JsonLines(logging.Formatter):
    """A log record as one JSON object on one line."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        out.update(getattr(record, _FIELDS, {}))
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def setup(level: int = logging.INFO) -> None:
    """Send the centre's log (and uvicorn's) to standard error as JSON lines; once per process."""
    if any(isinstance(h.formatter, JsonLines) for h in log.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    # (asyncio's own: a task that failed with nobody to hear it, a callback that raised)
    for name in ("caishen.server", "uvicorn.error", "asyncio"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level)
        logger.propagate = False
