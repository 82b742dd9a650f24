"""Every metric the game centre exports at ``/metrics`` (Prometheus text format, through
``prometheus-client``): one module, so each part of the server counts into the same objects
and the operator's dashboard has one list to read (docs/server.md, "Health").

Each process (each worker of ``caishen serve --workers N``) counts its own share: a scrape
of ``/metrics`` is answered by whichever worker takes the connection. The figures that are
per table (live tables, connections) are that worker's; the counters add up across scrapes
of all workers when Prometheus scrapes each worker's port (or use the totals in the database).

How to count:

- ``moves.inc(n)``: moves committed (the rate is "moves per second": ``rate(caishen_moves_total[1m])``).
- ``commit_seconds.observe(s)``: one group commit's wall time, failures included.
- ``commit_failures.inc()``: group commits that raised (the tables paused, docs/server.md "Faults").
- ``send_queue_drops.labels(reason="superseded" | "overflow" | "timeout").inc()``: messages a
  connection's outgoing queue let go of.
- ``rate_limited.labels(limit="ws_connection" | "ws_user" | "http_user" | ...).inc()``: requests and
  messages refused by a rate limit or a cap.
- a new label value goes in :data:`LABELS` too: every labelled series is exported at 0 from the start.
- ``relayed_connections.inc()`` and ``relayed_messages.labels(direction="in" | "out").inc()``: at
  the edge node, the table WebSockets joined to another node through Redis (the relay of
  ``caishen serve --redis``, :mod:`caishen.server.nodes.edge`) and the messages that crossed
  nodes (``in``: the page's, to the owner; ``out``: the owner's, to the page).
- ``live_tables``, ``connections``, ``damaged_rooms``, ``storage_ok``, ``redis_ok`` (a node's): gauges, set
  where they change.
"""

from __future__ import annotations

from typing import Final

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

__all__ = [
    "CONTENT_TYPE",
    "commit_failures",
    "commit_seconds",
    "connections",
    "damaged_rooms",
    "drained_tables",
    "fenced_writes",
    "leases_lost",
    "leases_retaken",
    "live_tables",
    "moves",
    "rate_limited",
    "redis_ok",
    "relayed_connections",
    "relayed_messages",
    "render",
    "send_queue_drops",
    "storage_ok",
    "swept_tables",
    "tables_paused",
]

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST

live_tables: Final = Gauge("caishen_live_tables", "Tables this process runs in memory")
connections: Final = Gauge("caishen_connections", "Table WebSocket connections open in this process")
moves: Final = Counter("caishen_moves", "Moves committed to the database (rate: moves per second)")
commit_seconds: Final = Histogram(
    "caishen_commit_seconds", "Wall time of one group commit of moves (failed ones included)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
commit_failures: Final = Counter("caishen_commit_failures", "Group commits that failed (the tables paused)")
tables_paused: Final = Gauge("caishen_tables_paused", "Tables paused because the database cannot be written")
storage_ok: Final = Gauge("caishen_storage_ok", "1 while the last write or probe of the database succeeded, else 0")
redis_ok: Final = Gauge("caishen_redis_ok", "1 while Redis answered this node's last probe, else 0 (1 without Redis)")
fenced_writes: Final = Counter(
    "caishen_fenced_writes", "Writes refused because another node had taken the table over (a stale epoch)")
leases_lost: Final = Counter(
    "caishen_leases_lost", "Tables this node stopped running because it could not renew their lease")
leases_retaken: Final = Counter(
    "caishen_leases_retaken", "Leases whose key had gone (Redis restarted empty, or the lease ran out and nobody "
    "took the table) that this node's renewal took again")
relayed_connections: Final = Counter(
    "caishen_relayed_connections", "Table WebSockets this node relayed to the node that runs the table (Redis pub/sub)")
relayed_messages: Final = Counter(
    "caishen_relayed_messages", "Messages of relayed WebSockets that crossed nodes at this edge (in: page to owner)",
    ["direction"])
drained_tables: Final = Counter(
    "caishen_drained_tables", "Tables a draining node let go of (stored: every write done; stuck: past the bound)",
    ["outcome"])
swept_tables: Final = Counter(
    "caishen_swept_tables", "Tables this node took over by its sweep (no lease, nobody connected)")
damaged_rooms: Final = Gauge("caishen_damaged_rooms", "Rooms whose stored moves cannot be replayed")
send_queue_drops: Final = Counter(
    "caishen_send_queue_drops", "Messages dropped from a connection's outgoing queue", ["reason"])
rate_limited: Final = Counter(
    "caishen_rate_limited", "Messages and requests refused by a rate limit or a cap", ["limit"])

storage_ok.set(1)
redis_ok.set(1)  # a centre without Redis has none to miss

#: Every label each labelled counter is counted under: each series is exported from the start at
#: 0, so that a dashboard's rate() and an alert on a refusal see it before the first one (a
#: series that appears only at its first count has no rate then, and its first count is lost).
LABELS: Final = {
    send_queue_drops: ("superseded", "overflow", "timeout"),
    rate_limited: ("http_shared", "http_user", "http_ip", "open_rooms", "ws_connection", "ws_user"),
    relayed_messages: ("in", "out"),
    drained_tables: ("stored", "stuck"),
}
for _counter, _values in LABELS.items():
    for _value in _values:
        _counter.labels(_value)


def render() -> bytes:
    """The exposition text of every metric of this process (and the process's own: CPU, memory, files)."""
    return generate_latest()
