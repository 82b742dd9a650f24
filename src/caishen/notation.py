"""Strict parser and canonical formatter for tiles, melds and hands.

Grammar (see ``docs/notation.md``)::

    hand     := item (" "* item)*
    item     := run | flowers | meld
    run      := (digits suit)+            123m456p11z   (concealed tiles)
    flowers  := "f" digit+                f2, f24       (flowers held)
    meld     := "[" tiles "]"             [777z] pong, [7777z] exposed kong 大明杠
              | "<" tiles ">"             <7777z> added kong 小明杠
              | "(" tiles ")"             (1111s) concealed kong 暗杠
              | "{" tiles "}"             {5p4p6p} or {546p} chow 吃, claimed tile first
    suit     := "m" | "p" | "s" | "z"     characters, dots, bamboo, honours (1-7z = E S W N White Green Red)

Errors raise :class:`NotationError` (a :class:`~caishen.errors.CaishenError`, so a ``ValueError``;
``code`` ``"notation"``) with the 0-based position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from caishen.errors import ArgumentError, CaishenError
from caishen.hand import Hand, Meld, MeldKind, counts_of
from caishen.tiles import (
    COPIES,
    FLOWER,
    HONOR,
    NUM_KINDS,
    SUIT_LETTERS,
    TileSet,
    chinese_name,
    glyph,
    is_flower,
    kind,
    number_of,
    suit_of,
    tile_name,
)


class NotationError(CaishenError):
    """Text that is not valid notation; ``position`` is the 0-based offset of the problem."""

    code = "notation"

    def __init__(self, text: str, position: int, problem: str) -> None:
        self.text = text
        self.position = position
        self.problem = problem
        super().__init__(f"position {position} in {text!r}: {problem}")


_SUITS: Final = {"m": 0, "p": 1, "s": 2, "z": HONOR}
_OPEN: Final = {"[": "]", "<": ">", "(": ")", "{": "}"}
_MELD_NAMES: Final = {
    MeldKind.CHOW: "chow",
    MeldKind.PONG: "pong",
    MeldKind.EXPOSED_KONG: "exposed kong",
    MeldKind.ADDED_KONG: "added kong",
    MeldKind.CONCEALED_KONG: "concealed kong",
}


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, problem: str, pos: int | None = None) -> NotationError:
        return NotationError(self.text, self.pos if pos is None else pos, problem)

    def tiles(self, stop: str) -> list[tuple[int, int]]:
        """Digit-suit groups up to a space, bracket or ``stop``; returns (kind, position)."""
        out: list[tuple[int, int]] = []
        text = self.text
        while self.pos < len(text) and text[self.pos] not in " \t]>)}" + stop and text[self.pos] not in _OPEN:
            start = self.pos
            while self.pos < len(text) and text[self.pos].isdigit():
                self.pos += 1
            digits = text[start:self.pos]
            if not digits:
                raise self.error(f"unexpected {text[self.pos]!r} (expected a digit)")
            if self.pos >= len(text) or text[self.pos] in " \t" + stop or text[self.pos] in _OPEN:
                raise self.error(f"digits {digits!r} have no suit letter", start)
            letter = text[self.pos]
            if letter == "f":
                suit = FLOWER
            elif letter in _SUITS:
                suit = _SUITS[letter]
            else:
                raise self.error(f"unknown suit {letter!r} (expected m, p, s, z or f)")
            for i, d in enumerate(digits):
                try:
                    out.append((kind(suit, int(d)), start + i))
                except ValueError:
                    limit = {FLOWER: "1-4", HONOR: "1-7"}.get(suit, "1-9")
                    raise self.error(f"no tile {d}{letter} (numbers {limit})", start + i) from None
            self.pos += 1
        return out


def _in_play(ruleset: TileSet | None) -> frozenset[int] | None:
    """The ruleset's kinds as a set, built once per parse (not once per tile)."""
    return None if ruleset is None else frozenset(ruleset.tile_kinds)


def _check_kind(sc: _Scanner, k: int, pos: int, ruleset: TileSet | None, kinds: frozenset[int] | None) -> None:
    if ruleset is not None and kinds is not None and k not in kinds:
        raise sc.error(f"{tile_name(k)} ({chinese_name(k)}) is not in the {ruleset.name} tile set", pos)


def parse_tile(text: str, ruleset: TileSet | None = None) -> int:
    """One tile, e.g. ``5p``, ``7z``, ``f2``."""
    s = text.strip()
    if len(s) == 2 and s[0] == "f" and s[1].isdigit():
        if not "1" <= s[1] <= "4":  # as parse_hand says it (the scanner would name "5f")
            raise NotationError(text, text.index(s) + 1, f"no flower {s} (flowers are f1-f4)")
        s = s[1] + "f"
    sc = _Scanner(s)
    tiles = sc.tiles("")
    if sc.pos != len(s) or len(tiles) != 1:
        raise NotationError(text, 0, "expected exactly one tile, like 5p, 7z or f2")
    _check_kind(sc, tiles[0][0], 0, ruleset, _in_play(ruleset))
    return tiles[0][0]


def parse_tiles(text: str, ruleset: TileSet | None = None) -> tuple[int, ...]:
    """A run of tiles like ``123m456p11z`` (order kept, copies checked)."""
    sc = _Scanner(text.strip())
    tiles = sc.tiles("")
    if sc.pos != len(sc.text):
        raise sc.error(f"unexpected {sc.text[sc.pos]!r}")
    seen = [0] * NUM_KINDS
    kinds = _in_play(ruleset)
    for k, pos in tiles:
        _check_kind(sc, k, pos, ruleset, kinds)
        seen[k] += 1
        if seen[k] > (1 if is_flower(k) else COPIES):
            raise sc.error(f"too many copies of {tile_name(k)}", pos)
    return tuple(k for k, _ in tiles)


def parse_hand(text: str, ruleset: TileSet | None = None) -> Hand:
    """A hand: concealed tiles, flowers and melds, e.g.
    ``123m456p11z f2 [777z] (1111s) {5p4p6p}``. With a ruleset, tiles outside its set
    (White in Longgang) are refused; ``None`` accepts every tile kind."""
    sc = _Scanner(text)
    concealed: list[int] = []
    flowers: list[int] = []
    melds: list[Meld] = []
    seen = [0] * NUM_KINDS
    s = text
    kinds = _in_play(ruleset)

    def count(k: int, pos: int) -> None:
        _check_kind(sc, k, pos, ruleset, kinds)
        seen[k] += 1
        if is_flower(k) and seen[k] > 1:
            raise sc.error(f"second copy of flower {tile_name(k)} (each flower exists once)", pos)
        if seen[k] > COPIES:
            raise sc.error(f"fifth copy of {tile_name(k)}", pos)

    while sc.pos < len(s):
        c = s[sc.pos]
        if c in " \t":
            sc.pos += 1
        elif c == "f" and sc.pos + 1 < len(s) and s[sc.pos + 1].isdigit():
            sc.pos += 1
            start = sc.pos
            while sc.pos < len(s) and s[sc.pos].isdigit():
                d = s[sc.pos]
                if d not in "1234":
                    raise sc.error(f"no flower f{d} (flowers are f1-f4)")
                k = kind(FLOWER, int(d))
                count(k, sc.pos)
                flowers.append(k)
                sc.pos += 1
            if sc.pos < len(s) and s[sc.pos] not in " \t" and s[sc.pos] not in _OPEN:
                raise sc.error(f"unexpected {s[sc.pos]!r} after flowers f{s[start:sc.pos]}")
        elif c in _OPEN:
            melds.append(_parse_meld(sc, count))
        elif c.isdigit():
            for k, pos in sc.tiles(""):
                count(k, pos)
                (flowers if is_flower(k) else concealed).append(k)
        else:
            closing = "a closing bracket without an opening one" if c in "]>)}" else f"unexpected {c!r}"
            raise sc.error(closing)
    return Hand(tuple(concealed), tuple(melds), tuple(flowers))


def _parse_meld(sc: _Scanner, count: Callable[[int, int], None]) -> Meld:
    s = sc.text
    start = sc.pos
    opening = s[start]
    closing = _OPEN[opening]
    sc.pos += 1
    tiles = sc.tiles(closing)
    if sc.pos >= len(s) or s[sc.pos] != closing:
        if sc.pos < len(s) and s[sc.pos] in " \t":
            raise sc.error(f"space inside the meld opened at position {start}")
        raise sc.error(f"meld opened with {opening!r} at position {start} is not closed with {closing!r}")
    sc.pos += 1
    for k, pos in tiles:
        if is_flower(k):
            raise sc.error("a flower cannot be part of a meld", pos)
    for k, pos in tiles:
        count(k, pos)
    kinds = [k for k, _ in tiles]
    if opening == "{":
        low = min(kinds) if kinds else 0
        if len(kinds) != 3 or sorted(kinds) != [low, low + 1, low + 2] or suit_of(low) >= HONOR or (
            suit_of(low) != suit_of(low + 2)
        ):
            raise sc.error(f"{s[start:sc.pos]} is not a chow (three consecutive tiles of one suit)", start)
        return Meld(MeldKind.CHOW, tuple(kinds))
    if len(set(kinds)) != 1 or len(kinds) not in (3, 4):
        raise sc.error(f"{s[start:sc.pos]} is not a pong or kong (3 or 4 equal tiles)", start)
    if opening == "[":
        mk = MeldKind.PONG if len(kinds) == 3 else MeldKind.EXPOSED_KONG
    elif len(kinds) != 4:
        name = "an added" if opening == "<" else "a concealed"
        raise sc.error(f"{s[start:sc.pos]} is not {name} kong (4 equal tiles)", start)
    else:
        mk = MeldKind.ADDED_KONG if opening == "<" else MeldKind.CONCEALED_KONG
    return Meld(mk, tuple(kinds))


def format_tiles(kinds: Iterable[int]) -> str:
    """Canonical run of concealed tiles: sorted, one digit group per suit (``123m456p11z``);
    flowers as ``f`` + digits."""
    c = counts_of(kinds)
    parts: list[str] = []
    for suit, letter in enumerate(SUIT_LETTERS[:4]):
        size = 7 if suit == HONOR else 9
        digits = "".join(str(n) * c[suit * 9 + n - 1] for n in range(1, size + 1))
        if digits:
            parts.append(digits + letter)
    flowers = "".join(str(n) * c[34 + n - 1] for n in range(1, 5))
    if flowers:
        parts.append(("" if not parts else " ") + "f" + flowers)
    return "".join(parts)


def format_meld(meld: Meld) -> str:
    """``[777z]``, ``[7777z]``, ``<7777z>``, ``(1111s)`` or ``{5p4p6p}``."""
    if meld.kind is MeldKind.CHOW:
        return "{" + "".join(tile_name(k) for k in meld.tiles) + "}"
    body = str(number_of(meld.tile)) * len(meld.tiles) + SUIT_LETTERS[suit_of(meld.tile)]
    opening = {MeldKind.ADDED_KONG: "<", MeldKind.CONCEALED_KONG: "("}.get(meld.kind, "[")
    return opening + body + _OPEN[opening]


def format_hand(hand: Hand, style: str = "compact") -> str:
    """Canonical text of a hand; ``style`` is ``compact`` (parseable, round-trips),
    ``unicode`` (🀇 glyphs) or ``chinese`` (一万 …)."""
    if style == "compact":
        parts = [format_tiles(hand.concealed)] if hand.concealed else []
        if hand.flowers:
            parts.append("f" + "".join(str(number_of(k)) for k in hand.flowers))
        parts.extend(format_meld(m) for m in hand.melds)
        return " ".join(parts)
    if style == "unicode":
        render = glyph
        sep = ""
    elif style == "chinese":
        render = chinese_name
        sep = " "
    else:
        raise ArgumentError(f"unknown style {style!r} (compact, unicode or chinese)")
    groups = [sep.join(render(k) for k in hand.concealed)] if hand.concealed else []
    if hand.flowers:
        groups.append(sep.join(render(k) for k in hand.flowers))
    for m in hand.melds:
        groups.append("[" + sep.join(render(k) for k in m.tiles) + "]")
    return "  ".join(groups)


def format_tile(k: int, style: str = "compact") -> str:
    """One tile in ``compact`` (5p), ``unicode`` (🀝) or ``chinese`` (五筒) style."""
    if style == "compact":
        return tile_name(k)
    if style == "unicode":
        return glyph(k)
    if style == "chinese":
        return chinese_name(k)
    raise ArgumentError(f"unknown style {style!r} (compact, unicode or chinese)")
