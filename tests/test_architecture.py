"""The dependency direction of docs/CONTRACTS.md, checked on the source (no import needed)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def imported_modules(package: str) -> dict[str, set[str]]:
    """Absolute module names imported by each file of `package` (relative imports resolved)."""
    out: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
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
    ("jacquetd/rules", ("jacquetd", "protocol", "clients", "zmq", "msgpack", "numpy"),
     ("jacquetd.rules",)),
    ("protocol", ("jacquetd", "clients"), ()),
    ("clients", ("jacquetd",), ()),
    ("jacquetd/bots", ("jacquetd.daemon", "jacquetd.matches", "clients", "zmq"), ()),
    ("jacquetd/fastgen", ("jacquetd", "protocol", "clients", "zmq"),
     ("jacquetd.rules", "jacquetd.fastgen")),
    ("jacquetd/matches", ("jacquetd.daemon", "clients", "zmq"), ()),
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
