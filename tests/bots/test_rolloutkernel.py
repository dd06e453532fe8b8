"""The compiled rollout against the Python path on the same dice.

`rolloutkernel.rollout_trials` plays whole games in one compiled call; the reference
plays the same games through `TruncatedRollout.turn` (`search.roll_replies`, the
evaluator, the Python choice and luck) with the evaluator held to the row kernel
(`RowEvaluator`). Both must give the same plays and the same per-trial values (to
1e-6), full games and truncated, on seeded positions of every variant.
"""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots import rolloutkernel as rk
from jacquetd.bots.evaluator import NeuralEvaluator, neural_evaluator
from jacquetd.bots.fastrollout import TruncatedRollout
from jacquetd.bots.net import equity
from jacquetd.bots.players import state_of
from jacquetd.bots.search import State
from jacquetd.rules import Position

from .conftest import random_position

pytestmark = pytest.mark.skipif(not rk.available(), reason="the compiled rollout needs numba")

VARIANTS = ("jacquet", "jacquet-be", "backgammon", "long-nardy")


def _positions(variant: str) -> list[State]:
    """The start, a middle game and a late one (seeded random plays)."""
    return [state_of(Position.initial(variant)),
            state_of(random_position(variant, 11, 14)),
            state_of(random_position(variant, 5, 60))]


def _same(variant: str, s: State, *, trials: int, seed: int, horizon: int | None,
          ev: NeuralEvaluator | None = None) -> None:
    ev = ev or neural_evaluator(variant)
    turns = 40 if horizon is None else horizon
    got, trace = rk.traced_trials(ev, s, trials=trials, seed=seed, horizon=horizon,
                                  trace_trials=trials, trace_turns=turns)
    want, ref = rk.reference_trials(TruncatedRollout(rk.RowEvaluator(ev)), s, trials=trials,
                                    seed=seed, horizon=horizon, trace_trials=trials,
                                    trace_turns=turns)
    assert trace.turns.tolist() == ref.turns.tolist()
    assert trace.rolls.tolist() == ref.rolls.tolist()
    ended = trace.rows[:, :, 0] == 15
    assert (ended == (ref.rows[:, :, 0] == 15)).all()
    assert (trace.rows[~ended] == ref.rows[~ended]).all()  # the same plays
    np.testing.assert_allclose(got.values, want.values, rtol=0, atol=1e-6)
    np.testing.assert_allclose(got.raw, want.raw, rtol=0, atol=1e-6)


@pytest.mark.parametrize("variant", VARIANTS)
def test_truncated_rollouts_match_the_python_path(variant: str) -> None:
    for k, s in enumerate(_positions(variant)):
        _same(variant, s, trials=5, seed=100 + k, horizon=5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_full_games_match_the_python_path(variant: str) -> None:
    # a late position, so that the games (and the Python path) are short
    _same(variant, state_of(random_position(variant, 5, 60)), trials=2, seed=7, horizon=None)


def test_jacquet_prime_flags_and_bear_off_tables() -> None:
    """The J12 flags (either side having held a prime) and the races that end in the
    bear-off tables go the same way in both paths."""
    late = state_of(random_position("jacquet", 3, 90))
    for me_flag, opp_flag in ((True, False), (False, True)):
        _same("jacquet", State(late.me, late.opp, me_flag, opp_flag), trials=1, seed=3,
              horizon=None)


def test_backgammon_race_in_the_tables() -> None:
    me = (9, 2, 1, 1, 1, 1, 0) + (0,) * 19
    opp = (11, 1, 0, 2, 0, 0, 1) + (0,) * 19
    _same("backgammon", State(me, opp), trials=6, seed=2, horizon=None)


def test_without_bear_off_tables() -> None:
    """An evaluator that does not use the tables has its networks judge the races home."""
    shipped = neural_evaluator("jacquet-be")
    ev = NeuralEvaluator(shipped.variant, shipped.net, race_net=shipped.race_net,
                         crashed_net=shipped.crashed_net, use_bearoff=False)
    me = (9, 2, 1, 1, 1, 1, 0) + (0,) * 19
    opp = (11, 1, 0, 2, 0, 0, 1) + (0,) * 19
    _same("jacquet-be", State(me, opp), trials=4, seed=2, horizon=None, ev=ev)


def test_a_version_6_network_plays_the_same_games() -> None:
    """A network reading feature version 6 (without versions 1-4's features) plays the
    same games compiled as in Python, with a crashed network of its own."""
    from jacquetd.bots import features
    from jacquetd.bots.net import Net

    shipped = neural_evaluator("backgammon")
    n_in = features.n_inputs(6)
    ev = NeuralEvaluator(shipped.variant, Net(n_in, 24, seed=3, meta={"feature_version": 6}),
                         crashed_net=Net(n_in, 16, seed=4, meta={"feature_version": 6}))
    for k, s in enumerate(_positions("backgammon")):
        _same("backgammon", s, trials=3, seed=40 + k, horizon=6, ev=ev)


def test_one_turn_is_the_one_ply_value() -> None:
    """With one turn, luck subtracted, every trial's value is the mean over the rolls of
    the best play's equity: the 1-ply value."""
    ev = neural_evaluator("backgammon")
    s = state_of(random_position("backgammon", 4, 10))
    res = rk.rollout_trials(ev, s, trials=36, seed=1, horizon=1)
    mean = TruncatedRollout(rk.RowEvaluator(ev)).expand(s).mean
    np.testing.assert_allclose(res.values, mean, rtol=0, atol=1e-9)


def test_blocks_of_trials_are_the_trials_of_one_call() -> None:
    """Trials numbered from `trial0` are the games a longer call plays under those
    numbers, so a rollout may be played in blocks (and polled between them)."""
    ev = neural_evaluator("jacquet")
    s = state_of(random_position("jacquet", 3, 9))
    whole = rk.rollout_trials(ev, s, trials=12, seed=5, horizon=None)
    parts = [rk.rollout_block(ev, s, trials=n, trial0=lo, seed=5, horizon=None)[0]
             for lo, n in ((0, 5), (5, 7))]
    assert np.concatenate([q.values for q in parts]).tolist() == whole.values.tolist()
    assert np.concatenate([q.raw for q in parts]).tolist() == whole.raw.tolist()
    with pytest.raises(ValueError):
        rk.rollout_block(ev, s, trials=2, trial0=-1, seed=5, horizon=None)


@pytest.mark.parametrize("variant", VARIANTS)
def test_outcome_probabilities_of_the_trials(variant: str) -> None:
    """A finished game's probabilities are its result (their equity the trial's raw
    value); cut after one turn, they are the evaluation of the play the trial's first
    roll chose, seen from the side on roll."""
    ev = neural_evaluator(variant)
    s = state_of(random_position(variant, 6, 8))
    full, probs = rk.rollout_block(ev, s, trials=10, trial0=0, seed=3, horizon=None)
    assert set(np.unique(probs)) <= {0.0, 1.0}
    assert (probs[:, 0] == (full.raw > 0)).all()
    np.testing.assert_allclose(equity(probs), full.raw, rtol=0, atol=1e-12)
    cut, probs = rk.rollout_block(ev, s, trials=36, trial0=0, seed=3, horizon=1)
    np.testing.assert_allclose(equity(probs), cut.raw, rtol=0, atol=1e-9)
    replies = TruncatedRollout(rk.RowEvaluator(ev)).expand(s)
    first = rk.first_order(rk.dice_key(3))
    np.testing.assert_allclose(probs, replies.probs[first], rtol=0, atol=1e-6)


def test_a_given_first_roll_is_every_trial_s_first_roll() -> None:
    ev = neural_evaluator("backgammon")
    s = state_of(random_position("backgammon", 2, 6))
    one, probs = rk.rollout_block(ev, s, trials=8, trial0=0, seed=1, horizon=1,
                                  first_roll=(6, 5))
    replies = TruncatedRollout(rk.RowEvaluator(ev)).expand(s)
    k = rk.ROLL_INDEX[(6, 5)]
    np.testing.assert_allclose(one.raw, replies.best[k], rtol=0, atol=1e-9)
    np.testing.assert_allclose(probs, np.tile(replies.probs[k], (8, 1)), rtol=0, atol=1e-6)


def test_same_seed_same_games() -> None:
    ev = neural_evaluator("jacquet-be")
    s = state_of(Position.initial("jacquet-be"))
    a = rk.rollout_trials(ev, s, trials=8, seed=[4, 2], horizon=6)
    b = rk.rollout_trials(ev, s, trials=8, seed=[4, 2], horizon=6)
    c = rk.rollout_trials(ev, s, trials=8, seed=[4, 3], horizon=6)
    assert a.values.tolist() == b.values.tolist()
    assert a.values.tolist() != c.values.tolist()


def test_dice_are_the_same_in_python_and_compiled() -> None:
    key = rk.dice_key([9, 1])
    got = rk.compiled_rolls(key, 50, 30)
    want = [[rk.later_roll(key, t, k) for k in range(30)] for t in range(50)]
    assert got.tolist() == want
    counts = np.bincount(got.ravel(), minlength=21)
    assert (counts > 0).all()  # every roll comes up


def test_first_rolls_are_stratified() -> None:
    order = rk.first_order(rk.dice_key(17))
    assert sorted(order.tolist()) == sorted(rk.ROLL36.tolist())  # each outcome once


def test_bad_arguments() -> None:
    ev = neural_evaluator("backgammon")
    s = state_of(Position.initial("backgammon"))
    with pytest.raises(ValueError):
        rk.rollout_trials(ev, s, trials=0, seed=1, horizon=3)
    with pytest.raises(ValueError):
        rk.rollout_trials(ev, s, trials=3, seed=1, horizon=0)


def test_compiled_rollout_is_a_truncated_rollout_played_compiled() -> None:
    """`CompiledRollout.run` is the compiled rollout; `TruncatedRollout` stays the
    Python one on `TrialDice`."""
    ev = neural_evaluator("backgammon")
    s = state_of(random_position("backgammon", 8, 12))
    got = rk.CompiledRollout(ev).run(s, trials=6, seed=[1, 2], horizon=3)
    want = rk.rollout_trials(ev, s, trials=6, seed=[1, 2], horizon=3)
    assert got.values.tolist() == want.values.tolist()
    python = TruncatedRollout(ev).run(s, trials=6, seed=[1, 2], horizon=3)
    assert python.values.tolist() != want.values.tolist()


def _flipped(p: np.ndarray) -> np.ndarray:
    """Probabilities of the opponent's view turned to the other side's."""
    return np.array([-p[0], p[3], p[4], p[1], p[2]])


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_outcome_s_luck_is_taken_off(variant: str) -> None:
    """`vr_probs` is a trial's probabilities less every turn's luck on each of the five,
    as the Python expansion of each position on the trial's way judges it (the chosen
    play's probabilities for the roll minus their mean over the 21 rolls, from the
    starting side's view); its equity is the trial's luck-adjusted value."""
    ev = neural_evaluator(variant)
    s = state_of(random_position(variant, 3, 12))
    weights = np.array([w for _a, _b, w in rk.ROLLS])
    roller = TruncatedRollout(rk.RowEvaluator(ev))
    for horizon in (1, 4, None):
        result, probs, vr, trace = rk._run(ev, s, 8, 5, horizon, 8, 200)
        np.testing.assert_allclose(equity(vr), result.values, rtol=0, atol=1e-9)
        for t in range(8):
            state, luck = s, np.zeros(5)
            for k in range(int(trace.turns[t])):
                e = roller.expand(state)
                roll = int(trace.rolls[t, k])
                d = e.probs[roll] - weights @ e.probs
                luck += d if k % 2 == 0 else _flipped(d)
                state = e.nxt[roll]
            np.testing.assert_allclose(vr[t], probs[t] - luck, rtol=0, atol=1e-6)


def test_a_label_is_the_raw_mean_with_less_noise() -> None:
    """The variance-reduced probabilities estimate what the raw ones do (within four
    standard errors, on 1,296 seeded trials), with a fraction of their noise, and
    their equity is the rollout's."""
    ev = neural_evaluator("jacquet-be")
    s = state_of(Position.initial("jacquet-be"))
    label = rk.rollout_label(ev, s, trials=1296, seed=7, horizon=5)
    _res, raw = rk.rollout_block(ev, s, trials=1296, trial0=0, seed=7, horizon=5)
    raw_se = raw.std(axis=0, ddof=1) / np.sqrt(len(raw))
    both = np.hypot(raw_se, label.std_errors)
    assert (np.abs(label.probs - raw.mean(axis=0)) <= 4 * both + 1e-12).all()
    assert label.std_errors[0] < 0.5 * raw_se[0]
    assert float(equity(label.probs[None])[0]) == pytest.approx(label.result.equity, abs=1e-9)


def test_the_parts_benchmark_times_the_plays_and_rows_the_kernel_evaluates() -> None:
    """`benchmarks/bench_rollout_parts.py` times the kernel's own work: its plays are
    every distinct position a roll's plays leave (the rules' generator, roll by roll),
    and its rows are the evaluator's encoding of them."""
    from benchmarks import bench_rollout_parts as parts
    from jacquetd import fastgen
    from jacquetd.bots import fastencode, features
    from jacquetd.bots.search import ROLLS
    from jacquetd.rules import generate_raw
    from jacquetd.rules.variants import opponent_point_map

    ev = neural_evaluator("backgammon")
    pos = random_position("backgammon", 11, 14)
    me = np.array([pos.me], dtype=np.int16)
    opp = np.array([pos.opp], dtype=np.int16)
    w8, w64 = parts.gk.new_workspace(1 << 14)
    rows = np.empty((w8.shape[0] - parts.gk.ENT0, 52), dtype=np.int8)
    out = np.empty((5000, 52), dtype=np.int8)
    n = parts._all_plays(me, opp, rk._DICE, fastgen.flags_of(ev.variant), w8, w64, rows, out)
    expected = {(d1, d2): {(r.me, r.opp) for r in generate_raw(ev.variant, pos.me, pos.opp,
                                                               (d1, d2))}
                for d1, d2, _w in ROLLS}
    assert n == sum(len(v) for v in expected.values())
    got = {(tuple(int(c) for c in row[:26]), tuple(int(c) for c in row[26:])) for row in out[:n]}
    assert got == set().union(*expected.values())
    f = parts.parts("backgammon", [(pos.me, pos.opp)], 5000, (64,))
    assert f["plays a position"] == n and f["hidden"] == ev.net.n_hidden
    a_rows = np.ascontiguousarray(out[:n, 26:], dtype=np.int16)
    b_rows = np.ascontiguousarray(out[:n, :26], dtype=np.int16)
    flags = np.zeros(n, dtype=bool)
    x = np.zeros((1, ev.net.n_inputs), np.float32)
    xs = np.zeros((n, ev.net.n_inputs), np.float32)
    table = np.array(opponent_point_map(ev.variant), dtype=np.int64)
    parts._encode_all(a_rows, b_rows, table, fastencode.variant_flags(ev.variant),
                      ev.feature_version, fastencode.side_width(ev.feature_version),
                      fastencode.ESCAPES, x, np.empty(fastencode.SCRATCH, np.int64), xs)
    want = features.encode(ev.variant, a_rows, b_rows, flags, flags, ev.feature_version)
    np.testing.assert_allclose(xs, want, atol=1e-6)
