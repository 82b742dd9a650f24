"""Clubs (issue 30, item 2): a club 亲友圈 with its members and their roles, its rule templates
and the rooms opened for it.

``clubs``: the invite code (the key), the name, the owner, whether joining needs approval and
the season's dates if the owner set them. ``club_members``: one row per person and club with the
role (owner, admin, member, pending, blacklisted; a removed member has none) and when they last
had the club's page open. ``club_templates``: a named preset of room options (JSON).
``club_rooms``: the rooms opened for a club (only its members take their seats).

A database from before has no club: nothing of it changes.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("owner", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("approval", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("season_start", sa.Date(), nullable=True),
        sa.Column("season_end", sa.Date(), nullable=True),
    )
    op.create_table(
        "club_members",
        sa.Column("club", sa.String(16), sa.ForeignKey("clubs.code"), primary_key=True),
        sa.Column("user", sa.String(40), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.Column("seen_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_club_members_user", "club_members", ["user"])
    op.create_table(
        "club_templates",
        sa.Column("club", sa.String(16), sa.ForeignKey("clubs.code"), primary_key=True),
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "club_rooms",
        sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("club", sa.String(16), sa.ForeignKey("clubs.code"), nullable=False),
        sa.Column("template", sa.String(40), nullable=True),
        sa.Column("opened_by", sa.String(40), sa.ForeignKey("users.id"), nullable=False),
    )
    op.create_index("ix_club_rooms_club", "club_rooms", ["club"])


def downgrade() -> None:
    op.drop_index("ix_club_rooms_club", "club_rooms")
    op.drop_table("club_rooms")
    op.drop_table("club_templates")
    op.drop_index("ix_club_members_user", "club_members")
    op.drop_table("club_members")
    op.drop_table("clubs")
