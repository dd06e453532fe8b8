"""What a rollout label says beside the network that plays it, by horizon.

    python benchmarks/bench_horizon.py --variant jacquet --positions 150 --horizons 2,3,4,5

Positions of seeded games of the shipped network (one a turn) are each rolled out by
that network at 0 plies (`--trials` games cut after each horizon, luck taken off as in
the training labels, `supervised.rollout_teacher`). Printed per horizon: the mean of
the label's equity minus the network's own, with its 95% interval, and the same for
the chance of winning.

A network that under- or overrates the side on roll by b shows it here: a rollout cut
after an odd number of turns is scored by the network with the other side on roll, so
its labels differ from the network by about 2b, while those of even horizons agree with
it. Training labels of one odd horizon would carry the error over with its sign
turned; the mean of an even and an odd horizon (`--horizons 4+5`; `jacquetd distill
--rollout-horizon 4,5`, the default) cancels it.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.net import equity
from jacquetd.bots.supervised import RolloutTeacher, collect, parse_horizons, rollout_teacher
from jacquetd.rules import find_variant


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--positions", type=int, default=150)
    ap.add_argument("--horizons", default="2,3,4,5",
                    help="horizons, each measured alone (commas), and with '+' a mean of "
                    "several as one label (4+5)")
    ap.add_argument("--trials", type=int, default=36)
    ap.add_argument("--games", type=int, default=6, help="seeded games the positions come from")
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    v = find_variant(args.variant)
    ev = neural_evaluator(v.name)
    pos = collect(v, args.games, args.seed, per_turn=1, epsilon=0.0)
    pick = np.random.default_rng(args.seed).permutation(len(pos))[:args.positions]
    pos = pos.take(np.sort(pick))
    probs = ev.probs(pos.me, pos.opp, pos.me_flag, pos.opp_flag)
    net, win = equity(probs), probs[:, 0]
    print(f"{v.name}: {len(pos)} positions of {args.games} games (seed {args.seed}), "
          f"{args.trials} trials a label; label minus the network, mean (95% interval)")
    rows = []
    for item in args.horizons.split(","):
        horizons = parse_horizons(item.replace("+", ","))
        started = time.process_time()
        labels = rollout_teacher(ev, RolloutTeacher(args.trials, horizons, args.seed))(pos)
        d_eq = equity(labels) - net
        d_win = labels[:, 0] - win
        half = 1.96 / math.sqrt(len(pos))
        row = {"horizons": list(horizons), "equity": float(d_eq.mean()),
               "equity_ci95": half * float(d_eq.std(ddof=1)), "win": float(d_win.mean()),
               "win_ci95": half * float(d_win.std(ddof=1)),
               "cpu_s": round(time.process_time() - started, 1)}
        rows.append(row)
        print(f"  horizon {item:>5}: equity {row['equity']:+.4f} ± {row['equity_ci95']:.4f}, "
              f"win {row['win']:+.4f} ± {row['win_ci95']:.4f}  [{row['cpu_s']} s]", flush=True)
    if args.json:
        print(json.dumps({"variant": v.name, "positions": len(pos), "trials": args.trials,
                          "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
