"""A league on a real Dask cluster (a scheduler and two workers on loopback), one worker
killed with SIGKILL in the middle: the league finishes, every match is counted once, and
the journal and standings equal a single-machine run with the same seed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from jacquetd_clients.league import League, LeagueOptions, parse_league
from jacquetd_clients.league.standings import format_table

DAEMON = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"]
GAMES = 40


def config(games: int = GAMES) -> Any:
    return parse_league({
        "name": "cluster", "variant": "jacquet", "games": games, "time_ms": 50, "seed": 41,
        "daemon": {"command": DAEMON},
        "engines": [{"name": "rand", "level": "random"}, {"name": "heur", "level": "heuristic"}],
    }, ".")


def run(path: Path, **options: Any) -> Any:
    opts = LeagueOptions(results=path, progress=False, luck=False, **options)
    return asyncio.run(League(config(), opts).run())


def comparable(matches: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The journal's matches by job, without the wall time."""
    out = {m["job"]: {k: v for k, v in m.items() if k != "elapsed_s"} for m in matches}
    assert len(out) == len(matches), "a match was counted twice"
    return out


@pytest.mark.slow
def test_a_league_survives_a_killed_worker_and_equals_a_single_machine_run(
        tmp_path: Path, dask_cluster: Any) -> None:
    cluster = dask_cluster(2)
    killed: list[int] = []

    def on_match(entry: dict[str, Any]) -> None:
        if len(killed) == 0 and entry:
            seen.append(entry["job"])
            if len(seen) == 4:  # mid-league: the workers hold tasks now
                killed.append(cluster.kill_worker(0))

    seen: list[str] = []
    distributed = run(tmp_path / "cluster.jsonl", scheduler=cluster.address,
                      on_match=on_match)
    assert killed == [-9], "the worker was not killed mid-league"
    assert distributed.finished
    single = run(tmp_path / "single.jsonl", concurrency=1)
    assert distributed.standings.games == single.standings.games == GAMES
    assert comparable(distributed.matches) == comparable(single.matches)
    assert format_table(distributed.standings) == format_table(single.standings)
    # the journal on disk holds each match once
    lines = (tmp_path / "cluster.jsonl").read_text().splitlines()
    jobs = [line for line in lines if '"type":"match"' in line]
    assert len(jobs) == GAMES


def test_a_worker_keeps_the_engines_of_its_two_latest_leagues(tmp_path: Path) -> None:
    """A long-lived worker that runs league after league keeps the engines of the
    KEPT_LEAGUES most recently used ones and closes the others (in-process: the worker's
    engine host, with real daemons)."""
    import asyncio

    from jacquetd_clients.league import cluster, load_league

    from tests.clients.test_league import write_league

    host = cluster._WorkerHost()
    configs = [load_league(write_league(tmp_path / f"l{seed}.toml",
                                        [{"name": "r", "level": "random"},
                                         {"name": "s", "level": "random"}], seed=seed))
               for seed in (1, 2, 3)]

    def seats(i: int) -> object:
        return asyncio.run_coroutine_threadsafe(host._seats(configs[i], False, 30.0),
                                                host.loop).result(120)

    first = seats(0)
    second: Any = seats(1)
    assert seats(0) is first  # used again: now the most recent
    seats(2)  # a third league: the least recently used (the second) is closed
    assert len(host.seats) == cluster.KEPT_LEAGUES
    assert first in host.seats.values() and second not in host.seats.values()
    assert second.daemon.closed
    for one in list(host.seats.values()):
        asyncio.run_coroutine_threadsafe(one.daemon.close(), host.loop).result(30)
    host.loop.call_soon_threadsafe(host.loop.stop)


@pytest.mark.slow
def test_a_long_nardy_league_with_its_network_on_the_cluster(tmp_path: Path,
                                                             dask_cluster: Any) -> None:
    """Long Nardy's `neural` level against `heuristic`, luck judged by its network, on a
    real cluster: the same journal and standings as on one machine."""
    cluster = dask_cluster(1)
    league = parse_league({
        "name": "nardy", "variant": "long-nardy", "games": 4, "time_ms": 50, "seed": 43,
        "daemon": {"command": DAEMON},
        "engines": [{"name": "net", "level": "neural"}, {"name": "heur", "level": "heuristic"}],
    }, ".")

    def run_one(path: Path, **options: Any) -> Any:
        opts = LeagueOptions(results=path, progress=False, luck=True, **options)
        return asyncio.run(League(league, opts).run())

    distributed = run_one(tmp_path / "cluster.jsonl", scheduler=cluster.address)
    single = run_one(tmp_path / "single.jsonl", concurrency=1)
    assert distributed.finished and distributed.standings.games == 4
    assert comparable(distributed.matches) == comparable(single.matches)
    assert format_table(distributed.standings) == format_table(single.standings)
    games = [g for m in distributed.matches for g in m["games"]]
    assert games and all(g["luck"] is not None for g in games), games[0]
