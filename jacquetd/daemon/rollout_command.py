"""The `rollout` command: chunks of 36 trials on the worker pool or on Dask workers.

The front checks the request and plans the rollout (`jacquetd.bots.rollouts.plan`),
then hands its chunks out: to its own worker pool (as many at once as heavy work may
take, a `rollout_chunk` job each), or, when the daemon was started with
`--scheduler`, to the workers of that Dask scheduler (all chunks at once; the
scheduler spreads them). After each chunk it streams the running figures; the final
reply holds the chunks done, read in index order, so the figures are the same to the
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
from typing import TYPE_CHECKING, Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Partial, Reply, Request

from jacquetd.daemon import job_checks
from jacquetd.daemon.jobs import Failed
from jacquetd.daemon.positions import resolve_position
from jacquetd.daemon.scale_commands import ROLLOUT_CHUNK
from jacquetd.errors import in_field, to_protocol_error
from jacquetd.rules import RulesError

if TYPE_CHECKING:
    from jacquetd.daemon.service import Peer, Service

log = logging.getLogger(__name__)

_dask_clients: dict[str, Any] = {}
_cancels: set[asyncio.Future[Any]] = set()  # Dask cancellations under way


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


async def dask_client(address: str) -> Any:
    """One asynchronous Dask client per scheduler, kept for the daemon's life."""
    client = _dask_clients.get(address)
    if client is None or client.status not in ("running", "connecting"):
        try:
            from distributed import Client
        except ImportError:
            raise ProtocolError(ErrorCode.INTERNAL, "this server was given a scheduler but "
                                "Dask distributed is not installed") from None
        client = await Client(address, asynchronous=True, timeout=30)
        _dask_clients[address] = client
    return client


class _Rollout:
    """One rollout in flight: its chunks done, its jobs running, its single final reply."""

    def __init__(self, service: Service, pending: Any, spec: Any, args: dict[str, Any]) -> None:
        self.service = service
        self.pending = pending
        self.spec = spec
        self.args = args
        self.started = time.monotonic()
        self.done: dict[int, Any] = {}
        self.jobs: dict[int, int] = {}  # chunk -> pool job id
        self.futures: list[Any] = []     # Dask futures
        self.where = "cluster" if service.cfg.scheduler else "local"
        budget = args.get("time_ms")
        self.budget_end = self.started + budget / 1000.0 if budget else None

    def figures(self) -> dict[str, Any]:
        from jacquetd.bots import rollouts

        out = dict(rollouts.summarize(self.spec, self.done))
        out["where"] = self.where
        out["elapsed_ms"] = round((time.monotonic() - self.started) * 1e3, 3)
        return out

    def spent(self) -> bool:
        return self.budget_end is not None and time.monotonic() >= self.budget_end

    def chunk_done(self, index: int, chunk: Any) -> None:
        self.done[index] = chunk
        request: Request = self.pending.request
        if (self.args.get("partials", True) and getattr(self.pending.peer, "partials", True)
                and not self.pending.done and len(self.done) < self.spec.chunks):
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
        self.service._complete(self.pending, Reply.success(self.pending.request.id, result))
        task = self.pending.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def abandon(self) -> None:
        for job_id in self.jobs.values():
            self.service.pool.abandon(job_id)
        self.jobs.clear()
        if self.futures:
            client = _dask_clients.get(self.service.cfg.scheduler or "")
            if client is not None:
                with contextlib.suppress(Exception):
                    task = asyncio.ensure_future(client.cancel(self.futures))
                    _cancels.add(task)
                    task.add_done_callback(_cancels.discard)
            self.futures = []

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
            self.service._complete(self.pending, Reply.failure(self.pending.request.id, err))

    async def _on_pool(self) -> None:
        pool = self.service.pool
        window = max(1, pool.heavy_slots)
        todo = list(range(self.spec.chunks))
        running: dict[asyncio.Future[Any], int] = {}
        while todo or running:
            while todo and len(running) < window and not self.spent():
                k = todo.pop(0)
                job_id, future = pool.submit(ROLLOUT_CHUNK, {"spec": self.spec, "index": k},
                                             deadline=None, heavy=True,
                                             owner=self.pending.peer.key)
                self.jobs[k] = job_id
                running[future] = k
            if not running:
                return  # the budget is spent
            finished, _ = await asyncio.wait(list(running), return_when=asyncio.FIRST_COMPLETED)
            for future in finished:
                k = running.pop(future)
                self.jobs.pop(k, None)
                outcome = future.result()
                if isinstance(outcome, Failed):
                    raise outcome.error()
                self.chunk_done(k, outcome.result["chunk"])

    async def _on_cluster(self, address: str) -> None:
        from distributed import as_completed

        from jacquetd.bots.rollouts import run_chunk

        client = await dask_client(address)
        futures = [client.submit(run_chunk, self.spec, k, pure=False)
                   for k in range(self.spec.chunks)]
        self.futures = futures
        index = {f.key: k for k, f in enumerate(futures)}
        async for future in as_completed(futures):
            chunk = await future
            self.chunk_done(index[future.key], chunk)
            if self.spent():
                return


def start(service: Service, peer: Peer, request: Request, args: dict[str, Any],
          arrived: float) -> None:
    """Begin a rollout (front process); its single final reply comes later."""
    from jacquetd.daemon.service import _Pending

    if service.draining:
        raise ProtocolError(ErrorCode.BUSY, "the server is shutting down")
    job_checks.check_plies(args.get("plies"), service.cfg.limits.max_plies)
    spec = plan(args)
    client, key = service._admit(peer, request)
    pending = _Pending(peer, request, key, arrived)
    rollout = _Rollout(service, pending, spec, args)
    pending.on_cancel = lambda: rollout.finish("cancelled")
    service._track(peer, client, key, pending)
    if args.get("timeout_ms"):
        deadline = arrived + args["timeout_ms"] / 1000.0
        pending.timer = asyncio.get_running_loop().call_later(
            max(0.0, deadline - time.monotonic()), service._expire, pending)
    pending.task = asyncio.create_task(rollout.run(), name=f"rollout-{request.id}")
