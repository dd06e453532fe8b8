"""Pruning networks: a cheap first ranking of the replies inside a search.

Inside an n-ply search (n >= 1), every node picks, for each of the 21 rolls,
the play the evaluator likes best, and only that play's position is searched
further. GNU Backgammon does not evaluate every play of a roll with its full
network there: a small *pruning* network ranks them all, and only the best
``MIN_KEEP + floor(log2(plays))`` of that ranking go to the full network
(gnubg's ``MIN_PRUNE_MOVES`` is 5, chosen by its authors on the Depreli
benchmark). This module is the same device for every variant.

A pruning network reads the position a play leaves from the mover's side:
four truncated-unary units per point and the bar for each side (1 from one
checker, 1 from two, 1 from three, half a unit per checker beyond), the
borne-off share and the pip count, 204 inputs; one sigmoid hidden layer;
one linear output, the mover's cubeless equity. It is fitted on the full
evaluator's equities of every play of every roll from positions of the
full network's own games, with the loss taken on each roll's differences
from their mean (only the order within a roll matters). `jacquetd
train-prune` makes one (`prune_train`); its sidecar JSON keeps the command and its fit.

The search keeps a play that wins outright whatever the pruning network
says, and a roll with few plays is never pruned. Without numba the scores
come from numpy (same figures within float32 rounding).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from jacquetd import kernel_cache

from . import fastencode, fastnet

kernel_cache.check()  # before anything here compiles or loads a cache

N_INPUTS = 204
"""Inputs of a pruning network: 101 per side (25 points and bar x 4, off) and 2 pip counts."""

MIN_KEEP = 5
"""Plays of a roll that always reach the full evaluator (gnubg's MIN_PRUNE_MOVES)."""

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"

_njit: Any = fastencode._njit


def keep(plays: int) -> int:
    """How many of a roll's `plays` go on to the full evaluator."""
    return plays if plays <= MIN_KEEP else min(plays, MIN_KEEP + int(math.log2(plays)))


def encode(me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """The (N, 204) float32 inputs of the positions (`me` the side that just played)."""
    out = np.zeros((len(me), N_INPUTS), dtype=np.float32)
    for s, side in enumerate((me.astype(np.float32), opp.astype(np.float32))):
        base = 101 * s
        pts = side[:, 1:26]
        out[:, base:base + 100:4] = pts >= 1
        out[:, base + 1:base + 100:4] = pts >= 2
        out[:, base + 2:base + 100:4] = pts >= 3
        out[:, base + 3:base + 100:4] = np.maximum(pts - 3.0, 0.0) / 2.0
        out[:, base + 100] = side[:, 0] / 15.0
        out[:, 202 + s] = (pts * np.arange(1, 26, dtype=np.float32)).sum(axis=1) / 100.0
    return out


def _score_rows(me: np.ndarray, opp: np.ndarray, w1: np.ndarray, b1: np.ndarray,
                w2: np.ndarray, b2: float) -> np.ndarray:
    """The equities, adding to the hidden layer only the inputs that are not zero (one
    loop over the hidden units per occupied point, chosen by its count), the hidden
    units' sigmoids in one vectorised loop (`fastnet._sigmoids`)."""
    n, hidden = me.shape[0], w1.shape[1]
    out = np.empty(n, dtype=np.float32)
    h = np.empty(hidden, dtype=np.float32)
    sig = np.empty(hidden, dtype=np.float64)
    for i in range(n):
        for k in range(hidden):
            h[k] = b1[k]
        for s in range(2):
            side = me[i] if s == 0 else opp[i]
            base = 101 * s
            pips = 0
            for p in range(1, 26):
                c = side[p]
                if c <= 0:
                    continue
                pips += p * c
                j = base + 4 * (p - 1)
                if c == 1:
                    for k in range(hidden):
                        h[k] += w1[j, k]
                elif c == 2:
                    for k in range(hidden):
                        h[k] += w1[j, k] + w1[j + 1, k]
                elif c == 3:
                    for k in range(hidden):
                        h[k] += (w1[j, k] + w1[j + 1, k]) + w1[j + 2, k]
                else:
                    extra = np.float32((c - 3) / 2.0)
                    for k in range(hidden):
                        h[k] += ((w1[j, k] + w1[j + 1, k]) + w1[j + 2, k]) + extra * w1[j + 3, k]
            off = np.float32(side[0] / 15.0)
            pip = np.float32(pips / 100.0)
            for k in range(hidden):
                h[k] += off * w1[base + 100, k] + pip * w1[202 + s, k]
        for k in range(hidden):
            sig[k] = h[k]
        fastnet._sigmoids(sig, hidden)
        acc = b2
        for k in range(hidden):
            acc += w2[k] * sig[k]
        out[i] = acc
    return out


def _keep_rows(me: np.ndarray, opp: np.ndarray, bounds: np.ndarray, w1: np.ndarray,
               b1: np.ndarray, w2: np.ndarray, b2: float, given: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The rows each roll keeps (in row order) and the new bounds of each roll's rows;
    the scores are `given` when it has a row each, else computed here."""
    scores = given if given.shape[0] == me.shape[0] else _score_rows(me, opp, w1, b1, w2, b2)
    rows = np.empty(me.shape[0], dtype=np.int64)
    out_bounds = np.zeros(bounds.shape[0], dtype=np.int64)
    m = 0
    for r in range(bounds.shape[0] - 1):
        lo, hi = bounds[r], bounds[r + 1]
        n = hi - lo
        k = n if n <= MIN_KEEP else min(n, MIN_KEEP + int(math.log2(n)))
        if k >= n:
            for i in range(lo, hi):
                rows[m] = i
                m += 1
        else:
            part = scores[lo:hi].copy()
            for i in range(n):
                if me[lo + i, 0] == 15:  # a play that wins is always kept
                    part[i] = np.inf
            top = np.sort(np.argsort(-part, kind="mergesort")[:k])
            for i in range(k):
                rows[m] = lo + top[i]
                m += 1
        out_bounds[r + 1] = m
    return rows[:m], out_bounds


COMPILED = _njit is not None
"""Whether the scores come from the compiled loops (numba there and not disabled)."""

if COMPILED:
    _score_rows = _njit(cache=True, nogil=True)(_score_rows)
    _keep_rows = _njit(cache=True, nogil=True)(_keep_rows)


@dataclass(frozen=True, slots=True)
class PruneNet:
    """A pruning network's weights (float32): inputs x hidden, hidden, hidden, scalar."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float

    def scores(self, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
        """(N,) mover's equities of the positions (`me` just played, `opp` on roll)."""
        if COMPILED:
            out: np.ndarray = _score_rows(np.ascontiguousarray(me, dtype=np.int16),
                                          np.ascontiguousarray(opp, dtype=np.int16),
                                          self.w1, self.b1, self.w2, float(self.b2))
            return out
        return self.scores_reference(me, opp)

    def kept_rows(self, me: np.ndarray, opp: np.ndarray, bounds: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Which rows go on to the full evaluator: for each roll (rows `bounds[r]` to
        `bounds[r + 1]`), the `keep(plays)` best by this network and every play that
        wins outright, in row order. Returns those rows and the new bounds."""
        me = np.ascontiguousarray(me, dtype=np.int16)
        opp = np.ascontiguousarray(opp, dtype=np.int16)
        bounds = np.asarray(bounds, dtype=np.int64)
        if not COMPILED:  # numpy's scores, the same selection
            return _keep_rows(me, opp, bounds, self.w1, self.b1, self.w2, float(self.b2),
                              self.scores_reference(me, opp))
        kept: tuple[np.ndarray, np.ndarray] = _keep_rows(
            me, opp, bounds, self.w1, self.b1, self.w2, float(self.b2),
            np.empty(0, dtype=np.float32))
        return kept

    def scores_reference(self, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
        """The same equities from numpy's matrix products (the reference the tests use)."""
        h = 1.0 / (1.0 + np.exp(-(encode(me, opp) @ self.w1 + self.b1)))
        out: np.ndarray = (h @ self.w2 + self.b2).astype(np.float32)
        return out

    def save(self, path: str | Path, meta: dict[str, Any]) -> None:
        """Write the weights (.npz) and `meta` beside them (.json)."""
        path = Path(path)
        np.savez_compressed(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=float(self.b2))
        path.with_suffix(".json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> PruneNet:
        with np.load(path, allow_pickle=False) as data:
            return cls(data["w1"].astype(np.float32), data["b1"].astype(np.float32),
                       data["w2"].astype(np.float32), float(data["b2"]))


def weights_path(variant_name: str) -> Path:
    return WEIGHTS_DIR / f"{variant_name}-prune.npz"


@cache
def shipped(variant_name: str) -> PruneNet | None:
    """The variant's shipped pruning network, or None when it has none."""
    path = weights_path(variant_name)
    return PruneNet.load(path) if path.exists() else None
