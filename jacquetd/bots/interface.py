"""The engine interface: everything the daemon, the hosted matches and the gnubg
endpoint ask of the bots, typed, in one place.

Callers import :data:`ENGINE` (an :class:`Engine`) and call it; nothing reaches the
bots through import strings or ``getattr``, so a renamed function fails at import
and under mypy, not at run time. The interface covers choosing a play
(:meth:`Engine.choose`, or :meth:`Engine.bot` for a bot to keep), analysis
(:meth:`~Engine.analyze`, :meth:`~Engine.evaluate`, :meth:`~Engine.cube`,
:meth:`~Engine.luck`, :meth:`~Engine.rollout`) and the one cube and resignation
policy (:meth:`~Engine.doubles`, :meth:`~Engine.takes`,
:meth:`~Engine.accepts_resignation`) that every bot seat and the gnubg endpoint use.
Level names become bots in :data:`jacquetd.bots.players.LEVELS` alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Protocol

from jacquetd.engine_errors import UnknownLevel, Unsupported
from jacquetd.rules import Play, Position
from jacquetd.rules.scoring import game_result

from . import analysis
from .analysis import Evaluation, RankedPlay, RolloutProgress
from .cube import CubeDecision
from .players import (
    BOT_LEVELS,
    DEFAULT_LEVEL,
    LEVEL_PLIES,
    Bot,
    get_bot,
    state_of,
)
from .search import Stopped

StopFn = Callable[[], bool]

#: The level without an evaluator: uniform choice, never doubles, always takes.
RANDOM_LEVEL = "random"


class Engine(Protocol):
    """What a caller may ask of the bots (implemented by :class:`BotsEngine`)."""

    @property
    def levels(self) -> tuple[str, ...]: ...

    @property
    def default_level(self) -> str: ...

    def searches(self, level: str) -> bool: ...

    def depth(self, level: str) -> int | None: ...

    def bot(self, level: str, variant: str, *, seed: int | None = None) -> Bot: ...

    def choose(self, pos: Position, level: str, *, seed: int | None = None,
               movetime_ms: int | None = None, should_stop: StopFn | None = None) -> Play: ...

    def analyze(self, pos: Position, *, plies: int, max_plays: int | None,
                should_stop: StopFn | None = None) -> Iterator[list[RankedPlay]]: ...

    def evaluate(self, pos: Position, *, plies: int = 0) -> Evaluation: ...

    def compile_evaluation(self) -> None: ...

    def remembering(self, variant: str) -> AbstractContextManager[object]: ...

    def cube(self, pos: Position, *, plies: int = 0,
             should_stop: StopFn | None = None) -> CubeDecision: ...

    def cube_depth(self, level: str) -> int: ...

    def doubles(self, pos: Position, level: str, *,
                should_stop: StopFn | None = None) -> bool: ...

    def takes(self, pos: Position, level: str, *,
              should_stop: StopFn | None = None) -> bool: ...

    def accepts_resignation(self, pos: Position, level: str, points: int, *,
                            on_roll: bool = True) -> bool: ...

    def luck(self, pos: Position, dice: tuple[int, int], *, opening: bool = False) -> float: ...

    def rollout(self, pos: Position, *, trials: int, seed: int, plies: int = 0,
                should_stop: StopFn | None = None) -> Iterator[RolloutProgress]: ...

    def match_winning_chance(self, pos: Position, evaluation: Evaluation) -> float: ...


class BotsEngine:
    """:class:`Engine` over ``jacquetd.bots``: the ladder of ``players.LEVELS`` and the
    analysis of ``analysis`` (the variant's network and bear-off databases)."""

    @property
    def levels(self) -> tuple[str, ...]:
        """The level names, weakest first."""
        return BOT_LEVELS

    @property
    def default_level(self) -> str:
        """The strongest level whose moves take under a second (`players.DEFAULT_LEVEL`)."""
        return DEFAULT_LEVEL

    def searches(self, level: str) -> bool:
        """Whether `level` searches to a depth a request's `plies` may set."""
        return level in LEVEL_PLIES

    def depth(self, level: str) -> int | None:
        """The plies `level` searches by default (0 for the levels that do not search),
        or None for a name that is no level: what a move of it costs, whatever time it
        is allowed."""
        if level not in BOT_LEVELS:
            return None
        return LEVEL_PLIES.get(level, 0)

    def bot(self, level: str, variant: str, *, seed: int | None = None) -> Bot:
        """The bot of `level`; :class:`UnknownLevel` (a ValueError) for another name."""
        return get_bot(level, variant, seed=seed)

    def choose(self, pos: Position, level: str, *, seed: int | None = None,
               movetime_ms: int | None = None, should_stop: StopFn | None = None) -> Play:
        """The play `level` chooses in `pos` (dice set)."""
        return self.bot(level, pos.variant, seed=seed).choose(
            pos, movetime_ms=movetime_ms, should_stop=should_stop)

    def analyze(self, pos: Position, *, plies: int, max_plays: int | None,
                should_stop: StopFn | None = None) -> Iterator[list[RankedPlay]]:
        """A ranking of the plays of `pos` after each depth; the last is final."""
        return analysis.analyze(pos, plies=plies, max_plays=max_plays, should_stop=should_stop)

    def compile_evaluation(self) -> None:
        """Compile (or load from the cache) the network evaluation's kernels, its one-row
        and its batched path, and the search's pruning, so that no worker does it at its
        first request."""
        import numpy as np

        from . import prune, replykernel
        from .evaluator import neural_evaluator
        from .search import State, roll_plays

        start = Position.initial("jacquet")
        ev = neural_evaluator("jacquet")
        for rows in (1, 16):
            ev.probs(np.array([start.me] * rows, dtype=np.int16),
                     np.array([start.opp] * rows, dtype=np.int16),
                     np.zeros(rows, dtype=bool), np.zeros(rows, dtype=bool))
        pruner = prune.shipped("jacquet")
        if pruner is not None:
            me, opp, bounds = roll_plays(ev.variant, State(start.me, start.opp))
            pruner.kept_rows(me, opp, np.asarray(bounds))
        if replykernel.available():
            replykernel.expand(ev.variant, np.array([start.me], dtype=np.int16),
                               np.array([start.opp], dtype=np.int16), pruner)

    def evaluate(self, pos: Position, *, plies: int = 0) -> Evaluation:
        """Outcome probabilities and cubeless equity for the side on roll."""
        return analysis.evaluate(pos, plies=plies)

    def remembering(self, variant: str) -> AbstractContextManager[object]:
        """A block within which the searches of `variant` compute each position's best
        replies once (`analysis.remembering`): for a sequence of related decisions, such
        as a match reviewed move by move."""
        return analysis.remembering(variant)

    def cube(self, pos: Position, *, plies: int = 0,
             should_stop: StopFn | None = None) -> CubeDecision:
        """The doubling decision of the side on roll, and the opponent's take (Stopped
        when `should_stop` turns true during a search two rolls deep)."""
        return analysis.cube_decision(pos, plies=plies, should_stop=should_stop)

    # ---- the one cube and resignation policy ------------------------------------------

    def cube_depth(self, level: str) -> int:
        """The plies at which a bot of `level` decides its cube actions: the depth its
        plays search (`depth`; 0 for the levels that do not search, and for a name that
        is no level).

        A searching bot doubles and takes as the protocol's ``cube`` command answers at
        its depth: a `neural-2` seat's actions are those of the two-ply cube analysis.
        In `backgammon` it agrees with GNU Backgammon's two-ply cube more closely than
        the 0-ply analysis (`benchmarks/bench_cube.py`); against the Jacquet variants'
        cubeful rollouts it costs less, within the interval of those sets
        (`benchmarks/bench_cube_rollout.py`)."""
        return self.depth(level) or 0

    def doubles(self, pos: Position, level: str, *,
                should_stop: StopFn | None = None) -> bool:
        """Whether the side on roll of `pos` (a bot of `level`) doubles before rolling:
        ``random`` never does; the others when the cube decision at the level's
        `cube_depth` says ``double`` (`_level_cube`)."""
        return level != RANDOM_LEVEL and self._level_cube(
            pos, level, should_stop).action == "double"

    def takes(self, pos: Position, level: str, *,
              should_stop: StopFn | None = None) -> bool:
        """Whether a bot of `level` takes the double offered by the side on roll of `pos`
        (the doubler's view): ``random`` always does; the others unless the decision at
        the level's `cube_depth` says ``drop`` (`_level_cube`)."""
        return level == RANDOM_LEVEL or self._level_cube(
            pos, level, should_stop).take != "drop"

    def _level_cube(self, pos: Position, level: str,
                    should_stop: StopFn | None) -> CubeDecision:
        """The cube decision of `pos` at the level's `cube_depth`; when `should_stop`
        turns true before it is done (a bot's time is up), the 0-ply decision, which
        takes about a millisecond."""
        try:
            return self.cube(pos.without_dice(), plies=self.cube_depth(level),
                             should_stop=should_stop)
        except Stopped:
            return self.cube(pos.without_dice())

    def accepts_resignation(self, pos: Position, level: str, points: int, *,
                            on_roll: bool = True) -> bool:
        """Whether a bot of `level` accepts a resignation of `points` (1-3 times the cube).

        `pos` is seen by the side on roll, the bot itself when `on_roll`, else its
        opponent. ``random`` accepts when the offer is at least what it would score by
        bearing off at once; the others when it is at least their cubeless equity (the
        points they expect from playing on)."""
        if level == RANDOM_LEVEL:
            me, opp = (pos.me, pos.opp) if on_roll else (pos.opp, pos.me)
            primed = pos.primed[0] if on_roll else pos.primed[1]
            return points >= game_result(pos.rules, me, opp, primed)
        equity = self.evaluate(pos.without_dice()).equity
        return points >= (equity if on_roll else -equity)

    # ---- luck, rollouts, match play ---------------------------------------------------

    def luck(self, pos: Position, dice: tuple[int, int], *, opening: bool = False) -> float:
        """The luck of rolling `dice` for the side on roll of `pos` (no dice), in equity
        units at 0 plies; `opening`: among the 15 non-double rolls (B2)."""
        from .evaluator import neural_evaluator
        from .luck import roll_luck

        return roll_luck(neural_evaluator(pos.variant), state_of(pos), dice,
                         opening_no_doubles=opening)

    def rollout(self, pos: Position, *, trials: int, seed: int, plies: int = 0,
                should_stop: StopFn | None = None) -> Iterator[RolloutProgress]:
        """Running means and standard errors of `trials` games played out from `pos`."""
        return analysis.rollout(pos, trials=trials, seed=seed, plies=plies,
                                should_stop=should_stop)

    def match_winning_chance(self, pos: Position, evaluation: Evaluation) -> float:
        """The side on roll's cubeless match-winning chance: each outcome of the game at
        the cube's value weighted by its probability and valued by the match-equity
        table (``analysis.match_model``: the variant's published table, else the model at
        its gammon rate). :class:`Unsupported` in money play."""
        if pos.match is None:
            raise Unsupported("a match-winning chance needs a match (this is money play)",
                              "position")
        table = analysis.match_model(pos.variant)
        m = pos.match
        a, b = m.length - m.score[0], m.length - m.score[1]
        cube = pos.cube.value if pos.cube is not None else 1
        # after the Crawford game, or once a side stands at 1-away past it: post-Crawford
        post = m.crawford or ((a == 1 or b == 1) and not m.crawford)

        def mwc(x: int, y: int) -> float:
            return float(table.mwc(x, y, post))

        e = evaluation
        lose = 1.0 - e.win
        return float((e.win - e.win_gammon) * mwc(a - cube, b)
                     + (e.win_gammon - e.win_backgammon) * mwc(a - 2 * cube, b)
                     + e.win_backgammon * mwc(a - 3 * cube, b)
                     + (lose - e.lose_gammon) * mwc(a, b - cube)
                     + (e.lose_gammon - e.lose_backgammon) * mwc(a, b - 2 * cube)
                     + e.lose_backgammon * mwc(a, b - 3 * cube))


ENGINE: Engine = BotsEngine()
"""The engine every caller uses."""

__all__ = ["ENGINE", "RANDOM_LEVEL", "BotsEngine", "Engine", "Stopped", "UnknownLevel",
           "Unsupported"]
