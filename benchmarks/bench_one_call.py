"""One position a call: microseconds a `NeuralEvaluator.probs` call of one distinct
position, per variant, for one source tree or several run alternately.

`bench_bots.py --rates-only` gives the rate beside GNU Backgammon's; on a noisy
machine both move by a third from run to run, which hides a change of a tenth. This
benchmark compares trees instead: each run is a fresh process importing `jacquetd`
from one tree (`--tree`, repeatable; default this one), the trees take turns, and each
run reports the fastest of its passes over the same positions (the pass least disturbed
by other work). The medians over the runs are the figures to compare. `--weights` (and
`--crashed-weights`) times a candidate network of one variant beside the shipped one, in
the same processes, their passes in turns.

    python benchmarks/bench_one_call.py --tree OLD_CHECKOUT --tree . --runs 6
    python benchmarks/bench_one_call.py --variants backgammon --weights CANDIDATE.npz
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


def measure(variants: list[str], positions: int, passes: int,
            weights: str | None = None, crashed_weights: str | None = None
            ) -> dict[str, float]:
    """Microseconds a call, the fastest of `passes` passes over `positions` distinct
    positions of each variant (the replies of 20 seeded positions, `bench_bots`'). With
    `weights` (and `crashed_weights`), a candidate's evaluator too, as `<variant>
    candidate`, its passes taking turns with the shipped evaluator's."""
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_bots import distinct_replies, sample_positions

    from jacquetd.bots.evaluator import candidate_evaluator, neural_evaluator

    out = {}
    for variant in variants:
        me, opp = distinct_replies(variant, sample_positions(variant, 20, 1))
        me, opp = me[:positions], opp[:positions]
        evaluators = {variant: neural_evaluator(variant)}
        if weights or crashed_weights:
            evaluators[f"{variant} candidate"] = candidate_evaluator(
                variant, weights, crashed_weights=crashed_weights)
        flag = np.zeros(1, dtype=bool)
        rows = [(me[r:r + 1], opp[r:r + 1]) for r in range(len(me))]
        for ev in evaluators.values():
            for m, o in rows[:100]:  # compiled and warm
                ev.probs(m, o, flag, flag)
        best = dict.fromkeys(evaluators, float("inf"))
        for _ in range(passes):
            for label, ev in evaluators.items():
                start = time.perf_counter()
                for m, o in rows:
                    ev.probs(m, o, flag, flag)
                best[label] = min(best[label], (time.perf_counter() - start) / len(rows) * 1e6)
        out.update(best)
    return out


def run_tree(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    """`measure` in a fresh process that imports `jacquetd` from `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", "--variants",
           args.variants, "--positions", str(args.positions), "--passes", str(args.passes)]
    for option, value in (("--weights", args.weights),
                          ("--crashed-weights", args.crashed_weights)):
        if value:
            cmd += [option, str(Path(value).resolve())]
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
    parser.add_argument("--weights", help="a candidate contact network (.npz) of the one "
                        "variant given: timed beside the shipped one, in turns")
    parser.add_argument("--crashed-weights", help="the candidate's crashed network")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    if (args.weights or args.crashed_weights) and len(variants) != 1:
        parser.error("--weights and --crashed-weights name one variant's networks: "
                     "give that variant alone in --variants")
    if args.measure:
        print(json.dumps(measure(variants, args.positions, args.passes, args.weights,
                                 args.crashed_weights)))
        return 0
    trees = [t.resolve() for t in (args.tree or [REPO])]
    runs: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
    for r in range(args.runs):
        for tree in trees:
            figures = run_tree(tree, args)
            runs[tree].append(figures)
            print(f"run {r + 1} {tree.name}: "
                  + ", ".join(f"{v} {us:.2f}" for v, us in figures.items()), flush=True)
    print(f"us a call, one distinct position a call, median of {args.runs} runs "
          f"(each the fastest of {args.passes} passes over {args.positions} positions):")
    for tree in trees:
        medians = {v: statistics.median(f[v] for f in runs[tree]) for v in runs[tree][0]}
        print(f"  {tree}: " + ", ".join(f"{v} {us:.2f}" for v, us in medians.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
