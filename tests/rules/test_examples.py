"""The worked examples of RULES.md (shared/rules-examples.json): the complete result sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jacquetd.rules import Position, generate

_HERE = Path(__file__).parent
_SHARED = _HERE.parents[3] / "shared" / "rules-examples.json"
_FILE = _SHARED if _SHARED.exists() else _HERE / "data" / "rules-examples.json"
CASES = json.loads(_FILE.read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{'-'.join(c['rules'])}:{c['case']}" for c in CASES])
def test_worked_example(case: dict) -> None:
    p = Position.from_dict(case["position"])
    got = {(r.me, r.opp) for r in generate(p)}
    expected = {(tuple(r["mover"]), tuple(r["opponent"])) for r in case["results"]}
    assert got == expected, f"{case['case']} ({', '.join(case['rules'])})"


def test_every_example_file_is_loaded() -> None:
    assert len(CASES) >= 33
