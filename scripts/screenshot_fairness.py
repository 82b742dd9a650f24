"""Take docs/screenshots/fairness.png: the fairness panel of a finished 8-hand match whose
person played from the table page (contributing randomness and signing every move) against
three greedy bots, after both checks: the browser's and the server's second opinion.

    python scripts/screenshot_fairness.py docs/screenshots/fairness.png
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from helpers_browser import bots_room, play_one  # noqa: E402
from helpers_server import ServerProcess  # noqa: E402


def main(out: Path) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="caishen-shot-"))
    server = ServerProcess(f"sqlite:///{tmp / 'centre.sqlite3'}", env={"CAISHEN_PACE_SCALE": "0"}).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_context(viewport={"width": 1100, "height": 900}, locale="en-US").new_page()
            page.goto(server.base + "/")
            page.evaluate("localStorage.setItem('caishen.lang', 'en')")
            page.goto(server.base + "/")
            page.wait_for_selector("body[data-ready]", state="attached")
            code = bots_room(page, server.base)
            page.goto(server.base + f"/r/{code}")
            page.wait_for_selector("[data-testid=myhand] .tile")
            deadline = time.monotonic() + 900
            status = ""
            while status != "over":
                if time.monotonic() > deadline:
                    raise SystemExit("the match did not end within 15 minutes")
                status = page.evaluate(f"fetch('/api/matches/{code}').then((r) => r.json()).then((j) => j.status)")
                nxt = page.locator("[data-testid=next-hand]")
                if nxt.count() and nxt.first.is_visible():
                    try:
                        nxt.first.click(timeout=2000)
                    except PlaywrightError:
                        pass  # the next hand came first
                elif not play_one(page, wait=False):
                    page.wait_for_timeout(100)
            page.goto(server.base + f"/m/{code}")
            page.wait_for_selector("[data-testid=browser-verify][data-ok]", timeout=60000)
            page.click("[data-testid=verify]")
            page.wait_for_function("(document.querySelector('[data-testid=verify-result]').textContent || '').length > 5",
                                   timeout=60000)
            page.locator("#fairness").screenshot(path=str(out))
            browser.close()
    finally:
        server.stop()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots/fairness.png")))
