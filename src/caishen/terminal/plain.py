"""``caishen play --plain``: the match as lines of text, for pipes, screen readers and scripts.

Each time the person must act, the seat's observation is printed, then one action is read per
line in the record's action text form (``discard 5p``, ``pong 5p``, ``win``, ``pass``; a bare
tile ``5p`` discards it). An empty line takes the suggested move. Bad input gets one line of
error and the prompt again. End of input saves the match and ends with status 0.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from caishen.terminal.core import action_text
from caishen.terminal.model import (
    SEAT_NAMES,
    HandSummary,
    PlayError,
    PlayState,
    TileStyle,
    describe_action,
    meld_text,
    phase_text,
    tile_label,
)

_C = TileStyle.CODE


def _tiles(ks: tuple[int, ...] | list[int]) -> str:
    return " ".join(tile_label(k, _C) for k in ks) or "-"


def observation_text(state: PlayState) -> str:
    """The person's view of the table as plain lines (no colour, no box drawing)."""
    obs = state.observation()
    me = state.me
    last = state.last_discard()
    lines = [state.table_status()]
    for step in (1, 2, 3):
        seat = (me + step) % 4
        pile = list(obs.discards[seat])
        text = _tiles(pile)
        if last is not None and last[0] == seat and pile:
            text = text[: -len(tile_label(pile[-1], _C))] + f"[{tile_label(pile[-1], _C)}]"
        melds = ", ".join(meld_text(m) for m in obs.melds[seat]) or "-"
        flowers = f"flowers {_tiles(list(obs.flowers[seat]))}; " if state.terms.flowers else ""
        lines.append(
            f"{state.seat_name(seat)} ({SEAT_NAMES[seat]}): {obs.concealed_counts[seat]} tiles; "
            f"melds {melds}; {flowers}discards {text}"
        )
    tiles, drawn = state.hand_tiles()
    wild = [k for k in tiles if k in obs.wilds]
    rest = [k for k in tiles if k not in obs.wilds]
    hand = ("wild " + _tiles(wild) + " | " if wild else "") + _tiles(rest)
    if drawn is not None:
        hand += f" | drew {tile_label(drawn, _C)}"
    own = [("own " if f == state.own_flower() else "") + tile_label(f, _C) for f in obs.hand.flowers]
    flowers = f"flowers {' '.join(own) or '-'}; " if state.terms.flowers else ""
    lines.append(
        f"you {state.seat_name(me)} ({SEAT_NAMES[me]}): {hand}; melds "
        f"{', '.join(meld_text(m) for m in obs.hand.melds) or '-'}; {flowers}"
        f"discards {_tiles(list(obs.discards[me]))}"
    )
    if obs.last_discard is not None:
        lines.append(f"on the table: {tile_label(obs.last_discard, _C)} from {state.seat_name(obs.current)}")
    return "\n".join(lines)


def summary_text(summary: HandSummary) -> str:
    """The itemised score of a hand: rule, item, 胡, 台, the total and the chips; a hand paid
    item by item (Gangci, G2) shows its statement: rule, item, who paid whom, amount, formula."""
    lines = [summary.headline]
    if summary.statement is not None and summary.statement.payments:
        lines.append(summary.statement.table())
    if summary.rows:
        lines.append(f"{'rule':<8}{'item':<50}{'胡':>4}{'台':>4}")
        for r in summary.rows:
            lines.append(f"{r.rule:<8}{_pad(r.item, 50)}{r.fu:>5}{r.tai:>5}".rstrip())
        lines.append(summary.total)
    for letter, name, own, chips in summary.seats:
        own_text = "" if own is None else f" count {own}"
        lines.append(f"{letter} {name}:{own_text} chips {chips:+d}")
    return "\n".join(lines)


def _pad(text: str, width: int) -> str:
    """Left-justify by display width (CJK characters take two columns)."""
    cells = sum(2 if ord(c) >= 0x1100 and not 0x2000 <= ord(c) < 0x3000 else 1 for c in text)
    return text + " " * max(width - cells, 1)


def standings_text(state: PlayState) -> str:
    rows = state.standings()
    return "match over. standings:\n" + "\n".join(f"{place}. {name} {chips} chips" for place, name, chips in rows)


def run_plain(state: PlayState, save_path: Path, read: Callable[[], str | None], out: TextIO) -> int:
    """Play until the match is over or the input ends; save the match either way. ``read``
    returns the next input line without its newline, or ``None`` at the end of input."""

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    shown = len(state.log)
    try:
        while True:
            for entry in state.log[shown:]:
                say(f"  {state.log_line(entry)}")
            shown = len(state.log)
            s = state.session
            if s.hand_over:
                say(summary_text(state.hand_summary()))
                state.save(save_path)  # every finished hand is on disk at once
                if s.over:
                    say(standings_text(state))
                    return 0
                state.next_hand()
                continue
            say(observation_text(state))
            hint = state.suggest()
            say(f"{phase_text(state.observation().phase)} legal: {', '.join(state.legal_texts())}")
            say(f"suggested (empty line): {describe_action(hint)}")
            while True:
                out.write("> ")
                out.flush()
                got = read()
                if got is None:
                    say("")
                    return 0
                try:
                    action = hint if not got.strip() else state.parse(got)
                except PlayError as exc:
                    say(f"error: {exc}")
                    continue
                say(action_text(action))  # the input is not echoed in a pipe: keep the transcript readable
                state.act(action)
                break
    finally:
        state.save(save_path)
        say(f"match saved to {save_path}")
