"""The screenshot of the table in docs/screenshots/terminal.svg, and a fix for wide characters.

``python -m caishen.terminal.screenshot docs/screenshots/terminal.svg`` plays the seeded
opening of a match on the suggested moves with Textual's test driver (80x24), turns the learner
help on and saves the screen as SVG (Textual's screenshot export).

rich writes each run of text with ``textLength`` = characters × cell width, so a run of Chinese
characters (2 cells each) is squeezed into half its width in the SVG (rich issue #2742; terminals
are not affected). :func:`fix_wide_text` sets ``textLength`` from the display width.
"""

from __future__ import annotations

import asyncio
import html
import re
import sys
import tempfile
from pathlib import Path

from rich.cells import cell_len

from caishen.terminal.app import PlayApp, ScoreScreen
from caishen.terminal.core import load_ruleset, seed_from_text
from caishen.terminal.model import PlayState, Settings

_TEXT = re.compile(r'(<text\b[^>]*?textLength=")([0-9.]+)("[^>]*>)([^<]*)(</text>)')


def fix_wide_text(svg: str) -> str:
    """``textLength`` of every text run made proportional to its width in cells."""

    def fix(m: re.Match[str]) -> str:
        text = html.unescape(m.group(4))
        chars = len(text)
        if not chars:
            return m.group(0)
        per_char = float(m.group(2)) / chars
        return f"{m.group(1)}{per_char * cell_len(text):g}{m.group(3)}{m.group(4)}{m.group(5)}"

    return _TEXT.sub(fix, svg)


async def _shoot(out: Path, seed: str, moves: int) -> None:
    ruleset = load_ruleset("longgang").replace(hands_per_match=4)
    state = PlayState.new(Settings(ruleset, ("strong", "strong", "greedy"), seed_from_text(seed)))
    with tempfile.TemporaryDirectory() as tmp:
        app = PlayApp(state, Path(tmp) / "shot.json")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for _ in range(moves):
                if isinstance(app.screen, ScoreScreen) or not state.my_move:
                    break
                await pilot.press("g")
                await pilot.pause()
            await pilot.press("h", "right", "right")
            await pilot.pause()
            svg = app.export_screenshot(title="caishen play")
    out.write_text(fix_wide_text(svg), encoding="utf-8")


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("docs/screenshots/terminal.svg")
    asyncio.run(_shoot(out, argv[1] if len(argv) > 1 else "13", int(argv[2]) if len(argv) > 2 else 9))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
