"""The match review's cost, in process (the worker's `analyze_record`): a whole match
analysed, and the same with `annotate` (the annotated record and SGF, each move's
candidate plays evaluated once more).

    python benchmarks/bench_review.py [--plies 0] [--rounds 5] [FILE]

FILE is a match record (RECORDS.md, `.mat` or SGF; default: the analysed 7-point gnubg
match of tests/interchange). Prints the decisions, and the best and median seconds of
each kind of run over the rounds, run in turn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from jacquetd.daemon.record_analysis import analyze_record, read_record

DEFAULT = Path(__file__).resolve().parent.parent / "tests/interchange/data/gnubg/analysed-7.sgf"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--plies", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    record = read_record(args.file.read_text())
    first = analyze_record(record, plies=args.plies)  # the tables and kernels loaded
    decisions = len(first["moves"]) + len(first["cube"])
    times: dict[str, list[float]] = {"analysis": [], "analysis + annotate": []}
    for _ in range(args.rounds):
        for kind, runs in times.items():
            t0 = time.perf_counter()
            analyze_record(record, plies=args.plies, annotate=kind != "analysis")
            runs.append(time.perf_counter() - t0)
    print(f"{args.file.name}: {decisions} decisions at {args.plies} plies")
    for kind, runs in times.items():
        print(f"  {kind}: best {min(runs):.2f} s, median {statistics.median(runs):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
