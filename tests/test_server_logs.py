"""The game centre's log is one JSON object a line (caishen.server.logs), asyncio's own
messages included: a task that failed with nobody to hear it is told as one line whose
``error`` holds the traceback, not as loose lines a log collector would read one by one."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers_server import ROOT

_FAILING_TASK = """
import asyncio, gc
from caishen.server.logs import setup
setup()

async def fails() -> None:
    raise ValueError("nobody heard this")

async def main() -> None:
    task = asyncio.get_running_loop().create_task(fails())
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    del task
    gc.collect()  # the task is let go of: asyncio says its exception was never retrieved

asyncio.run(main())
"""


def test_a_task_that_failed_unheard_is_logged_as_one_json_line() -> None:
    run = subprocess.run([sys.executable, "-c", _FAILING_TASK], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(ROOT / "src")}, check=True)
    lines = run.stderr.splitlines()
    told = [json.loads(line) for line in lines]  # every line is one JSON object
    assert [(t["logger"], t["level"]) for t in told] == [("asyncio", "error")]
    assert told[0]["message"].startswith("Task exception was never retrieved")
    assert "Traceback (most recent call last)" in told[0]["error"]
    assert 'ValueError: nobody heard this' in told[0]["error"]


_UVICORN_ERROR = """
import logging
from caishen.server.logs import setup
from caishen.server.workers import uvicorn_config
setup()
uvicorn_config(object())  # as `caishen serve` builds uvicorn's settings, after the log's
try:
    raise RuntimeError("an ASGI application failed")
except RuntimeError:
    logging.getLogger("uvicorn.error").exception("Exception in ASGI application")
"""


def test_uvicorns_own_errors_stay_json_lines_after_its_settings_are_made() -> None:
    """uvicorn's settings configure logging unless told not to; the centre's own log setup
    comes first, and uvicorn's error log (an application's exception) stays one JSON line."""
    run = subprocess.run([sys.executable, "-c", _UVICORN_ERROR], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(ROOT / "src")}, check=True)
    told = [json.loads(line) for line in run.stderr.splitlines()]
    assert [(t["logger"], t["message"]) for t in told] == [("uvicorn.error", "Exception in ASGI application")]
    assert "RuntimeError: an ASGI application failed" in told[0]["error"]
