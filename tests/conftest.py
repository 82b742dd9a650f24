"""Shared test helpers: the ``decision`` fixture, and a signing key made for the test session
(commands that sign records never touch the user's own key)."""

from __future__ import annotations

import contextlib
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


@pytest.fixture(autouse=True)
def _one_loop_per_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Starlette test client of one app sends its requests and sockets through the event
    loop of the first of them that was entered (``with TestClient(app) as ann``), as in the
    server, where one loop runs every table. Without this each entered client runs a loop of
    its own, and two people's sockets at one table take its asyncio lock from two loops: the
    lock then refuses the second ("bound to a different event loop"), now and then, when the
    two happen to wait for it at once (CI of stop 37: ``test_chat_is_off_unless_...``). A
    client given a portal of its own (``bob.portal = ann.portal``) keeps it; a client never
    entered, of an app no client was entered for, opens a loop per request or socket, as
    Starlette does."""
    try:
        from starlette import testclient  # noqa: PLC0415 - only where the server's tests run
    except ImportError:
        return
    first: dict[int, object] = {}  # id(app) -> the portal of its first entered client still open
    enter, portal_factory = testclient.TestClient.__enter__, testclient.TestClient._portal_factory

    def entered(self: testclient.TestClient) -> testclient.TestClient:
        client = enter(self)
        key, mine = id(self.app), self.portal
        first.setdefault(key, mine)

        def forget() -> None:
            if first.get(key) is mine:
                del first[key]

        self.exit_stack.callback(forget)  # runs first on leaving: before the client's loop stops
        return client

    @contextlib.contextmanager
    def shared(self: testclient.TestClient) -> Iterator[object]:
        own = first.get(id(self.app))
        if own is not None:
            yield own
        else:
            with portal_factory(self) as portal:
                yield portal

    monkeypatch.setattr(testclient.TestClient, "__enter__", entered)
    monkeypatch.setattr(testclient.TestClient, "_portal_factory", shared)
