"""Accounts (issue 30): a person may claim a login name and a password, to sign in on other
devices; the person stays the same (same id, same matches).

``accounts`` holds one row per claimed person: the login name (normalised: NFKC, case-folded;
unique), the password's argon2 hash (never the password), when the account was made and when
its password last changed. ``users.deleted_at`` is when a person deleted their account (their
name is then "deleted player" wherever it was stored).

Every person from before this revision has no ``accounts`` row: a guest, with their matches,
as before.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("user", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("login", sa.String(40), nullable=False, unique=True),
        sa.Column("password", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("password_at", sa.DateTime(), nullable=False),
    )
    op.add_column("users", sa.Column("deleted_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE users DROP COLUMN deleted_at")
    op.drop_table("accounts")
