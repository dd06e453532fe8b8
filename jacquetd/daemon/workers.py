"""The worker pool: the scheduling policy of the processes that run bot and analysis
commands.

The processes, their links, their deaths and restarts are :mod:`.process_pool`'s; each
worker also has a shared stop flag, and runs one job at a time. The front process
(asyncio) keeps a bounded queue of waiting jobs and hands one to each idle worker.

Faults are the pool's business:

* a worker that dies (killed, out of memory) fails the job it held with ``internal``
  and a new worker takes its place;
* a job that is abandoned (cancelled, or past its deadline) is told to stop
  through the shared flag; a worker still busy with it after
  ``cancel_grace_s`` is killed and replaced, so it cannot hold a slot forever.

Heavy work is shared between clients: at most ``heavy_slots`` heavy jobs run at once,
and a client may not hold more of them than another client that waits for one. A
*preemptible* job (heavy work without a deadline: a rollout's chunk) of a client that
runs more heavy jobs than a waiting client, once it has run ``SLICE_S`` since it
started or resumed, is paused (SIGSTOP: it keeps its work and its memory, not its
core) and the waiting job runs in its place, on an idle worker or on a spare started
for it (at most ``heavy_slots`` spares); the paused job resumes (SIGCONT) as soon as a
heavy slot is free, before any new heavy job starts. Two clients with long work of
this kind take turns of ``SLICE_S``.

Messages on a link are the typed values of :mod:`jacquetd.daemon.jobs`: front to
worker a ``Job`` or ``None`` (exit); worker to front ``READY`` once started, then for
each job ``Progress``, then ``Done`` or ``Failed``. A job's future ends with an
``Outcome`` (``Done | Failed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import signal
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jacquetd_protocol.errors import ErrorCode

from jacquetd.daemon import fault_hook
from jacquetd.daemon.fault_hook import FaultLevels
from jacquetd.daemon.jobs import Done, Failed, Job, Outcome, Progress
from jacquetd.daemon.process_pool import READY, Child, Link, ProcessPool
from jacquetd.search_settings import DEFAULT_SETTINGS, SearchSettings

log = logging.getLogger(__name__)

RSS_CHECK_S = 0.25  # how often the workers' memory is looked at
# A search told to answer with what it has (`stop`) gets this long, at least, counted from
# when its worker has started (`Ready`), before the worker is replaced.
STOP_GRACE_S = 5.0
SLICE_S = 0.25  # a preemptible job runs at least this long before it is paused
PartialSink = Callable[[dict[str, Any]], None]


class PoolBusy(RuntimeError):
    """The pool's queue is full."""


class PoolClosed(RuntimeError):
    """The pool is shutting down."""


@dataclass(eq=False)
class _Job:
    job_id: int
    cmd: str
    args: dict[str, Any]
    deadline: float | None
    seed: int | None
    future: asyncio.Future[Outcome]
    on_partial: PartialSink | None
    abandoned: bool = False
    stopping: bool = False  # told to answer now with what it has (`stop`)
    heavy: bool = False
    owner: str = ""  # the client it is for: waiting jobs are taken client by client
    preemptible: bool = False  # a heavy job the pool may pause for another client's


class _FairQueue:
    """Waiting jobs, one queue per client, served as a flow queue serves its flows
    (fq_codel): clients whose queue was empty ("new") first, in the order they came;
    then the clients with a backlog ("old"), round robin, one job per turn. A client
    with many jobs waiting delays another client's job by at most one job of its own
    per turn, and a client that asks one thing at a time waits for a worker, not
    behind the backlogs. New clients are served in arrival order: a client that keeps
    coming back new (a gnubg connection asks one decision at a time) cannot pass one
    that came before it."""

    def __init__(self) -> None:
        self._by_owner: dict[str, deque[_Job]] = {}
        self._new: deque[str] = deque()
        self._old: deque[str] = deque()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def append(self, job: _Job, *, first: bool = False) -> None:
        """Queue `job`; `first`: a job given back (its worker was dying) goes first."""
        queue = self._by_owner.get(job.owner)
        if queue is None:
            queue = self._by_owner[job.owner] = deque()
            (self._new.appendleft if first else self._new.append)(job.owner)
        (queue.appendleft if first else queue.append)(job)
        self._size += 1

    def _drop_owner(self, owner: str) -> None:
        del self._by_owner[owner]
        for turns in (self._new, self._old):
            if owner in turns:
                turns.remove(owner)
                return

    def remove(self, job: _Job) -> None:
        queue = self._by_owner.get(job.owner)
        if queue is not None and job in queue:
            queue.remove(job)
            self._size -= 1
            if not queue:
                self._drop_owner(job.owner)

    def pop_next(self, heavy_allowed: bool) -> _Job | None:
        for turns in (self._new, self._old):
            for _ in range(len(turns)):
                owner = turns[0]
                queue = self._by_owner[owner]
                job = next((j for j in queue if heavy_allowed or not j.heavy), None)
                if job is None:  # only heavy work while none may start: the next client
                    turns.rotate(-1)
                    continue
                turns.popleft()
                queue.remove(job)
                self._size -= 1
                if queue:
                    self._old.append(owner)  # its turn is used: to the back of the backlogs
                else:
                    del self._by_owner[owner]
                return job
        return None

    def heavy_owners(self) -> list[str]:
        """The clients with a heavy job waiting, in the order they would be served."""
        return [owner for turns in (self._new, self._old) for owner in turns
                if any(j.heavy for j in self._by_owner[owner])]

    def clear(self) -> None:
        self._by_owner.clear()
        self._new.clear()
        self._old.clear()
        self._size = 0


@dataclass(eq=False)
class _Worker(Child):
    stop_flag: Any = None  # a shared c_byte
    job: _Job | None = None
    kill_timer: asyncio.TimerHandle | None = None
    paused: float = 0.0  # time.monotonic() when it was paused (SIGSTOP); 0: not paused
    since: float = 0.0  # when its job started or last resumed
    spare: bool = False  # started beyond `size` for a paused job's place
    over_memory: int = 0  # MB it held when it was killed for holding too much


def _error(job: _Job, code: str, message: str, **extra: Any) -> Failed:
    return Failed(job.job_id, code, message, extra=extra)


class WorkerPool:
    def __init__(self, size: int, max_queue: int, *, cancel_grace_s: float = 0.5,
                 seed: int | None = None, log_level: int = logging.INFO,
                 on_restart: Callable[[str], None] | None = None, max_rss_mb: int = 0,
                 cheap_share_percent: int = 0,
                 search: SearchSettings = DEFAULT_SETTINGS) -> None:
        self.size = max(1, size)
        self.max_rss_mb = max_rss_mb  # 0: no memory cap
        # workers kept for cheap jobs: a share of the pool, at least one of two or more
        reserved = 0
        if self.size >= 2 and cheap_share_percent > 0:
            reserved = max(1, self.size * cheap_share_percent // 100)
        self.heavy_slots = max(1, self.size - reserved)
        self._rss_task: asyncio.Task[None] | None = None
        self.max_queue = max_queue
        self.cancel_grace_s = cancel_grace_s
        self.log_level = log_level
        self.faults = fault_hook.installed()  # a test's fault levels, for every worker
        self.search = search  # the move filter and pruning every worker searches with
        self._seed = seed
        self._on_restart = on_restart
        self._procs = ProcessPool("worker", worker_main, _Worker, self._on_message,
                                  self._on_death)
        self.max_spares = self.heavy_slots
        self._slice_timer: asyncio.TimerHandle | None = None
        self._queue = _FairQueue()
        self._jobs: dict[int, _Job] = {}
        self._ids = itertools.count(1)
        self._seeds = itertools.count(1)

    @property
    def _workers(self) -> list[_Worker | None]:
        return self._procs.children

    @property
    def _closing(self) -> bool:
        return self._procs.closing

    # ---- lifecycle -------------------------------------------------------

    def start(self) -> None:
        self._procs.start()
        for index in range(self.size):
            self._spawn(index)
        if self.max_rss_mb > 0:
            self._rss_task = self._require_loop().create_task(self._watch_memory(),
                                                              name="worker-rss")

    async def _watch_memory(self) -> None:
        """Kill a worker whose resident memory passes `max_rss_mb` (its request then gets
        `too_large`); cheaper and more reliable than an address-space limit, which the
        compiled code's reservations would hit first."""
        page_mb = os.sysconf("SC_PAGE_SIZE") / (1 << 20)
        while not self._closing:
            await asyncio.sleep(RSS_CHECK_S)
            for worker in self._workers:
                if worker is None or worker.dead or worker.job is None:
                    continue
                try:
                    with open(f"/proc/{worker.process.pid}/statm") as fh:
                        rss_mb = int(fh.read().split()[1]) * page_mb
                except (OSError, ValueError, IndexError):
                    continue
                if rss_mb > self.max_rss_mb:
                    worker.over_memory = int(rss_mb)
                    log.warning("event=worker_kill index=%d reason=memory rss_mb=%d cmd=%s",
                                worker.index, rss_mb, worker.job.cmd)
                    self._procs.kill(worker)

    def _spawn(self, index: int, spare: bool = False) -> None:
        stop_flag = self._procs.ctx.RawValue("b", 0)
        worker_seed = None if self._seed is None else self._seed * 1000 + next(self._seeds)
        self._procs.spawn(index, (stop_flag, index, worker_seed, self.log_level, self.faults,
                                  self.search), stop_flag=stop_flag, spare=spare)
        self._dispatch()

    def _require_loop(self) -> asyncio.AbstractEventLoop:
        if self._procs.loop is None:
            raise PoolClosed("pool not started")
        return self._procs.loop

    async def close(self, timeout: float = 2.0) -> None:
        """Stop every worker: ask politely, then kill after ``timeout``."""
        self._procs.closing = True
        if self._rss_task is not None:
            self._rss_task.cancel()
        for job in list(self._jobs.values()):
            self._finish(job, _error(job, ErrorCode.INTERNAL, "the daemon is shutting down"))
        self._queue.clear()
        for worker in self._workers:
            if worker is not None and worker.ready and not worker.dead:
                worker.stop_flag.value = 1  # a job still running stops at its next check
                self._resume(worker)
        await self._procs.drain(timeout)

    # ---- jobs ------------------------------------------------------------

    def submit(self, cmd: str, args: dict[str, Any], *, deadline: float | None,
               seed: int | None = None, on_partial: PartialSink | None = None,
               heavy: bool = False, owner: str = "", preemptible: bool = False
               ) -> tuple[int, asyncio.Future[Outcome]]:
        """Queue a job; returns its id and a future of its outcome. A `heavy` job runs only
        on the workers not kept for cheap jobs (`heavy_slots` at once).

        Raises :class:`PoolBusy` when ``max_queue`` jobs are already waiting.
        """
        if self._closing:
            raise PoolClosed("the daemon is shutting down")
        if len(self._queue) >= self.max_queue:
            raise PoolBusy(f"{len(self._queue)} requests already wait for a worker")
        loop = self._require_loop()
        job = _Job(next(self._ids), cmd, args, deadline, seed, loop.create_future(), on_partial,
                   heavy=heavy, owner=owner, preemptible=preemptible and deadline is None)
        self._jobs[job.job_id] = job
        self._queue.append(job)
        self._dispatch()
        return job.job_id, job.future

    def abandon(self, job_id: int) -> None:
        """The front no longer wants this job (cancelled or timed out)."""
        job = self._jobs.pop(job_id, None)
        if job is None:
            return
        job.abandoned = True
        if not job.future.done():
            job.future.cancel()
        self._queue.remove(job)
        for worker in self._workers:
            if worker is not None and worker.job is job and not worker.dead:
                worker.stop_flag.value = 1
                self._resume(worker)  # a paused job reads its stop flag once resumed
                if worker.kill_timer is None:
                    worker.kill_timer = self._require_loop().call_later(
                        self.cancel_grace_s, self._kill_overrun, worker, job
                    )

    def stop(self, job_id: int) -> bool:
        """Tell a job to answer now with what it has (a search's deepest finished result;
        a job still waiting runs with its stop flag set); False when the pool no longer
        has it. A worker that does not answer within ``STOP_GRACE_S`` of the stop (or of
        its `Ready`, when it was still starting) is replaced and the job fails (the front
        answers it `cancelled`)."""
        job = self._jobs.get(job_id)
        if job is None or job.abandoned:
            return False
        job.stopping = True  # a job still waiting starts stopped: its first depth only
        for worker in self._workers:
            if worker is not None and worker.job is job and not worker.dead:
                self._stop_worker(worker, job)
        return True

    def _stop_worker(self, worker: _Worker, job: _Job) -> None:
        worker.stop_flag.value = 1
        # the grace counts from when the worker can answer: one still loading is not
        # replaced for it (the timer starts on its Ready; a hung start meets the deadline)
        if worker.kill_timer is None and worker.ready:
            worker.kill_timer = self._require_loop().call_later(
                max(self.cancel_grace_s, STOP_GRACE_S), self._kill_overrun, worker, job)

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def busy(self) -> int:
        return sum(1 for w in self._workers if w is not None and w.job is not None)

    def pids(self) -> list[int]:
        return [w.process.pid or 0 for w in self._workers if w is not None and not w.dead]

    def _heavy_running(self) -> list[_Worker]:
        return [w for w in self._workers if w is not None and not w.dead and not w.paused
                and w.job is not None and w.job.heavy]

    def _next_job(self) -> _Job | None:
        """The next job that may start now, clients taken in turn: a heavy one only while
        fewer than `heavy_slots` heavy jobs run, so cheap jobs always find a worker."""
        return self._queue.pop_next(len(self._heavy_running()) < self.heavy_slots)

    def _dispatch(self) -> None:
        if self._closing:
            return
        # paused jobs first: a heavy slot that is free goes back to the oldest of them
        paused = sorted((w for w in self._workers if w is not None and w.paused and not w.dead),
                        key=lambda w: w.paused)
        for worker in paused:
            if len(self._heavy_running()) >= self.heavy_slots:
                break
            self._resume(worker)
        self._start_jobs()
        self._share()
        self._retire_spares()
        if self._slice_timer is None and any(w is not None and w.paused for w in self._workers):
            # a paused job's client waits: look again when the job in its place has had
            # its slice (two clients with long work take turns)
            self._slice_timer = self._require_loop().call_later(SLICE_S, self._on_slice)

    def _start_jobs(self) -> None:
        for worker in self._workers:
            if not self._queue:
                return
            if worker is None or worker.dead or worker.job is not None:
                continue
            job = self._next_job()
            if job is None:
                return
            worker.since = time.monotonic()
            worker.stop_flag.value = 0
            if not self._procs.send(worker, Job(job.job_id, job.cmd, job.args, job.deadline,
                                                job.seed)):
                self._queue.append(job, first=True)  # the worker is dying: the job goes to another
                continue
            worker.job = job
            if job.stopping:
                self._stop_worker(worker, job)

    # ---- shares of the heavy workers ----------------------------------------------------

    def _pause(self, worker: _Worker) -> None:
        with contextlib.suppress(OSError):
            os.kill(worker.process.pid or 0, signal.SIGSTOP)
        worker.paused = time.monotonic()
        log.debug("event=worker_paused index=%d owner=%s", worker.index,
                  worker.job.owner if worker.job else "-")

    def _resume(self, worker: _Worker) -> None:
        if not worker.paused:
            return
        worker.paused = 0.0
        worker.since = time.monotonic()
        with contextlib.suppress(OSError):
            os.kill(worker.process.pid or 0, signal.SIGCONT)

    def _share(self) -> None:
        """While a client waits for heavy work and every heavy slot is taken, pause a
        preemptible job of a client that runs more heavy jobs than the waiting one (once
        it has run SLICE_S): the waiting job (queued, or paused itself) takes its slot."""
        running = self._heavy_running()
        if len(running) < self.heavy_slots:
            return
        held: dict[str, int] = {}
        for w in running:
            assert w.job is not None
            held[w.job.owner] = held.get(w.job.owner, 0) + 1
        paused = sorted((w for w in self._workers if w is not None and w.paused and not w.dead
                         and w.job is not None), key=lambda w: w.paused)
        waiting: list[tuple[str, _Worker | None]] = [
            (w.job.owner, w) for w in paused if w.job is not None]
        waiting += [(owner, None) for owner in self._queue.heavy_owners()]
        if not waiting:
            return
        owner, paused_worker = min(waiting, key=lambda ow: held.get(ow[0], 0))
        now = time.monotonic()
        victims = [w for w in running if w.job is not None and w.job.preemptible
                   and w.job.owner != owner and held[w.job.owner] > held.get(owner, 0)]
        if not victims:
            return
        victim = max(victims, key=lambda w: (held[w.job.owner] if w.job else 0, -w.since))
        wait = victim.since + SLICE_S - now
        if wait > 0:
            if self._slice_timer is None:
                self._slice_timer = self._require_loop().call_later(wait, self._on_slice)
            return
        if paused_worker is not None:  # a swap: the paused job takes the victim's core
            self._pause(victim)
            self._resume(paused_worker)
            return
        idle = [w for w in self._workers if w is not None and not w.dead and w.job is None]
        if len(idle) <= self.size - self.heavy_slots:  # keep the cheap jobs' workers free
            spares = sum(1 for w in self._workers if w is not None and w.spare)
            starting = any(w.spare and not w.ready for w in idle)
            if spares < self.max_spares and not starting:
                self._spawn(len(self._workers), spare=True)
            return
        self._pause(victim)
        self._start_jobs()

    def _on_slice(self) -> None:
        self._slice_timer = None
        self._dispatch()

    def _retire_spares(self) -> None:
        """A spare that is idle while nothing is paused and no preemptible job runs goes
        (the pool is back to `size`); while one runs, the spare stays ready for the next
        client that waits."""
        if any(w is not None and not w.dead and (w.paused or (w.job is not None
                                                              and w.job.preemptible))
               for w in self._workers):
            return
        for worker in self._workers[self.size:]:
            if worker is not None and worker.spare and worker.job is None and worker.ready:
                self._procs.retire(worker)
        while len(self._workers) > self.size and self._workers[-1] is None:
            self._workers.pop()

    def _finish(self, job: _Job, outcome: Outcome) -> None:
        self._jobs.pop(job.job_id, None)
        if not job.future.done():
            job.future.set_result(outcome)

    # ---- events from workers ----------------------------------------------

    def _on_message(self, worker: _Worker, msg: object) -> None:
        if msg == READY:
            if worker.job is not None and worker.job.stopping:
                self._stop_worker(worker, worker.job)
            if worker.spare:
                self._dispatch()  # the spare started for a waiting client: it may take over
            return
        if not isinstance(msg, Progress | Done | Failed):
            log.error("event=worker_garbage index=%d", worker.index)
            return
        job = worker.job
        if job is None or job.job_id != msg.job_id:
            return  # a reply to something already settled
        if isinstance(msg, Progress):
            if not job.abandoned and job.on_partial is not None:
                job.on_partial(msg.payload)
            return
        worker.job = None
        if worker.kill_timer is not None:
            worker.kill_timer.cancel()
            worker.kill_timer = None
        if not job.abandoned:
            self._finish(job, msg)
        self._dispatch()

    def _on_death(self, worker: _Worker) -> None:
        worker.paused = 0.0
        job, worker.job = worker.job, None
        if worker.kill_timer is not None:
            worker.kill_timer.cancel()
            worker.kill_timer = None
        reason = ("recycled" if job is not None and (job.abandoned or job.stopping)
                  else "died")
        log.warning("event=worker_%s index=%d pid=%s exitcode=%s job=%s", reason, worker.index,
                    worker.process.pid, worker.process.exitcode,
                    job.cmd if job is not None else "-")
        if job is not None and not job.abandoned:
            if worker.over_memory:
                self._finish(job, _error(job, ErrorCode.TOO_LARGE, f"the request took more "
                                         f"memory ({worker.over_memory} MB) than a worker "
                                         f"may hold (limits.worker_max_rss_mb = "
                                         f"{self.max_rss_mb})", limit="worker_max_rss_mb"))
            else:
                self._finish(job, _error(job, ErrorCode.INTERNAL,
                                         "the worker running this request died"))
        if self._on_restart is not None:
            self._on_restart(reason)
        self._procs.restart(worker, self._spawn if worker.index < self.size
                            else self._drop_spare)

    def _drop_spare(self, index: int) -> None:
        """A dead spare's slot is not started again: a spare starts only when one is
        wanted."""
        self._workers[index] = None
        self._dispatch()

    def _kill_overrun(self, worker: _Worker, job: _Job) -> None:
        worker.kill_timer = None
        if worker.dead or worker.job is not job:
            return
        log.info("event=worker_kill index=%d reason=ignored_stop cmd=%s", worker.index, job.cmd)
        self._procs.kill(worker)


# ---- the worker process -------------------------------------------------------


def worker_main(link: Link, stop_flag: Any, index: int, seed: int | None, log_level: int,
                faults: FaultLevels | None = None,
                search: SearchSettings = DEFAULT_SETTINGS) -> None:
    """A worker process (started by :mod:`.process_pool`): run jobs until told to exit."""
    # the front's format (kv or json, from JACQUETD_WORKER_LOG_FORMAT), with worker=N on each line
    from jacquetd.logs import setup_logging

    setup_logging(log_level, worker=index)
    from jacquetd.daemon import handlers  # heavy imports happen here, not in the front
    from jacquetd.errors import to_protocol_error

    state = handlers.init_worker(seed, faults, search)
    log.debug("event=worker_ready index=%d pid=%d", index, os.getpid())
    try:
        link.send(READY)
    except OSError:
        return
    while True:
        try:
            msg = link.recv()
        except (EOFError, OSError):
            return
        if not isinstance(msg, Job):
            return

        def report(payload: dict[str, Any], _job_id: int = msg.job_id) -> None:
            link.send(Progress(_job_id, payload))

        reply: Done | Failed
        try:
            result = handlers.run_worker_command(
                state, msg.cmd, msg.args, msg.deadline, msg.seed, lambda: bool(stop_flag.value),
                report)
        except MemoryError:
            with contextlib.suppress(OSError):
                link.send(Failed(msg.job_id, ErrorCode.INTERNAL, "out of memory"))
            os._exit(3)  # a fresh process is the only safe state after this
        except Exception as exc:  # every failure becomes one error reply
            reply = Failed.of(msg.job_id, to_protocol_error(exc))
            if reply.code == ErrorCode.INTERNAL:
                log.exception("event=worker_job_failed cmd=%s", msg.cmd)
        else:
            reply = Done(msg.job_id, result)
        try:
            link.send(reply)
        except OSError:
            return
