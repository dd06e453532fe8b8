"""A small numpy network: inputs -> one sigmoid hidden layer -> five sigmoid outputs.

The outputs are, for the side on roll before it rolls, the cumulative
probabilities (win, win gammon, win backgammon, lose gammon, lose
backgammon); in Jacquet "gammon" is marcia and "backgammon" marcia per punto.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

N_OUTPUTS = 5
WIN, WIN_G, WIN_BG, LOSE_G, LOSE_BG = range(N_OUTPUTS)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 40.0)))
    return out


class Net:
    """The network's weights and its batched forward pass and gradient step."""

    def __init__(self, n_inputs: int, n_hidden: int, *, seed: int = 0,
                 meta: dict[str, Any] | None = None) -> None:
        rng = np.random.default_rng(seed)
        self.w1 = (rng.standard_normal((n_inputs, n_hidden)) * 0.1).astype(np.float32)
        self.b1 = np.zeros(n_hidden, dtype=np.float32)
        self.w2 = (rng.standard_normal((n_hidden, N_OUTPUTS)) * 0.1).astype(np.float32)
        self.b2 = np.zeros(N_OUTPUTS, dtype=np.float32)
        self.meta: dict[str, Any] = dict(meta or {})

    @property
    def n_inputs(self) -> int:
        return int(self.w1.shape[0])

    @property
    def n_hidden(self) -> int:
        return int(self.w1.shape[1])

    def forward(self, x: np.ndarray) -> np.ndarray:
        """(N, 5) output probabilities for the (N, n_inputs) input matrix."""
        h = _sigmoid(x @ self.w1 + self.b1)
        return _sigmoid(h @ self.w2 + self.b2)

    def train_step(self, x: np.ndarray, target: np.ndarray, lr: float,
                   loss: str = "mse") -> float:
        """One gradient step towards `target`; returns the mean absolute error.

        `loss` 'mse' (squared error) or 'xent' (cross-entropy, whose gradient
        does not vanish when a sigmoid output saturates).
        """
        h = _sigmoid(x @ self.w1 + self.b1)
        y = _sigmoid(h @ self.w2 + self.b2)
        err = target - y
        dy = err if loss == "xent" else err * y * (1.0 - y)
        dh = (dy @ self.w2.T) * h * (1.0 - h)
        self.w2 += lr * (h.T @ dy)
        self.b2 += lr * dy.sum(axis=0)
        self.w1 += lr * (x.T @ dh)
        self.b1 += lr * dh.sum(axis=0)
        return float(np.abs(err).mean())

    def copy(self) -> Net:
        other = Net.__new__(Net)
        other.w1, other.b1 = self.w1.copy(), self.b1.copy()
        other.w2, other.b2 = self.w2.copy(), self.b2.copy()
        other.meta = dict(self.meta)
        return other

    def save(self, path: str | Path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                            meta=np.array(json.dumps(self.meta, sort_keys=True)))
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Net:
        with np.load(path, allow_pickle=False) as data:
            net = cls.__new__(cls)
            net.w1 = data["w1"].astype(np.float32)
            net.b1 = data["b1"].astype(np.float32)
            net.w2 = data["w2"].astype(np.float32)
            net.b2 = data["b2"].astype(np.float32)
            net.meta = json.loads(str(data["meta"])) if "meta" in data else {}
        return net


def average_nets(nets: list[Net], meta: dict[str, Any] | None = None) -> Net:
    """One network that outputs the average of the members' output logits.

    The hidden layers stand side by side and each member's output weights are
    divided by the number of members, so one forward pass of the result gives
    sigmoid(mean of the members' pre-sigmoid outputs): an ensemble at the cost
    of one network with the summed hidden units. The members must read the
    same inputs (their input counts must match; the caller checks that their
    feature versions do).
    """
    if not nets:
        raise ValueError("average_nets: no networks to average")
    inputs = {n.n_inputs for n in nets}
    if len(inputs) != 1:
        raise ValueError(f"average_nets: the networks read different inputs {sorted(inputs)}")
    k = np.float32(len(nets))
    out = Net.__new__(Net)
    out.w1 = np.concatenate([n.w1 for n in nets], axis=1).astype(np.float32)
    out.b1 = np.concatenate([n.b1 for n in nets]).astype(np.float32)
    out.w2 = np.concatenate([n.w2 / k for n in nets], axis=0).astype(np.float32)
    out.b2 = (np.sum([n.b2 for n in nets], axis=0) / k).astype(np.float32)
    out.meta = dict(meta or {})
    return out


def flip(p: np.ndarray) -> np.ndarray:
    """The same probabilities seen by the other side.

    (w, wg, wb, lg, lb) becomes (1 - w, lg, lb, wg, wb).
    """
    out = np.empty_like(p)
    out[..., WIN] = 1.0 - p[..., WIN]
    out[..., WIN_G] = p[..., LOSE_G]
    out[..., WIN_BG] = p[..., LOSE_BG]
    out[..., LOSE_G] = p[..., WIN_G]
    out[..., LOSE_BG] = p[..., WIN_BG]
    return out


def equity(p: np.ndarray) -> np.ndarray:
    """Cubeless money equity (points per game) of probability rows (..., 5)."""
    out: np.ndarray = (2.0 * p[..., WIN] - 1.0 + p[..., WIN_G] - p[..., LOSE_G]
                       + p[..., WIN_BG] - p[..., LOSE_BG])
    return out
