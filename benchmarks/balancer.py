"""HAProxy in front of local game-centre nodes: ``deploy/haproxy.cfg`` rendered with loopback
ports and run as a process (issue 28; docs/server.md, "Deployment").

Used by ``bench_server.py --nodes N`` and by the tests' ``helpers_balancer.py`` (which loads
this file by its path), so that both run the configuration that ``deploy/compose.yaml`` ships.
Standard library only; PostgreSQL's driver only for :func:`pg_schema`.

Rendering changes only addresses: each ``bind :PORT`` becomes ``bind 127.0.0.1:<port>``
(``frontend www``'s the balancer's port, any other a free one), and each block of
``server NAMEk nodeK:8000 ...`` lines becomes one line per local node, named NAME1, NAME2, ...,
its options kept (``track nodes/nodeK`` follows the node's number). Timeouts, health checks, the hash and the
headers are the file's.
"""

from __future__ import annotations

import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "haproxy.cfg"
HAPROXY = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)

_BIND = re.compile(r"^(\s*bind\s+):(\d+)(.*)$")
_SERVER = re.compile(r"^(\s*server\s+)([A-Za-z_-]*)\d+\s+\S+(.*)$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def render(template: str, listen: int, nodes: list[int]) -> str:
    """``template`` (the text of deploy/haproxy.cfg) for local processes: the first ``bind``
    on ``listen``, any other on a free port, and each backend's servers the nodes on
    ``127.0.0.1:<port>`` of ``nodes`` (named node1, node2, ...)."""
    out: list[str] = []
    binds = 0
    in_servers = False
    for line in template.splitlines():
        if m := _BIND.match(line):
            out.append(f"{m[1]}127.0.0.1:{listen if binds == 0 else free_port()}{m[3]}")
            binds += 1
            continue
        m = _SERVER.match(line)
        if m is None:
            in_servers = False
            out.append(line)
            continue
        if in_servers:
            continue  # the block is rendered from its first line
        in_servers = True
        for k, port in enumerate(nodes, 1):
            options = re.sub(r"\bnode\d+\b", f"node{k}", m[3])
            out.append(f"{m[1]}{m[2]}{k} 127.0.0.1:{port}{options}")
    if binds == 0:
        raise ValueError("the template has no `bind :PORT` line")
    return "\n".join(out) + "\n"


class Balancer:
    """HAProxy on ``127.0.0.1:port`` in front of the nodes on loopback ``nodes`` (their ports),
    from ``template`` (default deploy/haproxy.cfg), its files in a temporary directory."""

    def __init__(self, nodes: list[int], port: int | None = None, template: Path = TEMPLATE) -> None:
        if HAPROXY is None:
            raise FileNotFoundError("haproxy is not installed (Debian: apt-get install haproxy)")
        self.nodes = nodes
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="caishen-haproxy-"))
        self.config = self.dir / "haproxy.cfg"
        self.config.write_text(render(template.read_text(encoding="utf-8"), self.port, nodes), encoding="utf-8")
        self.log = self.dir / "haproxy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def check(self) -> None:
        """``haproxy -c`` on the rendered file (raises with its output if it is not valid)."""
        assert HAPROXY is not None
        got = subprocess.run([HAPROXY, "-c", "-f", str(self.config)], capture_output=True, text=True, check=False)
        if got.returncode != 0:
            raise RuntimeError(f"haproxy -c: {got.stdout}{got.stderr}")

    def start(self, seconds: float = 60.0) -> Balancer:
        """Run HAProxy in the foreground (``-db``), until it answers ``/readyz`` through a
        node (at most ``seconds``)."""
        assert HAPROXY is not None
        self.check()
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen([HAPROXY, "-db", "-f", str(self.config)], stdout=log,
                                         stderr=subprocess.STDOUT)
        deadline = time.monotonic() + seconds
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"haproxy exited: {self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(self.base + "/readyz", timeout=2) as r:  # noqa: S310 - loopback
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("haproxy did not answer /readyz in time")
            time.sleep(0.1)  # polling for readiness, not timing a behaviour

    def cpu_seconds(self) -> float:
        """HAProxy's CPU seconds so far (user + system), NaN once it has gone."""
        return process_cpu([self.proc.pid]) if self.proc is not None else float("nan")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def process_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system, all threads) used so far by the processes ``pids`` and their
    children; NaN off Linux or if none is found."""
    import os  # noqa: PLC0415 - only here

    want = {str(p) for p in pids}
    total, found = 0, False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that has just ended
        if stat.parent.name in want or fields[1] in want:
            total += int(fields[11]) + int(fields[12])
            found = True
    return total / os.sysconf("SC_CLK_TCK") if found else float("nan")


@contextmanager
def pg_schema(base: str) -> Iterator[str]:
    """A fresh PostgreSQL schema on the database of ``base`` (a ``postgresql+psycopg://`` URL),
    dropped afterwards: the URL of it, for ``caishen serve --db``."""
    import psycopg  # noqa: PLC0415 - only the runs on PostgreSQL need the driver

    schema = "b_" + secrets.token_hex(6)
    plain = base.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        sep = "&" if "?" in base else "?"
        yield f"{base}{sep}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
