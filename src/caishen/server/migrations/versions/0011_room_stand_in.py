"""Rooms remember their 托管 policy (issue 30, table manners): what the stand-in bot of an away
person plays, ``discard`` (draws and discards only) or ``full`` (plays as the bot would).

Rooms made before this revision keep the stand-in they had: ``full``.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("stand_in", sa.String(16), nullable=False, server_default="full"))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("stand_in")
