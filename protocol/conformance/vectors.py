"""Conformance vectors: loading, checking their format, and filling in variables.

The format is documented in protocol/vectors/README.md. A vector file is JSON:
`{"about": ..., "vectors": [VECTOR, ...]}`; each vector runs on a fresh
connection and is a list of steps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .matchers import OPERATORS

VECTORS_DIR = Path(__file__).parents[1] / "vectors"
TRANSPORTS = ("zmq", "tcp", "stdio", "ws")
ENDPOINTS = ("protocol", "gnubg")
STEP_KEYS = {
    "about", "send", "send_raw", "send_hex", "repeat", "before", "then", "burst", "id", "expect",
    "partials", "text", "capture", "expect_each", "expect_some", "lines", "expect_closed",
    "transports", "wait_partials"}
VECTOR_KEYS = {"name", "about", "endpoint", "transports", "requires", "steps"}
_VAR_RE = re.compile(r"\$\{([A-Za-z_][\w.]*)\}")


class VectorError(ValueError):
    """A vector file that does not follow the format."""


@dataclass
class Vector:
    """One transcript, run on its own connection."""

    name: str
    steps: list[dict[str, Any]]
    about: str = ""
    endpoint: str = "protocol"
    transports: tuple[str, ...] = TRANSPORTS
    requires: tuple[str, ...] = ()
    source: str = ""


def load_vectors(directory: Path = VECTORS_DIR) -> list[Vector]:
    """Every vector of every `*.json` file in `directory`, files in name order."""
    out: list[Vector] = []
    names: set[str] = set()
    for path in sorted(directory.glob("*.json")):
        try:
            doc = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise VectorError(f"{path.name}: not JSON: {exc}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("vectors"), list):
            raise VectorError(f"{path.name}: expected {{'about': ..., 'vectors': [...]}}")
        for raw in doc["vectors"]:
            vector = _vector(raw, path.name)
            if vector.name in names:
                raise VectorError(f"{path.name}: vector name {vector.name!r} used twice")
            names.add(vector.name)
            out.append(vector)
    return out


def _vector(raw: Any, source: str) -> Vector:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise VectorError(f"{source}: every vector is a map with a name")
    where = f"{source}: {raw['name']}"
    unknown = set(raw) - VECTOR_KEYS
    if unknown:
        raise VectorError(f"{where}: unknown keys {sorted(unknown)}")
    endpoint = raw.get("endpoint", "protocol")
    if endpoint not in ENDPOINTS:
        raise VectorError(f"{where}: endpoint must be one of {ENDPOINTS}")
    transports = tuple(raw.get("transports", TRANSPORTS))
    if not set(transports) <= set(TRANSPORTS):
        raise VectorError(f"{where}: transports must be among {TRANSPORTS}")
    steps = raw.get("steps")
    if not isinstance(steps, list) or not steps:
        raise VectorError(f"{where}: steps must be a non-empty list")
    for i, step in enumerate(steps, 1):
        _check_step(step, f"{where} step {i}", endpoint)
    return Vector(raw["name"], steps, raw.get("about", ""), endpoint, transports,
                  tuple(raw.get("requires", ())), source)


def _check_step(step: Any, where: str, endpoint: str) -> None:
    if not isinstance(step, dict):
        raise VectorError(f"{where}: a step is a map")
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise VectorError(f"{where}: unknown keys {sorted(unknown)}")
    sends = [k for k in ("send", "send_raw", "send_hex", "burst") if k in step]
    if len(sends) > 1:
        raise VectorError(f"{where}: at most one of send, send_raw, send_hex, burst")
    checks = [k for k in ("expect", "lines", "expect_closed", "expect_each") if k in step]
    if not sends and not checks:
        raise VectorError(f"{where}: a step sends something or expects something")
    if endpoint == "gnubg" and ("expect" in step or "burst" in step):
        raise VectorError(f"{where}: gnubg vectors check `lines`, not `expect`")
    if "burst" in step and "expect_each" not in step:
        raise VectorError(f"{where}: a burst needs expect_each")
    if "transports" in step and not set(step["transports"]) <= set(TRANSPORTS):
        raise VectorError(f"{where}: transports must be among {TRANSPORTS}")
    for key in ("expect", "partials", "expect_each", "expect_some", "text", "lines"):
        if key in step:
            _check_matcher(step[key], f"{where} {key}")
    if not isinstance(step.get("lines", []), list):
        raise VectorError(f"{where}: lines is a list, one matcher per line")


def _check_matcher(m: Any, where: str) -> None:
    if isinstance(m, dict):
        ops = [k for k in m if isinstance(k, str) and k.startswith("$")]
        if len(ops) > 1 or (ops and ops[0] not in OPERATORS):
            raise VectorError(f"{where}: unknown matcher {ops}")
        for v in m.values():
            _check_matcher(v, where)
    elif isinstance(m, list):
        for v in m:
            _check_matcher(v, where)


# -- variables and paths ---------------------------------------------------------------------

def lookup(data: Any, path: str) -> Any:
    """The value at a dotted path (`result.plays.0.move`); `*` maps over a list."""
    parts = path.split(".")
    return _lookup(data, parts, path)


def _lookup(data: Any, parts: list[str], path: str) -> Any:
    if not parts:
        return data
    head, rest = parts[0], parts[1:]
    if head == "*":
        if not isinstance(data, list):
            raise KeyError(f"{path}: '*' needs a list")
        return [_lookup(item, rest, path) for item in data]
    if isinstance(data, list):
        if not head.isdigit() or int(head) >= len(data):
            raise KeyError(f"{path}: no element {head}")
        return _lookup(data[int(head)], rest, path)
    if isinstance(data, Mapping) and head in data:
        return _lookup(data[head], rest, path)
    raise KeyError(f"{path}: no {head!r}")


def substitute(value: Any, variables: Mapping[str, Any]) -> Any:
    """`value` with `${name}` filled in: a string that is exactly `${name}` becomes the
    variable's value (of any type); inside a longer string it is formatted in."""
    if isinstance(value, str):
        whole = _VAR_RE.fullmatch(value)
        if whole:
            return lookup(variables, whole[1])
        return _VAR_RE.sub(lambda m: str(lookup(variables, m[1])), value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def iter_requests(vector: Vector) -> Iterator[Any]:
    """The requests a vector sends (maps for msgpack, lines for text), for coverage
    checks."""
    for step in vector.steps:
        if "send" in step:
            yield step["send"]
        if "burst" in step:
            yield step["burst"]["request"]
