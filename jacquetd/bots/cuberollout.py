"""Cubeful truncated rollouts of a money cube decision (benchmarks/bench_cube_rollout.py).

The Jacquet variants have no outside engine to check cube decisions against, so
the check is a rollout in which the cube lives: from a position before the roll
(the side on roll may double), two lines are played on the same dice:

- **no double**: the side on roll plays on at the cube it has;
- **double/take**: the cube is turned (twice the value, owned by the taker).

In every later turn of a trial the side on roll, if it has access to the cube,
doubles when our money policy says so (Janowski's formula on the 0-ply
probabilities, with the variant's cube efficiency: `cube.money_decision`),
and the other side takes or passes by the same policy; a pass ends the trial
at the cube's value. The plays are the 0-ply player's, as in the truth sets'
rollouts (`fastrollout`), whose position expansions are shared. A trial still
running after `horizon` turns is scored at the leaf as the one-roll cubeful
search scores its leaves (`cubeful.money_cubeful`): Janowski's cubeful
equity for the side then on roll, after its own best cube action. So with
`horizon=1` and the 36 stratified first rolls, the two lines equal the
one-roll cubeful search exactly (tested); longer horizons replace more of
Janowski's formula by played-out cube actions.

Several horizons (`horizon=(10, 11)`) score each trial by the mean of its
values cut after each of them, on the same dice, in one pass: a leaf after an
even number of turns has the starting side on roll, after an odd number the
other, so a network that misjudges the side on roll (as `bench_horizon.py`
measures of `jacquet`'s) errs one way at the even horizon and the other way at
the odd one, and the mean of the two cancels it to first order, as the rollout
labels' default horizons 4 and 5 do.

Variance: the first roll is stratified over the 36 outcomes and both lines
share the dice of each trial (common random numbers), so the difference
between them has a much smaller error than either; no luck is subtracted (the
cubeless luck of `fastrollout` is not the luck of a game with a live cube).
Values are per unit of the cube before the decision, from the view of the
side on roll; a double/pass is worth 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import cube as cubemod
from .cubeful import leaf_value, side_efficiency
from .fastrollout import ROLL_INDEX, TrialDice, TruncatedRollout
from .net import flip
from .search import Searcher, State

_OTHER = {"centre": "centre", "me": "opponent", "opponent": "me"}


@dataclass(frozen=True, slots=True)
class CubefulResult:
    """Per-trial values of the two lines (side on roll's view, per unit of the cube)."""

    no_double: np.ndarray
    double_take: np.ndarray

    @staticmethod
    def _se(values: np.ndarray) -> float:
        n = len(values)
        return float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf

    @property
    def nd(self) -> float:
        return float(self.no_double.mean())

    @property
    def dt(self) -> float:
        return float(self.double_take.mean())

    @property
    def nd_se(self) -> float:
        return self._se(self.no_double)

    @property
    def dt_se(self) -> float:
        return self._se(self.double_take)

    @property
    def difference_se(self) -> float:
        """Standard error of DT - ND (paired: both lines share each trial's dice)."""
        return self._se(self.double_take - self.no_double)

    def decision(self, x: float) -> cubemod.CubeDecision:
        """The proper money action by these figures (a pass is worth 1)."""
        return cubemod.decide(self.nd, self.dt, 1.0, x, "money")


class CubefulRollout:
    """Cubeful rollouts with the 0-ply player and our money cube policy for both sides."""

    def __init__(self, searcher: Searcher, *, x_contact: float | None = None) -> None:
        self.variant = searcher.variant
        self.plays = TruncatedRollout(searcher.ev)
        self.x_contact = (cubemod.contact_efficiency(self.variant.name) if x_contact is None
                          else x_contact)

    def efficiency(self, s: State) -> float:
        return side_efficiency(self.variant, np.array(s.me), np.array(s.opp), self.x_contact)

    def _trial(self, s: State, value: int, owner: str, first: int,
               rng: np.random.Generator, horizons: tuple[int, ...]) -> float:
        """One game from `s` (side on roll, its cube access `owner`, the cube at `value`),
        first roll index `first`: the result from the view of the side on roll at the
        start, the mean of its values cut after each of `horizons` turns. The first
        turn's cube action is the line's (no double, or doubled and taken); later ones are
        the policy's, on the probabilities the last play left."""
        state: State = s
        sign = 1.0
        dice = first
        probs = np.empty(0)  # the side on roll's, before its roll (from the second turn)
        last = max(horizons)
        total = 0.0  # the values of the horizons already passed
        for turn in range(last):
            if turn > 0 and owner != "opponent":
                d = cubemod.money_decision(tuple(float(v) for v in probs), owner,
                                           self.efficiency(state))
                if d.action == "double":
                    if d.take == "drop":  # the game ends here for every later horizon
                        return (total + sign * value * _later(horizons, turn)) / len(horizons)
                    value *= 2
                    owner = "opponent"
            e = self.plays.expand(state)
            nxt = e.nxt[dice]
            if nxt is None:  # the play ends the game: its exact result at this cube
                end = sign * value * float(e.best[dice])
                return (total + end * _later(horizons, turn)) / len(horizons)
            state = nxt
            probs = flip(e.probs[dice])  # the next side's view, before its roll
            owner = _OTHER[owner]
            sign = -sign
            if turn + 1 in horizons and turn + 1 < last:
                # a horizon: the side now on roll takes its best cube action, by Janowski
                total += sign * value * leaf_value(probs, owner, self.efficiency(state))
            if turn + 1 < last:
                a, b = rng.integers(1, 7, size=2)
                dice = ROLL_INDEX[(int(a), int(b))]
        total += sign * value * leaf_value(probs, owner, self.efficiency(state))
        return total / len(horizons)

    def run(self, s: State, *, trials: int, seed: int | list[int],
            horizon: int | Sequence[int], owner: str = "centre") -> CubefulResult:
        """Roll out the no-double and double/take lines of `s` (side on roll, before its
        roll, with access to the cube: `owner` is 'centre' or 'me'), each trial cut after
        `horizon` turns, or valued by the mean over several horizons on its dice."""
        if owner not in ("centre", "me"):
            raise ValueError("the side on roll must have access to the cube")
        horizons = (horizon,) if isinstance(horizon, int) else tuple(sorted(set(horizon)))
        if not horizons or min(horizons) < 1:
            raise ValueError(f"horizons {horizon!r}: each at least 1 turn")
        plan = TrialDice(seed, trials, max(horizons))
        nd = np.empty(trials)
        dt = np.empty(trials)
        for t in range(trials):  # both lines of a trial on the same dice
            first = plan.first(t)
            nd[t] = self._trial(s, 1, owner, first, plan.rng(t), horizons)
            dt[t] = self._trial(s, 2, "opponent", first, plan.rng(t), horizons)
        return CubefulResult(nd, dt)


def _later(horizons: tuple[int, ...], turn: int) -> int:
    """How many of `horizons` a game that ends during turn `turn` (from 0) has not passed:
    each of them takes the game's result."""
    return sum(1 for h in horizons if h > turn)
