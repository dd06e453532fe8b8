"""Luck of a roll, as judged by a fixed evaluator (variance reduction).

The luck of a roll for the side on roll is the equity of its best play with
that roll minus the average of the same over every roll it could have had:
``luck(r) = E[best | r] - sum_r' P(r') E[best | r']``. Its expectation is
zero whatever the evaluator, so subtracting the luck of every turn from a
game's result leaves an unbiased estimate with a much smaller variance.
"""

from __future__ import annotations

import numpy as np

from .evaluator import Evaluator
from .net import equity
from .search import ROLLS, State, roll_replies

ROLL_INDEX: dict[tuple[int, int], int] = {}
for _k, (_a, _b, _w) in enumerate(ROLLS):
    ROLL_INDEX[(_a, _b)] = _k
    ROLL_INDEX[(_b, _a)] = _k
_WEIGHTS = np.array([w for _, _, w in ROLLS])
_OPENING_WEIGHTS = np.array([0.0 if a == b else 1.0 / 15.0 for a, b, _ in ROLLS])


def best_equities(ev: Evaluator, state: State) -> np.ndarray:
    """(21,) equity of the best play (0 plies) for every roll, in ROLLS order."""
    _me, _opp, p, bounds = roll_replies(ev, state)
    eq = equity(p)
    return np.array([eq[bounds[k]:bounds[k + 1]].max() for k in range(len(ROLLS))])


def roll_luck(ev: Evaluator, state: State, dice: tuple[int, int], *,
              opening_no_doubles: bool = False) -> float:
    """The luck (equity units, the mover's view) of rolling `dice` in `state`."""
    values = best_equities(ev, state)
    weights = _OPENING_WEIGHTS if opening_no_doubles else _WEIGHTS
    return float(values[ROLL_INDEX[dice]] - (weights * values).sum())
