"""One position a call: microseconds a `NeuralEvaluator.probs` call of one distinct
position, per variant, for one source tree or several run alternately.

`bench_bots.py --rates-only` gives the rate beside GNU Backgammon's; on a noisy
machine both move by a third from run to run, which hides a change of a tenth. This
benchmark compares trees instead: each run is a fresh process importing `jacquetd`
from one tree (`--tree`, repeatable; default this one), the trees take turns, and each
run reports the fastest of its passes over the same positions (the pass least disturbed
by other work). The medians over the runs are the figures to compare.

    python benchmarks/bench_one_call.py --tree OLD_CHECKOUT --tree . --runs 6
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VARIANTS = "jacquet,jacquet-be,backgammon,long-nardy"


def measure(variants: list[str], positions: int, passes: int) -> dict[str, float]:
    """Microseconds a call, the fastest of `passes` passes over `positions` distinct
    positions of each variant (the replies of 20 seeded positions, `bench_bots`')."""
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_bots import distinct_replies, sample_positions

    from jacquetd.bots.evaluator import neural_evaluator

    out = {}
    for variant in variants:
        me, opp = distinct_replies(variant, sample_positions(variant, 20, 1))
        me, opp = me[:positions], opp[:positions]
        ev = neural_evaluator(variant)
        flag = np.zeros(1, dtype=bool)
        rows = [(me[r:r + 1], opp[r:r + 1]) for r in range(len(me))]
        for m, o in rows[:100]:  # compiled and warm
            ev.probs(m, o, flag, flag)
        best = float("inf")
        for _ in range(passes):
            start = time.perf_counter()
            for m, o in rows:
                ev.probs(m, o, flag, flag)
            best = min(best, (time.perf_counter() - start) / len(rows) * 1e6)
        out[variant] = best
    return out


def run_tree(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    """`measure` in a fresh process that imports `jacquetd` from `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", "--variants",
           args.variants, "--positions", str(args.positions), "--passes", str(args.passes)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, action="append",
                        help="a source tree to import jacquetd from (repeatable; default "
                             "this one)")
    parser.add_argument("--variants", default=VARIANTS)
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3, help="runs of each tree, in turn")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    if args.measure:
        print(json.dumps(measure(variants, args.positions, args.passes)))
        return 0
    trees = [t.resolve() for t in (args.tree or [REPO])]
    runs: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
    for r in range(args.runs):
        for tree in trees:
            figures = run_tree(tree, args)
            runs[tree].append(figures)
            print(f"run {r + 1} {tree.name}: "
                  + ", ".join(f"{v} {figures[v]:.2f}" for v in variants), flush=True)
    print(f"us a call, one distinct position a call, median of {args.runs} runs "
          f"(each the fastest of {args.passes} passes over {args.positions} positions):")
    for tree in trees:
        medians = {v: statistics.median(f[v] for f in runs[tree]) for v in variants}
        print(f"  {tree}: " + ", ".join(f"{v} {medians[v]:.2f}" for v in variants))
    return 0


if __name__ == "__main__":
    sys.exit(main())
