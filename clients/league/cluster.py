"""Leagues across machines on Dask distributed (the optional extra `jacquetd[cluster]`).

What runs where:

- the league process (`jacquet-league run ... --scheduler tcp://HOST:PORT`, or
  `--local-cluster N`) keeps the schedule, the journal (fsynced, `--resume`
  exact), the standings and the report; it submits one task per pair of
  games (a dice stream with the seats swapped) and writes each result as it
  comes back;
- each Dask worker process runs `run_pair`: it keeps, across tasks, its own
  validating daemon (`jacquetd stdio`, one worker process) and one process per
  external engine, started on first use on the worker's machine and started
  again after a crash; a task plays its pair with `units.play_unit`, exactly
  as the league process would, so the entries do not depend on the worker.

A worker that dies with a task loses it: the scheduler gives the task to
another worker. The league counts every match once, keyed by its job id (and
so by the pair id): a late duplicate is dropped. Standings are computed from
the journal in schedule order, so a cluster run's standings equal those of a
single-machine run with the same seed, to the last digit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable
from typing import Any

from ..errors import EngineError
from ..spawning import default_engine_command, spawn_engine
from .config import LeagueConfig, LeagueConfigError
from .schedule import Job
from .units import Seats, play_unit

log = logging.getLogger(__name__)

DAEMON_TIMEOUT_S = 120.0   # a fresh daemon's first `hello` may wait for its compilation
# Engine sets (a daemon and the external engines of one league) a worker keeps alive; a
# long-lived cluster that runs league after league closes the least recently used one.
KEPT_LEAGUES = 2
IN_FLIGHT_PER_THREAD = 2   # tasks submitted ahead per worker thread of the cluster


class _WorkerHost:
    """The engines of one Dask worker process, alive across tasks, on their own event
    loop thread (Dask runs tasks in threads of its own)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="league-engines")
        self.thread.start()
        self.seats: dict[str, Seats] = {}
        self.lock = threading.Lock()

    async def _seats(self, config: LeagueConfig, luck: bool, move_timeout: float) -> Seats:
        key = f"{config.fingerprint()}:{luck}"
        seats = self.seats.pop(key, None)
        if seats is not None and not seats.daemon.closed:
            self.seats[key] = seats  # the most recently used, last
            return seats
        if seats is not None:  # the daemon died: its players go with it
            await seats.close_players()
        while len(self.seats) >= KEPT_LEAGUES:  # the least recently used league's engines
            old = self.seats.pop(next(iter(self.seats)))
            await old.close_players()
            with contextlib.suppress(EngineError):
                await old.daemon.close()
        # the worker's daemon serves one task at a time: one worker process is enough
        command = list(config.daemon_command) or default_engine_command("--workers", "1")
        daemon = await spawn_engine(command, timeout=DAEMON_TIMEOUT_S,
                                    start_timeout=DAEMON_TIMEOUT_S,
                                    stderr=asyncio.subprocess.DEVNULL)
        seats = Seats.of_league(config, daemon, luck=luck, move_timeout=move_timeout)
        self.seats[key] = seats
        return seats

    async def _play(self, config: LeagueConfig, jobs: list[Job], server_loop: bool,
                    luck: bool, move_timeout: float) -> dict[str, Any]:
        seats = await self._seats(config, luck, move_timeout)
        faults = 0

        def fault() -> None:
            nonlocal faults
            faults += 1

        try:
            result = await play_unit(config, jobs, seats, server_loop=server_loop,
                                     on_fault=fault)
        except EngineError:
            # the worker's daemon failed: start a new one for the next task, and let
            # the scheduler run this one again
            with contextlib.suppress(EngineError):
                await seats.daemon.close()
            raise
        return {"pair": result.pair, "entries": result.entries, "events": result.events,
                "faults": faults}

    def play(self, config: LeagueConfig, jobs: list[Job], server_loop: bool, luck: bool,
             move_timeout: float) -> dict[str, Any]:
        with self.lock:  # one pair at a time per process: the engines are not shared
            future = asyncio.run_coroutine_threadsafe(
                self._play(config, jobs, server_loop, luck, move_timeout), self.loop)
            return future.result()


_host: _WorkerHost | None = None
_host_lock = threading.Lock()


def run_pair(config: LeagueConfig, jobs: list[Job], server_loop: bool, luck: bool,
             move_timeout: float) -> dict[str, Any]:
    """The Dask task: play one pair on this worker; its entries, events and fault count."""
    global _host
    with _host_lock:
        if _host is None:
            _host = _WorkerHost()
        host = _host
    return host.play(config, jobs, server_loop, luck, move_timeout)


#: Dask settings of a local cluster: its scheduler's and workers' HTTP servers (which
#: Dask starts even without a dashboard) serve no route at all.
CLOSED_HTTP: dict[str, list[str]] = {"distributed.scheduler.http.routes": [],
                                     "distributed.worker.http.routes": []}


def local_cluster_options(workers: int) -> dict[str, Any]:
    """How `--local-cluster N` starts its cluster: closed to everyone but this league.

    - loopback only, and no dashboard (the scheduler's nor the workers'): Dask's HTTP
      server listens on a free loopback port and serves no route (`CLOSED_HTTP`);
    - mutual TLS with a certificate made for this run (`Security.temporary()`, kept in
      memory and handed to the workers it starts): a `Client` without it, even another
      user's on this machine, is refused at the handshake, so no one else can submit
      work that would run as the league's user."""
    from distributed.security import Security

    return dict(n_workers=workers, threads_per_worker=1, processes=True, asynchronous=True,
                host="127.0.0.1", protocol="tls://", security=Security.temporary(),
                dashboard_address="127.0.0.1:0", worker_dashboard_address=None,
                scheduler_kwargs={"dashboard": False},
                env={"DASK_DISTRIBUTED__WORKER__HTTP__ROUTES": "[]"})


async def _client(scheduler: str | None, local_workers: int | None) -> tuple[Any, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise LeagueConfigError("a league on a cluster needs Dask distributed: "
                                "pip install 'jacquetd[cluster]'") from None
    if local_workers:
        import dask

        with dask.config.set(CLOSED_HTTP):  # the scheduler runs here: read at its start
            cluster = await LocalCluster(**local_cluster_options(local_workers))
        return await Client(cluster, asynchronous=True), cluster
    return await Client(scheduler, asynchronous=True, timeout=30), None


async def run_on_cluster(config: LeagueConfig, units: list[list[Job]],
                         take: Callable[[dict[str, Any]], bool], *, server_loop: bool,
                         luck: bool, move_timeout: float, scheduler: str | None,
                         local_workers: int | None) -> None:
    """Play `units` on the cluster. Each task's outcome (`run_pair`'s) is handed to `take`
    as it comes back (the league journals it); no more is submitted once `take` answers
    False (an SPRT decision), and what is still on the cluster is cancelled."""
    from distributed import as_completed

    client, cluster = await _client(scheduler, local_workers)
    run = secrets.token_hex(4)
    try:
        threads = sum((await client.nthreads()).values())
        window = max(4, IN_FLIGHT_PER_THREAD * max(1, threads))
        todo = list(reversed(units))

        def submit() -> Any:
            unit = todo.pop()
            return client.submit(run_pair, config, unit, server_loop, luck, move_timeout,
                                 pure=False, key=f"league-{run}-{unit[0].pair}")

        flight = as_completed([submit() for _ in range(min(window, len(todo)))],
                              with_results=False)
        async for future in flight:
            outcome: dict[str, Any] = await future
            future.release()
            if not take(outcome):
                break
            if todo:
                flight.add(submit())
        left = list(getattr(flight, "futures", ()))
        if left:
            await client.cancel(left)
    finally:
        await client.close()
        if cluster is not None:
            await cluster.close()
