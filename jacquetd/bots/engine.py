"""The daemon's view of the bots: `engine_for(level)` gives an object with
`choose`, `analyze`, `evaluate` and `cube`, each taking a position and the
daemon's search limits (anything with `should_stop()`, `options` and
`report(partial)`; see `jacquetd.daemon.engine_api`). This module does not
import the daemon: the limits are duck-typed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from jacquetd.rules import Play, Position

from . import analysis
from .players import BOT_LEVELS, LEVEL_PLIES, get_bot


class Limits(Protocol):
    seed: int | None
    options: Mapping[str, Any]

    def should_stop(self) -> bool: ...

    def report(self, partial: dict[str, Any]) -> None: ...


def _int_option(options: Mapping[str, Any], name: str, default: int | None) -> int | None:
    value = options.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"option {name!r} must be a non-negative integer")
    return value


class BotEngine:
    """One level of the ladder, for one request at a time."""

    def __init__(self, level: str) -> None:
        if level not in BOT_LEVELS:
            raise ValueError(f"unknown bot level {level!r}; levels: {', '.join(BOT_LEVELS)}")
        self.level = level
        self.plies = LEVEL_PLIES.get(level, 0)

    def _plies(self, limits: Limits) -> int:
        plies = _int_option(limits.options, "plies", self.plies)
        assert plies is not None
        if plies > 3:
            raise ValueError("option 'plies' must be 0-3")
        return plies

    def choose(self, position: Position, limits: Limits) -> Play:
        bot = get_bot(self.level, position.variant, seed=limits.seed)
        movetime = _int_option(limits.options, "movetime_ms", None)
        return bot.choose(position, movetime_ms=movetime, should_stop=limits.should_stop)

    def analyze(self, position: Position, limits: Limits) -> dict[str, Any]:
        plies = self._plies(limits)
        max_plays = _int_option(limits.options, "max_plays", None)
        last: list[analysis.RankedPlay] = []
        for ranking in analysis.analyze(position, plies=plies, max_plays=max_plays,
                                        should_stop=limits.should_stop):
            last = ranking
            partial = _ranking_dict(ranking)
            limits.report(partial)
        result = _ranking_dict(last)
        result["plies"] = max((r.plies for r in last), default=0)
        return result

    def evaluate(self, position: Position, limits: Limits) -> dict[str, Any]:
        plies = self._plies(limits)
        ev = analysis.evaluate(position, plies=plies, should_stop=limits.should_stop)
        return {"evaluation": ev.to_dict(), "plies": plies}

    def cube(self, position: Position, limits: Limits) -> dict[str, Any]:
        d = analysis.cube_decision(position, plies=self._plies(limits))
        out = d.to_dict()
        cube = position.cube
        if cube is not None and cube.pending:
            out["answer"] = d.take
        return out


def _ranking_dict(ranking: list[analysis.RankedPlay]) -> dict[str, Any]:
    return {"plays": [r.to_dict() for r in ranking]}


_ENGINES: dict[str, BotEngine] = {}


def engine_for(level: str) -> BotEngine:
    """The engine of `level` (ValueError for an unknown level)."""
    eng = _ENGINES.get(level)
    if eng is None:
        eng = _ENGINES[level] = BotEngine(level)
    return eng


ReportFn = Callable[[dict[str, Any]], None]
