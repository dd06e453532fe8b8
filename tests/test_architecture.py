"""Every rule of docs/CONTRACTS.md, "Dependency direction", checked on the source (no
import needed).

An import counts wherever it is written (module level or inside a function), and so
does a module named in a string to ``importlib.import_module``, ``__import__`` or
``importlib.util.find_spec``: an edge hidden in an import string is still an edge.
A dynamic import of a computed name is refused outright, since no rule can check it.
The same edges must form no import cycle across jacquetd/, protocol/ and clients/.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
# The folders protocol/ and clients/ install under names of their own (pyproject.toml).
INSTALLED_NAME = {"protocol": "jacquetd_protocol", "clients": "jacquetd_clients"}
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
DYNAMIC = {"import_module", "__import__", "find_spec"}


@dataclass(frozen=True)
class Edge:
    """One import: the module importing, the module imported, and whether it is written
    inside a function (a lazy import) or hidden in a string."""

    source: str
    target: str
    lazy: bool
    hidden: bool = False

    def __str__(self) -> str:
        how = " (in a string)" if self.hidden else " (lazily)" if self.lazy else ""
        return f"{self.source} imports {self.target}{how}"


def _module_name(path: Path) -> tuple[str, list[str]]:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [INSTALLED_NAME.get(rel.parts[0], rel.parts[0]), *rel.parts[1:]]
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), parts
    return ".".join(parts), parts[:-1]


def _repo_modules() -> frozenset[str]:
    found = set()
    for folder in ("jacquetd", "protocol", "clients"):
        for path in (ROOT / folder).rglob("*.py"):
            found.add(_module_name(path)[0])
    return frozenset(found)


REPO_MODULES = _repo_modules()


class _Collector(ast.NodeVisitor):
    def __init__(self, source: str, package: list[str]) -> None:
        self.source = source
        self.package = package
        self.edges: list[Edge] = []
        self.unchecked: list[str] = []
        self._depth = 0

    def _function(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.edges.append(Edge(self.source, alias.name, self._depth > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package[: len(self.package) - node.level + 1]
            target = ".".join([*base, node.module] if node.module else base)
        else:
            target = node.module or ""
        for alias in node.names:  # `from jacquetd import bots`: the edge is to the module
            sub = f"{target}.{alias.name}"
            self.edges.append(Edge(self.source, sub if sub in REPO_MODULES else target,
                                   self._depth > 0))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in DYNAMIC and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                self.edges.append(Edge(self.source, arg.value, self._depth > 0, hidden=True))
            else:
                self.unchecked.append(f"{self.source}:{node.lineno} {name}(<computed>)")
        self.generic_visit(node)


def scan(source_text: str, module: str, package: list[str]) -> _Collector:
    collector = _Collector(module, package)
    collector.visit(ast.parse(source_text))
    return collector


def edges_of(folder: str) -> tuple[list[Edge], list[str]]:
    """The imports of every file under `folder`, and its dynamic imports of computed
    names."""
    edges: list[Edge] = []
    unchecked: list[str] = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        module, package = _module_name(path)
        found = scan(path.read_text(), module, package)
        edges += found.edges
        unchecked += found.unchecked
    return edges, unchecked


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@dataclass(frozen=True)
class Rule:
    """One bullet of CONTRACTS.md: what the files of `folder` may import besides the
    standard library. `lazy` modules only inside a function; `only_in`: a module that
    just the named files may import."""

    folder: str
    contract: str
    repo: tuple[str, ...]
    third_party: tuple[str, ...] = ()
    lazy: tuple[str, ...] = ()
    only_in: tuple[tuple[str, tuple[str, ...]], ...] = ()
    skip: tuple[str, ...] = ()  # files under `folder` that another rule covers

    def breaches(self, edges: list[Edge]) -> list[str]:
        bad: list[str] = []
        for e in edges:
            if _under(e.source, self.skip):
                continue
            top = e.target.split(".")[0]
            if top in STDLIB:
                continue
            if top in ("jacquetd", "jacquetd_protocol", "jacquetd_clients"):
                if not _under(e.target, self.repo):
                    bad.append(f"{e}: {self.contract}")
                continue
            if top in self.lazy and not e.lazy:
                bad.append(f"{e} at module level: {self.contract}")
            elif top not in (*self.third_party, *self.lazy):
                bad.append(f"{e}: {self.contract}")
            for module, files in self.only_in:
                if top == module and e.source not in files:
                    bad.append(f"{e}: only {', '.join(files)} may import {module}")
        return bad


RULES = [
    Rule("jacquetd/rules", "the rules core is standard library only",
         ("jacquetd.rules",)),
    Rule("protocol", "the protocol is standard library and msgpack (and orjson, which "
         "only json_wire imports, to write JSON); the conformance runner may import zmq "
         "and websockets lazily",
         ("jacquetd_protocol",), ("msgpack", "orjson"), lazy=("zmq", "websockets"),
         only_in=(("zmq", ("jacquetd_protocol.conformance.transports",)),
                  ("websockets", ("jacquetd_protocol.conformance.transports",)),
                  ("orjson", ("jacquetd_protocol.json_wire",)))),
    Rule("jacquetd/fastgen", "fastgen imports the rules core, numpy, numba and the "
         "kernels' cache guard",
         ("jacquetd.rules", "jacquetd.fastgen", "jacquetd.kernel_cache"), ("numpy", "numba")),
    Rule("jacquetd/bots", "the bots import the rules core, fastgen, numpy, the "
         "engine's error types and the kernels' cache guard",
         ("jacquetd.rules", "jacquetd.fastgen", "jacquetd.bots", "jacquetd.engine_errors",
          "jacquetd.search_settings", "jacquetd.kernel_cache"),
         ("numpy", "numba")),
    Rule("jacquetd/matches", "the hosted matches import rules, protocol, the one error "
         "mapping and the bots' engine interface only; never the daemon or clients",
         ("jacquetd.rules", "jacquetd_protocol", "jacquetd.matches", "jacquetd.errors",
          "jacquetd.bots.interface")),
    Rule("jacquetd/daemon", "the daemon may import rules, fastgen, bots, matches and "
         "protocol, never clients; only server.py imports zmq, only ws.py websockets",
         ("jacquetd.rules", "jacquetd.fastgen", "jacquetd.bots", "jacquetd.matches",
          "jacquetd_protocol", "jacquetd.daemon", "jacquetd.errors", "jacquetd.version",
          "jacquetd.logs", "jacquetd.search_settings"),
         ("numpy", "platformdirs", "zmq", "websockets"), lazy=("distributed",),
         only_in=(("zmq", ("jacquetd.daemon.server",)),
                  ("websockets", ("jacquetd.daemon.ws",)))),
    Rule("clients", "the clients import protocol and zmq (the league also numpy, "
         "platformdirs and, lazily, distributed and its dask config); never jacquetd",
         ("jacquetd_protocol", "jacquetd_clients"), ("zmq", "numpy", "platformdirs"),
         lazy=("distributed", "dask")),
]


@pytest.mark.parametrize("rule", RULES, ids=[r.folder for r in RULES])
def test_dependency_direction(rule: Rule) -> None:
    edges, unchecked = edges_of(rule.folder)
    assert edges, f"nothing found under {rule.folder}"
    bad = rule.breaches(edges) + [f"{u}: a computed import no rule can check"
                                  for u in unchecked]
    assert not bad, "\n".join(sorted(set(bad)))


#: What each light module at the top of jacquetd may import of the repository.
LIGHT_MODULES = {
    "jacquetd/engine_errors.py": (),
    "jacquetd/search_settings.py": (),
    "jacquetd/errors.py": ("jacquetd_protocol.errors", "jacquetd.rules",
                           "jacquetd.engine_errors"),
}


@pytest.mark.parametrize("path", sorted(LIGHT_MODULES))
def test_the_error_mapping_imports_nothing_heavy(path: str) -> None:
    """The one error mapping and the engine's error types: the standard library, the
    protocol's errors and the rules core only, never the bots (numpy, the evaluator)."""
    module, package = _module_name(ROOT / path)
    found = scan((ROOT / path).read_text(), module, package)
    bad = [str(e) for e in found.edges if e.target.split(".")[0] not in STDLIB
           and not _under(e.target, LIGHT_MODULES[path])]
    assert not bad and not found.unchecked, "\n".join(bad + found.unchecked)


def test_mapping_an_error_loads_no_engine() -> None:
    """In a fresh interpreter, importing jacquetd.errors and mapping an engine error
    leaves numpy, numba and the bots unloaded."""
    code = ("import sys\n"
            "from jacquetd.engine_errors import UnknownLevel\n"
            "from jacquetd.errors import to_protocol_error\n"
            "assert to_protocol_error(UnknownLevel('x')).field == 'level'\n"
            "print(' '.join(m for m in ('numpy', 'numba', 'jacquetd.bots', 'zmq') "
            "if m in sys.modules))\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [], f"jacquetd.errors loads {run.stdout.strip()}"


def test_the_engine_is_reached_through_its_interface() -> None:
    """The daemon, the hosted matches and the gnubg endpoint ask the bots through
    `jacquetd.bots.interface`: none of them imports the analysis entry points or a
    bot class's module for play or analysis."""
    inner = ("jacquetd.bots.analysis", "jacquetd.bots.luck", "jacquetd.bots.met",
             "jacquetd.bots.cube", "jacquetd.bots.cubeful", "jacquetd.bots.evaluator",
             "jacquetd.bots.search")
    bad = [str(e) for folder in ("jacquetd/daemon", "jacquetd/matches")
           for e in edges_of(folder)[0] if _under(e.target, inner)]
    assert not bad, "\n".join(bad)


def test_the_web_app_speaks_json_over_websocket_only() -> None:
    """jacquetd/web: plain ES modules importing one another, reaching the daemon over
    its WebSocket endpoint in JSON (no msgpack, no other origin)."""
    bad = []
    for path in sorted((ROOT / "jacquetd/web").glob("*.js")):
        text = path.read_text()
        for spec in re.findall(r"""^\s*import\s[^;]*?from\s+["']([^"']+)["']""", text, re.M):
            if not spec.startswith("./"):
                bad.append(f"{path.name} imports {spec}")
        if re.search(r"msgpack|XMLHttpRequest|fetch\(\s*['\"]https?:", text):
            bad.append(f"{path.name} uses another wire than JSON over the WebSocket")
    assert not bad, "\n".join(bad)
    assert "new WebSocket" in (ROOT / "jacquetd/web/client.js").read_text()


@pytest.mark.parametrize("package", ["jacquetd", "protocol", "clients", "tests", "benchmarks"])
def test_no_bare_protocol_or_clients_imports(package: str) -> None:
    """The folders are imported by their installed names only (a bare `protocol` would be
    another PyPI project's package, or a second copy of ours)."""
    bad = [str(e) for e in edges_of(package)[0]
           if e.target.split(".")[0] in ("protocol", "clients")]
    assert not bad, "\n".join(sorted(bad))


# ---- the checker itself must be able to fail ------------------------------------------------

@pytest.mark.parametrize(("source", "found"), [
    ('import importlib\nimportlib.import_module("jacquetd.daemon.service")\n',
     "jacquetd.matches.x imports jacquetd.daemon.service (in a string)"),
    ('def f():\n    __import__("jacquetd_clients")\n',
     "jacquetd.matches.x imports jacquetd_clients (in a string)"),
    ("def f():\n    from jacquetd.daemon import server\n",
     "jacquetd.matches.x imports jacquetd.daemon.server (lazily)"),
    ("from ..daemon import service\n", "jacquetd.matches.x imports jacquetd.daemon.service"),
])
def test_a_hidden_or_lazy_edge_is_caught(source: str, found: str) -> None:
    matches_rule = next(r for r in RULES if r.folder == "jacquetd/matches")
    edges = scan(source, "jacquetd.matches.x", ["jacquetd", "matches"]).edges
    assert any(b.startswith(found) for b in matches_rule.breaches(edges)), edges


def test_a_computed_import_is_refused() -> None:
    found = scan("import importlib\nname = 'x'\nimportlib.import_module(name)\n",
                 "jacquetd.daemon.x", ["jacquetd", "daemon"])
    assert found.unchecked == ["jacquetd.daemon.x:3 import_module(<computed>)"]


def test_module_level_use_of_a_lazy_dependency_is_caught() -> None:
    protocol_rule = next(r for r in RULES if r.folder == "protocol")
    edges = scan("import zmq\n", "jacquetd_protocol.conformance.transports",
                 ["jacquetd_protocol", "conformance"]).edges
    assert protocol_rule.breaches(edges)


# ---- no import cycles -----------------------------------------------------------------------
# Every edge counts: module level, inside a function, under `if TYPE_CHECKING:` or in an
# import string; a lazy or type-only import hides a cycle, it does not remove it.

#: Cycles excused, one strongly connected set of modules a line (none: a new cycle fails
#: the test). A listed cycle that is gone fails the test too, so the list cannot outlive
#: what it excuses.
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()


def _repo_target(name: str) -> str | None:
    """The repository module an import names (`a.b.C` -> `a.b`), or None outside it."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in REPO_MODULES:
            return ".".join(parts)
        parts.pop()
    return None


def import_graph(edges: list[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for e in edges:
        target = _repo_target(e.target)
        if target is not None and target != e.source:
            graph.setdefault(e.source, set()).add(target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected sets of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.add(frozenset(members))
    return found


def cycle_report(found: set[frozenset[str]], known: frozenset[frozenset[str]]) -> list[str]:
    """What is wrong: each new cycle, each listed cycle that is gone or has changed."""
    new = [f"import cycle: {', '.join(sorted(c))}" for c in found - known]
    gone = [f"listed cycle gone or changed (update KNOWN_CYCLES): {', '.join(sorted(c))}"
            for c in known - found]
    return sorted(new) + sorted(gone)


def test_no_import_cycles() -> None:
    edges = [e for folder in ("jacquetd", "protocol", "clients") for e in edges_of(folder)[0]]
    assert not (bad := cycle_report(import_cycles(import_graph(edges)), KNOWN_CYCLES)), \
        "\n".join(bad)


def test_a_cycle_is_caught() -> None:
    """A new cycle, a lazy one included, is reported; so is a listed cycle that is gone."""
    a = scan("from jacquetd.rules import errors\n", "jacquetd.rules.geometry",
             ["jacquetd", "rules"]).edges
    b = scan("def f():\n    from . import geometry\n", "jacquetd.rules.errors",
             ["jacquetd", "rules"]).edges
    found = import_cycles(import_graph(a + b))
    assert found == {frozenset({"jacquetd.rules.geometry", "jacquetd.rules.errors"})}
    assert cycle_report(found, frozenset()) == [
        "import cycle: jacquetd.rules.errors, jacquetd.rules.geometry"]
    assert cycle_report(set(), frozenset(found))[0].startswith("listed cycle gone")
    assert import_cycles(import_graph(a)) == set()
