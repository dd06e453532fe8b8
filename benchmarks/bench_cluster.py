"""Leagues and rollouts on Dask workers: ``python benchmarks/bench_cluster.py``.

Starts a local Dask cluster of one, then of two single-threaded worker
processes (loopback only), and prints for each:

- league games per second (two daemon levels, `bot_match` pairs, luck off),
  from the league's start to its last match, on workers already warm: one
  untimed pair of the same league on every worker first starts its daemon
  and loads the bots (as a long league's first minutes would);
- rollout trials per second (chunks of 36 truncated trials), after one
  untimed chunk on every worker;
- the scheduler's overhead per task: the wall time per task of many empty
  tasks through the same cluster;

with the load average when each figure was taken, and the same work per CPU
second of the benchmark's whole process tree (league, scheduler, workers and
their daemons): a figure other jobs on the machine hardly move, whose ratio
says what a second worker costs in extra work (1.0x: nothing). The sizes are measured
`--rounds` times in the order 1, 2, 2, 1, ... (so that a load that drifts
during the run weighs on both alike), and the ratio two workers / one is
that of the mean rates. On a machine shared with other work the ratio says
more about the share of the cores the benchmark got than about Dask: read it
with the load averages. Needs `jacquetd[cluster]`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from jacquetd_clients.league import League, LeagueOptions, parse_league  # noqa: E402

from jacquetd.bots import rollouts  # noqa: E402
from jacquetd.rules import Position  # noqa: E402

DAEMON = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"]


def _load() -> float:
    return os.getloadavg()[0]


def _tree_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of this process and of every process below it (the
    cluster's scheduler, nannies and workers, and the workers' daemons), by pid."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    root, out = os.getpid(), {}
    for pid, (_parent, cpu) in stats.items():
        p = pid
        while p not in (0, 1, root) and p in stats:
            p = stats[p][0]
        if p == root:
            out[pid] = cpu
    return out


class CpuMeter:
    """CPU seconds used by the process tree between `start()` and `stop()`: the work a
    figure cost, whatever share of the cores other jobs left it."""

    def start(self) -> None:
        self.before = _tree_cpu()

    def stop(self) -> float:
        after = _tree_cpu()
        return sum(cpu - self.before.get(pid, 0.0) for pid, cpu in after.items())


def league_rate(address: str, workers: list[str], games: int, folder: Path, a: str,
                b: str, tag: str) -> tuple[float, float]:
    """Games per second of a league on the cluster at `address`, its workers warmed by
    one untimed pair each (the same league: the workers keep its daemon), and games per
    CPU second of the whole process tree."""
    from distributed import Client
    from jacquetd_clients.league import cluster as cluster_module
    from jacquetd_clients.league.runner import pair_units
    from jacquetd_clients.league.schedule import schedule

    config = parse_league({
        "name": "bench-cluster", "variant": "jacquet", "games": games,
        "time_ms": 50, "seed": 11, "daemon": {"command": DAEMON},
        "engines": [{"name": f"{a}-a", "level": a}, {"name": f"{b}-b", "level": b}],
    }, str(REPO))
    unit = pair_units(schedule(config))[0]
    move_timeout = 3 * config.time_ms / 1000.0 + 5.0
    with Client(address) as client:
        client.gather([client.submit(cluster_module.run_pair, config, unit, True, False,
                                     move_timeout, pure=False, workers=[w])
                       for w in workers])
    stamps: list[float] = []
    options = LeagueOptions(results=folder / f"league-{tag}.jsonl", progress=False,
                            luck=False, scheduler=address,
                            on_match=lambda entry: stamps.append(time.perf_counter()))
    meter = CpuMeter()
    meter.start()
    started = time.perf_counter()
    result = asyncio.run(League(config, options).run())
    cpu = meter.stop()
    assert result.finished and len(stamps) == games, (result.finished, len(stamps))
    return games / (stamps[-1] - started), games / cpu


def rollout_and_overhead(client: object, workers: list[str], trials: int
                         ) -> tuple[float, float, float]:
    """Rollout trials per second after one untimed chunk on every worker, trials per CPU
    second of the process tree, and the wall time per empty task (ms)."""
    c: Any = client
    pos = Position.initial("backgammon", cube=False)
    spec = rollouts.plan(pos, trials=trials, seed=3, truncate=6)
    warm = rollouts.plan(pos, trials=36 * len(workers), seed=4, truncate=6)
    c.gather([c.submit(rollouts.run_chunk, warm, i, pure=False, workers=[w])
              for i, w in enumerate(workers)])
    meter = CpuMeter()
    meter.start()
    started = time.perf_counter()
    c.gather(c.map(rollouts.run_chunk, [spec] * spec.chunks, range(spec.chunks),
                   pure=False))
    rate = spec.trials / (time.perf_counter() - started)
    per_cpu = spec.trials / meter.stop()
    n = 500
    c.gather(c.map(_noop, range(50), pure=False))
    started = time.perf_counter()
    c.gather(c.map(_noop, range(n), pure=False))
    return rate, per_cpu, (time.perf_counter() - started) / n * 1e3


Row = tuple[float, float, float, float, float, float, float]


def measure(n_workers: int, args: argparse.Namespace, folder: Path, tag: str) -> Row:
    """(league games/s, games per CPU s, load, rollout trials/s, trials per CPU s, load,
    ms per empty task) on a fresh local cluster of `n_workers` single-threaded worker
    processes."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, host="127.0.0.1") as cluster, \
            Client(cluster) as client:
        workers = sorted(client.scheduler_info()["workers"])
        games, games_cpu = league_rate(cluster.scheduler_address, workers, args.games,
                                       folder, args.a, args.b, tag)
        games_load = _load()
        trials, trials_cpu, overhead = rollout_and_overhead(client, workers, args.trials)
        return games, games_cpu, games_load, trials, trials_cpu, _load(), overhead


def _noop(x: int) -> int:
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60, help="league games per run")
    parser.add_argument("--trials", type=int, default=36 * 36,
                        help="rollout trials per run (default 1296, a usual rollout's size: "
                        "with two workers the last chunk runs alone, a smaller share of "
                        "a longer rollout)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="measurements of each size, in the order 1, 2, 2, 1, ...")
    parser.add_argument("--a", default="heuristic")
    parser.add_argument("--b", default="neural")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    print(f"{os.cpu_count()} cores, load average {_load():.1f}; league {args.a} vs {args.b} "
          f"(jacquet, luck off, {args.games} games); rollout of the backgammon opening "
          f"({args.trials} trials truncated at 6 turns)")
    order = [n for r in range(args.rounds) for n in ((1, 2) if r % 2 == 0 else (2, 1))]
    rows: dict[int, list[Row]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        for i, workers in enumerate(order):
            row = measure(workers, args, Path(tmp), f"{i}-{workers}")
            rows[workers].append(row)
            games, games_cpu, gload, trials, trials_cpu, tload, overhead = row
            print(f"{workers} worker(s): league {games:.2f} games/s, {games_cpu:.2f} per CPU s "
                  f"(load {gload:.1f}); rollout {trials:.1f} trials/s, {trials_cpu:.1f} per "
                  f"CPU s (load {tload:.1f}); scheduler {overhead:.2f} ms per empty task",
                  flush=True)

    def mean(workers: int, k: int) -> float:
        return sum(r[k] for r in rows[workers]) / len(rows[workers])

    print(f"two workers / one (means of {args.rounds}): league {mean(2, 0) / mean(1, 0):.2f}x "
          f"(per CPU s {mean(2, 1) / mean(1, 1):.2f}x), rollout {mean(2, 3) / mean(1, 3):.2f}x "
          f"(per CPU s {mean(2, 4) / mean(1, 4):.2f}x)")


if __name__ == "__main__":
    main()
    sys.exit(0)
