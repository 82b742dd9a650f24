"""caishen play: the Textual app driven by key presses (Pilot), saving and resuming, the
line mode (--plain), and wrong input that must never crash."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from caishen.cli import main
from caishen.engine.game import ActionKind, Phase
from caishen.table.record import load
from caishen.table.replay import verify
from caishen.terminal.app import PlayApp, ScoreScreen
from caishen.terminal.core import seed_from_text, tile_name
from caishen.terminal.model import PlayState, Settings
from caishen.terminal.plain import run_plain
from caishen.terminal.screenshot import fix_wide_text
from caishen.variants.longgang.rules import LONGGANG

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _state(seed: str = "1", hands: int = 1) -> PlayState:
    return PlayState.new(Settings(LONGGANG.replace(hands_per_match=hands), ("strong", "strong", "greedy"),
                                  seed_from_text(seed)))


def _keys_for(app: PlayApp) -> list[str]:
    """The key presses that play the suggested move the way a person would: type the tile and
    Enter for a discard, w to win, x to pass, the menu number on a claim, ↑ then → to a
    kong on one's own turn."""
    st = app.state
    a = st.suggest()
    if a.kind is ActionKind.DISCARD:
        return [*tile_name(a.tile), "enter"]
    if a.kind is ActionKind.WIN:
        return ["w"]
    if a.kind is ActionKind.PASS:
        return ["x"]
    menu = app.menu_actions()
    i = menu.index(a)
    if st.observation().phase is Phase.TURN:
        return ["up", *(["right"] * i), "enter"]
    return [str(i + 1)]


async def _play_keys(app: PlayApp, pilot, limit: int) -> int:  # type: ignore[no-untyped-def]
    """Press keys for the person's moves until the score screen shows or ``limit`` moves."""
    moves = 0
    while moves < limit and not isinstance(app.screen, ScoreScreen):
        assert app.state.my_move
        drawn = app.state.drawn()
        if drawn is not None:  # the tile just drawn stands apart, last in the hand
            assert app.hand_targets()[-1].tile == drawn
        before = len(app.state.session.moves)
        await pilot.press(*_keys_for(app))
        await pilot.pause()
        assert len(app.state.session.moves) > before  # the keys made exactly the move meant
        moves += 1
    return moves


def test_keys_play_a_whole_hand_save_resume_and_verify(tmp_path: Path) -> None:
    save = tmp_path / "match.json"

    async def first_part() -> list:  # type: ignore[type-arg]
        app = PlayApp(_state("1"), save)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("h")  # learner help on
            await pilot.pause()
            learn = str(app.query_one("#learn").render())
            assert "shanten 向听" in learn and "suggested (g): discard" in learn
            assert await _play_keys(app, pilot, 4) == 4
            moves = list(app.state.session.moves)
            await pilot.press("q")  # quitting saves the hand in play
            await pilot.pause()
        return moves

    moves = asyncio.run(first_part())
    data = json.loads(save.read_text())
    assert data["play"]["moves"] == [[m.seat, a] for m, a in zip(moves, [x[1] for x in data["play"]["moves"]], strict=True)]
    resumed = PlayState.load(save)
    assert resumed.session.moves == moves  # the same state: the same moves, the same view
    again = _state("1")
    for m in moves:
        if m.seat == again.me and again.my_move:
            again.act(m.action)
    assert resumed.observation() == again.observation()

    async def second_part() -> tuple[ScoreScreen, int | None]:
        app = PlayApp(resumed, save)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await _play_keys(app, pilot, 200)
            screen = app.screen
            assert isinstance(screen, ScoreScreen)
            await pilot.press("enter")  # the only hand: the match is over, the app ends
            await pilot.pause()
        return screen, app.return_code

    screen, code = asyncio.run(second_part())
    assert code == 0
    summary = screen.summary
    assert summary.headline.startswith("hand 1: ")
    if "wins" in summary.headline:
        assert summary.rows and summary.rows[-1].item.startswith("牌面胡数")
        assert summary.total.startswith("total ")
    assert sum(c for _, _, _, c in summary.seats) == 0
    record = load(save)
    assert len(record.hands) == 1 and record.result["over"]
    assert verify(record).hands == 1


def test_wrong_keys_and_wrong_tiles_never_crash(tmp_path: Path) -> None:
    rng = random.Random(5)
    pool = ["z", "9", "a", "0", "f", "5", "1", "m", "p", "left", "right", "up", "down", "enter", "tab",
            "escape", "t", "h", "question_mark", "backspace", "8", "s", "7", "k", "delete", "home"]

    async def go() -> None:
        app = PlayApp(_state("2", hands=2), tmp_path / "m.json")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("9", "z")  # 9z is no tile: a message, no move
            await pilot.pause()
            assert "not a tile" in app.message
            assert app.state.session.moves == [] or app.state.session.moves[-1].seat != app.state.me
            await pilot.press(*(rng.choice(pool) for _ in range(80)))
            await pilot.pause()
            assert app.is_running
            app.state.save(tmp_path / "m.json")

    asyncio.run(go())
    # whatever was played is a legal, verifiable record
    data = PlayState.load(tmp_path / "m.json")
    assert data.session.hand_index in (0, 1)


def test_plain_mode_reports_bad_input_in_one_line_and_saves_at_end_of_input(tmp_path: Path) -> None:
    state = _state("3")
    lines = iter(["discard 9z", "hello", "pong 5p", "", ""])
    out = io.StringIO()
    code = run_plain(state, tmp_path / "p.json", lambda: next(lines, None), out)
    text = out.getvalue()
    assert code == 0
    errors = [ln for ln in text.splitlines() if ln.startswith("> error: ")]
    assert len(errors) == 3
    assert "9z" in errors[0] and "not legal" in errors[2]
    saved = PlayState.load(tmp_path / "p.json")
    assert saved.session.moves == state.session.moves


def test_plain_pipe_plays_a_hand_on_suggested_moves(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC, "XDG_STATE_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "caishen.cli", "play", "--plain", "--seed", "19", "--hands", "1"],
        input="\n" * 400, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # seed 19: West wins on North's 7s; the itemised score: an exposed pong of South winds 4 fu,
    # a guest flower 4 fu
    assert "hand 1: W strong-2 wins on a discard 食胡 on 7s from N greedy-3" in out
    assert "L20.3   客花 春 guest flower f1" in out
    assert "total 30 = (8 + 20) × 2^0 = 28" in out
    assert "match over. standings:" in out
    saved = tmp_path / "caishen" / "play.json"
    assert verify(load(saved)).hands == 1
    # the finished match is signed by this table's key (issue 13 item 4)
    key = subprocess.run([sys.executable, "-m", "caishen.cli", "keys", "show"], capture_output=True, text=True,
                         env=env, timeout=60).stdout.split()[-1]
    ok = subprocess.run([sys.executable, "-m", "caishen.cli", "verify", "--key", key, str(saved)],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0 and "OK" in ok.stdout, ok.stderr
    assert json.loads(saved.read_text(encoding="utf-8"))["signature"]["key"] == key


def test_demo_plays_the_match_and_exits_0(tmp_path: Path) -> None:
    async def go() -> int | None:
        app = PlayApp(_state("4", hands=2), tmp_path / "d.json", demo=True, delay=0.0)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(2000):
                if not app.is_running:
                    break
                await pilot.pause()
        return app.return_code

    assert asyncio.run(go()) == 0
    assert verify(load(tmp_path / "d.json")).hands == 2  # the score screen closed, the next hand dealt


def test_screenshot_fix_gives_wide_characters_two_cells() -> None:
    svg = '<text class="r1" x="0" y="20" textLength="24.4" clip-path="url(#c)">八筒</text>' \
          '<text class="r2" x="48.8" y="20" textLength="36.6" clip-path="url(#c)">&#160;5p</text>'
    fixed = fix_wide_text(svg)
    assert 'textLength="48.8"' in fixed  # 2 characters, 4 cells
    assert 'textLength="36.6"' in fixed  # narrow text unchanged


@pytest.mark.parametrize("args, message", [
    (["--bots", "foo,strong,greedy"], "unknown bot 'foo'"),
    (["--bots", "strong"], "--bots needs 3 bots"),
    (["--variant", "luoyang-gangci", "--hands", "3"],
     "--hands 3: a Luoyang Gangci 洛阳杠次 match is 8, 16 or 24 hands (G8.2); give --hands one of those"),
    (["--variant", "longgang", "--ruleset", "luoyang-gangci"], "luoyang-gangci: a luoyang-gangci preset, not longgang"),
    (["--variant", "riichi"], "unknown variant 'riichi'"),
    (["--hands", "0"], "--hands 0: a Longgang mahjong 龙港麻将 match is 1 to 10000 hands"),
])
def test_wrong_options_give_one_line_and_status_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--plain", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_plain_resume_continues_a_saved_hand_to_a_verified_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "m.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n\n"))  # three suggested moves, then end of input
    assert main(["play", "--seed", "9", "--hands", "1", "--record", str(save)]) == 0  # stdin not a tty: line mode
    moves = len(json.loads(save.read_text())["play"]["moves"])
    assert moves >= 3
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 400))
    assert main(["play", "--resume", str(save)]) == 0
    out = capsys.readouterr().out
    assert "match over. standings:" in out
    assert verify(load(save)).hands == 1


def test_ctrl_c_saves_and_quits(tmp_path: Path) -> None:
    async def go() -> int | None:
        app = PlayApp(_state("6"), tmp_path / "c.json")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("ctrl+c")
            await pilot.pause()
        return app.return_code

    assert asyncio.run(go()) == 0
    assert PlayState.load(tmp_path / "c.json").session.hand_index == 0


def test_plain_mode_declares_a_draw_where_the_rules_allow_it_l17(tmp_path: Path) -> None:
    """九么九和 on (L17): seed 298 deals the person (East) nine kinds of terminals and honours;
    the move list offers 叫和局, typing ``declare_draw`` ends the hand drawn, nobody pays."""
    rules = LONGGANG.replace(hands_per_match=1, draw_on_nine_terminals=True)
    state = PlayState.new(Settings(rules, ("greedy", "greedy", "greedy"), seed_from_text("298")))
    lines = iter(["declare_draw"])
    out = io.StringIO()
    assert run_plain(state, tmp_path / "p.json", lambda: next(lines, None), out) == 0
    text = out.getvalue()
    assert "declare a draw 叫和局" in text
    assert "draw 流局 (nine_terminals declared by E" in text and "nobody pays" in text
    assert verify(load(tmp_path / "p.json")).hands == 1


def test_plain_never_prints_a_claim_that_lost_l10(tmp_path: Path) -> None:
    """Seed 19, the person pongs whenever he may: his pong of South's 9s is made and told; his
    pong of North's 7s loses to West's win on the same tile (L10: win > pong) and is never
    printed, nor is any other claim that was not made (each told claim is in the record)."""
    state = _state("19")

    def read() -> str:
        pong = [a for a in state.legal() if a.kind is ActionKind.PONG]
        return pong[0].text() if pong else ""

    out = io.StringIO()
    assert run_plain(state, tmp_path / "p.json", read, out) == 0
    text = out.getvalue()
    assert "> pong 9s\n  E you: pong 碰 9s\n" in text
    assert "> pong 7s\n  W strong-2: win 胡\nhand 1: W strong-2 wins on a discard 食胡 on 7s from N greedy-3\n" in text
    assert "E you: pong 碰 7s" not in text
    told = [(m.seat, m.action) for m in state.log if not isinstance(m, str)]
    claims = {ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG, ActionKind.WIN}
    chosen = [(s, a) for s, a in load(tmp_path / "p.json").hands[0].actions if a.kind in claims]
    assert [(s, a.text()) for s, a in chosen if (s, a) not in told] == [(0, "pong 7s")]
