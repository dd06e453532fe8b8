"""The ladder of bots, each selectable by name.

| level       | how it plays                                                     |
|-------------|------------------------------------------------------------------|
| `random`    | a uniformly random legal play (seeded)                           |
| `heuristic` | the hand-written evaluation of `heuristic.py`                    |
| `neural`    | the variant's network at 0 plies (plus the bear-off databases)   |
| `neural-1`  | the network with a 1-ply expectimax search over the 21 rolls     |
| `neural-2`  | the same at 2 plies                                              |

Every bot is deterministic given its seed (only `random` uses one). A bot's
`choose` accepts a time limit (`movetime_ms`) and a cancellation callable
(`should_stop`); a searching bot then returns the best play of the deepest
search level it finished (0 plies is always finished).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Protocol

import numpy as np

from jacquetd import fastgen
from jacquetd.engine_errors import UnknownLevel
from jacquetd.rules import Play, Position, find_variant, legal_plays

from . import heuristic
from .evaluator import neural_evaluator
from .search import Searcher, State

BOT_LEVELS: tuple[str, ...] = ("random", "heuristic", "neural", "neural-1", "neural-2")
LEVEL_PLIES = {"neural": 0, "neural-1": 1, "neural-2": 2}
DEFAULT_LEVEL = "neural-2"
"""The strongest level whose moves take under a second (chosen by
`python benchmarks/bench_bots.py`, which times every level)."""

StopFn = Callable[[], bool]


class Bot(Protocol):
    name: str

    def choose(self, pos: Position, *, movetime_ms: int | None = None,
               should_stop: StopFn | None = None) -> Play: ...


def stop_function(movetime_ms: int | None, should_stop: StopFn | None) -> StopFn:
    """One callable combining a time limit and an outside cancellation."""
    deadline = None if movetime_ms is None else time.monotonic() + movetime_ms / 1000.0
    if deadline is None and should_stop is None:
        return lambda: False
    if deadline is None:
        assert should_stop is not None
        return should_stop

    def stop() -> bool:
        return time.monotonic() >= deadline or (should_stop is not None and should_stop())

    return stop


def state_of(pos: Position) -> State:
    return State(pos.me, pos.opp, pos.primed[0], pos.primed[1])


class RandomBot:
    """A uniformly random legal play."""

    def __init__(self, variant: str, seed: int | None = None) -> None:
        self.name = "random"
        self.variant = find_variant(variant).name
        self._rng = random.Random(seed)

    def choose(self, pos: Position, *, movetime_ms: int | None = None,
               should_stop: StopFn | None = None) -> Play:
        plays = legal_plays(pos)
        return plays[self._rng.randrange(len(plays))]


class HeuristicBot:
    """The play whose resulting position the hand-written evaluation likes best."""

    def __init__(self, variant: str) -> None:
        self.name = "heuristic"
        self.variant = find_variant(variant).name

    def choose(self, pos: Position, *, movetime_ms: int | None = None,
               should_stop: StopFn | None = None) -> Play:
        plays = legal_plays(pos)
        if len(plays) == 1:
            return plays[0]
        s = heuristic.scores(pos.rules, [p.raw for p in plays])
        return plays[int(np.argmax(s))]


class NeuralBot:
    """The learned evaluator, searched to `plies` plies."""

    def __init__(self, variant: str, plies: int = 0) -> None:
        v = find_variant(variant)
        self.name = "neural" if plies == 0 else f"neural-{plies}"
        self.variant = v.name
        self.plies = plies
        self.searcher = Searcher(neural_evaluator(v.name))

    def choose(self, pos: Position, *, movetime_ms: int | None = None,
               should_stop: StopFn | None = None) -> Play:
        # the compiled generator's plays: the rules core's, in its order, without
        # building a `Play` for each (only the chosen one is spelled)
        raws = fastgen.generate(pos)
        if len(raws) == 1:
            return Play(pos, raws[0])
        stop = stop_function(movetime_ms, should_stop)
        return Play(pos, raws[self.searcher.best(state_of(pos), raws, self.plies, stop)])


BotFactory = Callable[[str, "int | None"], Bot]
"""Builds a level's bot: ``factory(variant_name, seed)``."""

def _neural(plies: int) -> BotFactory:
    def build(variant: str, seed: int | None) -> Bot:
        return NeuralBot(variant, plies)

    return build


LEVELS: dict[str, BotFactory] = {
    "random": lambda variant, seed: RandomBot(variant, seed),
    "heuristic": lambda variant, seed: HeuristicBot(variant),
    **{name: _neural(plies) for name, plies in LEVEL_PLIES.items()},
}
"""The one place where a level name becomes a bot (weakest first, as `BOT_LEVELS`)."""


def get_bot(level: str, variant: str, *, seed: int | None = None) -> Bot:
    """The bot called `level` for `variant`: :class:`UnknownLevel` for an unknown level,
    ValueError for an unknown variant."""
    v = find_variant(variant)
    factory = LEVELS.get(level)
    if factory is None:
        raise UnknownLevel(f"no bot level {level!r} (levels: {', '.join(BOT_LEVELS)})")
    return factory(v.name, seed)
