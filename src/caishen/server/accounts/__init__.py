"""Accounts (issue 30, item 1): a guest may claim a login name and a password, and so sign in
on other devices; the person stays the same (same id, same matches). docs/server.md, "Accounts".

- ``POST /api/account``: claim (a guest becomes an account; with no guest yet, a new person
  named after the login is made first: one click and a form);
- ``POST /api/login`` / ``POST /api/logout``: a new session for the account / end this one;
- ``GET /api/account``, ``GET /api/account/sessions``, ``DELETE /api/account/sessions/ID``;
- ``POST /api/account/password`` (the old one needed; every other session ends);
- ``POST /api/account/delete`` (the password needed): the login and the hash go, the person's
  name becomes "deleted player" in every stored match, which stay.

Passwords are kept only as argon2id hashes (``argon2-cffi``). Wrong login and wrong password
get the same answer (``bad_login``, and the same work: a hash is checked either way). Log-in
attempts are limited per login name and per address (:mod:`caishen.server.limits`, kind
``logins``). Every refusal is an :class:`AccountError` (a ``CaishenError``) answered as JSON
``{"detail", "code"}`` with its HTTP status, never a 500.
"""

from caishen.server.accounts.routes import install

__all__ = ["install"]
