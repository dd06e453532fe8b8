"""The `rollout` command: chunks of 36 trials on the worker pool or on Dask workers.

The front checks the request and plans the rollout (`jacquetd.bots.rollouts.plan`),
then hands its chunks out: to its own worker pool (as many at once as heavy work may
take, a `rollout_chunk` job each, which the pool may pause for another client's heavy
work), or, when the daemon was started with `--scheduler`, to the workers of that Dask
scheduler (a bounded window at a time: `cluster_window`). Each chunk done is folded
into a running sum (`jacquetd.bots.rollouts.RunningSum`) and the running figures are
streamed; the sum folds the chunks in index order, so the figures are the same to the
last digit wherever the chunks ran.

It ends early without an error when its `time_ms` is spent (no new chunk starts; the
chunks running finish) or when it is cancelled (at once, with the chunks done):
`stopped` is then true and `stop_reason` says why. Like `match_watch` it has no default
deadline: a rollout takes what it takes unless the request gives `timeout_ms`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, Protocol

from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Partial, Reply, Request

from jacquetd.daemon import job_checks
from jacquetd.daemon.config import Config
from jacquetd.daemon.jobs import Failed
from jacquetd.daemon.positions import resolve_position
from jacquetd.daemon.scale_commands import ROLLOUT_CHUNK
from jacquetd.errors import in_field, to_protocol_error
from jacquetd.rules import RulesError

log = logging.getLogger(__name__)



class DaskClients:
    """The asynchronous Dask clients of one service, one per scheduler, kept for the
    service's life, and the cancellations of Dask tasks under way."""

    def __init__(self) -> None:
        self._clients: dict[str, Any] = {}
        self.cancels: set[asyncio.Future[Any]] = set()

    def get(self, address: str) -> Any:
        """The client of `address` if one was made, else None."""
        return self._clients.get(address)

    async def client(self, address: str) -> Any:
        """The client of `address`, connected now if it is not."""
        client = self._clients.get(address)
        if client is None or client.status not in ("running", "connecting"):
            try:
                from distributed import Client
            except ImportError:
                raise ProtocolError(ErrorCode.INTERNAL, "this server was given a scheduler "
                                    "but Dask distributed is not installed") from None
            client = await Client(address, asynchronous=True, timeout=30)
            self._clients[address] = client
        return client

    def cancel(self, address: str, futures: list[Any]) -> None:
        """Cancel Dask tasks on the scheduler, without waiting for it."""
        client = self._clients.get(address)
        if client is not None:
            with contextlib.suppress(Exception):
                task = asyncio.ensure_future(client.cancel(futures))
                self.cancels.add(task)
                task.add_done_callback(self.cancels.discard)


class StreamHost(Protocol):
    """What a rollout needs of the service (``jacquetd.daemon.service.Service``)."""

    cfg: Config
    pool: Any  # the worker pool (jacquetd.daemon.workers.WorkerPool)
    draining: bool
    dask: DaskClients

    def open_stream(self, peer: Any, request: Request, arrived: float) -> Any:
        """Admit a request whose final reply comes later: its pending entry (peer,
        request, done, on_cancel, task), its `timeout_ms` deadline armed."""
        ...

    def complete(self, pending: Any, reply: Reply) -> None:
        """The request's one final reply (nothing when it already has one)."""
        ...


def plan(args: dict[str, Any]) -> Any:
    """The rollout's spec, or the error that names what is wrong with the request."""
    from jacquetd.bots import rollouts

    pos = resolve_position(args["position"], args.get("dice"))
    if pos.game_over():
        raise ProtocolError(ErrorCode.BAD_POSITION, "the game is over: there is nothing to "
                            "roll out", field="position")
    candidates = args.get("candidates")
    if candidates and not pos.dice:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "candidates: give the dice they play",
                            field="dice")
    try:
        return rollouts.plan(pos, candidates=candidates, trials=int(args["trials"]),
                             plies=int(args["plies"]), seed=int(args["seed"]),
                             truncate=int(args["truncate"]))
    except RulesError as exc:
        raise in_field(to_protocol_error(exc), "candidates") from None


CLUSTER_WINDOW_PER_THREAD = 2  # chunks in flight on the cluster per worker thread ...
CLUSTER_WINDOW_MAX = 64  # ... and at most this many, whatever the cluster's size
HELD_PER_WINDOW = 4  # a chunk starts only this many windows past the first one not done


async def cluster_window(client: Any) -> int:
    """How many chunks one rollout keeps in flight on the cluster: two per worker thread
    (one running, one waiting, so a thread never idles on the round trip), bounded."""
    try:
        threads = sum(int(n) for n in (await client.scheduler.ncores()).values())
    except Exception:  # an old scheduler, or none answering yet: a small window
        threads = 1
    return max(2, min(CLUSTER_WINDOW_MAX, CLUSTER_WINDOW_PER_THREAD * threads))


async def _chunk_of(future: Any) -> Any:
    return await future


class _Rollout:
    """One rollout in flight: its running sum, its jobs running, its single final reply.

    The chunks go out a bounded window at a time, wherever they run (`heavy_slots` jobs
    in the worker pool; `cluster_window` Dask tasks), and each result is folded into a
    `RunningSum` as it comes: the front holds a few numbers per line and at most a few
    windows of chunk results, never the whole rollout, and the event loop does a bounded
    step per chunk."""

    def __init__(self, service: StreamHost, pending: Any, spec: Any,
                 args: dict[str, Any]) -> None:
        from jacquetd.bots.rollouts import RunningSum

        self.service = service
        self.pending = pending
        self.spec = spec
        self.args = args
        self.started = time.monotonic()
        self.total = RunningSum(spec)
        self.jobs: dict[int, int] = {}  # chunk -> pool job id
        self.futures: dict[int, Any] = {}  # chunk -> Dask future
        self.fetches: set[asyncio.Future[Any]] = set()  # the tasks awaiting them
        self.where = "cluster" if service.cfg.scheduler else "local"
        budget = args.get("time_ms")
        self.budget_end = self.started + budget / 1000.0 if budget else None

    def figures(self) -> dict[str, Any]:
        out = dict(self.total.figures())
        out["where"] = self.where
        out["elapsed_ms"] = round((time.monotonic() - self.started) * 1e3, 3)
        return out

    def spent(self) -> bool:
        return self.budget_end is not None and time.monotonic() >= self.budget_end

    def chunk_done(self, chunk: Any) -> None:
        self.total.add(chunk)
        request: Request = self.pending.request
        if (self.args.get("partials", True) and getattr(self.pending.peer, "partials", True)
                and not self.pending.done and self.total.chunks_done < self.spec.chunks):
            self.pending.peer.deliver(Partial(request.id, self.figures()), request.encoding)

    def finish(self, stopped: str | None) -> None:
        """The final reply: the figures of the chunks done; nothing runs on after it."""
        if self.pending.done:
            return
        self.pending.on_cancel = None
        self.abandon()
        result = self.figures()
        if stopped is not None and not result["done"]:
            result["stopped"] = True
            result["stop_reason"] = stopped
        self.service.complete(self.pending, Reply.success(self.pending.request.id, result))
        task = self.pending.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def abandon(self) -> None:
        """Stop every chunk still out: pool jobs are abandoned (their workers told to
        stop), Dask tasks cancelled on the scheduler."""
        for job_id in self.jobs.values():
            self.service.pool.abandon(job_id)
        self.jobs.clear()
        for fetch in self.fetches:
            fetch.cancel()
        self.fetches.clear()
        if self.futures:
            futures = list(self.futures.values())
            self.futures.clear()
            self.service.dask.cancel(self.service.cfg.scheduler or "", futures)

    async def run(self) -> None:
        try:
            if self.service.cfg.scheduler:
                await self._on_cluster(self.service.cfg.scheduler)
            else:
                await self._on_pool()
            self.finish("time_ms" if self.spent() else None)
        except asyncio.CancelledError:
            self.abandon()  # a timeout or a closed connection: the service has replied
            raise
        except Exception as exc:  # one final reply, whatever happens
            self.abandon()
            err = to_protocol_error(exc)
            if err.code == ErrorCode.INTERNAL:
                log.exception("event=rollout_failed")
            self.service.complete(self.pending, Reply.failure(self.pending.request.id, err))

    def _may_start(self, k: int, in_flight: int, window: int) -> bool:
        return (k < self.spec.chunks and in_flight < window and not self.spent()
                and k - self.total.next < HELD_PER_WINDOW * window)

    async def _on_pool(self) -> None:
        pool = self.service.pool
        window = max(1, pool.heavy_slots)
        k = 0
        running: dict[asyncio.Future[Any], int] = {}
        while True:
            while self._may_start(k, len(running), window):
                job_id, future = pool.submit(ROLLOUT_CHUNK, {"spec": self.spec, "index": k},
                                             deadline=None, heavy=True,
                                             owner=self.pending.peer.key, preemptible=True)
                self.jobs[k] = job_id
                running[future] = k
                k += 1
            if not running:
                return  # every chunk is done, or the budget is spent
            finished, _ = await asyncio.wait(list(running), return_when=asyncio.FIRST_COMPLETED)
            for future in finished:
                self.jobs.pop(running.pop(future), None)
                outcome = future.result()
                if isinstance(outcome, Failed):
                    raise outcome.error()
                self.chunk_done(outcome.result["chunk"])

    async def _on_cluster(self, address: str) -> None:
        from jacquetd.bots.rollouts import run_chunk

        client = await self.service.dask.client(address)
        window = await cluster_window(client)
        k = 0
        running: dict[asyncio.Future[Any], int] = {}
        while True:
            while self._may_start(k, len(running), window):
                future = client.submit(run_chunk, self.spec, k, pure=False)
                self.futures[k] = future
                fetch = asyncio.ensure_future(_chunk_of(future))
                self.fetches.add(fetch)
                running[fetch] = k
                k += 1
            if not running:
                return
            finished, _ = await asyncio.wait(list(running), return_when=asyncio.FIRST_COMPLETED)
            for ended in finished:
                self.fetches.discard(ended)
                self.futures.pop(running.pop(ended), None)  # released on the cluster
                self.chunk_done(ended.result())


def start(service: StreamHost, peer: Any, request: Request, args: dict[str, Any],
          arrived: float) -> None:
    """Begin a rollout (front process); its single final reply comes later."""
    if service.draining:
        raise ProtocolError(ErrorCode.BUSY, "the server is shutting down")
    job_checks.check_plies(args.get("plies"), service.cfg.limits.max_plies)
    spec = plan(args)
    pending = service.open_stream(peer, request, arrived)
    rollout = _Rollout(service, pending, spec, args)
    pending.on_cancel = lambda: rollout.finish("cancelled")
    pending.task = asyncio.create_task(rollout.run(), name=f"rollout-{request.id}")
