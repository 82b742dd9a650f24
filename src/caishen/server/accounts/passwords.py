"""Login names and passwords: argon2id hashes (``argon2-cffi``), at most two computed at once;
the same work for an unknown login as for a wrong password."""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from caishen.server.accounts.messages import LOGIN_MAX, LOGIN_MIN, PASSWORD_MAX, PASSWORD_MIN, AccountError

HASHING_AT_ONCE = 2  # argon2 takes 64 MiB and some 50 ms a hash: at most this many at a time
_LOGIN = re.compile(r"^[\w.-]+$")  # letters and digits of any script, _ . -

_hasher = PasswordHasher()  # argon2id, RFC 9106's low-memory profile (t=3, 64 MiB, p=4)
_hashing = threading.BoundedSemaphore(HASHING_AT_ONCE)
_dummy: list[str] = []  # a hash to check an unknown login's password against (same work)


def hash_password(password: str) -> str:
    with _hashing:
        return _hasher.hash(password)


def needs_rehash(stored: str) -> bool:
    """Whether a hash was made with other parameters than today's (remade at the next log-in)."""
    return _hasher.check_needs_rehash(stored)


def check_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches the argon2 hash ``stored``; with no hash (an unknown login)
    a dummy hash is checked, so both take the same time, and False."""
    if stored is None:
        if not _dummy:
            _dummy.append(hash_password("not the password of anyone"))
        stored = _dummy[0]
        password = "\x00" + password
    with _hashing:
        try:
            return _hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False


def normal_login(text: str) -> str:
    """The login name as kept and compared: NFKC, case-folded, without surrounding space."""
    login = unicodedata.normalize("NFKC", text).casefold().strip()
    if not LOGIN_MIN <= len(login) <= LOGIN_MAX or not _LOGIN.match(login):
        raise AccountError(f"a login name is {LOGIN_MIN}-{LOGIN_MAX} letters, digits, '_', '.' or '-'",
                           code="bad_login_name", status=422)
    return login


def check_new_password(password: str) -> None:
    """A new password: ``PASSWORD_MIN`` to ``PASSWORD_MAX`` characters, not all of them spaces
    (eight spaces were taken)."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX or not password.strip():
        raise AccountError(f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters, not only spaces",
                           code="weak_password", status=422)


def session_handle(sid: str) -> str:
    """What the pages see of a session: a digest of its id (the id itself stays in the cookie)."""
    return hashlib.sha256(sid.encode()).hexdigest()[:16]
