"""caishen play --variant luoyang-gangci: a whole Gangci match in the line mode and the Textual
app, the hand summary in Gangci's own terms (win types G5, payments G2), saving and resuming,
the learner's 听次牌 (G5.7), and the options Gangci refuses."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from caishen.cli import main
from caishen.table.record import load, parse_action
from caishen.table.replay import verify
from caishen.table.session import Move
from caishen.terminal.app import PlayApp, ScoreScreen, keys_help
from caishen.terminal.core import seed_from_text
from caishen.terminal.model import PlayState, Settings, terms_of
from caishen.terminal.plain import summary_text
from caishen.terminal.view import summary_renderable
from caishen.variants import get
from caishen.variants.luoyang_gangci.rules import DEFAULT

GANGCI = DEFAULT.replace(hands_per_match=8)  # the shortest match Gangci allows (G8.2)


def _state(seed: str) -> PlayState:
    return PlayState.new(Settings(GANGCI, ("strong", "strong", "greedy"), seed_from_text(seed)))


def _play_suggested_until(state: PlayState, hand_index: int) -> None:
    """The person plays the suggested moves (as --demo does) until hand ``hand_index`` is dealt."""
    while state.session.hand_index < hand_index:
        if state.session.hand_over:
            state.next_hand()
        else:
            state.act(state.suggest())


# seed 4, the person on the suggested moves: hand 2 is the person's 直次 on West's 7p (the 次牌
# 4m), paid by G2.7 after West's concealed kong (G2.3)
HAND_2 = """\
hand 2: N you wins 直次 ci on a discard on 7p from W greedy-3, 次牌 4m (G5.4)
rule   item                                                  from to     amount  formula
G2.3   暗杠 每家付 concealed kong, paid by each              N    W         200  2 × 100
G2.3   暗杠 每家付 concealed kong, paid by each              E    W         200  2 × 100
G2.3   暗杠 每家付 concealed kong, paid by each              S    W         200  2 × 100
G2.7   直次 其他家付 ci on a discard, a bystander            E    N         300  600 × 0.5
G2.7   直次 其他家付 ci on a discard, a bystander            S    N         300  600 × 0.5
G2.7   直次 点炮者付 ci on a discard, the discarder          W    N        1300  2 × 600 + 100
net: E -500  S -500  W -700  N +1700
E strong-1: chips -500
S strong-2: chips -500
W greedy-3: chips -700
N you: chips +1700
"""


def test_plain_demo_plays_a_whole_gangci_match_and_the_record_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "g.json"
    assert main(["play", "--plain", "--demo", "--variant", "luoyang-gangci", "--seed", "4", "--hands", "8",
                 "--record", str(save)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # the 次牌 where Longgang shows the indicator and its wilds (G4); no flowers in Gangci (G1.1)
    assert lines[0] == "hand 1/8 · dealer E you · 次牌 ci tile 8m (G4) · wall 82 · turn E you"
    assert lines[1] == "S strong-1 (South 南): 13 tiles; melds -; discards -"
    assert "flowers" not in out and "wild" not in out and "台" not in out  # nor Longgang's 胡/台 table
    assert "hand 1: S strong-1 wins 炸弹 bomb (self-drawn win) on 4p (G5.6)\n" \
           "rule   item" in out
    assert "G2.5   炸弹 每家付 bomb, paid by each                        W    S         200  200\n" in out
    assert "\n" + HAND_2 in out
    assert sum(ln.startswith("hand ") and ": " in ln and "wins" in ln for ln in lines) == 8
    assert out.endswith("match over. standings:\n1. greedy-3 1300 chips\n2. you 400 chips\n3. strong-2 -500 chips\n"
                        f"4. strong-1 -1200 chips\nmatch saved to {save}\n")
    record = load(save)
    assert record.ruleset.name == "luoyang-gangci" and record.result["over"]
    assert record.result["chips"] == [400, -1200, -500, 1300]  # you, strong-1, strong-2, greedy-3
    assert all(sum(h.result["chips"]) == 0 for h in record.hands)
    assert verify(record).hands == 8
    assert main(["verify", str(save)]) == 0
    assert "OK: 8 hands" in capsys.readouterr().out


def test_a_drawn_gangci_hand_keeps_its_kong_payments_g2_11() -> None:
    """Seed 1: nobody wins hand 1, South's added kong stays paid by East (G2.4, G2.11); no
    counts (Longgang's L23), the chips are the statement's net."""
    state = _state("1")
    while not state.session.hand_over:
        state.act(state.suggest())
    summary = state.hand_summary()
    assert summary.headline == "hand 1: draw 流局 (wall), no win; kong payments stand (G2.11)"
    assert summary.statement is not None and summary.rows == () and summary.total == ""
    assert [(p.rule, p.payer, p.payee, p.amount) for p in summary.statement.payments] == [("G2.4", 0, 1, 100)]
    assert summary.seats == (("E", "you", None, -100), ("S", "strong-1", None, 100), ("W", "strong-2", None, 0),
                             ("N", "greedy-3", None, 0))
    assert summary_text(summary).splitlines()[1:4] == [
        "rule   item                                                  from to     amount  formula",
        "G2.4   补杠 被碰者付 added kong, paid by the ponged player   E    S         100  1 × 100",
        "net: E -100  S +100  W +0  N +0",
    ]


def test_learner_help_says_ready_on_the_ci_tile_g5_7() -> None:
    """Seed 4, hand 2: the person holds 3m 5m 123p 44p 777p and a pong of East winds, the 次牌
    is 4m; offered West's 7p he is ready on the 次牌, and a kong takes it (直次)."""
    state = _state("4")
    _play_suggested_until(state, 1)
    while "win" not in state.legal_texts():
        state.act(state.suggest())
    assert state.legal_texts() == ["win", "exposed_kong 7p", "pong 7p", "pass"]
    assert state.learner_help() == [
        "shanten 向听 0 (ready 听牌)",
        "waits 听: 4m×3 (3 unseen)",
        "ready on the 次牌 听次牌 4m (G5.7): a kong now wins a 次",
    ]


def test_plain_resume_continues_a_gangci_match_to_a_verified_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "g.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 20))  # hand 1 and a part of hand 2, then end of input
    assert main(["play", "--variant", "luoyang-gangci", "--seed", "4", "--hands", "8", "--record", str(save)]) == 0
    first = capsys.readouterr().out
    assert "hand 1: S strong-1 wins 炸弹" in first and "hand 2:" not in first.replace("  hand 2: dealer", "")
    data = json.loads(save.read_text(encoding="utf-8"))
    assert data["ruleset"]["name"] == "luoyang-gangci" and len(data["hands"]) == 1
    saved = [Move(seat, parse_action(text)) for seat, text in data["play"]["moves"]]
    assert saved

    resumed = PlayState.load(save)
    assert resumed.session.hand_index == 1 and resumed.session.moves == saved
    assert resumed.session.record().hands[0].result == data["hands"][0]["result"]
    again = _state("4")  # the same match played on: the same table
    _play_suggested_until(again, 1)
    for m in saved:
        if m.seat == again.me and again.my_move:
            again.act(m.action)
    assert resumed.observation() == again.observation()

    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 2000))
    assert main(["play", "--resume", str(save)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hand 2/8 · dealer E strong-1 · 次牌 ci tile 4m (G4) · ")  # where it was saved
    assert "match over. standings:" in out
    record = load(save)
    assert len(record.hands) == 8 and record.hands[0].result == data["hands"][0]["result"]
    assert verify(record).hands == 8


@pytest.mark.parametrize("args, message", [
    (["--hands", "3"], "--hands 3: a Luoyang Gangci 洛阳杠次 match is 8, 16 or 24 hands (G8.2); "
                       "give --hands one of those, or leave it out for 16"),
    (["--hands", "0"], "--hands 0: a Luoyang Gangci 洛阳杠次 match is 8, 16 or 24 hands (G8.2)"),
    (["--bots", "learned,strong,greedy"], "the learned bot plays Longgang only"),
    (["--ruleset", "longgang"], "longgang: a longgang preset, not luoyang-gangci"),
])
def test_options_gangci_refuses_give_one_line_and_status_2(args: list[str], message: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--plain", "--variant", "luoyang-gangci", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("caishen play: error: ") and message in err


def test_a_ruleset_preset_names_the_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--ruleset luoyang-gangci-scheme-2 (G2.1's 起底方案2) plays Gangci without --variant."""
    save = tmp_path / "s.json"
    assert main(["play", "--plain", "--demo", "--ruleset", "luoyang-gangci-scheme-2", "--seed", "4",
                 "--hands", "8", "--record", str(save)]) == 0
    out = capsys.readouterr().out
    assert "G2.7   直次 点炮者付 ci on a discard, the discarder          W    N       13000  2 × 6000 + 1000" in out
    assert load(save).ruleset.name == "luoyang-gangci-scheme-2"


def test_the_app_shows_the_ci_tile_and_the_payments_then_saves(tmp_path: Path) -> None:
    save = tmp_path / "a.json"

    async def go() -> tuple[str, ScoreScreen, str]:
        app = PlayApp(_state("4"), save)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            status = str(app.query_one("#status").render())
            await pilot.press("question_mark")  # the keys: the 次牌's meaning, not Longgang's wilds
            await pilot.pause()
            keys = str(app.screen.query_one("#keyhelp").render())
            assert "The 次牌 ci tile is turned up after the deal (G4)" in keys and "财神" not in keys
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("h")  # learner help on
            await pilot.pause()
            learn = str(app.query_one("#learn").render())
            assert learn == ("after the best discard: shanten 向听 3\n"
                             "good discards: 一万 四万 五万 八万 六筒 二条 六条 南\nsuggested (g): discard 南")
            for _ in range(200):  # the suggested moves (g) until the score screen
                if isinstance(app.screen, ScoreScreen):
                    break
                await pilot.press("g")
                await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ScoreScreen)
            await pilot.press("enter")  # the next hand
            await pilot.pause()
            message = app.message
            await pilot.press("q")  # save and quit
            await pilot.pause()
        return status, screen, message

    status, screen, message = asyncio.run(go())
    assert " 次牌 八万 " in status and "财神" not in status and "翻" not in status
    summary = screen.summary
    assert summary.headline == "hand 1: S strong-1 wins 炸弹 bomb (self-drawn win) on 4p (G5.6)"
    assert summary.statement is not None and summary.statement.net == (-200, 600, -200, -200)
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(summary_renderable(summary, None))
    shown = console.export_text()
    # each payment on two lines (Chinese over English) to fit 80 columns; no counts (G2.10)
    assert [ln.rstrip() for ln in shown.splitlines()[1:5]] == [
        "rule ┃ item               ┃ from→to ┃ chips",
        "━━━━━╇━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━╇━━━━━━",
        "G2.5 │ 炸弹 每家付        │ W→S     │   200",
        "     │ bomb, paid by each │         │",
    ]
    assert "count" not in shown
    assert message == "hand 2: you are N you"
    resumed = PlayState.load(save)
    assert resumed.session.hand_index == 1 and len(resumed.session.record().hands) == 1


def test_the_key_help_names_the_variants_turned_tile() -> None:
    """Longgang's help names its wilds and own flower (L4, L8); Gangci's its 次牌 (G4, G5.7)."""
    longgang, gangci = (keys_help(terms_of(get(v).presets[v])) for v in ("longgang", "luoyang-gangci"))
    assert "Gold tiles are wild 财神;\n坐花 is your own flower." in longgang and "次牌" not in longgang
    assert "ready on it, a kong of yours wins a 次 (G5.7)." in gangci and "财神" not in gangci
