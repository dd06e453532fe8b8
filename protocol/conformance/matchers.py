"""Matching a reply against an expectation written in a conformance vector.

An expectation is JSON. Plain values match themselves, with these rules:

- a map matches a map that has every listed key with a matching value; other
  keys are allowed (replies may grow new fields, SPEC.md section 6);
- a list matches a list of the same length, element by element;
- numbers match numbers of equal value; booleans match only booleans.

A map whose single key (besides its options) starts with `$` is a matcher:

    {"$any": true}                      anything (the key must be present)
    {"$absent": true}                   the key must be absent (as a map value)
    {"$type": "int"|"float"|"number"|"str"|"bool"|"null"|"list"|"map",
     "min": x, "max": y}                a type, and for numbers a closed range
    {"$regex": "..."}                   a string that the regular expression fully matches
    {"$len": n} / {"$len": {"min": a, "max": b}}   length of a list, string or map
    {"$each": m}                        every element of a list (or value of a map)
    {"$contains": [m1, m2]}             a list with distinct elements matching each mi
    {"$unordered": [m1, m2]}            exactly these elements, in any order
    {"$oneof": [m1, m2]}                any one of the alternatives
    {"$all": [m1, m2]}                  all of them
    {"$in": [v1, v2]}                   equal to one of the values
    {"$approx": x, "tol": t}            a number within t of x (t defaults to 1e-9)
    {"$words": [m1, m2]}                a string of whitespace-separated words, each
                                        matching (numeric words are read as numbers)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

_TYPES: dict[str, Any] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, float),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "list": lambda v: isinstance(v, list),
    "map": lambda v: isinstance(v, dict),
}
OPERATORS = ("$any", "$absent", "$type", "$regex", "$len", "$each", "$contains", "$unordered",
             "$oneof", "$all", "$in", "$approx", "$words")


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def operator(expected: Any) -> str | None:
    """The matcher operator of `expected`, or None if it is a plain value."""
    if isinstance(expected, Mapping):
        ops = [k for k in expected if isinstance(k, str) and k.startswith("$")]
        if ops:
            if len(ops) != 1 or ops[0] not in OPERATORS:
                raise ValueError(f"bad matcher {expected!r}")
            return ops[0]
    return None


def match(expected: Any, actual: Any, path: str = "") -> list[str]:
    """The mismatches between `expected` and `actual` (empty when they match)."""
    where = path or "reply"
    op = operator(expected)
    if op is not None:
        return _match_operator(op, expected, actual, where)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [f"{where}: expected a map, got {_short(actual)}"]
        problems: list[str] = []
        for key, sub in expected.items():
            sub_path = f"{path}.{key}" if path else str(key)
            if operator(sub) == "$absent":
                if key in actual:
                    problems.append(f"{sub_path}: expected absent, got {_short(actual[key])}")
                continue
            if key not in actual:
                problems.append(f"{sub_path}: missing")
                continue
            problems += match(sub, actual[key], sub_path)
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: expected a list, got {_short(actual)}"]
        if len(expected) != len(actual):
            return [f"{where}: expected {len(expected)} elements, got {len(actual)}"]
        problems = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            problems += match(e, a, f"{path}.{i}" if path else str(i))
        return problems
    if isinstance(expected, bool) or isinstance(actual, bool):
        ok = isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    else:
        ok = type(expected) is type(actual) or (
            isinstance(expected, int | float) and isinstance(actual, int | float))
        ok = ok and expected == actual
    return [] if ok else [f"{where}: expected {_short(expected)}, got {_short(actual)}"]


def _length(value: Any) -> int | None:
    return len(value) if isinstance(value, list | str | dict) else None


def _in_range(spec: Mapping[str, Any], value: float) -> bool:
    return (spec.get("min") is None or value >= spec["min"]) and (
        spec.get("max") is None or value <= spec["max"])


def _match_operator(op: str, spec: Mapping[str, Any], actual: Any, where: str) -> list[str]:
    arg = spec[op]
    fail = [f"{where}: expected {_short(dict(spec))}, got {_short(actual)}"]
    if op == "$any":
        return []
    if op == "$absent":
        return fail  # present where it should be absent (handled by the enclosing map)
    if op == "$type":
        if arg not in _TYPES:
            raise ValueError(f"unknown type {arg!r}")
        if not _TYPES[arg](actual):
            return fail
        if isinstance(actual, int | float) and not isinstance(actual, bool):
            if isinstance(actual, float) and not math.isfinite(actual):
                return fail
            return [] if _in_range(spec, actual) else fail
        return []
    if op == "$regex":
        return [] if isinstance(actual, str) and re.fullmatch(arg, actual) else fail
    if op == "$len":
        n = _length(actual)
        if n is None:
            return fail
        ok = n == arg if isinstance(arg, int) else _in_range(arg, n)
        return [] if ok else [f"{where}: length {n}, expected {_short(arg)}"]
    if op == "$each":
        items = actual.values() if isinstance(actual, dict) else actual
        if not isinstance(actual, list | dict):
            return fail
        problems: list[str] = []
        for i, item in enumerate(items):
            problems += match(arg, item, f"{where}.{i}")
        return problems
    if op in ("$contains", "$unordered"):
        if not isinstance(actual, list):
            return fail
        if op == "$unordered" and len(actual) != len(arg):
            return [f"{where}: expected {len(arg)} elements in any order, got {len(actual)}"]
        if _assign(list(arg), actual) is None:
            return [f"{where}: no {'distinct ' if op == '$contains' else ''}elements match "
                    f"{_short(arg)} (got {len(actual)} elements)"]
        return []
    if op == "$oneof":
        return [] if any(not match(alt, actual, where) for alt in arg) else fail
    if op == "$all":
        problems = []
        for sub in arg:
            problems += match(sub, actual, where)
        return problems
    if op == "$in":
        return [] if any(not match(v, actual, where) for v in arg) else fail
    if op == "$approx":
        tol = spec.get("tol", 1e-9)
        ok = (isinstance(actual, int | float) and not isinstance(actual, bool)
              and abs(actual - arg) <= tol)
        return [] if ok else fail
    if op == "$words":
        if not isinstance(actual, str):
            return fail
        words: list[Any] = [_number(w) for w in actual.split()]
        return match(arg, words, where)
    raise ValueError(op)  # pragma: no cover - OPERATORS lists every case


def _number(word: str) -> Any:
    try:
        return int(word)
    except ValueError:
        pass
    try:
        return float(word)
    except ValueError:
        return word


def _assign(matchers: list[Any], items: list[Any]) -> list[int] | None:
    """Distinct indices of `items` matching each matcher in turn (backtracking), or None."""
    candidates = [[j for j, item in enumerate(items) if not match(m, item)] for m in matchers]
    order = sorted(range(len(matchers)), key=lambda i: len(candidates[i]))
    chosen: dict[int, int] = {}
    used: set[int] = set()

    def search(k: int) -> bool:
        if k == len(order):
            return True
        i = order[k]
        for j in candidates[i]:
            if j not in used:
                used.add(j)
                chosen[i] = j
                if search(k + 1):
                    return True
                used.discard(j)
        return False

    return [chosen[i] for i in range(len(matchers))] if search(0) else None
