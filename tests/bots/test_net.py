"""`Net` holds its weights in one float32 vector, `params`, whose views are `w1`, `b1`,
`w2` and `b2`: whatever changes them (a training step in place, an assignment, a copy,
a pickle, a file) leaves the vector the network's whole truth, which the compiled
evaluator reads."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from jacquetd.bots.net import Net, average_nets


def _joined(net: Net) -> np.ndarray:
    return np.concatenate([net.w1.ravel(), net.b1, net.w2.ravel(), net.b2])


def _is_the_vector(net: Net) -> None:
    assert net.params.dtype == np.float32 and net.params.flags.c_contiguous
    for part in (net.w1, net.b1, net.w2, net.b2):
        assert part.dtype == np.float32
        assert np.shares_memory(part, net.params)
    np.testing.assert_array_equal(_joined(net), net.params)
    assert net.params.size == net.n_inputs * net.n_hidden + 6 * net.n_hidden + 5


def test_a_new_network_is_its_vector():
    net = Net(7, 3, seed=2)
    _is_the_vector(net)
    assert (net.n_inputs, net.n_hidden) == (7, 3)
    assert net.w1.shape == (7, 3) and net.w2.shape == (3, 5) and net.b2.shape == (5,)


def test_a_training_step_changes_the_vector_in_place():
    net = Net(6, 4, seed=1)
    vector = net.params
    before = vector.copy()
    x = np.random.default_rng(0).random((8, 6)).astype(np.float32)
    net.train_step(x, np.full((8, 5), 0.5, dtype=np.float32), 0.5)
    assert net.params is vector  # the same vector, changed
    assert not np.array_equal(vector, before)
    _is_the_vector(net)
    held = net.w1  # a view kept by an optimiser sees later changes, and makes them
    held += np.float32(1.0)
    np.testing.assert_array_equal(net.params[:24].reshape(6, 4), held)


def test_an_assigned_array_is_copied_in_as_float32_and_a_new_shape_makes_a_new_vector():
    net = Net(6, 4, seed=1)
    vector = net.params
    given = np.arange(20, dtype=np.float64).reshape(4, 5)
    net.w2 = given
    assert net.params is vector and net.w2 is not given
    np.testing.assert_array_equal(net.w2, given.astype(np.float32))
    given[0, 0] = -1.0  # the caller's array stays the caller's
    assert net.w2[0, 0] == 0.0
    kept = net.w2.copy()
    net.w1 = np.ones((9, 4), dtype=np.float32)  # more inputs (a widened encoding)
    assert net.params is not vector and net.n_inputs == 9
    np.testing.assert_array_equal(net.w2, kept)  # the other parts carried over
    np.testing.assert_array_equal(net.w1, np.ones((9, 4)))
    _is_the_vector(net)


@pytest.mark.parametrize("clone", [Net.copy, copy.deepcopy,
                                   lambda n: pickle.loads(pickle.dumps(n))])
def test_copies_are_vectors_of_their_own(clone):
    net = Net(5, 3, seed=4, meta={"feature_version": 4})
    other = clone(net)
    _is_the_vector(other)
    np.testing.assert_array_equal(other.params, net.params)
    assert other.meta == net.meta
    other.b1 += np.float32(1.0)
    assert not np.array_equal(other.b1, net.b1)


def test_a_saved_network_loads_as_its_vector(tmp_path):
    net = Net(5, 3, seed=4, meta={"feature_version": 4})
    net.save(tmp_path / "n.npz")
    back = Net.load(tmp_path / "n.npz")
    _is_the_vector(back)
    np.testing.assert_array_equal(back.params, net.params)
    assert back.meta == net.meta


def test_an_averaged_network_is_its_vector():
    members = [Net(4, h, seed=s) for s, h in ((1, 2), (2, 3))]
    _is_the_vector(average_nets(members))


def test_a_network_built_part_by_part_has_no_vector_until_its_parts_agree():
    net = Net.__new__(Net)
    net.meta = {}
    net.w1 = np.zeros((4, 2))
    with pytest.raises(AttributeError):
        _ = net.params
    with pytest.raises(AttributeError, match="b1"):
        _ = net.b1
    net.b1, net.w2 = np.zeros(2), np.zeros((2, 5))
    net.b2 = np.zeros(3)  # not yet of its shape
    with pytest.raises(AttributeError):
        _ = net.params
    net.b2 = np.zeros(5)
    _is_the_vector(net)


def test_a_copy_in_float64_is_a_vector_of_float64_and_stays_one():
    net = Net(4, 3, seed=1)
    wide = net.astype(np.float64)
    assert wide.params.dtype == np.float64 and np.shares_memory(wide.w1, wide.params)
    np.testing.assert_array_equal(wide.params, net.params)
    assert wide.copy().params.dtype == np.float64
    assert pickle.loads(pickle.dumps(wide)).params.dtype == np.float64
