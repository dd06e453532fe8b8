"""The daemon's view of the bots (see docs/CONTRACTS.md, "Bots and analysis").

Workers never play or evaluate by themselves: they ask this module, which
forwards to ``jacquetd.bots`` (``get_bot``, ``BOT_LEVELS`` and the analysis
entry points of ``jacquetd.bots.analysis``). Only the ``random`` level is
built in, so that the daemon is complete without the bots: a uniform choice
among the legal plays from a seeded RNG. Nothing here invents an evaluation:
asking for one that no engine provides raises :class:`Unsupported`.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from jacquetd.rules import Play, Position, legal_plays

StopCheck = Callable[[], bool]


class Unsupported(LookupError):
    """No engine offers this level, or this kind of answer, yet. ``field`` names the
    request argument at fault, when one is."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Bot(Protocol):
    """What ``jacquetd.bots.get_bot`` returns (pinned in docs/CONTRACTS.md)."""

    name: str

    def choose(
        self, pos: Position, *, movetime_ms: int | None = None, should_stop: StopCheck | None = None
    ) -> Play: ...


class RandomBot:
    """Uniform choice among the legal plays, from a seeded RNG."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(
        self, pos: Position, *, movetime_ms: int | None = None, should_stop: StopCheck | None = None
    ) -> Play:
        plays = legal_plays(pos)
        return plays[self._rng.randrange(len(plays))]


def _optional(name: str) -> Any | None:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if exc.name is not None and name.startswith(exc.name):
            return None  # the module is not there (yet)
        raise  # it is there but broken: that is an internal error, not "unsupported"


def levels() -> tuple[str, ...]:
    bots = _optional("jacquetd.bots")
    found = tuple(getattr(bots, "BOT_LEVELS", ())) if bots is not None else ()
    return found if "random" in found else ("random", *found)


def default_level() -> str:
    bots = _optional("jacquetd.bots")
    return str(getattr(bots, "DEFAULT_LEVEL", "random")) if bots is not None else "random"


def get_bot(level: str, variant: str, seed: int | None) -> Bot:
    bots = _optional("jacquetd.bots")
    factory = getattr(bots, "get_bot", None) if bots is not None else None
    if factory is not None and level in levels():
        try:
            bot: Bot = factory(level, variant, seed=seed)
        except ValueError as exc:
            raise Unsupported(str(exc), "level") from None
        return bot
    if level == "random":
        return RandomBot(seed)
    raise Unsupported(f"no bot level {level!r} (levels: {', '.join(levels())})", "level")


def _analysis(entry: str) -> Callable[..., Any]:
    module = _optional("jacquetd.bots.analysis")
    func = getattr(module, entry, None) if module is not None else None
    if func is None:
        raise Unsupported(f"{entry} is not available: no evaluator is installed")
    return func  # type: ignore[no-any-return]


def evaluate(pos: Position, plies: int) -> dict[str, Any]:
    result = _analysis("evaluate")(pos, plies=plies)
    return dict(result.to_dict())


def analyze(
    pos: Position, plies: int, max_plays: int | None, should_stop: StopCheck
) -> Iterator[list[Any]]:
    rankings: Iterator[list[Any]] = _analysis("analyze")(
        pos, plies=plies, max_plays=max_plays, should_stop=should_stop
    )
    return rankings


def cube_decision(pos: Position, plies: int) -> dict[str, Any]:
    result = _analysis("cube_decision")(pos, plies=plies)
    return dict(result.to_dict())
