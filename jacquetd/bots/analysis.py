"""Analysis entry points: evaluate, analyze, cube_decision, rollout.

All figures are for the side on roll of the given position, with the
variant's learned evaluator (and the exact bear-off databases in races where
both sides are home). Equities are cubeless money equities unless stated:
points per game with the cube at 1 (J12, B8, C4 scoring).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from jacquetd.rules import Play, Position, find_variant, generate_raw, legal_plays
from jacquetd.rules.geometry import has_prime

from . import cube as cubemod
from . import cubeful, met
from .evaluator import neural_evaluator, result_probs
from .luck import roll_luck
from .net import equity
from .players import state_of
from .search import Searcher, State
from .selfplay import roll

StopFn = Callable[[], bool]


@dataclass(frozen=True)
class Evaluation:
    """Cumulative outcome probabilities and cubeless equity for the side on roll."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    equity: float

    @classmethod
    def from_probs(cls, p: np.ndarray) -> Evaluation:
        q = [float(x) for x in p]
        return cls(q[0], q[1], q[2], q[3], q[4], float(equity(np.asarray(p, dtype=float))))

    def probs(self) -> tuple[float, float, float, float, float]:
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon,
                self.lose_backgammon)

    def to_dict(self) -> dict[str, float]:
        return {"win": round(self.win, 6), "win_gammon": round(self.win_gammon, 6),
                "win_backgammon": round(self.win_backgammon, 6),
                "lose_gammon": round(self.lose_gammon, 6),
                "lose_backgammon": round(self.lose_backgammon, 6),
                "equity": round(self.equity, 6)}


@dataclass(frozen=True)
class RankedPlay:
    play: Play
    evaluation: Evaluation
    equity: float
    plies: int

    def to_dict(self) -> dict[str, object]:
        return {"move": self.play.move, "equity": round(self.equity, 6), "plies": self.plies,
                "evaluation": self.evaluation.to_dict()}


def _searcher(variant: str) -> Searcher:
    return _searcher_cached(find_variant(variant).name)


@lru_cache(maxsize=8)
def _searcher_cached(variant: str) -> Searcher:
    return Searcher(neural_evaluator(variant))


def remembering(variant: str) -> AbstractContextManager[object]:
    """A block within which the searches of `variant` (plays ranked, positions evaluated,
    cube decisions) compute each position's best replies once (`Searcher.remembering`):
    for a sequence of related decisions, a match reviewed move by move, whose searches
    meet the same positions again."""
    return _searcher(variant).remembering()


def _final(pos: Position) -> np.ndarray:
    """Probabilities of a finished game for the side on roll (the loser, RULES.md s.5)."""
    v = pos.rules
    won = result_probs(v, pos.opp, pos.me, pos.primed[1])
    return np.array([0.0, 0.0, 0.0, won[1], won[2]])


def evaluate(pos: Position, *, plies: int = 0, should_stop: StopFn | None = None
             ) -> Evaluation:
    """Probabilities and equity of `pos` for the side on roll, before its roll.

    If `pos` has dice, the value is that of its best play at `plies` (the roll
    is known). A finished game gives its result.
    """
    if pos.game_over():
        return Evaluation.from_probs(_final(pos))
    s = _searcher(pos.variant)
    stop = should_stop or (lambda: False)
    if pos.dice:
        ranking = list(analyze(pos, plies=plies, should_stop=stop))[-1]
        return ranking[0].evaluation
    return Evaluation.from_probs(s.evaluate_states([state_of(pos)], plies, stop)[0])


def analyze(pos: Position, *, plies: int = 1, max_plays: int | None = None,
            should_stop: StopFn | None = None) -> Iterator[list[RankedPlay]]:
    """Rank the legal plays of `pos` (which has dice) by equity, deepening ply by ply.

    Yields a complete ranking after each depth (0, 1, ... `plies`); plays that
    the move filter did not take deeper follow with their shallower figures
    (`RankedPlay.plies` says which). The last ranking yielded is final; its
    first play is the one `best_move` at the same depth picks. `max_plays`
    trims each list (the move filter is the same as `best_move`'s).
    """
    plays = legal_plays(pos)
    s = _searcher(pos.variant)
    stop = should_stop or (lambda: False)
    for ranking in s.rank(state_of(pos), [p.raw for p in plays], plies, stop):
        out = [RankedPlay(plays[i], Evaluation.from_probs(p), float(equity(p)), d)
               for i, p, d in ranking]
        yield out[:max_plays] if max_plays else out


def best_move(pos: Position, *, plies: int = 0, should_stop: StopFn | None = None) -> Play:
    """The play `analyze` ranks first at the same depth."""
    return list(analyze(pos, plies=plies, should_stop=should_stop))[-1][0].play


@lru_cache(maxsize=8)
def gammon_rate(variant: str) -> float:
    """The share of won games that are gammons/marcias, read from the opening position."""
    pos = Position.initial(variant)
    e = evaluate(pos)
    g = (e.win_gammon / max(e.win, 1e-6) + e.lose_gammon / max(1 - e.win, 1e-6)) / 2
    return round(min(max(g, 0.0), 0.9), 3)


def match_model(variant: str) -> met.MatchModel:
    """The match-equity model of a variant's match play: its gammon rate, drawn through
    its published table where it has one (`met.PUBLISHED`: Kazaross XG2 in
    `backgammon`)."""
    return met.model(gammon_rate(variant), met.PUBLISHED.get(variant))


def cube_decision(pos: Position, *, plies: int = 0,
                  should_stop: StopFn | None = None) -> cubemod.CubeDecision:
    """Double / no double / too good, and take / drop, with the equities behind them.

    Money play when the position has no match (equities per unit of the cube),
    match play otherwise (match-winning chances, `met.py`). The decision is
    for the side on roll before it rolls (dice in `pos` are ignored); a cube
    owned by the opponent or a Crawford game gives 'no_double'. With the cube
    off (Jacquet's default) the figures are those of a centred cube. In
    `backgammon`, money and match play alike, the cubeful search (`cubeful.py`)
    replaces Janowski's formula: one roll deep at 1 ply (leaves at 0 plies), two
    rolls deep at 2 plies and more (the opponent's cube action and rolls too,
    leaves at `plies - 2`): each agrees more closely with GNU Backgammon's 2-ply
    cubeful decisions than Janowski's formula (`benchmarks/bench_cube.py`).
    A decision in a short bear-off (at most seven checkers a side, all home) is
    exact at every depth and in every variant: money play from the two-sided
    table (`bearoff_cube.py`), match play solved at its score (`bearoff_match.py`).
    The two-roll search polls `should_stop` before each roll, the search behind
    Janowski's formula as it searches, and each raises `search.Stopped` when it turns
    true.
    """
    exact = (cubeful.exact_money_decision(pos) if pos.match is None
             else cubeful.exact_match_decision(pos, match_model(pos.variant)))
    if exact is not None:
        return exact
    if plies >= cubeful.DEEP_PLIES and pos.variant in cubeful.MEASURED_VARIANTS:
        searcher = _searcher(pos.variant)
        if pos.match is None:
            return cubeful.money_decision_deep(searcher, pos, plies, should_stop)
        return cubeful.match_decision_deep(searcher, pos, match_model(pos.variant), plies,
                                           should_stop)
    if plies >= 1 and pos.variant in cubeful.MEASURED_VARIANTS:
        if pos.match is None:
            return cubeful.money_decision(_searcher(pos.variant), pos, plies)
        return cubeful.match_decision(_searcher(pos.variant), pos, match_model(pos.variant),
                                      plies)
    base = pos.without_dice() if pos.dice else pos
    e = evaluate(base, plies=plies, should_stop=should_stop)
    return cubemod.position_decision(pos, e.probs(), match_model(pos.variant))


@dataclass(frozen=True)
class RolloutProgress:
    """Running figures of a rollout after `trials_done` games."""

    trials_done: int
    trials: int
    mean: Evaluation
    """Outcome frequencies; `equity` is the variance-reduced mean."""
    equity_raw: float
    std_error: float
    """Standard error of the variance-reduced equity."""
    std_error_raw: float
    done: bool = False
    extra: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"trials_done": self.trials_done, "trials": self.trials,
                "evaluation": self.mean.to_dict(), "equity": round(self.mean.equity, 6),
                "std_error": round(self.std_error, 6), "equity_raw": round(self.equity_raw, 6),
                "std_error_raw": round(self.std_error_raw, 6), "done": self.done}


def _outcome_probs(result_for_root: int, points: int) -> np.ndarray:
    p = np.zeros(5)
    if result_for_root > 0:
        p[0] = 1.0
        p[1] = points >= 2
        p[2] = points >= 3
    else:
        p[3] = points >= 2
        p[4] = points >= 3
    return p


def rollout(pos: Position, *, trials: int, seed: int, plies: int = 0,
            should_stop: StopFn | None = None, report_every: int | None = None
            ) -> Iterator[RolloutProgress]:
    """Play `trials` games from `pos` with the neural bot at `plies` for both sides.

    Seeded and reproducible. Variance reduction: the first roll is rotated
    through the 36 outcomes (stratified; with dice in `pos` that roll is
    used), and each roll's luck as judged by the 0-ply evaluator is
    subtracted from the result (unbiased). Yields running figures every
    `report_every` trials (default: about twenty reports) and a final one.
    """
    if trials < 1:
        raise ValueError("trials must be at least 1")
    v = pos.rules
    s = _searcher(pos.variant)
    ev = s.ev
    stop = should_stop or (lambda: False)
    rng = np.random.default_rng(seed)
    every = report_every or max(1, trials // 20)
    order = rng.permutation(36)
    sums = np.zeros(5)
    eq_raw: list[float] = []
    eq_adj: list[float] = []
    root = state_of(pos)
    for t in range(trials):
        if stop():
            break
        state = root
        sign = 1.0  # +1 while the root side is on roll
        luck_total = 0.0
        if pos.dice:
            dice = (pos.dice[0], pos.dice[1])
        else:
            k = int(order[t % 36])
            dice = (k // 6 + 1, k % 6 + 1)
        result = 0
        points = 0
        while True:
            luck_total += sign * roll_luck(ev, state, dice)
            raws = generate_raw(v, state.me, state.opp, dice)
            k = s.best(state, raws, plies) if len(raws) > 1 else 0
            raw = raws[k]
            if raw.me[0] == 15:
                flag = state.me_flag or (v.tracks_primes and has_prime(raw.me))
                won = result_probs(v, raw.me, raw.opp, flag)
                points = int(1 + won[1] + won[2])
                result = 1 if sign > 0 else -1
                break
            flag = state.me_flag or (v.tracks_primes and has_prime(raw.me))
            state = State(raw.opp, raw.me, state.opp_flag, flag)
            sign = -sign
            dice = roll(rng)
        value = result * points
        eq_raw.append(value)
        eq_adj.append(value - luck_total)
        sums += _outcome_probs(result, points)
        n = t + 1
        if n % every == 0 or n == trials:
            yield _progress(n, trials, sums, eq_raw, eq_adj, n == trials)
    else:
        return
    if eq_raw:
        yield _progress(len(eq_raw), trials, sums, eq_raw, eq_adj, True)


def _progress(n: int, trials: int, sums: np.ndarray, raw: list[float], adj: list[float],
              done: bool) -> RolloutProgress:
    def se(xs: list[float]) -> float:
        if len(xs) < 2:
            return math.inf
        return float(np.std(xs, ddof=1) / math.sqrt(len(xs)))

    freq = sums / n
    win, wg, wbg, lg, lbg = (float(x) for x in freq)
    mean = Evaluation(win, wg, wbg, lg, lbg, equity=float(np.mean(adj)))
    return RolloutProgress(n, trials, mean, float(np.mean(raw)), se(adj), se(raw), done)


def play_evaluation(pos: Position, play: Play, *, plies: int,
                    should_stop: StopFn | None = None) -> Evaluation:
    """The cubeless evaluation, for the mover, of `play` (one of `pos`'s legal plays) at
    `plies`: the figures `analyze` gives a play it takes to that depth, for a play its move
    filter may have left shallower (a played move judged at the best play's depth)."""
    s = _searcher(pos.variant)
    stop = should_stop or (lambda: False)
    return Evaluation.from_probs(s.evaluate_plays(state_of(pos), [play.raw], plies, stop)[0])
