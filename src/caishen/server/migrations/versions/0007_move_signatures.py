"""Moves keep who vouches for them (docs/fairness.md, "Signed moves"): a person's ECDSA P-256
signature over the move with the public key it was made by, ``server`` for a bot's or a
stand-in's move, ``unsigned`` for a person's move sent without a signature.

Moves stored before this revision have neither (NULL): the hands they belong to are recorded
as before, without signatures.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs (no batch copy of the table: the triggers of 0004 stay)
    op.add_column("moves", sa.Column("sig", sa.String(128), nullable=True))
    op.add_column("moves", sa.Column("signer", sa.String(130), nullable=True))


def downgrade() -> None:
    # plain DROP COLUMNs too (SQLite 3.35 and later): a batch copy would drop 0004's trigger
    op.execute("ALTER TABLE moves DROP COLUMN signer")
    op.execute("ALTER TABLE moves DROP COLUMN sig")
