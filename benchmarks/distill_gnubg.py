"""Train the backgammon network on GNU Backgammon's evaluations (supervised).

    python benchmarks/distill_gnubg.py --variant backgammon --games 4000 --seed 1 \
        --teacher-plies 0 --jobs 2 --data bg-gnubg0.npz --out distill-backgammon

The same collection and fit as ``jacquetd distill`` (`jacquetd/bots/supervised.py`),
with GNU Backgammon's evaluator (PyPI `gnubg`, in-process, cubeless) at
`--teacher-plies` plies as the teacher instead of our own search. The
engine itself never imports gnubg; this tool is where the two meet.
"""

from __future__ import annotations

import os
import shlex
import sys
from concurrent.futures import ProcessPoolExecutor

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from jacquetd.bots.supervised import Positions, build_parser, run


def _label_chunk(plies: int, me: np.ndarray, opp: np.ndarray) -> np.ndarray:
    import gnubg  # optional dependency of the benchmarks only

    ec = gnubg.evalcontext(0, plies, 1, 0, 0)
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    out = np.empty((len(me), 5))
    for i in range(len(me)):
        # gnubg: (not on roll, on roll); index 0-23 = points 1-24, 24 = the bar
        board = ([int(c) for c in opp[i, 1:26]], [int(c) for c in me[i, 1:26]])
        out[i] = gnubg.evaluate(board, ci, ec)[:5]
    return out


def gnubg_labels(pos: Positions, plies: int, jobs: int) -> np.ndarray:
    """(N, 5) probabilities for the side on roll, by GNU Backgammon at `plies` plies."""
    step = 5000
    los = list(range(0, len(pos), step))
    if jobs <= 1:
        parts = [_label_chunk(plies, pos.me[lo:lo + step], pos.opp[lo:lo + step]) for lo in los]
        return np.concatenate(parts) if parts else np.zeros((0, 5))
    with ProcessPoolExecutor(max(1, jobs)) as pool:
        parts = list(pool.map(_label_chunk, [plies] * len(los),
                              [pos.me[lo:lo + step] for lo in los],
                              [pos.opp[lo:lo + step] for lo in los]))
    return np.concatenate(parts) if parts else np.zeros((0, 5))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    parser.prog = "distill_gnubg.py"
    parser.set_defaults(teacher_plies=0)
    args = parser.parse_args(argv)
    if args.variant != "backgammon":
        raise SystemExit("gnubg plays backgammon only")
    command = "python benchmarks/distill_gnubg.py " + " ".join(shlex.quote(a) for a in argv)
    return run(args, f"gnubg-{args.teacher_plies}",
               lambda pos: gnubg_labels(pos, args.teacher_plies, args.jobs), command,
               lambda pos, plies: gnubg_labels(pos, plies, args.jobs))


if __name__ == "__main__":
    raise SystemExit(main())
