"""The state of a terminal match, shared by the Textual app and the line mode (no UI here).

:class:`PlayState` wraps a :class:`MatchSession` (the one play loop): the person is player 0,
the bots fill the other seats. It adds what a screen needs: the person's seat, the tile just
drawn, the suggested move, learner help (shanten, waits and how many are unseen), the
itemised score of the last hand, the standings, and saving and resuming (docs/terminal.md).

Any registered variant is played: the session, the bots and the records take its rules as
they are. What a screen says differently comes from the rules' type in :func:`terms_of` (the
turned tile: Longgang's wild indicator, L4, or Gangci's 次牌, G4) and from the type of the
hand's settled score in :meth:`PlayState.hand_summary` (Longgang's 胡/台 items, L19-L24, or
Gangci's payments, G2).
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from caishen.terminal.core import (
    NUM_NON_FLOWER,
    SEAT_LETTERS,
    Action,
    ActionKind,
    CaishenError,
    GangciRules,
    GangciWin,
    HandScore,
    IllegalActionError,
    MatchRecord,
    MatchSession,
    Meld,
    MeldKind,
    Move,
    Observation,
    Phase,
    RecordError,
    Statement,
    VariantRules,
    action_text,
    check_player,
    chinese_name,
    format_hand,
    glyph,
    good_discards,
    hint_bot,
    is_flower,
    load_or_create_key,
    make_seat_bot,
    parse_action,
    seat_flower,
    shanten,
    sign_record,
    tile_name,
    unseen_counts,
    waits,
    wind_of,
)

#: Moves that answer a discard (or an added kong: a win robs it) and may lose to another answer (L10).
_CLAIMS: Final = frozenset({ActionKind.CHOW, ActionKind.PONG, ActionKind.EXPOSED_KONG, ActionKind.WIN})
PERSON: Final = 0  # the person is player 0: East in the first hand, then seats rotate (L2, L18)
PLAY_KEY: Final = "play"  # the saved file's extra section (a record readers ignore)
SEAT_NAMES: Final = ("East 东", "South 南", "West 西", "North 北")


class PlayError(CaishenError):
    """A user mistake: an unknown bot, a bad saved file, an action that cannot be read."""

    code = "play"


class TileStyle(enum.StrEnum):
    """How tiles are written: ``chinese`` 五筒, ``code`` 5p, ``glyph`` 🀝."""

    CHINESE = "chinese"
    CODE = "code"
    GLYPH = "glyph"

    def next(self) -> TileStyle:
        order = list(TileStyle)
        return order[(order.index(self) + 1) % len(order)]


_SHORT_HONOURS: Final = ("东", "南", "西", "北", "白", "发", "中")


def tile_label(k: int, style: TileStyle) -> str:
    """A tile in ``style``, padded to a fixed width (4 columns for Chinese, 2 otherwise)."""
    if style is TileStyle.CODE:
        return tile_name(k)
    if style is TileStyle.GLYPH:
        return glyph(k) + " "
    if NUM_NON_FLOWER - 7 <= k < NUM_NON_FLOWER:  # honours: one character, as players say them
        return _SHORT_HONOURS[k - (NUM_NON_FLOWER - 7)] + "  "
    name = chinese_name(k)
    return name if len(name) == 2 else name + "  "


def meld_text(m: Meld, style: TileStyle = TileStyle.CODE) -> str:
    """A meld with its kind: ``pong 5p5p5p``; a concealed kong shows its tiles to its owner only
    in the hand view, to others as a concealed kong of that kind (it is declared, L13)."""
    name = {
        MeldKind.CHOW: "chow", MeldKind.PONG: "pong", MeldKind.EXPOSED_KONG: "kong",
        MeldKind.ADDED_KONG: "kong+", MeldKind.CONCEALED_KONG: "hidden kong",
    }[m.kind]
    tiles = m.tiles if m.kind is not MeldKind.CHOW else tuple(sorted(m.tiles))
    return f"{name} " + "".join(tile_label(k, style).strip() for k in tiles)


def describe_action(a: Action, style: TileStyle = TileStyle.CODE) -> str:
    """An action as a player reads it: ``discard 5p``, ``chow 3p-4p-5p``, ``kong 7z``."""
    def t(k: int) -> str:
        return tile_label(k, style).strip()

    kind = a.kind
    if kind is ActionKind.CHOW:
        return f"chow {t(a.tile)} as {t(a.chow_low)}{t(a.chow_low + 1)}{t(a.chow_low + 2)}"
    if kind is ActionKind.WIN:
        return "win 胡"
    if kind is ActionKind.PASS:
        return "pass 过"
    if kind is ActionKind.DECLARE_DRAW:
        return "declare a draw 叫和局"
    names = {
        ActionKind.DISCARD: "discard", ActionKind.PONG: "pong 碰", ActionKind.EXPOSED_KONG: "kong 杠",
        ActionKind.ADDED_KONG: "add kong 补杠", ActionKind.CONCEALED_KONG: "concealed kong 暗杠",
    }
    return f"{names[kind]} {t(a.tile)}"


@dataclass(frozen=True, slots=True)
class Settings:
    """What a match is played with: rules, the three bots, the master seed, the hint bot."""

    ruleset: VariantRules
    bots: tuple[str, ...]
    seed: bytes
    hint: str = "greedy"

    def __post_init__(self) -> None:
        for name in (*self.bots, self.hint):
            try:
                check_player(name)
            except ValueError as exc:
                raise PlayError(str(exc)) from None
        if len(self.bots) != 3:
            raise PlayError(f"--bots needs 3 bots for the other seats, not {len(self.bots)}")

    @property
    def names(self) -> tuple[str, ...]:
        return ("you", *(f"{b}-{i}" for i, b in enumerate(self.bots, 1)))


@dataclass(frozen=True, slots=True)
class Terms:
    """How the terminal names what differs between variants at the table: the tile turned up
    after the deal (``turned``, its rule ``turned_rule``), whether it is the tile a kong wins
    (``ci``: Gangci's 次牌, G4.2, G5.7) rather than the indicator of the wilds (L4), and
    whether the game has flowers to show at all (Gangci has none, G1.1)."""

    turned: str
    turned_rule: str
    ci: bool
    flowers: bool = True


def terms_of(rules: VariantRules) -> Terms:
    """The :class:`Terms` of ``rules``' variant (the one place the terminal asks which)."""
    if isinstance(rules, GangciRules):
        return Terms("次牌 ci tile", "G4", ci=True, flowers=False)
    return Terms("indicator", "L4", ci=False)


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One line of a score table: rule ID, item (Chinese and English), 胡 (fu), 台 (tai)."""

    rule: str
    item: str
    fu: str
    tai: str


@dataclass(frozen=True, slots=True)
class HandSummary:
    """The end of a hand: the headline, the winner's itemised rows and total, each seat's
    count and chips (by seat), the chips of every player after the hand. A variant that pays
    item by item (Gangci, G2) has its ``statement``, every payment of the hand in order (kongs,
    then the win), and no rows or counts; ``None`` for Longgang, scored in 胡 and 台."""

    headline: str
    rows: tuple[ScoreRow, ...]
    total: str
    seats: tuple[tuple[str, str, int | None, int], ...]  # (seat letter, player, own total, chips)
    chips_after: tuple[int, ...]  # by player
    seat_chips_after: tuple[int, ...]  # by seat
    hand: str = ""  # the winner's hand (tiles)
    statement: Statement | None = None


class PlayState:
    """A match of the person against three bots, one action at a time."""

    def __init__(self, settings: Settings, session: MatchSession) -> None:
        self.settings = settings
        self.session = session
        self.terms = terms_of(settings.ruleset)
        self._hint = hint_bot(settings.hint, settings.seed, settings.ruleset)
        self.log: list[str | Move] = []  # what happened, in order: moves and notes
        self._window: dict[int, Move] | None = None  # answers to a discard or added kong not yet decided, by seat

    # ------------------------------------------------------------------ building

    @classmethod
    def new(cls, settings: Settings) -> PlayState:
        s = settings
        players = [None, *(make_seat_bot(b, s.seed, i, s.ruleset) for i, b in enumerate(s.bots, 1))]
        session = MatchSession(s.ruleset, players, seed=s.seed, names=s.names)
        state = cls(settings, session)
        state._note_moves(session.moves)
        return state

    @classmethod
    def load(cls, path: str | Path) -> PlayState:
        """A match saved by :meth:`save`: the finished hands and the moves of the hand in play."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PlayError(f"{path}: cannot read a saved match: {exc}") from None
        try:
            record = MatchRecord.from_json(data)
        except RecordError as exc:
            raise PlayError(f"{path}: {exc}") from None
        play = data.get(PLAY_KEY)
        if not isinstance(play, dict) or record.seed is None:
            raise PlayError(f"{path}: not a match saved by caishen play (no {PLAY_KEY!r} section)")
        try:
            bots = tuple(str(b) for b in play["bots"])
            settings = Settings(record.ruleset, bots, record.seed, str(play.get("hint", "greedy")))
            moves = play["moves"]
            current = None if moves is None else [
                Move(int(seat), parse_action(str(text), f"{PLAY_KEY}.moves[{i}]")) for i, (seat, text) in enumerate(moves)
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise PlayError(f"{path}: bad {PLAY_KEY!r} section: {exc}") from None
        hands: list[Sequence[Move]] = [[Move(s, a) for s, a in h.actions] for h in record.hands]
        if current is not None:
            hands.append(current)
        players = [None, *(make_seat_bot(b, settings.seed, i, settings.ruleset) for i, b in enumerate(bots, 1))]
        try:
            session = MatchSession.resume(
                settings.ruleset, players, seed=settings.seed, names=list(record.players), hands=hands
            )
        except (IllegalActionError, ValueError) as exc:
            raise PlayError(f"{path}: the saved moves do not replay: {exc}") from None
        state = cls(settings, session)
        state.log.append(f"resumed hand {session.hand_index + 1} from {path}")
        return state

    def save(self, path: str | Path) -> None:
        """Write the record of the finished hands plus, in a ``play`` section, the bots and the
        moves of the hand in play (``null`` between hands): what :meth:`load` needs."""
        s = self.session
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        if s.over:  # a finished match: the plain record, signed by this table (docs/fairness.md)
            tmp.write_text(sign_record(s.record().dumps(), load_or_create_key()) + "\n", encoding="utf-8")
            os.replace(tmp, p)
            return
        data: dict[str, Any] = s.record().to_json()
        data[PLAY_KEY] = {
            "bots": list(self.settings.bots),
            "hint": self.settings.hint,
            "moves": None if s.hand_over else [[m.seat, action_text(m.action)] for m in s.moves],
        }
        tmp.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, p)

    # ------------------------------------------------------------------ state

    @property
    def hand_label(self) -> str:
        """``3/16``, or ``3`` in a match played until 断筹 (L25.5)."""
        n = self.ruleset.hands_per_match
        return f"{self.session.hand_index + 1}" + (f"/{n}" if n else "")

    @property
    def ruleset(self) -> VariantRules:
        return self.session.ruleset

    @property
    def me(self) -> int:
        """The person's seat in the hand in play."""
        seat = self.session.seat_of(PERSON)
        assert seat is not None  # four players: everybody plays every hand
        return seat

    def seat_name(self, seat: int) -> str:
        """``E you`` / ``S greedy-1``: the seat letter and who sits there."""
        return f"{SEAT_LETTERS[seat]} {self.session.match.names[self.session.seats[seat]]}"

    def observation(self) -> Observation:
        return self.session.observation(self.me)

    @property
    def my_move(self) -> bool:
        """The person must act now."""
        return self.me in self.session.waiting_for()

    def legal(self) -> tuple[Action, ...]:
        return self.session.legal_actions(self.me) if self.my_move else ()

    def drawn(self) -> int | None:
        return self.session.drawn_tile(self.me)

    def hand_tiles(self) -> tuple[tuple[int, ...], int | None]:
        """The person's concealed tiles sorted (wilds first, as players keep them), and the tile
        just drawn, set apart (``None``: none)."""
        obs = self.observation()
        tiles = list(obs.hand.concealed)
        drawn = self.drawn()
        if drawn is not None and drawn in tiles:
            tiles.remove(drawn)
        else:
            drawn = None
        tiles.sort(key=lambda k: (k not in obs.wilds, k))
        return tuple(tiles), drawn

    def own_flower(self) -> int:
        return seat_flower(wind_of(self.me, self.observation().dealer))

    def suggest(self) -> Action:
        """What the hint bot would play now (the person must be to move)."""
        legal = self.legal()
        if not legal:
            raise PlayError("it is not your move")
        return self._hint.act(self.observation())

    def last_discard(self) -> tuple[int, int] | None:
        """(seat, tile) of the latest discard still lying on the table (to highlight it)."""
        for m in reversed(self.session.moves):
            if m.action.kind is ActionKind.DISCARD:
                pile = self.observation().discards[m.seat]
                return (m.seat, m.action.tile) if pile and pile[-1] == m.action.tile else None
        return None

    # ------------------------------------------------------------------ acting

    def act(self, action: Action) -> list[Move]:
        """The person's move; raises :class:`IllegalActionError` when it is not legal."""
        if not self.my_move:
            raise IllegalActionError("it is not your move")
        moves = self.session.act(self.me, action)
        self._note_moves(moves)
        return moves

    def parse(self, text: str) -> Action:
        """A typed action: ``discard 5p``, ``pong 5p``, ``win``, ``pass``, ``declare_draw``, or a bare tile ``5p``
        (a discard); PlayError for text that is not an action or not legal now."""
        text = text.strip().lower()
        if not text:
            raise PlayError("empty input")
        if len(text.split()) == 1 and text not in ("win", "pass", "declare_draw"):
            text = f"discard {text}"
        try:
            a = parse_action(text, "input")
        except RecordError as exc:
            raise PlayError(str(exc).removeprefix("input: ")) from None
        if a not in self.legal():
            raise PlayError(f"{action_text(a)} is not legal now (legal: {', '.join(self.legal_texts())})")
        return a

    def legal_texts(self) -> list[str]:
        return [action_text(a) for a in self.legal()]

    def next_hand(self) -> None:
        moves = self.session.next_hand()
        self.log.append(f"hand {self.session.hand_index + 1}: dealer {self.seat_name(self.observation().dealer)}")
        self._note_moves(moves)

    def _note_moves(self, moves: Sequence[Move]) -> None:
        """Log the moves that happened. A claim (chow, pong, kong, win) chosen on a discard or
        an added kong is held back until the window closes, and logged only if it was made:
        a pong that lost to a win, or a chow to a pong, never happened (L10)."""
        for m in moves:
            k = m.action.kind
            if self._window is not None and (k is ActionKind.PASS or k in _CLAIMS) and m.seat not in self._window:
                self._window[m.seat] = m  # an answer in the window still open
                continue
            self._close_window(m.seat)
            if k is not ActionKind.PASS:
                self.log.append(m)
            self._window = {} if k in (ActionKind.DISCARD, ActionKind.ADDED_KONG) else None
        g = self.session.game
        if g.is_over:
            self._close_window(None)
        elif self._window and g.phase not in (Phase.CLAIM, Phase.ROB):
            self._close_window(g.current)  # decided: the seat to play now is the one whose claim was made

    def _close_window(self, next_seat: int | None) -> None:
        """The window's claims that were made: a chow, pong or kong if its seat plays next
        (``next_seat``), a win if the hand ended (``None``) with that seat the winner."""
        if not self._window:
            self._window = None
            return
        out = self.session.game.outcome
        for m in self._window.values():
            if m.action.kind is ActionKind.PASS:
                continue
            if m.action.kind is ActionKind.WIN:
                made = next_seat is None and out is not None and out.winner == m.seat
            else:
                made = next_seat == m.seat
            if made:
                self.log.append(m)
        self._window = None

    def log_line(self, entry: str | Move, style: TileStyle = TileStyle.CODE) -> str:
        if isinstance(entry, str):
            return entry
        return f"{self.seat_name(entry.seat)}: {describe_action(entry.action, style)}"

    # ------------------------------------------------------------------ learner help

    def learner_help(self, style: TileStyle = TileStyle.CODE) -> list[str]:
        """Shanten of the hand; when ready, each wait with how many are unseen; on the person's
        turn, the discards that keep the fewest steps to ready (and their waits). Gangci: when
        the 次牌's kind is a wait, the hand is ready on the 次牌 (听次牌, G5.7)."""
        obs = self.observation()
        hand = obs.hand
        unseen = unseen_counts(obs, self.ruleset)
        ci = obs.indicator if self.terms.ci else None  # Gangci's 次牌: a kong of a ready hand takes it

        def t(k: int) -> str:
            return tile_label(k, style).strip()

        def wait_list(h: Any) -> tuple[list[int], int]:
            ws = [k for k in waits(h, self.ruleset, obs.wilds) if not is_flower(k)]
            return ws, sum(unseen[k] for k in ws)

        def wait_text(ws: list[int], total: int) -> str:
            # a wild 财神 completes every ready hand: named once at the end, not as a wait
            real = [k for k in ws if k not in obs.wilds]
            wild = sum(unseen[k] for k in ws if k in obs.wilds)
            parts = [f"{t(k)}×{unseen[k]}" for k in real] + ([f"财神×{wild}"] if wild else [])
            return " ".join(parts) + f" ({total} unseen)" if parts else "no wait"

        try:
            full = hand.size == 3 * self.ruleset.sets_needed + 2
            if not full:
                sh = shanten(hand, self.ruleset, obs.wilds)
                lines = [f"shanten 向听 {sh}" + (" (ready 听牌)" if sh == 0 else "")]
                if sh == 0:
                    ws, total = wait_list(hand)
                    lines.append("waits 听: " + wait_text(ws, total))
                    if ci is not None and ci in ws:
                        lines.append(f"ready on the 次牌 听次牌 {t(ci)} (G5.7): a kong now wins a 次")
                return lines
            good = good_discards(obs, self.ruleset)  # the game centre's help gives the same (caishen.bots.advice)
            low = good[0].shanten
            lines = [f"after the best discard: shanten 向听 {low}" + (" (ready 听牌)" if low == 0 else "")]
            if low == 0:
                for d in good[:2]:  # the two discards leaving the most unseen waits
                    on_ci = " · 听次牌 (G5.7)" if ci is not None and ci in d.improving else ""
                    lines.append(f"discard {t(d.tile)} → waits {wait_text(list(d.improving), d.unseen)}{on_ci}")
            else:
                lines.append("good discards: " + " ".join(t(d.tile) for d in sorted(good, key=lambda d: d.tile)))
            return lines
        except ValueError as exc:  # a hand the analyser does not count (e.g. in 分张)
            return [f"no analysis: {exc}"]

    # ------------------------------------------------------------------ end of hand / match

    def hand_summary(self) -> HandSummary:
        """The finished hand's itemised score (rule, item, 胡, 台) and chips; a hand settled by
        payments (Gangci's statement, G2) lists them instead (:meth:`_payments_summary`)."""
        s = self.session
        out = s.game.outcome
        rec = s.last_hand
        assert out is not None and rec is not None
        chips = rec.result["chips"]
        rows: list[ScoreRow] = []
        total = ""
        hand = ""
        hs = self.session.match.results[-1].score
        if isinstance(hs, Statement):
            return self._payments_summary(hs)
        assert hs is None or isinstance(hs, HandScore)
        if out.winner is None or hs is None:
            why = str(out.draw_reason or "wall")
            if out.draw_type is not None and out.declared_by is not None:  # 叫和局
                why = f"{out.draw_type} declared by {self.seat_name(out.declared_by)}"
            headline = f"hand {rec.index + 1}: draw 流局 ({why}), nobody pays"
        else:
            how = {"self_draw": "by self-draw 自摸", "discard": "on a discard 食胡", "rob_kong": "robbing a kong 抢杠",
                   "bulldozer": "with a bulldozer 推土机"}.get(str(out.how), str(out.how))
            tile = f" on {tile_name(out.tile)}" if out.tile is not None else ""
            frm = f" from {self.seat_name(out.from_seat)}" if out.from_seat is not None else ""
            headline = f"hand {rec.index + 1}: {self.seat_name(out.winner)} wins {how}{tile}{frm}"
            w = hs.winner
            hand = format_hand(out.hands[out.winner])
            for it in w.items:
                fu = str(it.value) if it.unit in ("fu", "limit") else ""
                tai = str(it.value) if it.unit == "tai" else ""
                label = f"{it.chinese} {it.english}" + (" (limit)" if it.unit == "limit" else "")
                rows.append(ScoreRow(it.rule, label, fu, tai))
            rows.append(ScoreRow("", "牌面胡数 face fu / 台数 tai", str(w.fu), str(w.tai)))
            if w.limit is not None:
                total = f"total {w.total}: limit {w.limit.chinese} ({w.limit.rule})"
            else:
                total = f"total {w.total} = ({w.fu} + {w.base}) × 2^{w.tai} = {w.raw}, rounded up to 10, at most 300"
        seats = []
        for seat in range(4):
            own: int | None = None
            if hs is not None and out.winner is not None:
                own = hs.winner.total if seat == out.winner else hs.loser_totals.get(seat)
            seats.append((SEAT_LETTERS[seat], s.match.names[rec.seats[seat]], own, int(chips[seat])))
        after = tuple(rec.result["chips_after"])
        return HandSummary(headline, tuple(rows), total, tuple(seats), after,
                           tuple(after[rec.seats[seat]] for seat in range(4)), hand)

    def _payments_summary(self, statement: Statement) -> HandSummary:
        """A Gangci hand's end: the win type (G5) with its winning tile, the discarder of a 直次
        and the 次牌 a 次 took (G5.7); every payment of the hand, kongs first (G2.2-G2.8); a
        drawn hand keeps its kong payments (G2.11)."""
        s = self.session
        out = s.game.outcome
        rec = s.last_hand
        assert out is not None and rec is not None
        hand = ""
        if out.winner is None:
            pays = "kong payments stand (G2.11)" if statement.payments else "nobody pays (G2.11)"
            headline = f"hand {rec.index + 1}: draw 流局 ({out.draw_reason or 'wall'}), no win; {pays}"
        else:
            win = GangciWin(str(out.win_type))
            tile = f" on {tile_name(out.tile)}" if out.tile is not None else ""
            frm = f" from {self.seat_name(out.from_seat)}" if out.from_seat is not None else ""
            ci = f", 次牌 {tile_name(out.indicator)}" if win.is_ci and out.indicator is not None else ""
            headline = (f"hand {rec.index + 1}: {self.seat_name(out.winner)} wins {win.chinese} {win.english}"
                        f"{tile}{frm}{ci} ({win.rule})")
            hand = format_hand(out.hands[out.winner])
        chips = rec.result["chips"]
        seats = tuple((SEAT_LETTERS[seat], s.match.names[rec.seats[seat]], None, int(chips[seat])) for seat in range(4))
        after = tuple(rec.result["chips_after"])
        return HandSummary(headline, (), "", seats, after, tuple(after[rec.seats[seat]] for seat in range(4)), hand,
                           statement)

    def standings(self) -> list[tuple[int, str, int]]:
        """(place, player, chips) after the hands played, most chips first."""
        chips = self.session.record().result["chips"]
        order = sorted(range(len(chips)), key=lambda p: (-chips[p], p))
        return [(i + 1, self.session.match.names[p], chips[p]) for i, p in enumerate(order)]

    def table_status(self) -> str:
        """One line: hand number, dealer, indicator and wilds (Gangci: the 次牌, G4), wall, whose turn."""
        obs = self.observation()
        s = self.session
        ind = tile_name(obs.indicator) if obs.indicator is not None else "none"
        wild = " ".join(tile_name(k) for k in sorted(obs.wilds))
        turn = "over" if s.hand_over else self.seat_name(obs.current)
        turned = (f"{self.terms.turned} {ind} ({self.terms.turned_rule})" if self.terms.ci
                  else f"indicator {ind} → wild {wild}")
        return (f"hand {self.hand_label} · dealer {self.seat_name(obs.dealer)} · "
                f"{turned} · wall {obs.live_tiles} · turn {turn}")


def phase_text(phase: Phase) -> str:
    return {Phase.TURN: "your turn", Phase.CLAIM: "claim?", Phase.ROB: "rob the kong?",
            Phase.SEA_FLOOR: "sea floor 分张", Phase.OVER: "hand over"}[phase]


def default_save_path() -> Path:
    """Where a match is saved without ``--record``: ``$XDG_STATE_HOME/caishen/play.json``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "caishen" / "play.json"
