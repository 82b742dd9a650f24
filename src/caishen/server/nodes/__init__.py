"""The node layer (issue 28; docs/server.md, "Nodes" and "Several processes"): how one game
centre runs on several processes and machines.

- :mod:`.node`: a node's leases in Redis, taking tables over and fencing them by epoch, the
  sweep, the drain (``caishen serve --redis``);
- :mod:`.edge`: the WebSocket edge: a page connected to one node joined, through Redis pub/sub,
  to the node that owns its table.

``caishen serve --workers N`` runs N such nodes on one machine (:mod:`caishen.server.workers`).

The layer runs the live tables (:mod:`caishen.server.tables`) and knows nothing of accounts,
clubs or profiles; the app (:mod:`caishen.server.app`) installs it.
"""

from caishen.server.nodes.node import KEY_PREFIX, REDIS_ENV, Node, NodeError

__all__ = ["KEY_PREFIX", "REDIS_ENV", "Node", "NodeError"]
