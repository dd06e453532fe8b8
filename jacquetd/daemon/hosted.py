"""Hosted matches in the daemon: the match service over its SQLite store, its bot seats
played by the worker pool, and the worker side of those bot decisions.

The front process keeps the `jacquetd.matches.AsyncMatchService` (every `match_*`
command is a quick state change and one SQLite transaction); a bot seat's decision
is shipped to a worker process as a `match_bot` job, with the seat's time limit as
its deadline, so a runaway bot is stopped (and, past the pool's grace, killed) like
any other request.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from jacquetd.bots.interface import ENGINE
from jacquetd.daemon.config import Config, ConfigError, database_path
from jacquetd.daemon.engine_commands import MATCH_BOT
from jacquetd.daemon.job_checks import HEAVY_PLIES
from jacquetd.daemon.jobs import Failed
from jacquetd.daemon.workers import PoolBusy, PoolClosed, WorkerPool
from jacquetd.matches import (
    AsyncMatchService,
    MatchLimits,
    MatchService,
    MatchStore,
    StoreError,
    default_db_path,
)
from jacquetd.matches.aio import RunBlocking
from jacquetd.matches.service import BotJob
from jacquetd.matches.store import Retention, StoreInUse, prune

log = logging.getLogger(__name__)

BOT_GRACE_S = 2.0
BOT_HEAVY_S = 1.0  # a bot seat of a level the engine does not know (a test's) allowed
# more than this per decision is heavy work; a known level is weighed by its depth


def private_folder(folder: Path, *, tighten: bool) -> None:
    """Create `folder` (and its parents) with mode 0700; `tighten`: also make an existing
    one private (the default data folder, which earlier versions created 0755)."""
    missing = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for f in reversed(missing):
        f.mkdir(mode=0o700, exist_ok=True)
        os.chmod(f, 0o700)  # whatever the umask
    if tighten and folder.is_dir():
        os.chmod(folder, 0o700)


def pool_runner(pool: WorkerPool, grace_s: float = BOT_GRACE_S) -> RunBlocking:
    """A `run_blocking` for AsyncMatchService that runs a bot's decision in a worker."""

    async def run(job: BotJob, call: Callable[[], str]) -> str:
        deadline = time.monotonic() + job.time_s + grace_s
        try:
            job_id, future = pool.submit(MATCH_BOT, {"call": call}, deadline=deadline,
                                         heavy=bot_is_heavy(job),
                                         owner=f"match:{job.match_id}")
        except (PoolBusy, PoolClosed) as exc:
            raise RuntimeError(f"no worker for a bot seat: {exc}") from None
        try:
            outcome = await asyncio.shield(future)
        except asyncio.CancelledError:
            pool.abandon(job_id)  # out of time: the pool stops (or kills) the worker
            raise
        if isinstance(outcome, Failed):
            raise RuntimeError(f"bot decision failed: {outcome.code}: {outcome.message}")
        return str(outcome.result["answer"])

    return run


def bot_is_heavy(job: BotJob) -> bool:
    """Whether a bot seat's decision may hold its worker long: a level that searches
    `HEAVY_PLIES` deep or more, as a `best_move` with that many `plies` (a seat's time
    allowance is an upper bound, which a shallower level never comes near)."""
    depth = ENGINE.depth(job.level)
    if depth is None:
        return job.time_s > BOT_HEAVY_S
    return depth >= HEAVY_PLIES


class HostedMatches(AsyncMatchService):
    """The daemon's hosted matches: the match service and the task that prunes its
    store, which lives as long as they do."""

    pruner: asyncio.Task[None] | None = None

    async def aclose(self) -> None:
        if self.pruner is not None:
            self.pruner.cancel()
            self.pruner = None
        await super().aclose()


async def open_matches(cfg: Config, pool: WorkerPool) -> AsyncMatchService | None:
    """Open the match database and start the bot seats of the matches in play."""
    path = database_path(cfg)
    if path is None:
        return None
    try:
        private_folder(path.parent, tighten=path == default_db_path())
        store = MatchStore(path, synchronous="FULL")
    except StoreInUse as exc:
        raise ConfigError(str(exc)) from None
    except (OSError, StoreError) as exc:
        raise ConfigError(f"cannot open the match database {path}: {exc}") from None
    limits = MatchLimits(max_open=cfg.max_matches, idle_timeout_s=cfg.match_idle_timeout_s)
    service = MatchService(store, limits=limits)
    housekeeping = max(1.0, min(60.0, cfg.match_idle_timeout_s / 4))
    matches = HostedMatches(service, run_blocking=pool_runner(pool),
                            housekeeping_s=housekeeping, bot_grace_s=BOT_GRACE_S + 1.0)
    await matches.start()
    log.info("event=matches_open db=%s playing=%d", path, len(service.playing()))
    policy = retention(cfg)
    prune_now(store, policy)
    matches.pruner = asyncio.create_task(_prune_every(store, policy), name="prune")
    return matches


PRUNE_EVERY_S = 6 * 3600.0


def retention(cfg: Config) -> Retention:
    return Retention(cfg.keep_days, cfg.keep_matches, cfg.keep_replies_days)


def prune_now(store: MatchStore, policy: Retention) -> None:
    try:
        counts = prune(store, policy, time.time())
    except StoreError:
        log.exception("event=prune_failed")
        return
    if counts["matches"] or counts["replies"]:
        log.info("event=pruned matches=%d replies=%d", counts["matches"], counts["replies"])


async def _prune_every(store: MatchStore, policy: Retention) -> None:
    while True:
        await asyncio.sleep(PRUNE_EVERY_S)
        prune_now(store, policy)


async def stop_bots(matches: AsyncMatchService | None) -> None:
    """Shutdown: the bot seats stop now (a decision running in a worker is abandoned and
    nothing more is stored for them); the matches stay in play, and their bots resume
    when the daemon starts again."""
    if matches is not None:
        # the flag first: a driver whose cancel is lost (asyncio.wait_for in Python 3.11
        # swallows a cancel that meets a finished decision) still stops at its next turn
        matches.service.stop_bots()
        await matches.aclose()


async def close_matches(matches: AsyncMatchService | None) -> None:
    if matches is None:
        return
    await matches.aclose()  # the pruner of HostedMatches too
    matches.service.close()
