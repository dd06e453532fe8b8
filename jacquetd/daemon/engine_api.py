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


def searches(level: str) -> bool:
    """Whether `level` is a search whose depth a request's `plies` may set (the neural
    levels); the others choose the same way at any depth."""
    players = _optional("jacquetd.bots.players")
    return level in getattr(players, "LEVEL_PLIES", {}) if players is not None else False


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


def luck(pos: Position, dice: tuple[int, int], *, opening: bool = False) -> float:
    """The luck of rolling ``dice`` for the side on roll of ``pos`` (no dice), in equity
    units at 0 plies (``jacquetd.bots.luck.roll_luck`` with the variant's evaluator);
    ``opening``: among the 15 non-double rolls (an opening roll played at once, B2)."""
    luck_module = _optional("jacquetd.bots.luck")
    players = _optional("jacquetd.bots.players")
    evaluator = _optional("jacquetd.bots.evaluator")
    roll_luck = getattr(luck_module, "roll_luck", None) if luck_module is not None else None
    state_of = getattr(players, "state_of", None) if players is not None else None
    factory = getattr(evaluator, "neural_evaluator", None) if evaluator is not None else None
    if roll_luck is None or state_of is None or factory is None:
        raise Unsupported("luck is not available: no evaluator is installed")
    return float(roll_luck(factory(pos.variant), state_of(pos), tuple(dice),
                           opening_no_doubles=opening))


def match_winning_chance(pos: Position, probs: dict[str, Any]) -> float:
    """The side on roll's cubeless match-winning chance in match play: each outcome of
    the game (single, gammon, backgammon won or lost, at the cube's value) weighted by
    its probability and valued by the bots' match-equity table (``jacquetd.bots.met``,
    at the variant's gammon rate)."""
    met = _optional("jacquetd.bots.met")
    model = getattr(met, "model", None) if met is not None else None
    if model is None or pos.match is None:
        raise Unsupported("no match-equity table is installed")
    rate = _analysis("gammon_rate")(pos.variant)
    table = model(rate)
    m = pos.match
    a, b = m.length - m.score[0], m.length - m.score[1]
    cube = pos.cube.value if pos.cube is not None else 1
    # after the Crawford game, or once a side stands at 1-away past it, play is post-Crawford
    post = m.crawford or ((a == 1 or b == 1) and not m.crawford)

    def mwc(x: int, y: int) -> float:
        return float(table.mwc(x, y, post))

    win, wg, wb = probs["win"], probs["win_gammon"], probs["win_backgammon"]
    lg, lb = probs["lose_gammon"], probs["lose_backgammon"]
    lose = 1.0 - win
    return float((win - wg) * mwc(a - cube, b) + (wg - wb) * mwc(a - 2 * cube, b)
            + wb * mwc(a - 3 * cube, b) + (lose - lg) * mwc(a, b - cube)
            + (lg - lb) * mwc(a, b - 2 * cube) + lb * mwc(a, b - 3 * cube))


# ---- the bear-off tables: built apart from any request ------------------------------------

BEAROFF_MODULE = "jacquetd.bots.bearoff"


def no_table_builds_in_requests() -> None:
    """In a worker: a request never builds a bear-off table (its deadline would cut the
    build short); races are evaluated without the table until it is built."""
    module = _optional(BEAROFF_MODULE)
    if module is not None:
        module.BUILD_ON_DEMAND = False


def missing_tables() -> list[str]:
    """The bear-off rules whose table is not built yet ([] without the bots)."""
    module = _optional(BEAROFF_MODULE)
    if module is None:
        return []
    return [rule for rule in module.RULES if not module.cache_path(rule).exists()]
