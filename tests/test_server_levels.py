"""The game centre offers the bot levels its operator lists (issue 32, item 1):
``caishen serve --players`` / ``$CAISHEN_PLAYERS`` add ``level=module:Class`` players."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from caishen.cli import main
from caishen.server import core
from caishen.server.app import create_app
from caishen.variants.longgang.rules import LONGGANG
from helpers_server import database

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
TSUMO = "helpers_players:Tsumogiri"


@pytest.fixture
def levels(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(core.PLAYERS_ENV, f"tsumo={TSUMO}")
    yield


def test_parse_levels() -> None:
    assert core.parse_levels(f" tsumo={TSUMO} , ,") == {"tsumo": TSUMO}
    for spec, message in [
        ("greedy=helpers_players:Tsumogiri", "bot level 'greedy' is listed twice or is built in"),
        ("learned=helpers_players:Tsumogiri", "bot level 'learned' is listed twice or is built in"),
        (f"a={TSUMO},a={TSUMO}", "bot level 'a' is listed twice"),
        ("x y=helpers_players:Tsumogiri", "bot level 'x y': 1-20 letters"),
        ("ppo", "bot level 'ppo': unknown bot 'ppo'"),
        ("p=helpers_players:Nope", "bot level 'p': player 'helpers_players:Nope': 'helpers_players' has no 'Nope'"),
    ]:
        with pytest.raises(core.RoomError) as exc:
            core.parse_levels(spec)
        assert str(exc.value).startswith(message)


def test_operator_levels_seat_their_players(levels: None) -> None:
    assert core.bot_levels() == ("random", "greedy", "strong", "learned", "tsumo")
    core.check_bot("tsumo")
    with pytest.raises(core.RoomError, match="unknown bot level 'ppo' .levels: random, greedy, strong, learned, tsumo."):
        core.check_bot("ppo")
    session = core.new_session(LONGGANG, [None, "tsumo", "greedy", "tsumo"], b"s" * 32, ["me", "t1", "g", "t2"])
    kinds = [type(p).__name__ for p in session.bots]
    assert kinds == ["NoneType", "Tsumogiri", "GreedyBot", "Tsumogiri"]


def test_lobby_lists_and_accepts_the_operator_levels(levels: None, tmp_path: Path) -> None:
    with database("sqlite", tmp_path) as url, TestClient(create_app(url)) as c:
        assert c.get("/api/bot-levels").json() == ["random", "greedy", "strong", "learned", "tsumo"]
        assert c.post("/api/me", json={"name": "Op"}).status_code == 200
        assert c.post("/api/rooms", json={"variant": "longgang", "bot": "tsumo"}).status_code == 200
        bad = c.post("/api/rooms", json={"variant": "longgang", "bot": "ppo"})
        assert bad.status_code == 422 and "unknown bot level 'ppo'" in bad.text


def test_serve_refuses_a_bad_level_in_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(core.PLAYERS_ENV, "")  # restored after the test: serve sets it
    assert main(["serve", "--players", "ppo=nowhere_x:P", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bot level 'ppo': player 'nowhere_x:P': cannot import 'nowhere_x'" in err


def test_the_learned_level_is_offered_and_seats_only_in_longgang(tmp_path: Path) -> None:
    """``learned`` ships with the package (issue 32, item 8): offered in every lobby, it seats in
    a Longgang room; a Luoyang Gangci room with it is refused when it is made, in one clear line
    (a table never fails to seat its bots), and so is starting one early with it."""
    with database("sqlite", tmp_path) as url, TestClient(create_app(url)) as c:
        assert "learned" in c.get("/api/bot-levels").json()
        offered = {v["name"]: v["bots"] for v in c.get("/api/variants").json()}  # what the lobby offers
        assert "learned" in offered["longgang"] and "learned" not in offered["luoyang-gangci"]
        assert {"random", "greedy", "strong"} <= set(offered["luoyang-gangci"])
        assert c.post("/api/me", json={"name": "Lu"}).status_code == 200
        room = c.post("/api/rooms", json={"variant": "longgang", "bot": "learned"})
        assert room.status_code == 200 and room.json()["status"] == "playing"
        assert [s["bot"] for s in room.json()["seats"] if s["bot"]] == ["learned"] * 3
        bad = c.post("/api/rooms", json={"variant": "luoyang-gangci", "bot": "learned"})
        assert bad.status_code == 422 and "plays Longgang only" in bad.text
        waiting = c.post("/api/rooms", json={"variant": "luoyang-gangci", "friends": 1}).json()["code"]
        early = c.post(f"/api/rooms/{waiting}/start", json={"bot": "learned"})
        assert early.status_code == 422 and "plays Longgang only" in early.text
