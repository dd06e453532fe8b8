"""The matcher language of the conformance vectors."""

from __future__ import annotations

from typing import Any

import pytest
from jacquetd_protocol.conformance.matchers import match
from jacquetd_protocol.conformance.vectors import lookup, substitute


@pytest.mark.parametrize(("expected", "actual"), [
    (1, 1), (1, 1.0), ("a", "a"), (None, None), (True, True),
    ({"a": 1}, {"a": 1, "b": 2}),
    ([1, {"x": 2}], [1, {"x": 2, "y": 3}]),
    ({"a": {"$absent": True}}, {"b": 1}),
    ({"a": {"$any": True}}, {"a": None}),
    ({"$type": "int", "min": 0, "max": 3}, 3),
    ({"$type": "number"}, 0.5), ({"$type": "map"}, {}), ({"$type": "null"}, None),
    ({"$regex": "[a-z]+/[0-9]"}, "ab/3"),
    ({"$len": 2}, [0, 0]), ({"$len": {"min": 1}}, "x"),
    ({"$each": {"$type": "str"}}, ["a", "b"]), ({"$each": 1}, {"k": 1}),
    ({"$contains": [1, 1]}, [1, 2, 1]),
    ({"$unordered": [{"k": 2}, {"k": 1}]}, [{"k": 1}, {"k": 2}]),
    ({"$unordered": [{"$type": "int"}, 1]}, [1, 5]),   # needs backtracking
    ({"$oneof": [1, "x"]}, "x"), ({"$all": [{"$type": "int"}, 4]}, 4),
    ({"$in": [1, 2]}, 2), ({"$approx": 0.5, "tol": 0.01}, 0.505),
    ({"$words": [{"$type": "number", "min": 0}, "x"]}, "0.25 x"),
])
def test_matches(expected: Any, actual: Any) -> None:
    assert match(expected, actual) == []


@pytest.mark.parametrize(("expected", "actual"), [
    (1, 2), (1, True), (True, 1), ("1", 1), (None, 0), ([1], [1, 2]), ({"a": 1}, {}),
    ({"a": {"$absent": True}}, {"a": 1}), ({"$type": "int"}, 1.0), ({"$type": "int"}, True),
    ({"$type": "number", "max": 1}, 2), ({"$type": "float"}, float("nan")),
    ({"$regex": "a"}, "ab"), ({"$len": 1}, 5), ({"$each": 1}, [1, 2]),
    ({"$contains": [1, 1]}, [1, 2]), ({"$unordered": [1]}, [1, 1]),
    ({"$oneof": [1, 2]}, 3), ({"$all": [{"$type": "int"}, 4]}, 5), ({"$in": [1]}, 2),
    ({"$approx": 0.5, "tol": 0.01}, 0.52), ({"$words": [1, 2]}, "1"),
])
def test_mismatches(expected: Any, actual: Any) -> None:
    assert match(expected, actual)


def test_mismatch_messages_name_the_path() -> None:
    (problem,) = match({"result": {"plays": [{"move": "24/13"}]}},
                       {"result": {"plays": [{"move": "24/18"}]}})
    assert problem.startswith("result.plays.0.move: expected '24/13'")


def test_unknown_operator_is_an_error() -> None:
    with pytest.raises(ValueError):
        match({"$nope": 1}, 1)


def test_paths_and_variables() -> None:
    reply = {"result": {"plays": [{"id": "a"}, {"id": "b"}]}}
    assert lookup(reply, "result.plays.1.id") == "b"
    assert lookup(reply, "result.plays.*.id") == ["a", "b"]
    with pytest.raises(KeyError):
        lookup(reply, "result.nothing")
    variables = {"ids": ["a", "b"], "server": {"limits": {"n": 3}}}
    assert substitute({"x": "${ids}", "y": "n=${server.limits.n}"}, variables) == {
        "x": ["a", "b"], "y": "n=3"}
