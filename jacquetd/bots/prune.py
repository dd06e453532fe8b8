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
train-prune` makes one; its sidecar JSON keeps the command and its fit.

The search keeps a play that wins outright whatever the pruning network
says, and a roll with few plays is never pruned. Without numba the scores
come from numpy (same figures within float32 rounding).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from . import fastencode

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
    """The equities, adding to the hidden layer only the inputs that are not zero."""
    n, hidden = me.shape[0], w1.shape[1]
    out = np.empty(n, dtype=np.float32)
    h = np.empty(hidden, dtype=np.float32)
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
                top = 3 if c >= 3 else c
                extra = np.float32((c - 3) / 2.0) if c > 3 else np.float32(0.0)
                for k in range(hidden):
                    acc = w1[j, k]
                    if top >= 2:
                        acc += w1[j + 1, k]
                    if top >= 3:
                        acc += w1[j + 2, k]
                    h[k] += acc + extra * w1[j + 3, k]
            off = np.float32(side[0] / 15.0)
            pip = np.float32(pips / 100.0)
            for k in range(hidden):
                h[k] += off * w1[base + 100, k] + pip * w1[202 + s, k]
        acc = b2
        for k in range(hidden):
            acc += w2[k] / (1.0 + math.exp(-h[k]))
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
                                          self.w1, self.b1, self.w2, np.float32(self.b2))
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
            return _keep_rows(me, opp, bounds, self.w1, self.b1, self.w2, np.float32(self.b2),
                              self.scores_reference(me, opp))
        kept: tuple[np.ndarray, np.ndarray] = _keep_rows(
            me, opp, bounds, self.w1, self.b1, self.w2, np.float32(self.b2),
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
        np.savez_compressed(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=np.float32(self.b2))
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


# -- training ---------------------------------------------------------------------------


def _sample_states(variant_name: str, count: int, seed: int, epsilon: float) -> list[Any]:
    """Positions before the roll from games of the full network at 0 plies (a share
    `epsilon` of the plays random), about one turn in three taken."""
    import random

    from jacquetd.rules import Position, legal_plays

    from .evaluator import neural_evaluator, plays_probs
    from .net import equity
    from .search import State

    ev = neural_evaluator(variant_name)
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        pos = Position.initial(variant_name)
        while not pos.game_over() and len(out) < count:
            if rng.randrange(3) == 0:
                out.append(State(pos.me, pos.opp, pos.primed[0], pos.primed[1]))
            pos = pos.with_dice((rng.randint(1, 6), rng.randint(1, 6)))
            plays = legal_plays(pos)
            if len(plays) > 1 and rng.random() >= epsilon:
                probs = plays_probs(ev, [p.raw for p in plays], *pos.primed)
                pos = plays[int(np.argmax(equity(probs)))].after
            else:
                pos = plays[rng.randrange(len(plays))].after
    return out


def training_data(variant_name: str, states: int, seed: int, epsilon: float = 0.15
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every play of every roll of sampled positions with more than one play:
    (mover sides, opponent sides, full-evaluator equities, roll group of each row)."""
    from .evaluator import neural_evaluator
    from .net import equity
    from .search import roll_replies

    ev = neural_evaluator(variant_name)
    me, opp, eq, group = [], [], [], []
    g = 0
    for s in _sample_states(variant_name, states, seed, epsilon):
        after_me, after_opp, p, bounds = roll_replies(ev, s)
        e = equity(p).astype(np.float32)
        for r in range(len(bounds) - 1):
            lo, hi = bounds[r], bounds[r + 1]
            if hi - lo <= 1:
                continue
            me.append(after_me[lo:hi])
            opp.append(after_opp[lo:hi])
            eq.append(e[lo:hi])
            group.append(np.full(hi - lo, g))
            g += 1
    return (np.concatenate(me), np.concatenate(opp), np.concatenate(eq),
            np.concatenate(group))


def fit(x: np.ndarray, eq: np.ndarray, group: np.ndarray, *, hidden: int, epochs: int,
        seed: int, lr: float = 3e-3, groups_per_batch: int = 24) -> PruneNet:
    """Adam on the squared error of each roll's centred equities (order is what counts),
    the rate decaying linearly to a tenth."""
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((x.shape[1], hidden)) * 0.1).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = (rng.standard_normal(hidden) * 0.1).astype(np.float32)
    params = [w1, b1, w2]
    m = [np.zeros_like(a) for a in params]
    v = [np.zeros_like(a) for a in params]
    order = np.argsort(group, kind="stable")
    n_groups = int(group.max()) + 1
    bounds = np.searchsorted(group[order], np.arange(n_groups + 1))
    step = 0
    for epoch in range(epochs):
        rate = lr * (1.0 - 0.9 * epoch / max(epochs, 1))  # linear decay to a tenth
        perm = rng.permutation(n_groups)
        for k in range(0, n_groups, groups_per_batch):
            rows = np.concatenate([order[bounds[g]:bounds[g + 1]]
                                   for g in perm[k:k + groups_per_batch]])
            xb, yb = x[rows], eq[rows]
            _, inv = np.unique(group[rows], return_inverse=True)
            h = 1.0 / (1.0 + np.exp(-(xb @ w1 + b1)))
            err = h @ w2 - yb
            err = err - (np.bincount(inv, err) / np.bincount(inv))[inv]
            dh = np.outer(err, w2) * h * (1.0 - h)
            grads = [xb.T @ dh / len(rows), dh.mean(axis=0), h.T @ err / len(rows)]
            step += 1
            for i, (a, gr) in enumerate(zip(params, grads, strict=True)):
                m[i] = 0.9 * m[i] + 0.1 * gr
                v[i] = 0.999 * v[i] + 0.001 * gr * gr
                a -= (rate * (m[i] / (1 - 0.9 ** step))
                      / (np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8)).astype(np.float32)
    return PruneNet(w1, b1, w2, 0.0)


def recall(net: PruneNet, me: np.ndarray, opp: np.ndarray, eq: np.ndarray,
           group: np.ndarray) -> tuple[float, float]:
    """(share of rolls whose best play survives the pruning, mean equity lost a roll)."""
    s = net.scores(me, opp)
    bounds = np.flatnonzero(np.diff(group)) + 1
    hits, lost, n = 0, 0.0, 0
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(group)], strict=True):
        kept = np.argsort(-s[lo:hi], kind="stable")[:keep(hi - lo)]
        best = float(eq[lo:hi].max())
        got = float(eq[lo:hi][kept].max())
        hits += got >= best
        lost += best - got
        n += 1
    return hits / n, lost / n


def main(argv: list[str] | None = None) -> int:
    """`jacquetd train-prune`: fit and save a variant's pruning network."""
    ap = argparse.ArgumentParser(prog="jacquetd train-prune", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--states", type=int, default=3000,
                    help="positions sampled from the network's games (default 3000)")
    ap.add_argument("--test-states", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--out", help="weights file (default: the variant's shipped one)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    me, opp, eq, group = training_data(args.variant, args.states, args.seed)
    net = fit(encode(me, opp), eq, group, hidden=args.hidden, epochs=args.epochs,
              seed=args.seed)
    t_me, t_opp, t_eq, t_group = training_data(args.variant, args.test_states, args.seed + 1000)
    kept, lost = recall(net, t_me, t_opp, t_eq, t_group)
    out = Path(args.out) if args.out else weights_path(args.variant)
    given = list(argv) if argv is not None else sys.argv[1:]
    shown = [a for i, a in enumerate(given)  # where the file went is no part of the recipe
             if not a.startswith("--out") and not (i and given[i - 1] == "--out")]
    command = "jacquetd train-prune " + " ".join(shown)
    net.save(out, {"variant": args.variant, "command": command.strip(), "rows": len(eq),
                   "hidden": args.hidden, "test_rolls_best_kept": round(kept, 4),
                   "test_equity_lost_per_roll": round(lost, 6),
                   "seconds": round(time.monotonic() - started)})
    print(f"{args.variant}: {len(eq)} rows; held-out rolls whose best play is kept "
          f"{kept:.2%}, equity lost a roll {lost:.5f}; wrote {out}")
    return 0
