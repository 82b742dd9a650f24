"""The layout of docs/architecture.md holds: one-way imports, no circle, no variant in the engine."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from caishen import variants

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = SRC / "caishen"
LOW = ("caishen.engine", "caishen.shapes")
HIGH = ("caishen.variants", "caishen.table", "caishen.scenario", "caishen.bots", "caishen.env",
        "caishen.simulate", "caishen.server", "caishen.terminal", "caishen.commands", "caishen.cli")
# The rules core: standard library only, no function-level imports.
CORE = ("caishen.tiles", "caishen.hand", "caishen.notation", "caishen.fair", "caishen.errors",
        "caishen.ruleset", "caishen.shapes", "caishen.engine", "caishen.variants", "caishen.table")


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        rel = p.relative_to(SRC).with_suffix("")
        out[".".join(rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts)] = p
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rsplit(".", 1)[0] if "." in t else ""
                if t and t != m and t != "caishen" and not m.startswith(t + "."):
                    edges[m].add(t)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_circle() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_engine_and_shapes_import_nothing_above_them() -> None:
    bad = [f"{m} -> {t}" for m, ts in _graph().items() if m.startswith(LOW) for t in ts if t.startswith(HIGH)]
    assert bad == []


def test_no_variant_name_in_the_engine_or_shapes() -> None:
    words = [n for name in variants.names() for n in (name, name.replace("-", "_"), name.replace("-", " "))]
    words += ["龙港", "洛阳", "杠次", "gangci"]
    found = []
    for sub in ("engine", "shapes"):
        for p in (ROOT / sub).rglob("*.py"):
            text = p.read_text(encoding="utf-8").lower()
            found += [f"{p.name}: {w}" for w in words if w.lower() in text]
    assert found == []
    assert variants.names() == ("longgang", "luoyang-gangci")


def test_the_rules_core_imports_only_the_standard_library_at_module_level() -> None:
    mods = _modules()
    third_party = {"fastapi", "sqlalchemy", "textual", "rich", "pydantic", "numpy", "ray", "cryptography"}
    for m, p in mods.items():
        # the two signature modules stand on `cryptography` (a record's Ed25519 signature, a
        # person's ECDSA moves); records and replays use them, the rules never do
        if not m.startswith(CORE) or m.startswith(("caishen.table.signing", "caishen.table.movesig")):
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
                assert inner == [], f"{m}: function-level import in {node.name}"
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not any(n.split(".")[0] in third_party for n in names), f"{m} imports {names}"


CLIENTS = ("caishen.env", "caishen.simulate", "caishen.server", "caishen.terminal")


def _client_of(module: str) -> str | None:
    return next((c for c in CLIENTS if module == c or module.startswith(c + ".")), None)


def test_no_client_imports_another_client() -> None:
    """The clients (env, simulate, server, terminal) each build on the table layer and the bots,
    never on each other: what two of them share lives below them (e.g. ``hand_chips`` in
    caishen.table.results, which the RL envs pay as rewards)."""
    bad = [f"{m} -> {t}" for m, ts in _graph().items() for t in ts
           if _client_of(m) is not None and _client_of(t) not in (None, _client_of(m))]
    assert bad == []


def test_the_client_check_sees_a_client_importing_a_client() -> None:
    assert _client_of("caishen.env.aec") == "caishen.env" and _client_of("caishen.simulate") == "caishen.simulate"
    assert _client_of("caishen.table.results") is None and _client_of("caishen.environment") is None


SHARED = ("caishen.server.core", "caishen.server.db", "caishen.server.limits",
          "caishen.server.protocol", "caishen.server.store")
# each part of the server: what it may import besides the shared modules and itself (and why)
PARTS = {
    "caishen.server.clubs": (),
    "caishen.server.profiles": (),
    # ending sessions and deleting an account close and rename the person's live tables
    "caishen.server.accounts": ("caishen.server.tables",),
}


@pytest.mark.parametrize("part", sorted(PARTS))
def test_each_part_of_the_server_imports_only_the_shared_server_modules(part: str) -> None:
    """docs/architecture.md, "Inside the game centre": a part (a sub-package with its routes,
    store queries and messages) never imports the app or another part."""
    graph = _graph()
    modules = [m for m in graph if m == part or m.startswith(part + ".")]
    assert {f"{part}.routes", f"{part}.store", f"{part}.messages"} <= set(modules)
    allowed = (*SHARED, part, *PARTS[part])
    # (the layers below the server, such as caishen.table, are the one-way rule's business)
    bad = [f"{m} -> {t}" for m in modules for t in graph[m]
           if t.startswith("caishen.server.") and not t.startswith(allowed)]
    assert bad == []
    assert part in graph["caishen.server.app"]


def test_one_signed_in_check_for_every_part_of_the_server() -> None:
    """Who is signed in is checked by ``protocol.signed_in`` alone: no part keeps a copy of it."""
    server = ROOT / "server"
    defs = sorted(str(p.relative_to(server)) for p in server.rglob("*.py")
                  if "def signed_in(" in p.read_text(encoding="utf-8"))
    assert defs == ["protocol.py"]
    users = {p.name for p in server.rglob("*.py") if "signed_in(uid_of(request))" in p.read_text(encoding="utf-8")}
    users = {str(p.relative_to(server)) for p in server.rglob("*.py")
             if "signed_in(uid_of(request))" in p.read_text(encoding="utf-8")}
    assert {"accounts/routes.py", "profiles/routes.py", "clubs/routes.py"} <= users


def test_the_node_layer_knows_nothing_of_the_app_or_its_parts() -> None:
    """docs/architecture.md: server/nodes/ runs the live tables; it never imports the app, nor
    accounts, clubs or profiles (the app installs it)."""
    graph = _graph()
    modules = [m for m in graph if m.startswith("caishen.server.nodes")]
    assert {"caishen.server.nodes.node", "caishen.server.nodes.edge"} <= set(modules)
    forbidden = ("caishen.server.app", "caishen.server.workers", "caishen.server.main", *PARTS)
    bad = [f"{m} -> {t}" for m in modules for t in graph[m] if t.startswith(forbidden)]
    assert bad == []


def test_the_live_tables_know_nothing_of_the_app_the_nodes_or_the_parts() -> None:
    """docs/architecture.md: server/tables/ plays; the node layer and the app run it, never the
    other way round, and it knows nothing of accounts, clubs or profiles."""
    graph = _graph()
    modules = [m for m in graph if m.startswith("caishen.server.tables")]
    assert {"caishen.server.tables.live", "caishen.server.tables.registry", "caishen.server.tables.chat",
            "caishen.server.tables.votes"} <= set(modules)
    forbidden = ("caishen.server.app", "caishen.server.workers", "caishen.server.main", "caishen.server.nodes",
                 *PARTS)
    bad = [f"{m} -> {t}" for m in modules for t in graph[m] if t.startswith(forbidden)]
    assert bad == []
