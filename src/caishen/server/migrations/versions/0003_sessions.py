"""Server-side sessions: a cookie names a session, which "log out everywhere" can revoke.

``sessions`` holds one row per signed-in browser (its random id is in the signed cookie) with
when it was last used; ``users.revoked_at`` is when the person last logged out everywhere.
A cookie from before this revision names only the person: it is accepted (and given a
session of its own at its next request) unless that person has logged out everywhere since.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user", sa.String(40), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=False),
    )
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("revoked_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("revoked_at")
    op.drop_table("sessions")
