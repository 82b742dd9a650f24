"""The Textual app of ``caishen play``: the table at a glance on an 80x24 terminal.

Keys (also on the help screen, ``?``): ←/→ choose a tile, Enter discards it; type a tile
(``5p``) to choose it; ↑/↓ move between the hand and the menu of other moves (win, kongs);
on a claim, 1-9 pick from the menu; ``w`` win, ``x`` or space pass, ``g`` play the suggested
move; ``h`` learner help; ``t`` tile style; ``q`` or Ctrl-C save and quit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from caishen.terminal.core import Action, ActionKind, IllegalActionError, Phase, parse_action, tile_name
from caishen.terminal.model import (
    SEAT_NAMES,
    HandSummary,
    PlayError,
    PlayState,
    Terms,
    TileStyle,
    describe_action,
    tile_label,
)
from caishen.terminal.view import (
    CURSOR,
    FACE,
    WILD_FACE,
    meld_label,
    seat_panel,
    status_line,
    summary_renderable,
    tiles_text,
)

KEYS_HELP: Final = """\
[b]caishen play: keys[/b]

  ← →          choose a tile in your hand
  Enter        discard the chosen tile / take the chosen menu item
  5p, 7z ...   type a tile to choose it (then Enter)
  ↑ ↓          move between your hand and the menu (win, kong)
  1-9          on a claim: take menu item 1-9
  w            win 胡 (when you may)
  x, space     pass 过 (on a claim)
  g            play the suggested move
  h            learner help: shanten 向听, waits 听, unseen copies
  t            tile style: 中文 五筒 / code 5p / glyph 🀝
  ?            this help
  q, Ctrl-C    save and quit (caishen play --resume goes on)

After a hand: Enter for the next hand. {tiles}
The tile you just drew stands apart at the right of your hand;
the latest discard is orange.

[dim]Press Escape or ? to close.[/dim]"""
_WILDS_HELP: Final = "Gold tiles are wild 财神;\n坐花 is your own flower."  # Longgang (L4, L8)
_CI_HELP: Final = ("The 次牌 ci tile is turned up after the deal (G4):\n"
                   "ready on it, a kong of yours wins a 次 (G5.7).")  # Gangci: no wilds, no flowers


def keys_help(terms: Terms) -> str:
    """The key help, with what the variant's turned tile means."""
    return KEYS_HELP.format(tiles=_CI_HELP if terms.ci else _WILDS_HELP)


class HelpScreen(ModalScreen[None]):
    """The list of keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_help", "close"),
        Binding("question_mark", "dismiss_help", "close"),
        Binding("q", "dismiss_help", "close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 74; height: auto; border: round $accent; padding: 0 1; background: $surface; }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="keyhelp")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)


class ScoreScreen(ModalScreen[None]):
    """The end of a hand: the itemised score and the chips; standings after the last hand."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", "next"),
        Binding("space", "close", "next"),
        Binding("n", "close", "next"),
        Binding("escape", "close", "next"),
    ]
    DEFAULT_CSS = """
    ScoreScreen { align: center middle; }
    ScoreScreen > VerticalScroll { width: 80; max-height: 24; height: auto; border: round $accent;
                                   background: $surface; padding: 0 1; }
    """

    def __init__(self, summary: HandSummary, standings: list[tuple[int, str, int]] | None) -> None:
        super().__init__()
        self.summary = summary
        self.standings = standings

    def compose(self) -> ComposeResult:
        last = "Enter: quit" if self.standings is not None else "Enter: next hand"
        with VerticalScroll():
            yield Static(Group(summary_renderable(self.summary, self.standings), Text(last, "dim")), id="score")

    def action_close(self) -> None:
        self.dismiss(None)


_BOUND: Final = frozenset("qhtgwx ?")  # keys with a binding: left to the bindings


@dataclass(frozen=True, slots=True)
class _Target:
    """Something the cursor can rest on: a tile of the hand (a discard) or a menu action."""

    action: Action | None  # None: a tile that may not be discarded now
    tile: int = -1


class PlayApp(App[int]):
    """A match against three bots; ``state`` is the match, saved to ``save_path`` on quitting."""

    TITLE = "caishen play"
    CSS = """
    Screen { layout: vertical; background: #10261a; }
    #status { height: 1; background: #1b3a28; }
    #seats { height: auto; }
    .seat { height: 3; padding: 0 1; }
    #me { height: auto; min-height: 6; padding: 0 1; border-top: solid #4c8; }
    #menu { height: auto; padding: 0 1; }
    #learn { height: auto; padding: 0 1; color: #cfe; display: none; }
    #learn.shown { display: block; }
    #message { height: 1; padding: 0 1; color: #ffd27f; }
    #keys { dock: bottom; height: 1; background: #1b3a28; color: #9c9; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "save_quit", "save and quit", priority=True),
        Binding("q", "save_quit", "save and quit"),
        Binding("question_mark", "help", "keys"),
        Binding("h", "learn", "learner help"),
        Binding("t", "style", "tile style"),
        Binding("g", "suggested", "suggested move"),
        Binding("w", "win", "win"),
        Binding("x", "pass_claim", "pass"),
        Binding("space", "pass_claim", "pass"),
        Binding("left", "move(-1)", "left", show=False),
        Binding("right", "move(1)", "right", show=False),
        Binding("up", "zone", "menu", show=False),
        Binding("down", "zone", "hand", show=False),
        Binding("enter", "choose", "choose", show=False),
    ]

    def __init__(self, state: PlayState, save_path: Path, *, demo: bool = False, delay: float = 0.4) -> None:
        super().__init__()
        self.state = state
        self.save_path = save_path
        self.demo = demo
        self.delay = delay
        self.style = TileStyle.CHINESE
        self.cursor = 0
        self.typed = ""
        self.message = ""
        self.learning = False
        self.scoring = False  # the score screen of the finished hand is up

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Vertical(id="seats"):
            for step in (2, 3, 1):  # across, left, right: the order they sit around the table
                yield Static(classes="seat", id=f"seat{step}")
        yield Static(id="me")
        yield Static(id="menu")
        yield Static(id="learn")
        yield Static(id="message")
        yield Static("←→ Enter discard  5p  w win  x pass  g hint  h learn  t tiles  ? keys  q quit",
                     id="keys")

    def on_mount(self) -> None:
        self.after_move()  # a resumed match may stand at the end of a hand; --demo starts here

    # ------------------------------------------------------------------ what the cursor can reach

    def hand_targets(self) -> list[_Target]:
        tiles, drawn = self.state.hand_tiles()
        legal = set(self.state.legal())
        order = [*tiles, *(() if drawn is None else (drawn,))]
        out = []
        for k in order:
            a = next((x for x in legal if x.kind is ActionKind.DISCARD and x.tile == k), None)
            out.append(_Target(a, k))
        return out

    def menu_actions(self) -> list[Action]:
        """The legal moves other than discards: the claim menu, or win / kong on one's turn."""
        return [a for a in self.state.legal() if a.kind is not ActionKind.DISCARD]

    def targets(self) -> list[_Target]:
        if not self.state.my_move:
            return []
        hand = self.hand_targets() if self.state.observation().phase is Phase.TURN else []
        return [*hand, *(_Target(a) for a in self.menu_actions())]

    def hand_count(self) -> int:
        return len(self.hand_targets()) if self.state.my_move and self.state.observation().phase is Phase.TURN else 0

    # ------------------------------------------------------------------ drawing

    def refresh_view(self) -> None:
        st = self.state
        obs = st.observation()
        self.query_one("#status", Static).update(status_line(st, self.style))
        for step in (1, 2, 3):
            self.query_one(f"#seat{step}", Static).update(seat_panel(st, (st.me + step) % 4, self.style))
        targets = self.targets()
        self.cursor = max(0, min(self.cursor, len(targets) - 1))
        self.query_one("#me", Static).update(self.hand_renderable(obs.wilds))
        self.query_one("#menu", Static).update(self.menu_renderable(targets))
        learn = self.query_one("#learn", Static)
        learn.set_class(self.learning, "shown")
        if self.learning and not st.session.hand_over:
            lines = st.learner_help(self.style)
            if st.my_move:
                lines.append(f"suggested (g): {describe_action(st.suggest(), self.style)}")
            learn.update("\n".join(lines))
        last = " · ".join(st.log_line(e, self.style) for e in st.log[-2:])
        self.query_one("#message", Static).update(Text(self.message or last))

    def hand_renderable(self, wilds: frozenset[int]) -> Group:
        st = self.state
        obs = st.observation()
        me = st.me
        head = Text()
        turn = not st.session.hand_over and obs.current == me
        head.append(("▶ " if turn else "  ") + f"you: {st.seat_name(me)} {SEAT_NAMES[me].split()[1]}",
                    "bold reverse" if turn else "bold")
        if obs.dealer == me:
            head.append(" 庄dealer", "bold #b22222")
        for m in obs.hand.melds:
            head.append("  ")
            head.append_text(meld_label(m, self.style))
        own = [f for f in obs.hand.flowers if f == st.own_flower()]
        guests = [f for f in obs.hand.flowers if f != st.own_flower()]
        for label, group in (("  坐花 ", own), ("  花 ", guests)):  # own flower (wild) apart from guests
            if group:
                head.append(label, "bold #8a2be2")
                for f in group:
                    head.append(self.short(f), f"bold #8a2be2 {WILD_FACE if f in wilds else FACE}")
        tiles, drawn = st.hand_tiles()
        on_hand = self.hand_count() > 0
        marks: dict[int, str] = {}
        for i, k in enumerate(tiles):
            if k in wilds:
                marks[i] = WILD_FACE
        if on_hand and self.cursor < len(tiles):
            marks[self.cursor] = CURSOR
        body = tiles_text(list(tiles), self.style, marks)
        if drawn is not None:
            dm = {0: CURSOR if on_hand and self.cursor == len(tiles) else (WILD_FACE if drawn in wilds else FACE)}
            lines = body.split("\n")
            extra = tiles_text([drawn], self.style, dm).split("\n")
            body = Text("\n").join([lines[0] + Text("  ") + extra[0], lines[1] + Text("  ") + extra[1]])
        pile = Text("  discards ", "dim")
        pile.append(" ".join(tile_name(k) if self.style is TileStyle.CODE else self.short(k) for k in obs.discards[me]) or "-",
                    "dim")
        return Group(head, body, pile)

    def short(self, k: int) -> str:
        return tile_label(k, self.style).strip()

    def menu_renderable(self, targets: list[_Target]) -> Text:
        st = self.state
        t = Text()
        if st.session.hand_over:
            t.append("hand over: Enter for the score", "bold")
            return t
        if not st.my_move:
            return Text("waiting for the bots…", "dim")
        obs = st.observation()
        n_hand = self.hand_count()
        if obs.phase is Phase.TURN:
            t.append("your turn 打牌: ", "bold")
            if self.cursor < n_hand:
                tg = targets[self.cursor]
                t.append(f"Enter discards {self.short(tg.tile)}" if tg.action else f"{self.short(tg.tile)} may not be discarded now",
                         "#99ff99" if tg.action else "#ff9999")
        else:
            what = "rob the kong 抢杠?" if obs.phase is Phase.ROB else "sea floor 分张:" if obs.phase is Phase.SEA_FLOOR else "claim"
            if obs.last_discard is not None:
                t.append(f"{what} {self.short(obs.last_discard)} from {st.seat_name(obs.current)}: ", "bold")
            else:
                t.append(f"{what}: ", "bold")
        if obs.phase is Phase.TURN and len(targets) > n_hand:
            t.append("  ↑ ", "dim")
        for j, tg in enumerate(targets[n_hand:]):
            assert tg.action is not None
            # on a claim the digits pick; on one's turn they type tiles, so no numbers there
            key = f"{j + 1} " if obs.phase is not Phase.TURN else ("w " if tg.action.kind is ActionKind.WIN else "")
            label = f" {key}{describe_action(tg.action, self.style)} "
            t.append(label, "bold reverse" if self.cursor == n_hand + j else "bold")
            t.append(" ")
        if self.typed:
            t.append(f"  typed: {self.typed}", "#ffd27f")
        return t

    # ------------------------------------------------------------------ acting

    def play(self, action: Action) -> None:
        """The person's move; then the bots; then the score screen if the hand is over."""
        try:
            self.state.act(action)
        except IllegalActionError as exc:
            self.message = f"not allowed: {exc}"
            self.refresh_view()
            return
        self.message = ""
        self.typed = ""
        self.cursor = 0
        self.after_move()

    def after_move(self) -> None:
        self.refresh_view()
        st = self.state
        if st.session.hand_over:
            self.state.save(self.save_path)  # every finished hand is on disk at once
            if not self.scoring:
                self.scoring = True
                standings = st.standings() if st.session.over else None
                self.push_screen(ScoreScreen(st.hand_summary(), standings), self.after_score)
                if self.demo:
                    self.later(self.delay * 3, self.close_score)
        elif self.demo and st.my_move:
            self.later(self.delay, self.demo_move)

    def later(self, delay: float, callback: Callable[[], None]) -> None:
        """Run ``callback`` after ``delay`` seconds (at once, after the next refresh, for 0)."""
        if delay > 0:
            self.set_timer(delay, callback)
        else:
            self.call_after_refresh(callback)

    def close_score(self) -> None:
        if isinstance(self.screen, ScoreScreen):
            self.screen.dismiss(None)

    def demo_move(self) -> None:
        if self.state.my_move and not isinstance(self.screen, ModalScreen):
            self.play(self.state.suggest())

    def after_score(self, _: None = None) -> None:
        self.scoring = False
        st = self.state
        if st.session.over:
            st.save(self.save_path)
            self.exit(0)
            return
        st.next_hand()
        self.message = f"hand {st.session.hand_index + 1}: you are {st.seat_name(st.me)}"
        self.cursor = 0
        self.after_move()

    # ------------------------------------------------------------------ key actions

    def action_move(self, step: int) -> None:
        n = len(self.targets())
        if n:
            self.cursor = (self.cursor + step) % n
        self.typed = ""
        self.refresh_view()

    def action_zone(self) -> None:
        n_hand, n = self.hand_count(), len(self.targets())
        if n_hand and n > n_hand:
            self.cursor = n_hand if self.cursor < n_hand else 0
        self.refresh_view()

    def action_choose(self) -> None:
        if self.state.session.hand_over:
            self.after_move()
            return
        targets = self.targets()
        if not targets:
            return
        tg = targets[min(self.cursor, len(targets) - 1)]
        # A tile that may not be discarded: the engine's refusal says why (L9, wilds...).
        self.play(tg.action if tg.action is not None else parse_action(f"discard {tile_name(tg.tile)}"))

    def action_win(self) -> None:
        a = next((x for x in self.state.legal() if x.kind is ActionKind.WIN), None)
        if a is None:
            self.message = "no win 胡 now"
            self.refresh_view()
        else:
            self.play(a)

    def action_pass_claim(self) -> None:
        a = next((x for x in self.state.legal() if x.kind is ActionKind.PASS), None)
        if a is None:
            self.message = "nothing to pass now" if self.state.my_move else "not your move"
            self.refresh_view()
        else:
            self.play(a)

    def action_suggested(self) -> None:
        if self.state.my_move:
            self.play(self.state.suggest())

    def action_learn(self) -> None:
        self.learning = not self.learning
        self.refresh_view()

    def action_style(self) -> None:
        self.style = self.style.next()
        self.refresh_view()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(keys_help(self.state.terms)))

    def action_save_quit(self) -> None:
        self.state.save(self.save_path)
        self.exit(0)

    def on_key(self, event: events.Key) -> None:
        """Typed tiles (``5p``) and menu numbers; anything else is ignored with a hint."""
        ch = event.character
        if ch is None or not ch.isprintable() or ch in _BOUND or isinstance(self.screen, ModalScreen):
            return
        st = self.state
        if ch.isdigit() and not self.typed and st.my_move and st.observation().phase is not Phase.TURN:
            menu = self.menu_actions()
            i = int(ch) - 1
            if 0 <= i < len(menu):
                self.play(menu[i])
            else:
                self.message = f"no menu item {ch}"
                self.refresh_view()
            event.stop()
            return
        if ch.isdigit():
            self.typed = ch
            self.message = f"typed {ch}: now the suit m p s z"
        elif self.typed and ch in "mpsz":
            text, self.typed = self.typed + ch, ""
            self.choose_typed(text)
        else:
            self.typed = ""
            self.message = f"key {ch!r} does nothing here (? lists the keys)"
        event.stop()
        self.refresh_view()

    def choose_typed(self, text: str) -> None:
        try:
            action = self.state.parse(text)
        except PlayError as exc:
            self.message = str(exc)
            return
        for i, tg in enumerate(self.hand_targets()):
            if tg.action is action:
                self.cursor = i
                self.message = f"{text}: Enter discards it"
                return
