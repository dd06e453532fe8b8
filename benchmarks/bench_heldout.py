"""Equity error of the networks against a labelled positions file, by position class.

    python benchmarks/bench_heldout.py --variant backgammon --data bg500-g0-s99.npz
    python benchmarks/bench_heldout.py --variant backgammon --data bg500-g0-s99.npz \\
        --weights cand/backgammon.npz --crashed-weights cand/backgammon-crashed.npz

The file is the `--data` of `jacquetd distill` or of `distill_gnubg.py`
(positions and their teacher's five probabilities); one that none of the
networks was fitted on measures them fairly (for backgammon: positions of
fresh games labelled by gnubg 0-ply). Printed for the shipped evaluator and,
when given, for a candidate (another contact network, a crashed network or
both): the mean absolute equity and win-probability errors over all
positions and per class, as the evaluator routes them (race: contact over;
crashed: contact, and a side's board has crashed; contact: the rest), with
each class's share of the positions and of the error. Positions with both
sides home are left out: the exact bear-off tables answer them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from jacquetd.bots import features, supervised
from jacquetd.bots.evaluator import NeuralEvaluator, all_home, candidate_evaluator, neural_evaluator
from jacquetd.bots.net import equity
from jacquetd.rules import find_variant


def classes(variant_name: str, me: np.ndarray, opp: np.ndarray) -> dict[str, np.ndarray]:
    """Boolean masks of the evaluator's classes (bear-off positions excluded)."""
    v = find_variant(variant_name)
    contact = features.contact(v, me, opp)
    crashed = contact & features.crashed(me, opp)
    table = all_home(me) & all_home(opp)
    return {"race": ~contact & ~table, "crashed": crashed, "contact": contact & ~crashed}


def errors(ev: NeuralEvaluator, x: np.ndarray, pos: supervised.Positions,
           targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per position: |equity error| and |win-probability error| of the evaluator's networks."""
    me, opp = pos.me.astype(np.int16), pos.opp.astype(np.int16)
    p = supervised.tidy(ev.variant, ev.forward(x, me, opp), pos.me_flag, pos.opp_flag)
    return np.abs(equity(p) - equity(targets)), np.abs(p[:, 0] - targets[:, 0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="backgammon")
    ap.add_argument("--data", required=True, help="labelled positions (.npz)")
    ap.add_argument("--weights", default=None, help="a candidate contact network")
    ap.add_argument("--crashed-weights", default=None, help="a candidate crashed network")
    args = ap.parse_args(argv)
    v = find_variant(args.variant)
    pos, extra = supervised.Positions.load(Path(args.data))
    targets = extra["targets"]
    me, opp = pos.me.astype(np.int16), pos.opp.astype(np.int16)
    masks = classes(v.name, me, opp)
    keep = masks["race"] | masks["crashed"] | masks["contact"]
    shipped = neural_evaluator(v.name)
    x = supervised.encode(v, pos, shipped.feature_version)
    evaluators = [("shipped", shipped)]
    if args.weights or args.crashed_weights:
        name = " + ".join(Path(f).name for f in (args.weights, args.crashed_weights) if f)
        evaluators.append((name, candidate_evaluator(v.name, args.weights,
                                                     crashed_weights=args.crashed_weights)))
    print(f"{v.name}: {int(keep.sum())} positions of {Path(args.data).name} "
          f"({len(pos) - int(keep.sum())} left to the bear-off tables)")
    for name, ev in evaluators:
        eq, win = errors(ev, x, pos, targets)
        total = float(eq[keep].sum())
        print(f"  {name}: equity error {eq[keep].mean():.4f}, win {win[keep].mean():.4f}")
        for cls, m in masks.items():
            if m.any():
                print(f"    {cls:8} {int(m.sum()):8d} positions ({m.sum() / keep.sum():5.1%}): "
                      f"equity {eq[m].mean():.4f}, win {win[m].mean():.4f}, "
                      f"{eq[m].sum() / total if total > 0 else 0.0:5.1%} of the error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
