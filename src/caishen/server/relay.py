"""Passing a WebSocket on to the process that owns its table.

With ``caishen serve --workers N`` every process accepts connections on the public port, but
one process owns each table (:class:`caishen.server.tables.WorkerPlan`). A process that takes
a table's WebSocket it does not own opens the same WebSocket on the owner's Unix socket, with
the person's cookie, and copies messages both ways. The owner checks everything as for any
connection (who is seated, the message, the rate); this process only checked the Origin.
"""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import ClientConnection, unix_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

OWNER_MAX_BYTES = 1 << 22  # a table's state, from the owner (the person's messages are limited at the door)
NOT_A_PLAYER = 1008        # the table.js client goes back to the lobby
TRY_AGAIN = 1013           # ... and reconnects after this one (the owner is restarting)
OWNER_WAIT_SECONDS = 10.0  # how long a worker waits for the owner to come up (start-up, a restart)
OWNER_RETRY_SECONDS = 0.1


async def relay(ws: WebSocket, socket_path: str, code: str) -> None:
    """Serve ``ws`` (not accepted yet) through the owner of room ``code`` at ``socket_path``."""
    headers = {"Cookie": ws.headers["cookie"]} if "cookie" in ws.headers else {}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + OWNER_WAIT_SECONDS
    while True:
        try:
            owner = await unix_connect(socket_path, f"ws://localhost/ws/{code}", additional_headers=headers,
                                       max_size=OWNER_MAX_BYTES, ping_interval=None, compression=None,
                                       open_timeout=10)
            break
        except InvalidStatus:  # the owner refused, as it refuses a direct connection: not a player here
            await ws.close(code=NOT_A_PLAYER, reason="not a player at this table")
            return
        except (OSError, InvalidHandshake, TimeoutError):
            if loop.time() < deadline:  # the owner is starting (or starting again): wait for it
                await asyncio.sleep(OWNER_RETRY_SECONDS)
                continue
            # accepted first, so that the person hears "try again" (a refused handshake says nothing)
            await ws.accept()
            await ws.close(code=TRY_AGAIN, reason="the table is restarting: try again")
            return
    await ws.accept(headers=[(b"x-caishen-relayed", b"1")])
    down = asyncio.ensure_future(_to_person(owner, ws))
    up = asyncio.ensure_future(_to_owner(ws, owner))
    try:
        await asyncio.wait((down, up), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (down, up):
            task.cancel()
        await owner.close()
        if not up.done():  # the owner ended it (a restart): the person reconnects
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await ws.close(code=TRY_AGAIN, reason="the table is restarting: try again")


async def _to_person(owner: ClientConnection, ws: WebSocket) -> None:
    with contextlib.suppress(ConnectionClosed, WebSocketDisconnect, RuntimeError):
        async for message in owner:
            if isinstance(message, str):
                await ws.send_text(message)
            else:
                await ws.send_bytes(message)


async def _to_owner(ws: WebSocket, owner: ClientConnection) -> None:
    with contextlib.suppress(ConnectionClosed, WebSocketDisconnect):
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            text = msg.get("text")
            await owner.send(text if text is not None else msg.get("bytes") or b"")
