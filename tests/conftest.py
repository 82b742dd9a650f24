"""Shared test helpers: the ``decision`` fixture, and a signing key made for the test session
(commands that sign records never touch the user's own key)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from caishen.engine.actions import Action
from caishen.engine.observation import Observation, Phase
from caishen.hand import Hand


def decision_with(legal: Sequence[Action], seat: int = 0) -> Observation:
    """A bare observation holding only ``legal`` as its legal actions (for players tested on
    their choice alone)."""
    return Observation(
        seat=seat, dealer=0, dice=(1, 1, 1, 1), indicator=None, wilds=frozenset(), phase=Phase.TURN,
        current=seat, to_move=(seat,), hand=Hand((), (), ()), melds=(), flowers=(), discards=(),
        last_discard=None, concealed_counts=(), live_tiles=0, sea_floor_tiles=0, dead_wall_tiles=0,
        legal_actions=tuple(legal),
    )


@pytest.fixture
def decision() -> Callable[..., Observation]:
    return decision_with


@pytest.fixture(autouse=True, scope="session")
def _signing_key_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("key") / "signing-key.pem"
    mp = pytest.MonkeyPatch()
    mp.setenv("CAISHEN_KEY", str(path))
    yield path
    mp.undo()


@pytest.fixture(autouse=True, scope="session")
def _no_pace_waits() -> Iterator[None]:
    """Tables play their bots' moves and claim pauses as timer events, in order, without the
    wall-clock waits (``CAISHEN_PACE_SCALE=0``; servers started as subprocesses inherit it).
    The tests of the pace itself set their own scale."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CAISHEN_PACE_SCALE", "0")
    yield
    mp.undo()


CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One Chromium (Debian's, driven by Playwright) for every browser test of the session:
    Playwright's sync API runs one instance per thread, so a module's own second instance
    would fail ("using Playwright Sync API inside the asyncio loop")."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test that ran against a ``caishen serve`` subprocess (any fixture holding a
    ``ServerProcess``) reports the end of that server's standard error beside its own output:
    what the server said while the test waited in vain."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not report.failed:
        return
    from helpers_server import ServerProcess  # noqa: PLC0415 - only when a test failed

    for name, value in getattr(item, "funcargs", {}).items():
        if isinstance(value, ServerProcess):
            report.sections.append((f"the server's log ({name}, last 6000 characters)", value.log()[-6000:] or "(empty)"))
