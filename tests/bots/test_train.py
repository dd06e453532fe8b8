"""The trainer runs, writes its files and resumes to the same result."""

from __future__ import annotations

import json

import numpy as np

from jacquetd.bots import train
from jacquetd.bots.net import Net, equity, flip


def _args(out, games):
    return ["--variant", "jacquet-be", "--games", str(games), "--seed", "3", "--hidden", "6",
            "--out", str(out), "--checkpoint-every", "2", "--eval-every", "2",
            "--eval-games", "2", "--quiet"]


def test_train_resume_reproduces(tmp_path):
    assert train.main(_args(tmp_path / "a", 4)) == 0
    assert train.main(_args(tmp_path / "b", 2)) == 0
    assert train.main([*_args(tmp_path / "b", 4), "--resume"]) == 0
    a = Net.load(tmp_path / "a" / "jacquet-be.npz")
    b = Net.load(tmp_path / "b" / "jacquet-be.npz")
    np.testing.assert_allclose(a.w1, b.w1, rtol=1e-6, atol=1e-7)
    sidecar = json.loads((tmp_path / "a" / "jacquet-be.json").read_text())
    assert sidecar["command"].startswith("jacquetd train --variant jacquet-be")
    assert "--games 4" in sidecar["command"] and sidecar["seed"] == 3
    svg = (tmp_path / "a" / "curve.svg").read_text()
    assert svg.startswith("<svg") and "polyline" in svg


def test_lambda_returns_and_flip():
    vals = np.array([[0.5, 0.1, 0.0, 0.1, 0.0], [0.4, 0.1, 0.0, 0.2, 0.0]])
    final = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    g = train.lambda_returns(vals, final, 1.0)
    np.testing.assert_allclose(g[1], final)
    np.testing.assert_allclose(g[0], flip(final))
    assert equity(flip(final)) == -equity(final)


def test_unknown_variant_is_an_error():
    assert train.main(["--variant", "chess", "--games", "1"]) == 2


def test_cross_entropy_loss_runs(tmp_path):
    args = _args(tmp_path / "x", 2)
    assert train.main([*args, "--loss", "xent"]) == 0
    net = Net.load(tmp_path / "x" / "jacquet-be.npz")
    assert net.meta["loss"] == "xent" and np.isfinite(net.w1).all()


def test_race_network_trains_on_positions_after_contact(tmp_path):
    """--race: the shipped-style contact net plays, the race net learns; the evaluator routes."""
    from jacquetd.bots import features
    from jacquetd.bots.evaluator import NeuralEvaluator
    from jacquetd.rules import find_variant

    contact = tmp_path / "c"
    assert train.main(_args(contact, 2)) == 0
    args = [*_args(tmp_path / "r", 3), "--race", "--contact-weights",
            str(contact / "jacquet-be.npz")]
    assert train.main(args) == 0
    race = Net.load(tmp_path / "r" / "jacquet-be-race.npz")
    assert race.meta["race"] is True and race.meta["games_done"] == 3
    sidecar = json.loads((tmp_path / "r" / "jacquet-be-race.json").read_text())
    assert "--race" in sidecar["command"] and sidecar["contact_command"].startswith("jacquetd")
    # the evaluator sends positions without contact (and not both home) to the race net
    v = find_variant("jacquet-be")
    main_net = Net.load(contact / "jacquet-be.npz")
    ev = NeuralEvaluator(v, main_net, race_net=race)
    me = np.zeros((2, 26), dtype=np.int16)
    opp = np.zeros((2, 26), dtype=np.int16)
    me[0, 24], opp[0, 24] = 15, 15  # the start: contact
    me[1, 10], opp[1, 9] = 15, 15  # both on their own 1-12, not home: a race
    x = features.encode(v, me, opp, version=ev.feature_version)
    raw = ev.forward(x, me, opp)
    np.testing.assert_allclose(raw[0], main_net.forward(x[:1])[0])
    np.testing.assert_allclose(raw[1], race.forward(x[1:])[0])


def test_race_only_game_records_positions_after_contact():
    from jacquetd.bots import features
    from jacquetd.bots.evaluator import NeuralEvaluator
    from jacquetd.rules import find_variant

    v = find_variant("jacquet-be")  # without hitting every game ends, even untrained
    net = Net(features.n_inputs(), 6, seed=1, meta={"feature_version": features.FEATURE_VERSION})
    race = Net(features.n_inputs(), 6, seed=2, meta={"feature_version": features.FEATURE_VERSION})
    ev = NeuralEvaluator(v, net, race_net=race)
    rng = np.random.default_rng(4)
    recorded = 0
    for _ in range(5):
        game = train.self_play_game(ev, rng, race_only=True)
        if game is None:
            continue
        xs, vals, final = game
        contact_col = features.n_inputs() - 3
        assert (xs[:, contact_col] == 0).all()  # every recorded position is past contact
        assert len(xs) == len(vals) and final.shape == (5,)
        recorded += 1
    assert recorded
