"""`jacquetd rollout`: a rollout from the command line, here or on a Dask cluster.

    jacquetd rollout POSITION [--dice 31] [--candidates "8/5 6/5" "24/23 13/10"]
        [--trials 1296] [--plies 0] [--seed 1] [--truncate 0] [--time-ms MS]
        [--scheduler tcp://HOST:PORT] [--json]

Without `--scheduler` the chunks of 36 trials run one after the other in this
process; with it they go to the scheduler's workers (which need
`jacquetd[cluster]` installed). The figures are the same either way, to the last
digit. A progress bar on standard error shows the trials done and the running
equity of the first line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

from jacquetd.rules import Position, RulesError

if TYPE_CHECKING:  # the bots load at run time only: `jacquetd --help` stays quick
    from jacquetd.bots.rollouts import RolloutSpec

BAR = 28


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", help="start[:VARIANT], a position id, or a gnubg/XG id")
    p.add_argument("--dice", help="the roll (e.g. 31): roll out the candidate plays")
    p.add_argument("--candidates", nargs="+", metavar="MOVE",
                   help="moves to compare (with --dice); default: the bot's play")
    p.add_argument("--trials", type=int, default=1296, help="games per line (default 1296)")
    p.add_argument("--plies", type=int, default=0, choices=(0, 1, 2))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--truncate", type=int, default=0, metavar="TURNS",
                   help="score games by the evaluator after this many turns (0: to the end)")
    p.add_argument("--time-ms", type=int, metavar="MS", help="start no chunk after this")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run the chunks on this Dask scheduler's workers")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


class _Bar:
    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.started = time.monotonic()

    def show(self, figures: dict[str, Any]) -> None:
        if not self.enabled:
            return
        done = int(figures["trials_done"])
        frac = min(done / max(self.total, 1), 1.0)
        rate = done / max(time.monotonic() - self.started, 1e-9)
        first = figures["lines"][0] if figures["lines"] else {}
        eq = first.get("equity")
        line = (f"[{'#' * int(frac * BAR)}{'.' * (BAR - int(frac * BAR))}] {done}/{self.total}"
                f" trials {rate:.1f}/s" + (f"  equity {eq:+.4f}" if eq is not None else ""))
        end = "" if self.stream.isatty() else "\n"
        self.stream.write(("\r\x1b[K" if self.stream.isatty() else "") + line + end)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.stream.isatty():
            self.stream.write("\n")


def _position(text: str, dice: str | None) -> Position:
    from jacquetd.daemon.positions import resolve_position

    roll = None
    if dice:
        digits = [c for c in dice if c in "0123456789"]
        if len(digits) != 2:
            raise ValueError(f"--dice: two dice like 31 or 3-1 (got {dice!r})")
        roll = [int(digits[0]), int(digits[1])]
    return resolve_position(text, roll)


def on_cluster(spec: RolloutSpec, scheduler: str, bar: _Bar,
               budget_end: float | None) -> dict[str, object]:
    """The chunks on Dask workers, a bounded window in flight at a time (as the daemon
    sends them: `rollout_command.CLUSTER_WINDOW_PER_THREAD` per worker thread), each
    folded into a running sum as it comes; the figures of those done, in index order."""
    from jacquetd.bots import rollouts
    from jacquetd.daemon.rollout_command import (
        CLUSTER_WINDOW_MAX,
        CLUSTER_WINDOW_PER_THREAD,
        HELD_PER_WINDOW,
    )

    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SystemExit("jacquetd rollout: --scheduler needs Dask distributed: "
                         "pip install 'jacquetd[cluster]'") from None
    total = rollouts.RunningSum(spec)
    with Client(scheduler, timeout=30) as client:
        threads = sum(client.nthreads().values())
        window = max(2, min(CLUSTER_WINDOW_MAX, CLUSTER_WINDOW_PER_THREAD * threads))
        k = 0

        def may_start(in_flight: int) -> bool:
            return (k < spec.chunks and in_flight < window
                    and k - total.next < HELD_PER_WINDOW * window
                    and (budget_end is None or time.monotonic() < budget_end))

        running = as_completed()
        in_flight = 0
        while may_start(in_flight):
            running.add(client.submit(rollouts.run_chunk, spec, k, pure=False))
            k, in_flight = k + 1, in_flight + 1
        for future in running:
            chunk = future.result()
            future.release()
            in_flight -= 1
            total.add(chunk)
            bar.show(total.figures())
            while may_start(in_flight):
                running.add(client.submit(rollouts.run_chunk, spec, k, pure=False))
                k, in_flight = k + 1, in_flight + 1
        return total.figures()


def main(args: argparse.Namespace) -> int:
    from jacquetd.bots import rollouts

    try:
        pos = _position(args.position, args.dice)
        if args.candidates and not pos.dice:
            raise ValueError("--candidates: give --dice too")
        spec = rollouts.plan(pos, candidates=args.candidates, trials=args.trials,
                             plies=args.plies, seed=args.seed, truncate=args.truncate)
    except (ValueError, RulesError) as exc:
        print(f"jacquetd rollout: {exc}", file=sys.stderr)
        return 2
    bar = _Bar(spec.trials, sys.stderr, not args.quiet)
    started = time.monotonic()
    budget_end = started + args.time_ms / 1000.0 if args.time_ms else None
    if args.scheduler:
        figures = on_cluster(spec, args.scheduler, bar, budget_end)
    else:
        figures = rollouts.rollout_local(
            spec, on_chunk=bar.show,
            should_stop=(lambda: time.monotonic() >= budget_end) if budget_end else None)
    bar.close()
    figures["where"] = "cluster" if args.scheduler else "local"
    figures["elapsed_ms"] = round((time.monotonic() - started) * 1e3, 3)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{figures['trials_done']}/{figures['trials']} trials per line, seed {spec.seed}, "
          f"{spec.plies} plies" + (f", truncated at {spec.truncate} turns" if spec.truncate
                                   else "") + f", {figures['where']}")
    head = (f"{'line':<24} {'equity':>8} {'±se':>7} {'raw':>8} {'±se':>7} {'win':>6} "
            f"{'w-g':>6} {'w-bg':>6} {'l-g':>6} {'l-bg':>6}")
    print(head)
    for line in figures["lines"]:  # type: ignore[attr-defined]
        if "equity" not in line:
            continue
        se, se_raw = line["std_error"], line["std_error_raw"]
        print(f"{(line['move'] or '(position)'):<24} {line['equity']:>+8.4f} "
              f"{(se if se is not None else float('nan')):>7.4f} {line['equity_raw']:>+8.4f} "
              f"{(se_raw if se_raw is not None else float('nan')):>7.4f} "
              + " ".join(f"{line[k]:>6.3f}" for k in rollouts.OUTPUTS))
    return 0
