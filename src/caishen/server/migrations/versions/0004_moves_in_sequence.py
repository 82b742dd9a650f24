"""A move is stored only right after the one before it, and a room can be marked damaged.

- Moves: besides the primary key ``(room, hand, seq)`` (no move twice), a trigger refuses a
  move whose predecessor ``seq - 1`` of the same hand is not stored: a gap in a hand's moves
  cannot be written (issue 26: a failed write once left move 20 of 0-26 missing). The
  trigger checks new rows only; rooms stored before keep their rows as they are (a room
  whose moves no longer replay is marked damaged at start-up, below).
- Rooms: ``damage``, why a room's stored moves cannot be replayed (its status is then
  ``damaged``; docs/server.md, "Faults").

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_SQLITE = """
CREATE TRIGGER moves_follow_last BEFORE INSERT ON moves
WHEN NEW.seq < 0 OR (NEW.seq > 0 AND NOT EXISTS (
    SELECT 1 FROM moves WHERE room = NEW.room AND hand = NEW.hand AND seq = NEW.seq - 1))
BEGIN
    SELECT RAISE(ABORT, 'move out of sequence: it does not follow the last stored move of its hand');
END
"""

_POSTGRESQL = (
    """
CREATE FUNCTION moves_follow_last() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.seq < 0 OR (NEW.seq > 0 AND NOT EXISTS (
            SELECT 1 FROM moves WHERE room = NEW.room AND hand = NEW.hand AND seq = NEW.seq - 1)) THEN
        RAISE EXCEPTION 'move out of sequence: move % of hand % of room % does not follow the last stored move',
            NEW.seq, NEW.hand, NEW.room USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$
""",
    "CREATE TRIGGER moves_follow_last BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION moves_follow_last()",
)


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("damage", sa.Text(), nullable=True))
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute(_SQLITE)
    elif dialect == "postgresql":
        for statement in _POSTGRESQL:
            op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER moves_follow_last")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER moves_follow_last ON moves")
        op.execute("DROP FUNCTION moves_follow_last()")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("damage")
