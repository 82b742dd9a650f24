"""The game centre 游戏大厅 (``caishen serve``): rooms, tables in the browser, history and fair play.

FastAPI + uvicorn, WebSockets for the table, SQLAlchemy 2 + Alembic for storage. Only this
package and ``caishen.commands.serve`` import the web stack; ``caishen.server.core`` is its one
door to the rules core. See ``docs/server.md``.
"""
