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
