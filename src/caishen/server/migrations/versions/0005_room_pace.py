"""Rooms remember their pace: how fast the bots move (normal, fast, instant; docs/server.md).

Rooms made before this revision play at the normal pace.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("pace", sa.String(16), nullable=False, server_default="normal"))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("pace")
