"""Hands remember what the people mixed into their walls (caishen-fair-2, docs/fairness.md):
the contributions by seat and the events up to the deal, stored with the deal so that a
rebuilt table deals the same wall.

Hands dealt before this revision were dealt with nothing mixed in (people ``none``, bots
``bot``), which is what a missing value replays.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (no batch copy of the table: the triggers of 0004 stay)
    op.add_column("hands", sa.Column("mix", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("mix")
