"""Passing a WebSocket on to the process that owns its table.

With ``caishen serve --workers N`` every process accepts connections on the public port, but
one process owns each table (:class:`caishen.server.tables.WorkerPlan`). A new connection
whose first request opens the WebSocket of a table another process owns is handed to the
owner whole, before anything is read from it (:class:`caishen.server.workers.Door`); the
owner serves it as if it had accepted it, and marks the handshake (:class:`HandedOff`).

Where that cannot be done (the connection served a page first, or the owner is starting or
restarting), the process that has the WebSocket relays it (:func:`relay`): it opens the same
WebSocket on the owner's Unix socket, with the person's cookie, and copies messages both ways.
The owner checks everything as for any connection (who is seated, the message, the rate);
this process only checked the Origin.
"""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import ClientConnection, unix_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from caishen.server.protocol import parse_since

HANDED_OFF_KEPT = 4096  # peers remembered until their handshake; a full set is cleared
OWNER_MAX_BYTES = 1 << 22  # a table's state, from the owner (the person's messages are limited at the door)
NOT_A_PLAYER = 1008        # the table.js client goes back to the lobby
TRY_AGAIN = 1013           # ... and reconnects after this one (the owner is restarting)
OWNER_WAIT_SECONDS = 10.0  # how long a worker waits for the owner to come up (start-up, a restart)
OWNER_RETRY_SECONDS = 0.1


class HandedOff:
    """The peers (address, port) of connections another process handed to this one, until
    their WebSocket opens: its handshake then says ``x-caishen-handed-off: 1``, as a relayed
    one says ``x-caishen-relayed: 1`` (the tests read which way a connection came)."""

    def __init__(self) -> None:
        self._peers: set[tuple[str, int]] = set()

    def add(self, peer: tuple[str, int]) -> None:
        if len(self._peers) >= HANDED_OFF_KEPT:  # handshakes that never came
            self._peers.clear()
        self._peers.add(peer)

    def take(self, peer: tuple[str, int] | None) -> bool:
        """Whether ``peer``'s connection was handed to this process (asked once)."""
        if peer is None or peer not in self._peers:
            return False
        self._peers.discard(peer)
        return True


PEER_HEADER = "x-caishen-peer"  # the person's address, from a sibling process's relay


def peer_host(ws: WebSocket) -> str:
    """The network address of the person behind ``ws``: its peer's, or, on the Unix socket
    (no peer address: only the centre's own processes connect there), what the relaying
    process said in :data:`PEER_HEADER`."""
    if ws.client is not None:
        return ws.client.host or ""
    return ws.headers.get(PEER_HEADER, "")


async def relay(ws: WebSocket, socket_path: str, code: str) -> None:
    """Serve ``ws`` (not accepted yet) through the owner of room ``code`` at ``socket_path``."""
    headers = {"Cookie": ws.headers["cookie"]} if "cookie" in ws.headers else {}
    # who connected, for the owner's same-address warning: the owner trusts this header only
    # on its Unix socket, where only this centre's processes connect
    if ws.client is not None and ws.client.host:
        headers[PEER_HEADER] = ws.client.host
    # the page's choices (?contribute=1: it sends randomness to every wall) go on to the owner
    # and so does the last event it saw (?since=H:S)
    params = ["contribute=1"] if ws.query_params.get("contribute") == "1" else []
    if ws.query_params.get("watch") == "1":  # a spectator (caishen.server.tables.watchers)
        params.append("watch=1")
    since = parse_since(ws.query_params.get("since"))
    if since is not None:
        params.append(f"since={since[0]}:{since[1]}")
    query = "?" + "&".join(params) if params else ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + OWNER_WAIT_SECONDS
    while True:
        try:
            owner = await unix_connect(socket_path, f"ws://localhost/ws/{code}{query}", additional_headers=headers,
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
        if not up.done():  # the owner ended it: refused (1008, its reason), or a restart: the person reconnects
            refused = owner.close_code == NOT_A_PLAYER
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await ws.close(code=NOT_A_PLAYER if refused else TRY_AGAIN,
                               reason=(owner.close_reason or "") if refused else "the table is restarting: try again")


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
