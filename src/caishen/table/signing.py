"""Signed match records 签名对局记录: Ed25519 signatures over the canonical JSON of a record.

A table that plays a match signs the finished record with its own key, so that anyone holding
the table's public key can check that the record (moves, results, names, ruleset, walls) is
the one the table wrote. What a signature proves and what it does not: ``docs/fairness.md``.

* The **canonical form** of a record is its JSON object without the ``signature`` member,
  written with sorted keys, no spaces (``","`` and ``":"``), UTF-8 without ``\\u`` escapes
  (:func:`canonical`).
* The ``signature`` member is ``{"algorithm": "ed25519", "key": <public key, 64 hex digits>,
  "value": <signature, 128 hex digits>}`` (:func:`sign_record`, :func:`verify_signature`).
* A table's key is made once and kept in the user's data directory (:func:`default_key_path`,
  overridden by ``$CAISHEN_KEY``), unencrypted PKCS#8 PEM readable by its owner only
  (:func:`load_or_create_key`).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from caishen.errors import CaishenError
from caishen.table import strict_json
from caishen.table.strict_json import StrictJSONError

ALGORITHM: Final = "ed25519"
SIGNATURE: Final = "signature"
KEY_ENV: Final = "CAISHEN_KEY"
KEY_FILE: Final = "signing-key.pem"


class SignatureError(CaishenError):
    """A signature that is missing, malformed, made by another key, or does not match the record."""

    code = "signature"


@dataclass(frozen=True, slots=True)
class Signature:
    """A record's signature: the signer's public key and the signature, both as hex."""

    key: str
    value: str


def _parse(record_json: str) -> dict[str, Any]:
    try:
        data = strict_json.loads(record_json)
    except StrictJSONError as exc:
        raise SignatureError(f"not a JSON record: {exc}") from None
    if not isinstance(data, dict):
        raise SignatureError("not a JSON record: must be an object")
    return data


def canonical(record_json: str) -> bytes:
    """The bytes a signature covers: the record's JSON object without ``signature``, with
    sorted keys and no spaces, as UTF-8."""
    data = _parse(record_json)
    data.pop(SIGNATURE, None)
    return _canonical(data)


def _canonical(data: dict[str, Any]) -> bytes:
    """:func:`canonical` of a record already parsed, its ``signature`` taken out."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def public_key_hex(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The 32-byte raw public key as 64 hex digits (what ``caishen keys show`` prints)."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def parse_public_key(text: str) -> Ed25519PublicKey:
    """A public key from its 64 hex digits (optionally prefixed ``ed25519:``)."""
    t = text.strip().removeprefix("ed25519:")
    try:
        raw = bytes.fromhex(t)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise SignatureError(f"a public key is 64 hex digits, not {t[:80]!r}")
    return Ed25519PublicKey.from_public_bytes(raw)


def signature_of(record_json: str) -> Signature | None:
    """The record's ``signature`` member, checked for shape, or ``None`` when unsigned."""
    sig = _parse(record_json).get(SIGNATURE)
    return None if sig is None else signature_from_json(sig)


def signature_from_json(sig: object) -> Signature:
    """A ``signature`` member checked for shape: algorithm, a public key and a 64-byte value."""
    if not isinstance(sig, dict) or set(sig) != {"algorithm", "key", "value"}:
        raise SignatureError('signature: must be {"algorithm", "key", "value"}')
    if sig["algorithm"] != ALGORITHM:
        raise SignatureError(f"signature: algorithm must be {ALGORITHM!r}, not {str(sig['algorithm'])[:80]!r}")
    key, value = sig["key"], sig["value"]
    if not isinstance(key, str) or not isinstance(value, str):
        raise SignatureError("signature: key and value must be hex strings")
    parse_public_key(key)
    try:
        ok = len(bytes.fromhex(value)) == 64
    except ValueError:
        ok = False
    if not ok:
        raise SignatureError("signature: value must be 128 hex digits")
    return Signature(key.lower(), value.lower())


def sign_record(record_json: str, key: Ed25519PrivateKey) -> str:
    """The record (JSON text) with a ``signature`` member by ``key`` over its canonical form
    (any earlier signature is replaced), as one line of JSON."""
    data = _parse(record_json)  # parsed once: the game centre signs every match's record at its end
    data.pop(SIGNATURE, None)
    data[SIGNATURE] = _signature(key, _canonical(data))
    return json.dumps(data, ensure_ascii=False)


def _signature(key: Ed25519PrivateKey, canonical_bytes: bytes) -> dict[str, str]:
    """The ``signature`` member by ``key`` over a record's canonical bytes."""
    return {"algorithm": ALGORITHM, "key": public_key_hex(key), "value": key.sign(canonical_bytes).hex()}


def sign_text(record_json: str, canonical_bytes: bytes, key: Ed25519PrivateKey) -> str:
    """:func:`sign_record` without parsing the record: ``record_json`` is an unsigned record
    written on one line by ``json.dumps(data, ensure_ascii=False)`` (``MatchRecord.dumps``),
    and ``canonical_bytes`` its :func:`canonical` form (``MatchRecord.canonical``). The same
    text as ``sign_record(record_json, key)``. The game centre signs every match's record at its
    end: parsing and writing it whole again took some 5 % of its CPU at 100 busy tables."""
    return f'{record_json[:-1]}, "{SIGNATURE}": {json.dumps(_signature(key, canonical_bytes))}}}'


def verify_signature(record_json: str, pubkey: str | Ed25519PublicKey | None = None) -> Signature:
    """Check the record's signature; return it. ``pubkey`` (hex or a key): the signer must be
    this key; ``None``: the key the record names (which proves only that the record is intact
    since that key signed it). Raises :class:`SignatureError` when the record is unsigned,
    signed by another key, or altered."""
    sig = signature_of(record_json)
    if sig is None:
        raise SignatureError("the record is not signed")
    if pubkey is not None:
        want = public_key_hex(parse_public_key(pubkey) if isinstance(pubkey, str) else pubkey)
        if sig.key != want:
            raise SignatureError(f"signed by key {sig.key}, not by {want}")
    try:
        parse_public_key(sig.key).verify(bytes.fromhex(sig.value), canonical(record_json))
    except InvalidSignature:
        raise SignatureError(f"the signature by key {sig.key} does not match the record: it was altered") from None
    return sig


# ---------------------------------------------------------------- the table's key


def data_dir() -> Path:
    """The user's data directory for caishen: ``%APPDATA%\\caishen`` on Windows,
    ``~/Library/Application Support/caishen`` on macOS, else ``$XDG_DATA_HOME/caishen``
    (default ``~/.local/share/caishen``)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "caishen"


def default_key_path() -> Path:
    """``$CAISHEN_KEY`` when set, else ``signing-key.pem`` in :func:`data_dir`."""
    env = os.environ.get(KEY_ENV)
    return Path(env) if env else data_dir() / KEY_FILE


def load_key(path: str | Path) -> Ed25519PrivateKey:
    """The Ed25519 private key of a PEM file."""
    p = Path(path)
    try:
        key = serialization.load_pem_private_key(p.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"{p}: not an unencrypted Ed25519 PEM key: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{p}: not an Ed25519 key")
    return key


def load_or_create_key(path: str | Path | None = None) -> Ed25519PrivateKey:
    """The table's key at ``path`` (default :func:`default_key_path`), made on first use:
    a new key is written with mode 0600 and never overwritten."""
    p = Path(path) if path is not None else default_key_path()
    if p.exists():
        return load_key(p)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    p.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made by another process meanwhile: use that one
        return load_key(p)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return key


__all__ = [
    "ALGORITHM",
    "Signature",
    "SignatureError",
    "canonical",
    "data_dir",
    "default_key_path",
    "load_key",
    "load_or_create_key",
    "parse_public_key",
    "public_key_hex",
    "sign_record",
    "sign_text",
    "signature_from_json",
    "signature_of",
    "verify_signature",
]
