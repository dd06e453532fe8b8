"""The TypedDicts of the results (protocol/results.py) are generated from the command
table, and the client library returns them."""

from __future__ import annotations

import typing

import pytest
from jacquetd_clients.client import JacquetClient
from jacquetd_clients.sync import SimpleClient
from jacquetd_protocol import results
from jacquetd_protocol.commands import COMMANDS, RECORDS, WARNINGS
from jacquetd_protocol.docgen import results_module

HERE_RESULTS = results.__file__


def test_results_module_is_generated_and_current() -> None:
    with open(HERE_RESULTS) as fh:
        assert fh.read() == results_module(), "run python -m jacquetd_protocol.docgen"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_has_its_result_typeddict(name: str) -> None:
    typed = results.RESULTS[name]
    fields = (*COMMANDS[name].result, WARNINGS)
    assert set(typing.get_type_hints(typed)) == {f.name for f in fields}
    assert typed.__required_keys__ == frozenset(f.name for f in fields if f.required)  # type: ignore[attr-defined]


def test_records_have_typeddicts() -> None:
    for name, fields in RECORDS.items():
        typed = getattr(results, "".join(p.capitalize() for p in name.split("_")))
        assert set(typing.get_type_hints(typed)) == {f.name for f in fields}


@pytest.mark.parametrize(("method", "typed"), [
    ("hello", results.HelloResult), ("position", results.PositionResult),
    ("apply_move", results.ApplyMoveResult), ("best_move", results.BestMoveResult),
    ("evaluate", results.EvaluateResult), ("cube", results.CubeResult),
    ("cancel", results.CancelResult), ("stats", results.StatsResult),
])
def test_the_client_library_returns_them(method: str, typed: type) -> None:
    for cls in (JacquetClient, SimpleClient):
        assert typing.get_type_hints(getattr(cls, method))["return"] is typed, cls
    assert (typing.get_type_hints(JacquetClient.legal_moves)["return"]
            == list[results.Play])
