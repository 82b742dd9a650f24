"""Rich renderables of the table for the Textual app: tiles as small two-line faces (number
over suit, as on a real tile), coloured by suit, wilds on gold, the cursor in reverse."""

from __future__ import annotations

from typing import Final

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from caishen.terminal.core import (
    SEAT_LETTERS,
    Meld,
    MeldKind,
    chinese_name,
    glyph,
    is_flower,
    is_honor,
    suit_of,
    tile_name,
)
from caishen.terminal.model import SEAT_NAMES, HandSummary, PlayState, TileStyle, tile_label

_SUIT_COLOUR: Final = ("#b22222", "#1f4fbf", "#137a3a", "#222222", "#8a2be2")  # 万 red, 筒 blue, 条 green
_DRAGON_COLOUR: Final = {31: "#555555", 32: "#137a3a", 33: "#b22222"}
FACE: Final = "on #f3ecd8"          # ivory tile face
WILD_FACE: Final = "on #f4c430"     # 财神: gold
CURSOR: Final = "on #7fd3ff"        # the tile under the cursor
LAST: Final = "on #ff9f80"          # the latest discard on the table
_RELATIVE: Final = ("", "下家 right", "对家 across", "上家 left")


def colour(k: int) -> str:
    if is_honor(k):
        return _DRAGON_COLOUR.get(k, _SUIT_COLOUR[3])
    return _SUIT_COLOUR[suit_of(k)]


def face(k: int, style: TileStyle) -> tuple[str, str]:
    """The two lines of a tile face, 2 columns each."""
    if style is TileStyle.CODE:
        return tile_name(k), "  "
    if style is TileStyle.GLYPH:
        return glyph(k) + " ", "  "
    name = chinese_name(k)
    if is_flower(k):
        return name, "花"
    if is_honor(k):
        top = tile_label(k, style).strip()
        return top, ("风" if k < 31 else "  ")
    return name[0], name[1]


def tiles_text(tiles: list[int], style: TileStyle, marks: dict[int, str] | None = None, gap: str = " ") -> Text:
    """Tiles as two-line faces in one Text (two lines). ``marks[i]``: background of tile ``i``."""
    top, bottom = Text(), Text()
    for i, k in enumerate(tiles):
        a, b = face(k, style)
        bg = (marks or {}).get(i, FACE)
        st = f"bold {colour(k)} {bg}"
        top.append(a, st)
        bottom.append(b, st)
        top.append(gap)
        bottom.append(gap)
    top.append("\n")
    top.append_text(bottom)
    return top


def meld_label(m: Meld, style: TileStyle) -> Text:
    """A declared meld on one line: 碰 五筒 / 吃 三四五万 / 暗杠 红中 (code: [555p], {345p}, (5555p))."""
    t = Text()
    if style is TileStyle.CODE or style is TileStyle.GLYPH:
        tiles = sorted(m.tiles) if m.kind is MeldKind.CHOW else list(m.tiles)
        body = "".join((glyph(k) if style is TileStyle.GLYPH else tile_name(k)) for k in tiles)
        o, c = {MeldKind.CHOW: ("{", "}"), MeldKind.PONG: ("[", "]"), MeldKind.EXPOSED_KONG: ("[", "]"),
                MeldKind.ADDED_KONG: ("<", ">"), MeldKind.CONCEALED_KONG: ("(", ")")}[m.kind]
        t.append(o + body + c, f"bold {colour(m.tile)} {FACE}")
        return t
    word = {MeldKind.CHOW: "吃", MeldKind.PONG: "碰", MeldKind.EXPOSED_KONG: "杠", MeldKind.ADDED_KONG: "补杠",
            MeldKind.CONCEALED_KONG: "暗杠"}[m.kind]
    if m.kind is MeldKind.CHOW:
        low = min(m.tiles)
        name = "".join(chinese_name(k)[0] for k in (low, low + 1, low + 2)) + chinese_name(low)[1]
    else:
        name = tile_label(m.tile, style).strip()
    t.append(word, "bold")
    t.append(name, f"bold {colour(m.tile)} {FACE}")
    return t


def seat_panel(state: PlayState, seat: int, style: TileStyle) -> RenderableType:
    """Another seat: who, tiles held, melds, flowers laid open, and its discards (the latest
    discard on the table highlighted)."""
    obs = state.observation()
    head = Text()
    rel = _RELATIVE[(seat - state.me) % 4]
    turn = not state.session.hand_over and obs.current == seat
    head.append(("▶ " if turn else "  ") + state.seat_name(seat), "bold reverse" if turn else "bold")
    head.append(f" {SEAT_NAMES[seat].split()[1]} {rel}", "dim")
    if obs.dealer == seat:
        head.append(" 庄dealer", "bold #b22222")
    head.append(f"  {obs.concealed_counts[seat]} tiles")
    for m in obs.melds[seat]:
        head.append("  ")
        head.append_text(meld_label(m, style))
    if obs.flowers[seat]:
        head.append("  花 ")
        head.append(" ".join(chinese_name(f) if style is TileStyle.CHINESE else tile_name(f) for f in obs.flowers[seat]),
                    "bold #8a2be2")
    pile = list(obs.discards[seat])
    last = state.last_discard()
    marks = {len(pile) - 1: LAST} if last is not None and last[0] == seat and pile else {}
    body = tiles_text(pile, style, marks) if pile else Text("  (no discards)\n", "dim")
    return Group(head, body)


def status_line(state: PlayState, style: TileStyle) -> Text:
    """Hand, dealer, indicator and wilds (Gangci: the 次牌, G4), wall, whose turn."""
    obs = state.observation()
    s = state.session
    t = Text()
    t.append(f" hand {state.hand_label} ", "bold reverse")
    t.append(f" 庄 {state.seat_name(obs.dealer)} ")
    ci = state.terms.ci
    if obs.indicator is not None:
        t.append(" 次牌 " if ci else " 翻 ")
        t.append(tile_label(obs.indicator, style).strip(), f"bold {colour(obs.indicator)} {FACE}")
    if not ci:  # the 次牌 makes no wilds (G4.2)
        t.append(" 财神 wild ")
        for k in sorted(obs.wilds):
            t.append(tile_label(k, style).strip(), f"bold {colour(k)} {WILD_FACE}")
            t.append(" ")
    t.append(f" wall {obs.live_tiles} ")
    turn = "over" if s.hand_over else state.seat_name(obs.current)
    t.append(f" turn {turn} ", "bold")
    return t


def summary_renderable(summary: HandSummary, standings: list[tuple[int, str, int]] | None) -> RenderableType:
    """The itemised score table (rule, item, 胡, 台), each seat's count and chips; then the
    standings when the match is over. A hand paid item by item (Gangci, G2): its payments
    (rule, item in Chinese over English, payer→payee, chips and their formula) instead of the
    score table, and no counts; each payment takes two lines, to fit 80 columns."""
    parts: list[RenderableType] = [Text(summary.headline, "bold")]
    st = summary.statement
    if st is not None and st.payments:
        pays = Table(show_edge=False, pad_edge=False, expand=False)
        for name in ("rule", "item", "from→to"):
            pays.add_column(name)
        pays.add_column("chips", justify="right")
        for p in st.payments:
            item = Text(p.item.chinese + "\n")
            item.append(p.item.english, "dim")
            amount = str(p.amount) if p.formula == str(p.amount) else f"{p.amount} = {p.formula}"
            pays.add_row(p.rule, item, f"{SEAT_LETTERS[p.payer]}→{SEAT_LETTERS[p.payee]}", amount)
        parts.append(pays)
    if summary.rows:
        table = Table(show_edge=False, pad_edge=False, expand=False)
        table.add_column("rule")
        table.add_column("item")
        table.add_column("胡", justify="right")
        table.add_column("台", justify="right")
        for r in summary.rows:
            table.add_row(r.rule, r.item, r.fu, r.tai, style="bold" if not r.rule else None)
        parts.append(table)
        parts.append(Text(summary.total))
    if summary.hand:
        parts.append(Text(f"winning hand: {summary.hand}"))
    chips = Table(show_edge=False, pad_edge=False)
    chips.add_column("seat")
    chips.add_column("player")
    if st is None:  # each seat's own count (L23); a hand paid item by item has none
        chips.add_column("count", justify="right")
    chips.add_column("chips 筹码", justify="right")
    chips.add_column("now", justify="right")
    for (letter, name, own, c), now in zip(summary.seats, summary.seat_chips_after, strict=True):
        count = ("" if own is None else str(own),) if st is None else ()
        chips.add_row(letter, name, *count, Text(f"{c:+d}", "green" if c > 0 else "red" if c < 0 else ""), str(now))
    parts.append(chips)
    if standings is not None:
        parts.append(Text("match over 终局: " + "  ".join(f"{place}. {name} {c}" for place, name, c in standings),
                          "bold"))
    return Group(*parts)
