"""Truncated, variance-reduced rollouts for building truth sets (benchmarks/make_truth.py).

A rollout here plays `trials` games from a position (the side `me` on roll,
before its roll) with the 0-ply neural player for both sides, for at most
`horizon` turns; a game still running at the horizon is scored by the
evaluator's cubeless equity of the position reached. Two variance reductions
apply, as in GNU Backgammon's rollouts:

- the first roll is stratified: trial t gets roll `order[t % 36]` of a seeded
  permutation of the 36 outcomes, so every 36 trials see each roll once;
- every turn's luck, judged by the same 0-ply evaluator, is subtracted:
  luck = E[best play | this roll] - E over the 21 rolls. Its expectation is
  zero, so the estimate stays unbiased (with `horizon=1` it is exactly the
  1-ply value).

The 21-roll expansion that measures a turn's luck also gives the player's
choice for the roll that came, so a turn costs one `roll_replies` call; the
expansions are cached per position, which makes the first turns (shared by
many trials) nearly free. Dice after the first roll come from a generator
seeded by (seed, trial): rolling out several candidate plays with the same
seed uses common random numbers, so the difference between two candidates
has a much smaller error than either figure.

This module is separate from `analysis.rollout` (full games, any player
level, progress reports for the protocol) because truth sets need hundreds
of thousands of cheap trials.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jacquetd.rules import generate_raw

from . import features
from .evaluator import Evaluator
from .net import equity
from .search import ROLLS, Searcher, SearchSettings, State, after, roll_replies

_WEIGHTS = np.array([w for _, _, w in ROLLS])
ROLL_INDEX: dict[tuple[int, int], int] = {}
for _k, (_a, _b, _w) in enumerate(ROLLS):
    ROLL_INDEX[(_a, _b)] = _k
    ROLL_INDEX[(_b, _a)] = _k
_ROLL36 = [ROLL_INDEX[(k // 6 + 1, k % 6 + 1)] for k in range(36)]


class TrialDice:
    """The dice of a rollout's trials, shared by every rollout of the project (cubeless
    here, cubeful in `cuberollout`), so that the same seed means the same games: trial
    t's first roll is stratified (the 36 outcomes in a seeded order, repeated), its later
    rolls come from its own generator (`rng(t)`), independent of the trial count."""

    def __init__(self, seed: int | list[int], trials: int, horizon: int) -> None:
        if trials < 1:
            raise ValueError("trials must be at least 1")
        if horizon < 1:
            raise ValueError("horizon must be at least 1 turn")
        self.seq = [seed] if isinstance(seed, int) else list(seed)
        self._order = np.random.default_rng([*self.seq, 36]).permutation(36)

    def first(self, t: int) -> int:
        """Trial t's first roll (an index into the 21 rolls)."""
        return _ROLL36[int(self._order[t % 36])]

    def rng(self, t: int) -> np.random.Generator:
        """Trial t's generator for its later rolls."""
        return np.random.default_rng([*self.seq, 1000 + t])


@dataclass(frozen=True, slots=True)
class Expansion:
    """A position's 21 rolls with the 0-ply player's choice for each.

    `best[r]` is the mover's equity after its best play with roll r,
    `mean` the average over the rolls, `nxt[r]` the next position (the
    opponent on roll) or None when the play ends the game, and `probs[r]` the
    mover's probabilities after that play (the cubeful rollouts' leaves).
    """

    best: np.ndarray
    mean: float
    nxt: tuple[State | None, ...]
    probs: np.ndarray


@dataclass(frozen=True, slots=True)
class RolloutResult:
    """Per-trial, variance-reduced equities (from the view of the side on roll)."""

    values: np.ndarray
    raw: np.ndarray

    @property
    def equity(self) -> float:
        return float(self.values.mean())

    @property
    def std_error(self) -> float:
        n = len(self.values)
        return float(self.values.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf

    @property
    def std_error_raw(self) -> float:
        n = len(self.raw)
        return float(self.raw.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf


class TruncatedRollout:
    """Rollouts with one evaluator, sharing a cache of position expansions
    (`rolloutkernel.CompiledRollout` plays the same players in compiled code)."""

    def __init__(self, ev: Evaluator, *, cache_limit: int = 20_000) -> None:
        self.ev = ev
        self.variant = ev.variant
        self.cache: dict[State, Expansion] = {}
        self.cache_limit = cache_limit
        self.expansions = 0

    def expand(self, s: State) -> Expansion:
        got = self.cache.get(s)
        if got is not None:
            return got
        after_me, after_opp, p, bounds = roll_replies(self.ev, s)
        eq = equity(p)
        ks = [bounds[r] + int(np.argmax(eq[bounds[r]:bounds[r + 1]]))
              for r in range(len(ROLLS))]
        best = eq[ks]
        mes, opps = after_me[ks], after_opp[ks]
        flags = np.full(len(ks), s.me_flag)
        if self.variant.tracks_primes and not s.me_flag:
            flags = features.has_prime(mes)
        me_rows, opp_rows = mes.tolist(), opps.tolist()
        nxt: list[State | None] = [
            None if me_rows[r][0] == 15 else
            State(tuple(opp_rows[r]), tuple(me_rows[r]), s.opp_flag, bool(flags[r]))
            for r in range(len(ks))]
        e = Expansion(best, float((_WEIGHTS * best).sum()), tuple(nxt), p[ks])
        self.expansions += 1
        if len(self.cache) >= self.cache_limit:
            self.cache.clear()
        self.cache[s] = e
        return e

    def turn(self, s: State, roll: int) -> tuple[float, float, State | None]:
        """One turn of the 0-ply player at `s` with roll `roll` (an index into the 21
        rolls): the roll's luck and the mover's equity after its best play (both from the
        mover's view), and the next position (None when the play ends the game)."""
        e = self.expand(s)
        return e.best[roll] - e.mean, e.best[roll], e.nxt[roll]

    def run(self, s: State, *, trials: int, seed: int | list[int], horizon: int
            ) -> RolloutResult:
        """Roll out `s` (side on roll, before its roll); values are from its view."""
        return play_trials(self.turn, s, trials=trials, seed=seed, horizon=horizon)


class SearchRollout(TruncatedRollout):
    """Rollouts whose player searches `plies` deep: `Searcher.rank` at that depth, with
    the move filter and pruning of `settings` (the daemon's `neural-<plies>` level), for
    both sides. The luck of each turn is still measured at 0 plies (a control variate
    whose mean is zero whoever plays, so the estimate stays unbiased), and a game stopped
    at the horizon is scored by the last mover's equity at `plies` plies: a judge
    stronger than the 0-ply `TruncatedRollout`, at the cost of a search per turn. Each
    (position, roll) is searched once (the first turns are shared by many trials)."""

    def __init__(self, ev: Evaluator, *, plies: int, settings: SearchSettings | None = None,
                 cache_limit: int = 20_000) -> None:
        super().__init__(ev, cache_limit=cache_limit)
        if plies < 0:
            raise ValueError("plies must be at least 0")
        self.plies = plies
        self.searcher = Searcher(ev, settings)
        self.choices: dict[tuple[State, int], tuple[float, State | None]] = {}

    def turn(self, s: State, roll: int) -> tuple[float, float, State | None]:
        luck, value, nxt = super().turn(s, roll)
        if self.plies == 0:
            return luck, value, nxt
        got = self.choices.get((s, roll))
        if got is None:
            got = self._choose(s, roll)
            if len(self.choices) >= self.cache_limit:
                self.choices.clear()
            self.choices[(s, roll)] = got
        return luck, *got

    def _choose(self, s: State, roll: int) -> tuple[float, State | None]:
        """The searched play of `s` with `roll`: its equity for the mover at the depth the
        search reached and the next position (None when the play ends the game)."""
        a, b, _w = ROLLS[roll]
        raws = generate_raw(self.variant, s.me, s.opp, (a, b))
        *_, ranking = self.searcher.rank(s, raws, self.plies)
        k, probs, _depth = ranking[0]
        raw = raws[k]
        if raw.me[0] == 15:
            return float(equity(probs)), None
        return float(equity(probs)), after(s, raw, self.variant.tracks_primes)


Turn = Callable[[State, int], "tuple[float, float, State | None]"]
"""A rollout player's turn at a position with a roll (an index into the 21 rolls): the
roll's luck and the mover's value after the play, from the mover's view, and the next
position, None when the play ends the game (`TruncatedRollout.turn`)."""


def play_trials(turn: Turn, s: State, *, trials: int, seed: int | list[int], horizon: int
                ) -> RolloutResult:
    """Play `trials` games of at most `horizon` turns from `s` (side on roll, before its
    roll) by `turn`, on the dice of `TrialDice(seed, ...)`; each trial's value is the
    last mover's value, from the view of the side on roll at `s`, minus the luck of every
    turn (the raw values are kept beside)."""
    plan = TrialDice(seed, trials, horizon)
    values = np.empty(trials)
    raw = np.empty(trials)
    for t in range(trials):
        rng = plan.rng(t)
        dice = plan.first(t)
        state: State | None = s
        sign = 1.0
        luck = 0.0
        result = 0.0
        for k in range(horizon):
            assert state is not None
            lucky, value, state = turn(state, dice)
            luck += sign * lucky
            result = sign * value
            if state is None:
                break
            sign = -sign
            if k + 1 < horizon:
                a, b = rng.integers(1, 7, size=2)
                dice = ROLL_INDEX[(int(a), int(b))]
        values[t] = result - luck
        raw[t] = result
    return RolloutResult(values, raw)
