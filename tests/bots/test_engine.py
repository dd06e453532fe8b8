"""The daemon adapter: engine_for(level) with duck-typed search limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from jacquetd.bots import LEVELS, engine_for
from jacquetd.rules import legal_plays

from .conftest import random_position


@dataclass
class Limits:
    seed: int | None = 1
    options: dict[str, Any] = field(default_factory=dict)
    reports: list[dict[str, Any]] = field(default_factory=list)

    def should_stop(self) -> bool:
        return False

    def report(self, partial: dict[str, Any]) -> None:
        self.reports.append(partial)


def test_engine_methods():
    pos = random_position("backgammon", 2, 5)
    eng = engine_for("neural")
    assert eng.choose(pos, Limits()) in legal_plays(pos)
    lim = Limits(options={"plies": 1, "max_plays": 3})
    res = eng.analyze(pos, lim)
    assert len(res["plays"]) <= 3 and lim.reports
    assert res["plays"][0]["move"] == lim.reports[-1]["plays"][0]["move"]
    ev = eng.evaluate(pos.without_dice(), Limits())
    assert 0 <= ev["evaluation"]["win"] <= 1
    cube = eng.cube(pos.without_dice(), Limits())
    assert cube["action"] in ("double", "no_double", "too_good")
    assert set(LEVELS) >= {"random", "heuristic", "neural", "neural-1", "neural-2"}
    with pytest.raises(ValueError):
        engine_for("nope")
    with pytest.raises(ValueError):
        eng.analyze(pos, Limits(options={"plies": -1}))
