"""Truncated rollouts played and judged by GNU Backgammon: a truth from outside.

The truth sets of `make_truth.py` are rolled out by our own 0-ply network, so a
network of ours is judged partly by its own judgement. `GnubgRollout` plays the
same trials with GNU Backgammon's 0-ply evaluator (the PyPI package `gnubg`,
in-process, cubeless) choosing every play for both sides and scoring the
position at the horizon; our network appears only in the variance reduction.

Same dice as `fastrollout.TruncatedRollout` (`TrialDice`: stratified first
roll, a generator per trial), so rolling out the candidates of one decision
with one seed still uses common random numbers. Each turn's luck is measured by
our 0-ply network, E[best play | this roll] - E over the 21 rolls, and
subtracted. That term has zero mean at every position whoever plays, so the
estimate keeps the expectation of gnubg's own play and horizon value: the
network only lowers the variance, by as much as its judgement tracks gnubg's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from positions import gnubg_board, gnubg_evalcontext

from jacquetd.bots.evaluator import Evaluator, plays_probs
from jacquetd.bots.fastrollout import RolloutResult, TruncatedRollout, play_trials
from jacquetd.bots.net import equity
from jacquetd.bots.search import ROLLS, State, after
from jacquetd.rules import RawPlay, generate_raw

PLAYER = "GNU Backgammon 0-ply (PyPI gnubg, in-process, cubeless), both sides"
AT_HORIZON = "GNU Backgammon 0-ply evaluation, cubeless equity"


class GnubgRollout:
    """Backgammon rollouts with gnubg's 0-ply choices and horizon values.

    `ev` (our network for the variant) measures each turn's luck; the
    expansions it needs are cached per position, as in `TruncatedRollout`.
    """

    def __init__(self, ev: Evaluator, *, cache_limit: int = 20_000) -> None:
        import gnubg  # optional dependency of the benchmarks only

        if ev.variant.name != "backgammon":
            raise ValueError("gnubg plays backgammon only")
        self.ev = ev
        self.variant = ev.variant
        self.luck = TruncatedRollout(ev, cache_limit=cache_limit)
        self._gnubg: Any = gnubg
        self._ec = gnubg_evalcontext()
        self._ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)  # money, cube 1 centred
        self._choices: dict[tuple[State, int], tuple[RawPlay, float]] = {}
        self.cache_limit = cache_limit

    def value(self, on_roll: Sequence[int], other: Sequence[int]) -> float:
        """gnubg's 0-ply cubeless equity of the side on roll (our 26-count sides)."""
        return float(self._gnubg.evaluate(gnubg_board(on_roll, other), self._ci, self._ec)[5])

    def choose(self, s: State, roll: int) -> tuple[RawPlay, float]:
        """gnubg's play for roll `roll` (an index into the 21 rolls) and the mover's
        equity after it: exact when the play ends the game, else gnubg's 0-ply."""
        key = (s, roll)
        got = self._choices.get(key)
        if got is not None:
            return got
        a, b, _w = ROLLS[roll]
        raws = generate_raw(self.variant, s.me, s.opp, (a, b))
        best: tuple[RawPlay, float] | None = None
        for raw in raws:
            if raw.me[0] == 15:  # the play wins: exact value (single, gammon, backgammon)
                p = plays_probs(self.ev, [raw], s.me_flag, s.opp_flag)[0]
                best = (raw, float(equity(p)))
                break
            eq = -self.value(raw.opp, raw.me)
            if best is None or eq > best[1]:
                best = (raw, eq)
        assert best is not None  # generate_raw always gives at least the empty play
        if len(self._choices) >= self.cache_limit:
            self._choices.clear()
        self._choices[key] = best
        return best

    def turn(self, s: State, roll: int) -> tuple[float, float, State | None]:
        """One turn of gnubg's at `s` with roll `roll`: the roll's luck by our network,
        gnubg's value after its play and the next position (`fastrollout.Turn`)."""
        e = self.luck.expand(s)
        play, eq = self.choose(s, roll)
        nxt = None if play.me[0] == 15 else after(s, play, self.variant.tracks_primes)
        return e.best[roll] - e.mean, eq, nxt

    def run(self, s: State, *, trials: int, seed: int | list[int], horizon: int
            ) -> RolloutResult:
        """Roll out `s` (side on roll, before its roll); values are from its view."""
        return play_trials(self.turn, s, trials=trials, seed=seed, horizon=horizon)

