"""The compiled 0-ply evaluation (`fastnet`) and the position cache against the
numpy reference path.

On seeded positions of every variant (every play of every roll from
positions of random games, plus scattered late-game sides, so contact,
crashed, race and bear-off rows all occur, with random J12 prime flags):
a batch gives exactly the reference's figures for the same batch (the same
matrix products); one position at a time (the row-by-row kernel) gives
probabilities and equities within 1e-6 of the reference's for that
position; the cache answers exactly what the evaluation gave; the searches
choose the same plays.
"""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots import fastnet, features
from jacquetd.bots.evaluator import NeuralEvaluator, cached_evaluator, neural_evaluator
from jacquetd.bots.net import Net, equity
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


def _plain(variant: str, *, compiled: bool = True, cache_size: int = 0) -> NeuralEvaluator:
    """The shipped networks in an evaluator of its own (no cache unless asked)."""
    ev = neural_evaluator(variant)
    out = NeuralEvaluator(ev.variant, ev.net, race_net=ev.race_net,
                          crashed_net=ev.crashed_net, cache_size=cache_size)
    out.compiled = compiled
    return out


def _reference(variant: str) -> NeuralEvaluator:
    return _plain(variant, compiled=False)


def _close(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= 1e-6
    assert np.abs(equity(a) - equity(b)).max() <= 1e-6


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_batched_path_equals_the_reference(variant):
    ev = _plain(variant)
    assert ev.compiled and neural_evaluator(variant).compiled
    me, opp = _batch(variant, 24)
    rng = np.random.default_rng(7)
    me_flag = rng.random(len(me)) < 0.3
    opp_flag = rng.random(len(me)) < 0.3
    routes = fastnet.routes(ev.variant, ev.feature_version, me, opp)
    assert min(routes.values()) > 0, routes  # every class of row is compared
    assert routes["race"] == (~features.contact(ev.variant, me, opp)).sum()
    fast = ev.probs(me, opp, me_flag, opp_flag)
    np.testing.assert_array_equal(fast, ev.probs_reference(me, opp, me_flag, opp_flag))


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_single_position_path_is_the_reference_within_1e_6(variant):
    ev = _plain(variant)
    me, opp = _batch(variant, 8)
    rng = np.random.default_rng(11)
    pick = np.r_[0:200, len(me) - 200:len(me)]  # from games, then the scattered sides
    me, opp = me[pick], opp[pick]
    me_flag = rng.random(len(me)) < 0.3
    opp_flag = rng.random(len(me)) < 0.3
    assert min(fastnet.routes(ev.variant, ev.feature_version, me, opp).values()) > 0

    def one_by_one(probs):
        return np.concatenate([probs(me[i:i + 1], opp[i:i + 1], me_flag[i:i + 1],
                                     opp_flag[i:i + 1]) for i in range(len(me))])

    _close(one_by_one(ev.probs), one_by_one(ev.probs_reference))
    small = fastnet.BATCH_ROWS - 1  # the row-by-row kernel on a small batch
    _close(ev.probs(me[:small], opp[:small], me_flag[:small], opp_flag[:small]),
           one_by_one(ev.probs_reference)[:small])
    # rows of other types or layouts (int64 counts, every other row, flags as ints) are
    # converted on the way, with the same figures
    wide, every_other = me[:2 * small].astype(np.int64), opp[:2 * small:2]
    _close(ev.probs(wide[::2], every_other, me_flag[:2 * small:2].astype(np.int8),
                    opp_flag[:2 * small:2]),
           ev.probs_reference(me[:2 * small:2], opp[:2 * small:2], me_flag[:2 * small:2],
                              opp_flag[:2 * small:2]))


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_searches_choose_the_same_plays(variant):
    fast = Searcher(_plain(variant))
    shipped = Searcher(cached_evaluator(variant))  # compiled and cached
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
        want = ref.best(state, raws, plies)
        assert fast.best(state, raws, plies) == want
        assert shipped.best(state, raws, plies) == want
        _close(fast.evaluate_states([state], 1), ref.evaluate_states([state], 1))
        compared += 1
    assert compared >= 15


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_position_cache_answers_what_the_evaluation_gave_and_stays_bounded(variant):
    assert cached_evaluator(variant).cache_size > 0
    ref = _reference(variant)
    cached = _plain(variant, cache_size=500)
    me, opp = _batch(variant, 3)
    _, first_seen = np.unique(np.concatenate([me, opp], axis=1), axis=0, return_index=True)
    me, opp = me[np.sort(first_seen)], opp[np.sort(first_seen)]  # each position once
    rng = np.random.default_rng(3)
    me_flag = rng.random(len(me)) < 0.5
    opp_flag = rng.random(len(me)) < 0.5
    first = cached.probs(me[:300], opp[:300], me_flag[:300], opp_flag[:300])  # all misses
    np.testing.assert_array_equal(
        first, ref.probs_reference(me[:300], opp[:300], me_flag[:300], opp_flag[:300]))
    assert len(cached._cache) == 300
    mixed = cached.probs(me[100:450], opp[100:450], me_flag[100:450], opp_flag[100:450])
    np.testing.assert_array_equal(mixed[:200], first[100:])  # hits: as first computed
    np.testing.assert_array_equal(  # misses: evaluated as one batch
        mixed[200:], ref.probs_reference(me[300:450], opp[300:450], me_flag[300:450],
                                         opp_flag[300:450]))
    assert len(cached._cache) <= 500  # full: emptied, then filled with the misses
    again = cached.probs(me[300:450], opp[300:450], me_flag[300:450], opp_flag[300:450])
    np.testing.assert_array_equal(again, mixed[200:])
    # the same counts with other prime flags are another position
    other = cached.probs(me[300:350], opp[300:350], ~me_flag[300:350], ~opp_flag[300:350])
    np.testing.assert_array_equal(other, ref.probs_reference(
        me[300:350], opp[300:350], ~me_flag[300:350], ~opp_flag[300:350]))


def test_single_position_path_sees_a_network_changed_or_replaced():
    ev = neural_evaluator("backgammon")
    net = ev.net.copy()
    mine = NeuralEvaluator(ev.variant, net, cache_size=0)
    me, opp = _batch("backgammon", 1)
    me, opp = me[:3], opp[:3]
    flags = np.zeros(len(me), dtype=bool)

    def single(probs) -> np.ndarray:
        return np.concatenate([probs(me[i:i + 1], opp[i:i + 1], flags[:1], flags[:1])
                               for i in range(len(me))])

    # the reference one row at a time (its float32 matrix products round a row
    # differently with other rows beside it)
    before = single(mine.probs)
    _close(before, single(mine.probs_reference))
    net.b2 += np.float32(0.5)  # changed in place
    changed = single(mine.probs)
    assert np.abs(changed - before).max() > 1e-3
    _close(changed, single(mine.probs_reference))
    net.w2 = net.w2 * np.float32(-1.0)  # given a new array: copied into the vector
    replaced = single(mine.probs)
    assert np.abs(replaced - changed).max() > 1e-3
    _close(replaced, single(mine.probs_reference))
    net.w1 = net.w1.astype(np.float64)  # held as float32 all the same
    assert net.w1.dtype == np.float32 and np.shares_memory(net.w1, net.params)
    np.testing.assert_array_equal(single(mine.probs), replaced)


class _Arrays:
    """A network held as four float64 arrays, not as `Net` holds one."""

    def __init__(self, net: Net) -> None:
        self.w1, self.b1 = net.w1.astype(np.float64), net.b1.astype(np.float64)
        self.w2, self.b2 = net.w2.astype(np.float64), net.b2.astype(np.float64)

    def forward(self, x: np.ndarray) -> np.ndarray:
        raise AssertionError("the row kernel reads the arrays")


@pytest.mark.parametrize("variant", ["backgammon", "jacquet"])
def test_a_network_held_otherwise_is_converted_at_every_call(variant):
    """The row path of `SmallBatches` (the evaluator's) and of `evaluate` take networks
    that are not `Net`s (no `params` vector), with the figures of the `Net`s."""
    ev = neural_evaluator(variant)
    me, opp = _batch(variant, 1)
    me, opp = me[:5], opp[:5]
    flags = np.zeros(len(me), dtype=bool)
    crashed = ev.crashed_net
    want, _ = ev._kernel(ev.net, None, crashed, me, opp, flags, flags)
    plain = _Arrays(ev.net), None if crashed is None else _Arrays(crashed)
    for call in (ev._kernel, lambda *a: fastnet.evaluate(ev.variant, ev.feature_version, *a)):
        got, _ = call(plain[0], None, plain[1], me, opp, flags, flags)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rows", [1, fastnet.BATCH_ROWS + 3])
def test_the_home_mask_is_none_without_a_row_all_home(rows):
    """`evaluate` returns the rows both of whose sides are home (the bear-off tables
    replace their figures), and None when there is none, on both paths."""
    ev = neural_evaluator("jacquet")
    me, opp = _batch("jacquet", 2)
    home = (me[:, 7:26].sum(axis=1) == 0) & (opp[:, 7:26].sum(axis=1) == 0)
    assert home.any() and not home.all()
    for pick in (np.flatnonzero(~home)[:rows], np.r_[np.flatnonzero(~home)[:rows - 1],
                                                     np.flatnonzero(home)[:1]]):
        flags = np.zeros(len(pick), dtype=bool)
        _, mask = fastnet.evaluate(ev.variant, ev.feature_version, ev.net, ev.race_net,
                                   ev.crashed_net, me[pick], opp[pick], flags, flags)
        if home[pick].any():
            assert mask is not None
            np.testing.assert_array_equal(mask, home[pick])
        else:
            assert mask is None


def test_the_one_call_benchmark_times_each_tree_in_a_process_of_its_own(capsys):
    """`benchmarks/bench_one_call.py` runs each tree in a fresh process importing
    `jacquetd` from that tree, in turns, and reports a figure a run and the medians."""
    from benchmarks import bench_one_call

    here = bench_one_call.REPO
    assert bench_one_call.main(["--tree", str(here), "--tree", str(here), "--variants",
                                "jacquet-be", "--positions", "40", "--passes", "1",
                                "--runs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out[:2]] == [f"run 1 {here.name}"] * 2
    medians = [line for line in out if line.startswith("  ")]
    assert len(medians) == 2
    assert all(0.5 < float(line.rsplit(" ", 1)[1]) < 1000 for line in medians)


def test_a_version_6_network_gives_the_reference_s_figures():
    """Feature version 6 (the unary code and gnubg's inputs alone, `features`) through
    the compiled paths: a batch exactly as the reference, one position a call within
    1e-6, with a crashed network of its own."""
    v = neural_evaluator("backgammon").variant
    n_in = features.n_inputs(6)
    ev = NeuralEvaluator(v, Net(n_in, 24, seed=3, meta={"feature_version": 6}),
                         crashed_net=Net(n_in, 16, seed=4, meta={"feature_version": 6}))
    reference = NeuralEvaluator(v, ev.net, crashed_net=ev.crashed_net)
    reference.compiled = False
    assert ev.compiled
    me, opp = _batch("backgammon", 12)
    flags = np.zeros(len(me), dtype=bool)
    assert min(fastnet.routes(v, 6, me, opp).values()) > 0
    np.testing.assert_array_equal(ev.probs(me, opp, flags, flags),
                                  reference.probs(me, opp, flags, flags))
    pick = np.r_[0:150, len(me) - 150:len(me)]
    one = [(me[i:i + 1], opp[i:i + 1], flags[i:i + 1], flags[i:i + 1]) for i in pick]
    _close(np.concatenate([ev.probs(*row) for row in one]),
           np.concatenate([reference.probs(*row) for row in one]))


def test_the_one_call_benchmark_times_a_candidate_beside_the_shipped_network(
        tmp_path, capsys):
    """`bench_one_call.py --weights` reports a candidate's figure beside the shipped
    network's, and refuses a candidate with several variants."""
    from benchmarks import bench_one_call

    path = tmp_path / "backgammon.npz"
    Net(features.n_inputs(6), 16, seed=2, meta={"feature_version": 6}).save(path)
    assert bench_one_call.main(["--variants", "backgammon", "--weights", str(path),
                                "--positions", "40", "--passes", "1", "--runs", "1"]) == 0
    medians = capsys.readouterr().out.splitlines()[-1]
    assert "backgammon " in medians and "backgammon candidate " in medians
    with pytest.raises(SystemExit):
        bench_one_call.main(["--variants", "jacquet,backgammon", "--weights", str(path)])
