"""The HTTP limits shared by game-centre nodes (issue 30: "log-in attempts are limited per
account and per IP", on one node and three; caishen.server.limits.SharedBuckets). Each node
keeps no budget of its own while Redis answers: one person, one login name or one address has
one budget on every node, so spreading attempts over the nodes gains nothing.

Skipped when PostgreSQL or Redis is not reachable on 127.0.0.1."""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx
import pytest

from caishen.server.conns import Rate
from caishen.server.limits import SharedBuckets
from helpers_nodes import BOUND, REDIS_URL, cluster, require_services, sign_up

pytestmark = [pytest.mark.redis, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _services() -> None:
    require_services()


def test_a_shared_bucket_takes_its_burst_then_refuses_and_a_refusal_takes_nothing() -> None:
    shared = SharedBuckets(REDIS_URL)
    one, two = f"test:{secrets.token_hex(8)}:one", f"test:{secrets.token_hex(8)}:two"
    hourly = Rate(1 / 3600, 3)  # nothing refills during the test
    try:
        assert [shared.take([(one, hourly)]) for _ in range(3)] == [0.0, 0.0, 0.0]
        wait = shared.take([(one, hourly)])
        assert 3500 < wait <= 3600  # an hour for the next token
        # two buckets at once, the first full: refused, and nothing taken from the second
        assert shared.take([(one, hourly), (two, hourly)]) > 0
        assert [shared.take([(two, hourly)]) for _ in range(3)] == [0.0, 0.0, 0.0]
        assert shared.take([(two, hourly)]) > 0
    finally:
        shared.client.delete("caishen:limit:" + one, "caishen:limit:" + two)
        shared.client.close()


@pytest.mark.slow  # three node starts: 8-12 s on an idle machine, far more on busy cores
def test_log_in_attempts_spread_over_three_nodes_share_one_budget(tmp_path: Path) -> None:
    """Ten wrong passwords for one login name, spread over the three nodes, then the right
    one on any node: refused (429 ``too_many_attempts``), as on one process. With a budget per
    node the attacker would have had thirty."""
    with cluster(tmp_path, 3) as c:
        a, b, n3 = c.nodes
        owner = sign_up(a, "Ed")
        login = f"ed-{secrets.token_hex(4)}"
        with httpx.Client(base_url=a.base, cookies={"caishen": owner}, timeout=BOUND) as http:
            assert http.post("/api/account", json={"login": login, "password": PASSWORD}).status_code == 200
        answers = []
        for i in range(10):
            node = c.nodes[i % 3]
            with httpx.Client(base_url=node.base, timeout=BOUND, headers={"X-Forwarded-For": f"198.51.100.{i + 1}"}) as http:
                answers.append(http.post("/api/login", json={"login": login, "password": f"guess {i}"}).status_code)
        assert answers == [401] * 10
        for node in (n3, b, a):  # the right password, on any node, from a new address: still this name's limit
            with httpx.Client(base_url=node.base, timeout=BOUND, headers={"X-Forwarded-For": "203.0.113.9"}) as http:
                r = http.post("/api/login", json={"login": login, "password": PASSWORD})
            assert (r.status_code, r.json()["code"]) == (429, "too_many_attempts"), r.text
            assert int(r.headers["Retry-After"]) >= 1
