"""Rooms keep a fencing number, ``epoch`` (docs/server.md, "Nodes"): raised each time a
game-centre node takes the room's table over; every write of the table's moves and hands
carries the writer's epoch, and the database refuses one whose epoch is no longer the room's.

Rooms made before this revision start at 0 (no node has taken them over).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN with a default (no batch copy of the table)
    op.add_column("rooms", sa.Column("epoch", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    op.execute("ALTER TABLE rooms DROP COLUMN epoch")
