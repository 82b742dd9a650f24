"""The game centre's first schema: users, rooms, members, hands, moves, settings.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("variant", sa.String(40), nullable=False),
        sa.Column("ruleset", sa.Text(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("turn_seconds", sa.Integer(), nullable=False),
        sa.Column("help_allowed", sa.Boolean(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("record", sa.Text(), nullable=True),
    )
    op.create_index("ix_rooms_status", "rooms", ["status"])
    op.create_table(
        "members",
        sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("player", sa.Integer(), primary_key=True),
        sa.Column("user", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
    )
    op.create_index("ix_members_user", "members", ["user"])
    op.create_table(
        "hands",
        sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("index", sa.Integer(), primary_key=True),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.String(128), nullable=True),
        sa.Column("record", sa.Text(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "moves",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("hand", sa.Integer(), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    for name in ("settings", "moves", "hands", "members", "rooms", "users"):
        op.drop_table(name)
