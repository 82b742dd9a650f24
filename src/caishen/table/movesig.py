"""Moves signed by the person who made them (docs/fairness.md, "Signed moves").

When a person sits at a game centre's table, their page makes an ECDSA P-256 key pair with
WebCrypto (the private key cannot leave the browser) and registers the public key with the
seat; each move it sends carries a signature over the move's **canonical bytes**
(:func:`move_message`)::

    caishen-move-1 LF room LF hand LF step LF action

(UTF-8; ``room`` the room's code, ``hand`` the hand's index and ``step`` the move's step
(:func:`steps`), both in decimal; ``action`` the move's record text, e.g. ``discard 5p``). The
step is the number of moves of the hand before this one that a player is told of: every move
but the passes, and of the claims made on one discard or added kong only one (the one that took
effect; those that lost to it were never made). Every answer in one claim window (a claim, a
win on it or a pass) has the step after the move it answers, however many answered before it,
as every person asked is shown the same table. (Records signed before 2026-12-07 counted every
move but the passes; a verifier accepts either count for every move.) A record's
hand keeps, by seat, the public key its person signed with (``signers``) and, for every
action, its signature or a word (``signatures``):

* 128 hex digits: the ECDSA signature (``r || s``, 32 bytes each, as WebCrypto makes it) by
  the seat's key, over the canonical bytes;
* ``"server"``: the centre moved (a bot's seat, or a stand-in bot playing for a person);
* ``"unsigned"``: a person's move that came without a signature (an older page, a script).

Public keys are the uncompressed P-256 point (65 bytes, ``04 || x || y``) as 130 hex digits:
what ``crypto.subtle.exportKey("raw", key)`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

MOVE_LABEL: Final = "caishen-move-1"
SERVER: Final = "server"
UNSIGNED: Final = "unsigned"
MARKS: Final = (SERVER, UNSIGNED)
KEY_HEX: Final = 130
SIGNATURE_HEX: Final = 128


#: The moves that open a claim window, and those that may answer one (the first word of the
#: record text of :class:`~caishen.engine.actions.ActionKind`'s moves).
OPENS: Final = frozenset({"discard", "added_kong"})
ANSWERS: Final = frozenset({"pass", "chow", "pong", "exposed_kong", "win"})


class Steps:
    """The steps of a hand's moves, counted as they come (:func:`steps` over a whole hand; the
    game centre's table over the hand in play). ``count``: the step of the next move that is no
    answer, the moves so far that a player is told of; ``opened``: the step every answer of the
    claim window open now is signed at (``None``: no window is open); ``older``: the count of
    records signed before 2026-12-07, every move so far but the passes; ``also``: the other step
    the last move may have been signed at (:func:`accepted`)."""

    __slots__ = ("count", "opened", "older", "also", "_seats", "_claimers", "_claimed", "_first", "_discarded")

    def __init__(self) -> None:
        self.count = 0
        self.opened: int | None = None
        self.older = 0
        self.also = 0
        self._seats: set[int] = set()     # who opened the window open now, and who answered it
        self._claimers: set[int] = set()  # who opened it, and who claimed in it
        self._claimed = False             # some answer in it claimed: of its claims only one counts
        self._first = False               # the window open now is the hand's first discard's
        self._discarded = False           # the hand has had a discard

    def _answers(self, seat: int, kind: str) -> bool:
        if self._first:
            # The opening kong round (Longgang L9) comes between the hand's first discard and its
            # claim window: a seat's pass in it, then its answer to the discard. No sea floor
            # follows the first discard: only a claimer's own move (a win on its kong's
            # replacement tile) ends the window with an answer's word.
            return kind == "pass" or seat not in self._claimers
        return seat not in self._seats

    def add(self, seat: int, kind: str) -> tuple[int, int]:
        """The next move (its seat, the first word of its record text): the step it is signed
        at, and the step an older record signed it at."""
        window, count = self.opened, self.count
        if self.opened is not None and kind in ANSWERS and self._answers(seat, kind):
            at = (self.opened, self.older)
            self._seats.add(seat)
            if kind != "pass":
                self._claimers.add(seat)
                if not self._claimed:
                    self._claimed = True
                    self.count += 1
        elif self.opened is not None and self._first and kind == "concealed_kong" and not self._claimed:
            # a kong of the opening kong round (or the next seat's own, when nobody was asked
            # about the first discard): it counts, and the discard's answers come after it
            at = (self.count, self.older)
            self.count += 1
            self.opened = self.count
        else:
            at = (self.count, self.older)
            self.opened = None
            if kind != "pass":
                self.count += 1
            if kind in OPENS:
                self.opened, self._seats, self._claimers, self._claimed = self.count, {seat}, {seat}, False
                self._first = kind == "discard" and not self._discarded
            if kind == "discard":
                self._discarded = True
        if kind != "pass":
            self.older += 1
        # A move of an answer's word while a window is open: the record alone does not always
        # tell an answer from the move of a seat that was not asked (a sea-floor tile's win or
        # pass right after an exposed kong took the discard: the table, out of the window,
        # asked it at the count). Such a move may have been signed at the other of the two.
        self.also = at[0] if window is None or kind not in ANSWERS else count if at[0] == window else window
        return at


def accepted(moves: Sequence[tuple[int, str]]) -> list[tuple[int, ...]]:
    """Each move's steps a verifier accepts its signature at: its step (:func:`steps`), the other
    step a table may have asked it at when the record alone leaves open whether it answered a
    claim window (``Steps.also``), and the count of records signed before 2026-12-07; each once."""
    counter = Steps()
    out: list[tuple[int, ...]] = []
    for seat, text in moves:
        step, older = counter.add(seat, text.split(" ", 1)[0])
        out.append(tuple(dict.fromkeys((step, counter.also, older))))
    return out


def steps(moves: Sequence[tuple[int, str]]) -> list[tuple[int, int]]:
    """Each move of a hand (seat, record text, in order) with the step it is signed at and the
    step an older record signed it at. An answer is a move of :data:`ANSWERS` after a move of
    :data:`OPENS` with only answers between them, each by a seat of its own that did not open
    the window: a seat that moves again (the claimer's discard, a kong's win on its replacement
    tile) or any other move ends the window. The hand's first discard is the one exception: the
    opening kong round (Longgang L9) may come between it and its answers, so there a concealed
    kong before any claim counts and moves the window's step after it, a pass never ends the
    window, and only a seat that claimed in it ends it with a claim's or a win's word. Every
    answer has the step after the move that opened its window; the window's claims count as
    one step, the one that took effect (a chow that lost to a pong, a pong to a win, was never
    made: counted, the step would tell that someone had claimed)."""
    counter = Steps()
    return [counter.add(seat, text.split(" ", 1)[0]) for seat, text in moves]


def move_message(room: str, hand: int, step: int, action: str) -> bytes:
    """The canonical bytes a person's move is signed over."""
    return f"{MOVE_LABEL}\n{room}\n{hand}\n{step}\n{action}".encode()


def is_key(text: object) -> bool:
    """A public key as a record and the wire hold it: 130 lowercase hex digits, ``04`` first."""
    return isinstance(text, str) and len(text) == KEY_HEX and text.startswith("04") and _hex(text)


def is_signature(text: object) -> bool:
    return isinstance(text, str) and len(text) == SIGNATURE_HEX and _hex(text)


def _hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def public_key(key_hex: str) -> ec.EllipticCurvePublicKey:
    """The P-256 public key of 130 hex digits; ``ValueError`` if it is not a point on the curve."""
    if not is_key(key_hex):
        raise ValueError("a public key is 130 lowercase hex digits (an uncompressed P-256 point)")
    return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(key_hex))


def verify_move(key_hex: str, signature_hex: str, message: bytes) -> bool:
    """Whether ``signature_hex`` (``r || s``) is ``key_hex``'s ECDSA P-256 / SHA-256 signature
    over ``message``."""
    if not is_signature(signature_hex):
        return False
    try:
        key = public_key(key_hex)
    except ValueError:
        return False
    raw = bytes.fromhex(signature_hex)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


def sign_move(key: ec.EllipticCurvePrivateKey, message: bytes) -> str:
    """A signature as a page makes it (``r || s``, hex): for tests and scripted players."""
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    return (r.to_bytes(32, "big") + s.to_bytes(32, "big")).hex()


def key_hex(key: ec.EllipticCurvePrivateKey) -> str:
    """The public half of ``key`` as a record holds it."""
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415

    return key.public_key().public_bytes(serialization.Encoding.X962,
                                         serialization.PublicFormat.UncompressedPoint).hex()


__all__ = ["MARKS", "SERVER", "UNSIGNED", "is_key", "is_signature", "key_hex", "move_message", "public_key",
           "sign_move", "verify_move"]
