"""The dependency direction of docs/CONTRACTS.md, checked on the source (no import needed)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
# The folders protocol/ and clients/ install under names of their own (pyproject.toml).
INSTALLED_NAME = {"protocol": "jacquetd_protocol", "clients": "jacquetd_clients"}


def imported_modules(package: str) -> dict[str, set[str]]:
    """Absolute module names imported by each file of `package` (relative imports resolved)."""
    out: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = [INSTALLED_NAME.get(rel.parts[0], rel.parts[0]), *rel.parts[1:]]
        if parts[-1] == "__init__":
            parts = parts[:-1]
            pkg_parts = parts
        else:
            pkg_parts = parts[:-1]
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg_parts[: len(pkg_parts) - node.level + 1]
                    mod = ".".join([*base, node.module] if node.module else base)
                else:
                    mod = node.module or ""
                names.add(mod)
        out[str(rel)] = names
    return out


RULES = [
    # (package, forbidden prefixes, allowed exceptions)
    ("jacquetd/rules", ("jacquetd", "jacquetd_protocol", "jacquetd_clients", "zmq", "msgpack",
                        "numpy"), ("jacquetd.rules",)),
    ("protocol", ("jacquetd", "jacquetd_clients"), ("jacquetd_protocol",)),
    ("clients", ("jacquetd",), ()),
    ("jacquetd/bots", ("jacquetd.daemon", "jacquetd.matches", "jacquetd_clients", "zmq"), ()),
    ("jacquetd/fastgen", ("jacquetd", "jacquetd_protocol", "jacquetd_clients", "zmq"),
     ("jacquetd.rules", "jacquetd.fastgen")),
    ("jacquetd/matches", ("jacquetd.daemon", "jacquetd_clients", "zmq"), ()),
]


@pytest.mark.parametrize(("package", "forbidden", "allowed"), RULES, ids=[r[0] for r in RULES])
def test_dependency_direction(package: str, forbidden: tuple[str, ...],
                              allowed: tuple[str, ...]) -> None:
    if not (ROOT / package).exists():
        pytest.skip(f"{package} not present")
    bad = []
    for module, names in imported_modules(package).items():
        for name in names:
            if any(name == f or name.startswith(f + ".") for f in forbidden) and not any(
                    name == a or name.startswith(a + ".") for a in allowed):
                bad.append(f"{module} imports {name}")
    assert not bad, "\n".join(sorted(bad))


@pytest.mark.parametrize("package", ["jacquetd", "protocol", "clients", "tests", "benchmarks"])
def test_no_bare_protocol_or_clients_imports(package: str) -> None:
    """The folders are imported by their installed names only (a bare `protocol` would be
    another PyPI project's package, or a second copy of ours)."""
    bad = []
    for module, names in imported_modules(package).items():
        bad += [f"{module} imports {name}" for name in names
                if name.split(".")[0] in ("protocol", "clients")]
    assert not bad, "\n".join(sorted(bad))
