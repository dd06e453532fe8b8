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


def _size(n_inputs: int, n_hidden: int) -> int:
    """The length of the `params` vector of a network of this shape."""
    return n_inputs * n_hidden + n_hidden * (1 + N_OUTPUTS) + N_OUTPUTS


def _split(params: np.ndarray, shape: tuple[int, int]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`params`'s views as (w1, b1, w2, b2) of a network of shape (inputs, hidden)."""
    n_inputs, n_hidden = shape
    a = n_inputs * n_hidden
    b = a + n_hidden
    c = b + n_hidden * N_OUTPUTS
    return (params[:a].reshape(n_inputs, n_hidden), params[a:b],
            params[b:c].reshape(n_hidden, N_OUTPUTS), params[c:c + N_OUTPUTS])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 40.0)))
    return out


_PARTS = ("w1", "b1", "w2", "b2")


def _part(index: int, doc: str) -> property:
    name = _PARTS[index]

    def get(self: Net) -> np.ndarray:
        return self._views()[index]

    def put(self: Net, value: np.ndarray) -> None:
        self._put(name, value)

    return property(get, put, doc=doc)


class Net:
    """The network's weights and its batched forward pass and gradient step.

    The weights are held in one float32 vector, `params` (the first layer's
    weights row by row, its biases, the output weights row by row, the output
    biases), as the compiled evaluator reads them: one array to pass a call
    instead of four. `w1`, `b1`, `w2` and `b2` are views of it, so a change
    made in place through them (a training step) is the vector's; an array
    assigned to one of them is copied into the vector as float32 (a new vector
    when its shape changes). `astype` makes a copy held in another dtype (float64
    for checks of the gradients by finite differences; the compiled evaluator
    converts it at every call).
    """

    w1 = _part(0, "(n_inputs, n_hidden) first-layer weights")
    b1 = _part(1, "(n_hidden,) first-layer biases")
    w2 = _part(2, "(n_hidden, 5) output weights")
    b2 = _part(3, "(5,) output biases")

    def __init__(self, n_inputs: int, n_hidden: int, *, seed: int = 0,
                 meta: dict[str, Any] | None = None) -> None:
        rng = np.random.default_rng(seed)
        self.w1 = rng.standard_normal((n_inputs, n_hidden)) * 0.1
        self.b1 = np.zeros(n_hidden)
        self.w2 = rng.standard_normal((n_hidden, N_OUTPUTS)) * 0.1
        self.b2 = np.zeros(N_OUTPUTS)
        self.meta: dict[str, Any] = dict(meta or {})

    params: np.ndarray
    """All the weights in one float32 vector (see the class)."""

    def _views(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        d = self.__dict__
        views: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = d.get("_v")
        if views is not None:
            return views
        pending = d.get("_pending", {})  # being built part by part (`load`, `copy`)
        missing = [k for k in _PARTS if k not in pending]
        if missing:
            raise AttributeError(f"network has no {missing[0]} yet")
        return pending["w1"], pending["b1"], pending["w2"], pending["b2"]

    def __getstate__(self) -> dict[str, Any]:
        """The vector, not its views (a copy of a view would no longer be the vector's)."""
        return {k: v for k, v in self.__dict__.items() if k != "_v"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "params" in state:
            self.__dict__["_v"] = _split(state["params"], state["_shape"])

    def _put(self, name: str, value: np.ndarray) -> None:
        value = np.asarray(value)
        d = self.__dict__
        if "params" in d:
            current = dict(zip(_PARTS, self._views(), strict=True))
            if value is current[name]:  # `net.w1 += ...`: changed in place already
                return
            if value.shape == current[name].shape:
                current[name][...] = value  # in place: the views stay the vector's
                return
            current[name] = value
            del d["params"], d["_shape"], d["_v"]
            d["_pending"] = current
        else:
            d.setdefault("_pending", {})[name] = value
        pending = d["_pending"]
        if len(pending) < len(_PARTS):
            return
        w1, b1, w2, b2 = (pending[k] for k in _PARTS)
        if w1.ndim != 2 or b1.shape != (w1.shape[1],) or w2.shape != (w1.shape[1], N_OUTPUTS) \
                or b2.shape != (N_OUTPUTS,):
            return  # shapes in the middle of a change: joined when they agree
        shape = (int(w1.shape[0]), int(w1.shape[1]))
        params = np.empty(_size(*shape), dtype=d.get("_dtype", np.float32))
        for part, values in zip(_split(params, shape), (w1, b1, w2, b2), strict=True):
            part[...] = values
        del d["_pending"]
        d["params"], d["_shape"], d["_v"] = params, shape, _split(params, shape)

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

    def astype(self, dtype: Any) -> Net:
        """A copy whose vector is of `dtype`."""
        other = Net.__new__(Net)
        other.__dict__["_dtype"] = np.dtype(dtype)
        other.w1, other.b1, other.w2, other.b2 = self.w1, self.b1, self.w2, self.b2
        other.meta = dict(self.meta)
        return other

    def copy(self) -> Net:
        return self.astype(self.__dict__.get("_dtype", np.float32))

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
            net.w1 = data["w1"]
            net.b1 = data["b1"]
            net.w2 = data["w2"]
            net.b2 = data["b2"]
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
    out.w1 = np.concatenate([n.w1 for n in nets], axis=1)
    out.b1 = np.concatenate([n.b1 for n in nets])
    out.w2 = np.concatenate([n.w2 / k for n in nets], axis=0)
    out.b2 = np.sum([n.b2 for n in nets], axis=0) / k
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
