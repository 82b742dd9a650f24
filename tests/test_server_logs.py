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
