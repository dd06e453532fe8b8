"""Leagues and rollouts on Dask workers: ``python benchmarks/bench_cluster.py``.

Starts a local Dask cluster of one, then two single-threaded worker processes
(loopback only) and prints, for each:

- league games per second (two daemon levels, `bot_match` pairs, luck off),
  counted once every worker has finished its first pair (its daemon's start
  and warm-up are not counted);
- rollout trials per second (chunks of 36 truncated trials), after one
  untimed chunk per worker;

and the ratio two workers / one. Then the scheduler's overhead per task:
the wall time per task of many empty tasks through the same cluster.
Needs `jacquetd[cluster]`.
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

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from jacquetd_clients.league import League, LeagueOptions, parse_league  # noqa: E402

from jacquetd.bots import rollouts  # noqa: E402
from jacquetd.rules import Position  # noqa: E402

DAEMON = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"]


def league_rate(workers: int, games: int, folder: Path, a: str, b: str) -> float:
    config = parse_league({
        "name": f"bench-cluster-{workers}", "variant": "jacquet", "games": games,
        "time_ms": 50, "seed": 11, "daemon": {"command": DAEMON},
        "engines": [{"name": f"{a}-a", "level": a}, {"name": f"{b}-b", "level": b}],
    }, str(REPO))
    stamps: list[float] = []
    options = LeagueOptions(results=folder / f"league-{workers}.jsonl", progress=False,
                            luck=False, local_cluster=workers,
                            on_match=lambda _entry: stamps.append(time.perf_counter()))
    asyncio.run(League(config, options).run())
    skip = 2 * workers  # every worker's first pair (two matches) carries its start-up
    return (len(stamps) - skip) / (stamps[-1] - stamps[skip - 1])


def rollout_and_overhead(workers: int, trials: int) -> tuple[float, float]:
    from distributed import Client, LocalCluster

    pos = Position.initial("backgammon", cube=False)
    spec = rollouts.plan(pos, trials=trials, seed=3, truncate=6)
    warm = rollouts.plan(pos, trials=36 * workers, seed=4, truncate=6)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, host="127.0.0.1") as cluster, \
            Client(cluster) as client:
        client.gather(client.map(rollouts.run_chunk, [warm] * warm.chunks,
                                 range(warm.chunks), pure=False))
        started = time.perf_counter()
        client.gather(client.map(rollouts.run_chunk, [spec] * spec.chunks,
                                 range(spec.chunks), pure=False))
        rate = spec.trials / (time.perf_counter() - started)
        n = 500
        client.gather(client.map(_noop, range(50), pure=False))
        started = time.perf_counter()
        client.gather(client.map(_noop, range(n), pure=False))
        per_task_ms = (time.perf_counter() - started) / n * 1e3
    return rate, per_task_ms


def _noop(x: int) -> int:
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60, help="league games per run")
    parser.add_argument("--trials", type=int, default=36 * 12, help="rollout trials per run")
    parser.add_argument("--a", default="heuristic")
    parser.add_argument("--b", default="neural")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; league "
          f"{args.a} vs {args.b} (jacquet, luck off, {args.games} games); rollout of the "
          f"backgammon opening ({args.trials} trials truncated at 6 turns)")
    rows: dict[int, tuple[float, float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            games = league_rate(workers, args.games, Path(tmp), args.a, args.b)
            trials, overhead = rollout_and_overhead(workers, args.trials)
            rows[workers] = (games, trials, overhead)
            print(f"{workers} worker(s): league {games:.2f} games/s, rollout {trials:.1f} "
                  f"trials/s, scheduler {overhead:.2f} ms per empty task")
    g1, t1, _ = rows[1]
    g2, t2, _ = rows[2]
    print(f"two workers / one: league {g2 / g1:.2f}x, rollout {t2 / t1:.2f}x")


if __name__ == "__main__":
    main()
    sys.exit(0)
