"""Running a league: the daemon, the players, the jobs in parallel, the journal.

`League.run()` connects to the daemon (or spawns `jacquetd stdio`), opens the
journal (resuming it if asked), and lets `concurrency` workers take the jobs
not yet in the journal. Each worker has its own players (one process per
external engine per worker), so games in parallel never share a process.
Each finished match is written to the journal at once; an engine fault is
logged there too and the faulty engine restarted before its next game. In
SPRT mode the league stops as soon as the test decides. At the end (and when
interrupted) the standings, the HTML report and the match records are written.

A match entry of the journal:

    {"type": "match", "job": "a~b#3:1", "pair": "a~b#3", "seed": 123, "players": ["b", "a"],
     "score": [1, 0], "winner": 0, "elapsed_s": 0.8, "record": "<RECORDS.md text>",
     "games": [{"winner": 0, "points": 1, "result": 1, "reason": "bear-off", "name": "single",
                "moves": 61, "cube": 1, "fault": null, "fault_message": null,
                "luck": [0.12, -0.3] or null}]}
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacquetd_protocol.mat import MatchFileError, format_mat, parse_mat, turns
from jacquetd_protocol.records import RecordError, parse_record

from ..client import JacquetClient
from ..errors import EngineError
from ..spawning import spawn_engine
from .config import LeagueConfig, LeagueConfigError
from .journal import Journal
from .progress import Progress
from .ratings import Sprt
from .report import render
from .schedule import Job, schedule
from .standings import Standings, compute
from .units import Seats, UnitResult, play_unit

log = logging.getLogger(__name__)

DAEMON_TIMEOUT_S = 30.0
WARM_UP_TIMEOUT_S = 120.0
WARM_UP_CALLS = 2


@dataclass
class LeagueOptions:
    results: Path
    report: Path | None = None
    records_dir: Path | None = None
    resume: bool = False
    concurrency: int | None = None
    connect: str | None = None
    progress: bool = True
    log_dir: Path | None = None
    move_timeout: float | None = None   # seconds; default: 3 x time_ms + 5 s
    # judge every roll's luck (when the daemon can, and the league file's `luck` is true);
    # False (`--no-luck`): results only
    luck: bool = True
    server_loop: bool = True            # games between daemon levels by `bot_match`
    scheduler: str | None = None        # a Dask scheduler: the pairs go to its workers
    local_cluster: int | None = None    # or a Dask cluster of N local worker processes
    on_match: Callable[[dict[str, Any]], None] | None = None
    # An engine already started (the demo starts it to learn its levels) and a progress
    # line already shown; else the league starts its own.
    client: JacquetClient | None = None
    progress_line: Progress | None = None


@dataclass
class LeagueResult:
    standings: Standings
    matches: list[dict[str, Any]]
    finished: bool
    stopped_by_sprt: bool = False
    elapsed_s: float = 0.0
    faults: int = 0
    warm_up_s: float = 0.0
    report: Path | None = None
    notes: list[str] = field(default_factory=list)
    luck_judged: bool = True


def pair_units(jobs: list[Job]) -> list[list[Job]]:
    """The jobs grouped by pair (a dice stream with the seats swapped), in playing order."""
    units: dict[str, list[Job]] = {}
    for job in jobs:
        units.setdefault(job.pair, []).append(job)
    return list(units.values())


class League:
    def __init__(self, config: LeagueConfig, options: LeagueOptions) -> None:
        self.config = config
        self.options = options
        self.concurrency = options.concurrency or config.concurrency
        self.sprt = (Sprt(config.sprt.elo0, config.sprt.elo1, config.sprt.alpha,
                          config.sprt.beta) if config.sprt else None)
        self.names = [e.name for e in config.engines]
        self.move_timeout = options.move_timeout or (3 * config.time_ms / 1000.0 + 5.0)
        self._stop = asyncio.Event()
        self.stopped_by_sprt = False
        self.fault_count = 0
        self._order = {job.id: i for i, job in enumerate(schedule(config))}
        self.scheduler = options.scheduler or config.cluster_scheduler
        # luck is judged unless the league file (`luck = false`) or the caller says not
        self.luck = options.luck and config.luck

    def _standings(self, journal: Journal) -> Standings:
        """Standings of the journal's matches taken in schedule order: the same figures to
        the last digit however the matches were shared out and whenever they finished."""
        sprt = (self.sprt, self.config.sprt.a, self.config.sprt.b) if (
            self.sprt is not None and self.config.sprt is not None) else None
        order = self._order
        matches = sorted(journal.matches(), key=lambda m: order.get(m["job"], len(order)))
        return compute(self.names, matches, sprt)

    async def _daemon(self) -> JacquetClient:
        """The rules server, started or reached, once it said it plays the league's variant."""
        target = self.options.connect or self.config.daemon_connect
        if target:
            client = await JacquetClient.open(target, timeout=DAEMON_TIMEOUT_S)
        else:
            stderr = None
            if self.options.log_dir is not None:
                stderr = open(self.options.log_dir / "daemon.stderr.log", "ab")  # noqa: SIM115
            client = await spawn_engine(self.config.daemon_command or None,
                                        timeout=DAEMON_TIMEOUT_S, stderr=stderr,
                                        cwd=self.config.base_dir)
        plays = client.server.get("variants", [])
        if self.config.variant not in plays:
            await client.close()
            raise LeagueConfigError(f"variant: the daemon plays {', '.join(plays)} (got "
                                    f"{self.config.variant!r})")
        return client

    async def run(self) -> LeagueResult:
        started = time.monotonic()
        header = {"league": self.config.name, "fingerprint": self.config.fingerprint(),
                  "engines": self.names}
        journal = Journal(self.options.results, header, resume=self.options.resume)
        if self.options.log_dir is not None:
            self.options.log_dir.mkdir(parents=True, exist_ok=True)
        jobs = schedule(self.config)
        done = journal.done_jobs()
        self._recorded = set(done)
        pending = [j for j in jobs if j.id not in done]
        progress = self.options.progress_line or Progress(len(jobs),
                                                          enabled=self.options.progress)
        progress.total, progress.done = max(len(jobs), 1), len(jobs) - len(pending)
        progress.start_done = progress.done
        progress.tick_every()
        if self.sprt is not None and self._standings(journal).sprt["decision"]:  # type: ignore[index]
            pending = []
            self.stopped_by_sprt = True
        units = pair_units(pending)
        if self.scheduler or self.options.local_cluster:
            from .cluster import run_on_cluster  # distributed is an optional extra

            notes: list[str] = []
            warm_up_s = 0.0
            progress.show(force=True)
            try:
                def take(outcome: dict[str, Any]) -> bool:
                    self.fault_count += int(outcome["faults"])
                    for event in outcome["events"]:
                        journal.append(event)
                    for entry in outcome["entries"]:
                        self.record(entry, journal, progress)
                    return not self._stop.is_set()  # an SPRT decision stops the league

                await run_on_cluster(self.config, units, take,
                                     server_loop=self.options.server_loop, luck=self.luck,
                                     move_timeout=self.move_timeout, scheduler=self.scheduler,
                                     local_workers=self.options.local_cluster)
            finally:
                progress.close()
        else:
            notes, warm_up_s = await self._run_here(units, journal, progress)
        standings = self._standings(journal)
        finished = self.stopped_by_sprt or journal.done_jobs() >= {j.id for j in jobs}
        result = LeagueResult(standings, journal.matches(), finished, self.stopped_by_sprt,
                              time.monotonic() - started, self.fault_count, notes=notes,
                              warm_up_s=warm_up_s, luck_judged=self.luck)
        journal.close()
        self.write_outputs(result)
        return result

    async def _run_here(self, units: list[list[Job]], journal: Journal, progress: Progress
                        ) -> tuple[list[str], float]:
        """Play the units here: `concurrency` at once against one daemon."""
        if self.options.client is not None:
            daemon = self.options.client
        else:
            command = " ".join(self.config.daemon_command) or "python -m jacquetd stdio"
            progress.set_phase(f"starting the engine ({command})"
                               if self.options.connect is None
                               and self.config.daemon_connect is None
                               else "connecting to the engine")
            try:
                daemon = await self._daemon()
            except BaseException:
                progress.close()
                raise
        notes = []
        if not self.luck:
            notes.append("luck not judged (luck = false, or --no-luck): raw results only")
        elif not daemon.supports("luck"):
            notes.append("luck-adjusted results unavailable: the daemon has no `luck` command")
        warm_started = time.monotonic()
        if units:
            progress.set_phase("warming up the bots (their first search loads their tables)")
            await self._warm_up(daemon)
        warm_up_s = time.monotonic() - warm_started
        queue: asyncio.Queue[list[Job]] = asyncio.Queue()
        for unit in units:
            queue.put_nowait(unit)
        progress.playing()
        workers = [asyncio.ensure_future(self._worker(i, queue, daemon, journal, progress))
                   for i in range(self.concurrency)]
        try:
            stopper: asyncio.Future[Any] = asyncio.ensure_future(self._stop.wait())
            everyone: asyncio.Future[Any] = asyncio.gather(*workers)
            await asyncio.wait([stopper, everyone], return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if everyone.done():
                everyone.result()  # a worker's unexpected failure ends the league here
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            progress.close()
            with contextlib.suppress(EngineError):
                await daemon.close()
        return notes, warm_up_s

    async def _warm_up(self, daemon: JacquetClient) -> None:
        """One untimed `best_move` per daemon level and worker before the clock starts: a
        bot's first search in a worker process loads its tables, which may take longer
        than a move is allowed."""
        specs = [e for e in self.config.engines if e.kind == "level"]
        # the opening, and a race in both home boards (bear-off tables)
        home = [0, 3, 3, 3, 3, 3] + [0] * 20
        positions: list[Any] = [f"start:{self.config.variant}",
                                {"variant": self.config.variant, "on_roll": home,
                                 "opponent": home, "dice": [], "primed": [False, False]}]
        calls = [daemon.best_move(position, dice=(2, 1), level=e.level, plies=e.plies,
                                  timeout=WARM_UP_TIMEOUT_S)
                 for e in specs for position in positions
                 for _ in range(max(WARM_UP_CALLS, self.concurrency))]
        for outcome in await asyncio.gather(*calls, return_exceptions=True):
            if isinstance(outcome, EngineError):
                log.warning("warm-up: %s", outcome)

    def write_outputs(self, result: LeagueResult) -> None:
        """The HTML report and one record file per match."""
        if self.options.report is not None:
            self.options.report.parent.mkdir(parents=True, exist_ok=True)
            self.options.report.write_text(render(self.config, result.standings,
                                                  result.matches, finished=result.finished,
                                                  elapsed_s=result.elapsed_s,
                                                  luck_judged=self.luck),
                                           encoding="utf-8")
            result.report = self.options.report
        if self.options.records_dir is not None:
            self.options.records_dir.mkdir(parents=True, exist_ok=True)
            for m in result.matches:
                name = m["job"].replace("~", "-vs-").replace("#", "-").replace(":", "-")
                (self.options.records_dir / f"{name}.txt").write_text(m["record"],
                                                                      encoding="utf-8")
                if self.config.variant == "backgammon":
                    write_mat(self.options.records_dir / f"{name}.mat", m["record"])

    async def _worker(self, slot: int, queue: asyncio.Queue[list[Job]],
                      daemon: JacquetClient, journal: Journal, progress: Progress) -> None:
        seats = Seats.of_league(self.config, daemon, luck=self.luck,
                                move_timeout=self.move_timeout, log_dir=self.options.log_dir)
        written = 0

        def fault() -> None:
            self.fault_count += 1

        try:
            while not self._stop.is_set():
                try:
                    unit = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                result = UnitResult(unit[0].pair)
                written = 0

                async def take(entry: dict[str, Any], result: UnitResult = result) -> bool:
                    nonlocal written
                    if self._stop.is_set():
                        return False  # an SPRT decision came meanwhile: not counted
                    for event in result.events[written:]:
                        journal.append(event)
                    written = len(result.events)
                    self.record(entry, journal, progress)
                    return not self._stop.is_set()

                await play_unit(self.config, unit, seats, server_loop=self.options.server_loop,
                                on_fault=fault, on_entry=take, result=result)
                for event in result.events[written:]:
                    journal.append(event)
        finally:
            await seats.close_players()

    def record(self, entry: dict[str, Any], journal: Journal, progress: Progress) -> None:
        """One finished match: into the journal (once: a pair run twice on a cluster is
        counted once), the progress line, the SPRT."""
        if entry["job"] in self._recorded:
            return
        self._recorded.add(entry["job"])
        journal.append(entry)
        if self.options.on_match is not None:
            self.options.on_match(entry)
        players = entry["players"]
        progress.advance(f"last: {players[0]} {entry['score'][0]}-{entry['score'][1]} "
                         f"{players[1]}")
        if self.sprt is not None:
            decision = self._standings(journal).sprt["decision"]  # type: ignore[index]
            if decision is not None:
                self.stopped_by_sprt = True
                self._stop.set()


def write_mat(path: Path, record_text: str) -> bool:
    """Write a backgammon match record as `.mat` (gnubg's layout) and read it back: the
    file is kept only when it tells the same games, turns and score as the record."""
    try:
        record = parse_record(record_text)
        text = format_mat(record)
        again = parse_mat(text)
    except (RecordError, MatchFileError) as exc:
        log.warning("no .mat for %s: %s", path.name, exc)
        return False
    if ([turns(g) for g in again.games] != [turns(g) for g in record.games]
            or again.score != record.score):
        log.warning("no .mat for %s: it does not read back as the same match", path.name)
        return False
    path.write_text(text, encoding="utf-8")
    return True
