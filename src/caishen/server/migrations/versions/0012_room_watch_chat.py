"""Rooms remember two table-manners options (issue 30): ``spectators``, whether friends may
watch the table (public information only, one move behind), and ``chat``, whether the people
at the table may write free text beside the fixed phrases and stickers.

Both are off for rooms made before this revision, as they are by default for new ones.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE ... ADD COLUMN on both databases: a batch would copy the table on SQLite,
    # which its members' and hands' foreign keys refuse once rows point at it
    op.add_column("rooms", sa.Column("spectators", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("rooms", sa.Column("chat", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("chat")
        batch.drop_column("spectators")
