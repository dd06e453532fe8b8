"""Fitting a pruning network (`jacquetd train-prune`): data from the full network's
games, the fit on each roll's centred equities, and its check on held-out rolls.
`prune` says what the network is for."""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

import numpy as np

from jacquetd.rules import Position, legal_plays

from .evaluator import WEIGHTS_DIR, Evaluator, candidate_evaluator, plays_probs
from .net import equity
from .prune import PruneNet, encode, keep, weights_path
from .search import State, roll_replies


def _sample_states(ev: Evaluator, count: int, seed: int, epsilon: float) -> list[State]:
    """Positions before the roll from games of the full network at 0 plies (a share
    `epsilon` of the plays random), about one turn in three taken."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        pos = Position.initial(ev.variant.name)
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


def training_data(ev: Evaluator, states: int, seed: int, epsilon: float = 0.15
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every play of every roll of sampled positions with more than one play:
    (mover sides, opponent sides, the full evaluator's equities, roll group of each
    row). `ev` is the network the pruning network will serve: it plays the games and
    judges the plays."""
    me, opp, eq, group = [], [], [], []
    g = 0
    for s in _sample_states(ev, states, seed, epsilon):
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
    ap.add_argument("--weights", help="fit it to this contact network file (a candidate "
                    "before it ships; default: the shipped network)")
    ap.add_argument("--out", help="weights file (default: the variant's shipped one)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    ev = candidate_evaluator(args.variant, args.weights)
    me, opp, eq, group = training_data(ev, args.states, args.seed)
    net = fit(encode(me, opp), eq, group, hidden=args.hidden, epochs=args.epochs,
              seed=args.seed)
    t_me, t_opp, t_eq, t_group = training_data(ev, args.test_states, args.seed + 1000)
    kept, lost = recall(net, t_me, t_opp, t_eq, t_group)
    out = Path(args.out) if args.out else weights_path(args.variant)
    given = list(argv) if argv is not None else sys.argv[1:]
    # where the files are is no part of the recipe: the network is named by its digest
    placed = ("--out", "--weights")
    shown = [a for i, a in enumerate(given)
             if not a.startswith(placed) and not (i and given[i - 1] in placed)]
    command = "jacquetd train-prune " + " ".join(shown)
    network_file = Path(args.weights) if args.weights else WEIGHTS_DIR / f"{ev.variant.name}.npz"
    network = hashlib.sha256(network_file.read_bytes()).hexdigest()[:16]
    net.save(out, {"variant": args.variant, "command": command.strip(), "rows": len(eq),
                   "network_sha256": network,
                   "hidden": args.hidden, "test_rolls_best_kept": round(kept, 4),
                   "test_equity_lost_per_roll": round(lost, 6),
                   "seconds": round(time.monotonic() - started)})
    print(f"{args.variant}: {len(eq)} rows; held-out rolls whose best play is kept "
          f"{kept:.2%}, equity lost a roll {lost:.5f}; wrote {out}")
    return 0
