"""The compiled 0-ply evaluation (`fastnet`) against the numpy reference path.

On seeded positions of every variant (every play of every roll from
positions of random games, so contact, crashed, race and bear-off rows all
occur, with random J12 prime flags) the compiled path must give the same
probabilities and equities as `NeuralEvaluator.probs_reference` within 1e-6,
batched and one position at a time, and the searches built on it the same
plays.
"""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots import fastnet, features
from jacquetd.bots.evaluator import NeuralEvaluator, neural_evaluator
from jacquetd.bots.net import equity
from jacquetd.bots.search import Searcher, State, roll_replies
from jacquetd.rules import generate_raw

from .conftest import VARIANT_NAMES, random_position

pytestmark = pytest.mark.skipif(not fastnet.available(), reason="numba not available")


def _batch(variant: str, n_positions: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position after every play of every roll of seeded random positions
    (the opponent of the mover on roll)."""
    ev = neural_evaluator(variant)
    me, opp = [], []
    for seed in range(n_positions):
        pos = random_position(variant, seed, 4 + (seed * 7) % 90)
        after_me, after_opp, _, _ = roll_replies(ev, State(pos.me, pos.opp))
        live = after_me[:, 0] < 15
        me.append(after_opp[live])
        opp.append(after_me[live])
    rng = np.random.default_rng(n_positions)
    me.append(_scattered(rng, 40 * n_positions))
    opp.append(_scattered(rng, 40 * n_positions))
    return np.concatenate(me), np.concatenate(opp)


def _scattered(rng: np.random.Generator, n: int) -> np.ndarray:
    """Sides with 15 checkers dropped at random on the tray and points 1..m (m from
    6 to 25): late-game shapes (races, bear-offs, crashed boards) that random
    games reach rarely. The kernels read counts only, so these need not be
    reachable."""
    sides = np.zeros((n, 26), dtype=np.int16)
    for r in range(n):
        top = int(rng.choice([6, 6, 9, 12, 18, 25]))
        np.add.at(sides[r], rng.integers(0, top + 1, size=15), 1)
    return sides


def _reference(variant: str) -> NeuralEvaluator:
    ev = neural_evaluator(variant)
    ref = NeuralEvaluator(ev.variant, ev.net, race_net=ev.race_net,
                          crashed_net=ev.crashed_net)
    ref.compiled = False
    return ref


def _close(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= 1e-6
    assert np.abs(equity(a) - equity(b)).max() <= 1e-6


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_batched_path_equals_the_reference(variant):
    ev = neural_evaluator(variant)
    assert ev.compiled
    me, opp = _batch(variant, 24)
    rng = np.random.default_rng(7)
    me_flag = rng.random(len(me)) < 0.3
    opp_flag = rng.random(len(me)) < 0.3
    routes = fastnet.routes(ev.variant, ev.feature_version, me, opp)
    assert min(routes.values()) > 0, routes  # every class of row is compared
    assert routes["race"] == (~features.contact(ev.variant, me, opp)).sum()
    fast = ev.probs(me, opp, me_flag, opp_flag)
    _close(fast, ev.probs_reference(me, opp, me_flag, opp_flag))


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_single_position_path_equals_the_reference(variant):
    ev = neural_evaluator(variant)
    me, opp = _batch(variant, 8)
    rng = np.random.default_rng(11)
    pick = rng.choice(len(me), size=min(300, len(me)), replace=False)
    me, opp = me[pick], opp[pick]
    me_flag = rng.random(len(me)) < 0.3
    opp_flag = rng.random(len(me)) < 0.3
    ref = ev.probs_reference(me, opp, me_flag, opp_flag)
    one = np.concatenate([ev.probs(me[i:i + 1], opp[i:i + 1], me_flag[i:i + 1],
                                   opp_flag[i:i + 1]) for i in range(len(me))])
    _close(one, ref)
    small = fastnet.BATCH_ROWS - 1  # the row-by-row kernel on a small batch
    _close(ev.probs(me[:small], opp[:small], me_flag[:small], opp_flag[:small]),
           ref[:small])


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_searches_choose_the_same_plays(variant):
    fast = Searcher(neural_evaluator(variant))
    ref = Searcher(_reference(variant))
    compared = 0
    for seed in range(40):
        pos = random_position(variant, 1000 + seed, 3 + seed * 2)
        raws = generate_raw(fast.variant, pos.me, pos.opp, pos.dice)
        if len(raws) < 2:
            continue
        state = State(pos.me, pos.opp)
        plies = 1 if seed % 4 else 2
        if plies == 2 and seed > 8:
            continue
        assert fast.best(state, raws, plies) == ref.best(state, raws, plies)
        a = fast.evaluate_states([state], 1)
        b = ref.evaluate_states([state], 1)
        _close(a, b)
        compared += 1
    assert compared >= 15
