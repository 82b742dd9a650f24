"""Alembic environment of the game centre: run on the connection ``caishen.server.db.upgrade`` passes."""

from __future__ import annotations

from alembic import context

from caishen.server.db import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only db.upgrade runs the migrations
    raise RuntimeError("run the migrations through caishen.server.db.upgrade")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
