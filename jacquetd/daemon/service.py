"""The transport-independent core of the daemon: every decoded request of
every endpoint comes here, and every request gets exactly one final reply.

A cheap command runs at once in this (the front) process. A worker command
is checked here, then queued on the worker pool with its deadline; the final
reply is whichever comes first of the worker's answer, the deadline
(``timeout``), a ``cancel`` (``cancelled``) or the worker's death
(``internal``). A per-request ``done`` flag makes the reply exactly-once.
Bounds: ``max_inflight_per_client`` per peer and ``max_queue`` for the pool;
past either the request gets ``busy`` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from jacquetd_protocol.codec import decode_request, detect_encoding
from jacquetd_protocol.commands import warnings_for
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Encoding, Partial, Reply, Request

from jacquetd.bots.interface import ENGINE
from jacquetd.daemon import job_checks
from jacquetd.daemon.config import Config, known_levels
from jacquetd.daemon.front import FrontQueue, Work
from jacquetd.daemon.jobs import Done, Failed, Outcome
from jacquetd.daemon.registry import JOBS, JUMPS_QUEUE, ROUTES, TABLE, Route, Runs
from jacquetd.daemon.replicas import ReplicaPool
from jacquetd.daemon.rollout_command import DaskClients
from jacquetd.daemon.stats import Stats
from jacquetd.daemon.wire import Encoded, Outgoing
from jacquetd.daemon.workers import PoolBusy, PoolClosed, WorkerPool
from jacquetd.errors import to_protocol_error
from jacquetd.matches import AsyncMatchService, Caller
from jacquetd.matches.secrecy import Secrets

log = logging.getLogger(__name__)

WATCH_COALESCE_S = 0.1  # a match_watch stream sends at most one partial per this long


class Peer(Protocol):
    """One client of one endpoint, as the service sees it."""

    key: str
    partials: bool  # False for a ZeroMQ REQ client: it takes exactly one message per request

    def deliver(self, message: Outgoing, encoding: Encoding) -> None:
        """Queue a message for the peer; never blocks; silently drops if it is gone."""
        ...

    def end_session(self) -> None:
        """``quit``: close the connection after the queued replies (streams), or forget."""
        ...


@dataclass(eq=False)
class _Pending:
    peer: Peer
    request: Request
    key: Any
    arrived: float
    job_id: int | None = None
    timer: asyncio.TimerHandle | None = None
    task: asyncio.Task[None] | None = None  # a match_watch stream
    done: bool = False
    on_cancel: Callable[[], None] | None = None  # ends with what is done (rollout)
    stopping: bool = False  # a cancel asked the search to answer with what it has
    route: Route | None = None  # a worker job's: its cancel policy


@dataclass
class _Client:
    pending: dict[Any, _Pending] = field(default_factory=dict)


class _Context:
    """The FrontContext of one request (see front_commands.FrontContext)."""

    def __init__(self, service: Service, peer: Peer) -> None:
        self._service = service
        self._peer = peer

    def hello_extra(self) -> dict[str, Any]:
        return self._service.hello_extra()

    def stats_result(self) -> dict[str, Any]:
        return self._service.stats_result()

    def cancel(self, target: Any) -> bool:
        return self._service.cancel(self._peer, target)

    def session(self, given: str | None) -> str:
        return self._service._hello_session(given)

    def resume(self, session: str) -> None:
        if not self._peer.key.startswith("zmq:"):  # a routing id can be taken over
            self._service._sessions[self._peer.key] = session

    def match_record(self, match_id: str) -> str:
        exported = self._service._match_service().service.match_export({"match_id": match_id})
        return str(exported["record"])


class Service:
    def __init__(self, cfg: Config, pool: WorkerPool, *,
                 endpoints: dict[str, str] | None = None, stats: Stats | None = None) -> None:
        self.cfg = cfg
        self.pool = pool
        self.stats = stats or Stats()
        self.endpoints = endpoints if endpoints is not None else {}  # the daemon fills it later
        self.draining = False
        self._clients: dict[str, _Client] = {}
        self._anon = itertools.count()
        self._idle = asyncio.Event()
        self._idle.set()
        self._levels: list[str] | None = None
        self._jobs_running = 0  # run_job calls in progress
        self.matches: AsyncMatchService | None = None  # hosted matches (None: off)
        self._run = secrets.token_hex(8)  # anonymous retry scopes never outlive the process
        self._own_secrets = Secrets.random()
        self._sessions: dict[str, str] = {}  # byte-stream peer -> the session of its `hello`
        self._watch_count = 0
        self.front = FrontQueue()  # messages read and not yet handled (see front.py)
        self.replicas: ReplicaPool | None = None  # stateless front commands (replicas.py)
        self.dask = DaskClients()  # a rollout's Dask clients, one per scheduler

    # ---- introspection ----------------------------------------------------------------

    @property
    def watches(self) -> int:
        """match_watch streams open now."""
        return self._watch_count

    @property
    def in_flight(self) -> int:
        return (sum(len(c.pending) for c in self._clients.values()) + self._jobs_running
                + self.front.size)

    def levels(self) -> list[str]:
        if self._levels is None:
            self._levels = list(known_levels())
        return self._levels

    def hello_extra(self) -> dict[str, Any]:
        return {
            "codec_limits": self.cfg.limits.codec_limits(),
            "limits": self.cfg.limits.to_dict(),
            "levels": self.levels(),
            "default_level": ENGINE.default_level,
            "endpoints": dict(self.endpoints),
            "workers": self.pool.size,
        }

    def stats_result(self) -> dict[str, Any]:
        snap = self.stats.snapshot(self.in_flight, self.pool.queued, self.pool.size)
        latency = {
            cmd: {"count": v["count"], "p50": v["p50_ms"], "p90": v["p90_ms"],
                  "p99": v["p99_ms"], "max": v["max_ms"]}
            for cmd, v in snap.pop("commands").items()
        }
        return {
            "served": snap.pop("requests_served"),
            "inflight": snap.pop("in_flight"),
            "uptime_s": snap.pop("uptime_s"),
            "worker_restarts": snap.pop("worker_restarts"),
            "latency_ms": latency,
            "errors": snap.pop("errors"),
            "received": snap.pop("requests_received"),
            "worker_pids": self.pool.pids(),
            "replica_pids": self.replicas.pids() if self.replicas is not None else [],
            "replica_restarts": self.replicas.restarts if self.replicas is not None else 0,
            "replica_answered": self.replicas.answered if self.replicas is not None else 0,
            "clients": len(self._clients),
            "watches": self._watch_count,
            **snap,
        }

    # ---- requests -----------------------------------------------------------------------

    def reject(self, peer: Peer, err: ProtocolError, encoding: Encoding) -> None:
        """A message that could not be decoded into a request."""
        self.stats.rejected_frames += 1
        self.stats.record("-", 0.0, str(err.code))
        peer.deliver(Reply.failure(err.id, err), encoding)

    def decode(self, peer: Peer, frame: bytes, encoding: Encoding | None = None, *,
               scanned: bool = False) -> Request | None:
        """The request in one frame, or None once its error reply went out, in `encoding`
        (None: the frame's own). The codec checks the size: a frame is measured once
        (`scanned`: a stream decoder cut it, with the same limits)."""
        try:
            return decode_request(frame, self.cfg.limits.codec_limits(), scanned=scanned,
                                  table=TABLE)
        except ProtocolError as err:
            self.reject(peer, err, encoding or detect_encoding(frame))
            return None

    def queue_message(self, peer: Peer, item: Any, size: int, answer: Work,
                      decode: Callable[[Any, Any], Request | None], ping: bool) -> None:
        """Hand one message read from `peer` to the front's queue (front.py): `answer(peer,
        item)` decodes and answers it in the peer's turn. A `ping` (`ping`: the message
        may be one) with nothing of its peer queued before it is decoded and answered at
        once (one peer's replies keep their order)."""
        if ping and not self.front.waiting(peer.key):
            request = decode(peer, item)
            if request is None:
                return
            if request.cmd in JUMPS_QUEUE:
                self.handle(peer, request)  # cheap: never waits behind other backlogs
                return
            item = request
        self.front.put(peer.key, answer, peer, item, size)

    def handle(self, peer: Peer, request: Request) -> None:
        """Answer one decoded request (now, or later from a worker): its route, looked
        up once in the registry, says where it runs."""
        arrived = time.monotonic()
        self.stats.received += 1
        try:
            # the route the codec found (decoded with registry.TABLE); a request made in
            # this process (hosted matches, tests) is looked up here instead
            route = request.entry if isinstance(request.entry, Route) else ROUTES.get(request.cmd)
            if route is None:
                raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"no command {request.cmd}")
            args = route.defaults | request.args
            runs = route.runs
            if runs is Runs.WORKER:
                self._submit(peer, request, route, args, arrived)
            elif runs is Runs.REPLICA and self._offload(peer, request, args, arrived):
                return
            elif runs is Runs.FRONT or runs is Runs.REPLICA:
                self._front(peer, request, route, args, arrived)
            elif runs is Runs.MATCH:
                self._match(peer, request, route, args, arrived)
            else:
                route.start(self, peer, request, args, arrived)  # type: ignore[misc]  # STREAM
        except Exception as exc:  # the one boundary: every failure becomes an error reply
            err = to_protocol_error(exc)
            if err.code == ErrorCode.INTERNAL:
                log.exception("event=handler_failed cmd=%s", request.cmd)
            self._reply_now(peer, request, arrived, Reply.failure(request.id, err))

    def _front(self, peer: Peer, request: Request, route: Route, args: dict[str, Any],
               arrived: float) -> None:
        """A front command, answered now: its msgpack reply written directly when it has
        a writer (no warnings to add), else its result map."""
        if route.packed is not None and request.encoding == "msgpack" and not request.ignored:
            body = route.packed(request.id, args)
            if body is not None:
                self._reply_now(peer, request, arrived, Encoded(body))
                return
        result = route.front(_Context(self, peer), args)  # type: ignore[misc]
        self._reply_now(peer, request, arrived, Reply.success(request.id, result))
        if route.ends_session:
            self.end_session(peer)

    # ---- hosted matches -------------------------------------------------------------------

    @property
    def secrets(self) -> Secrets:
        """The server key: the match database's, else one for this process."""
        if self.matches is not None:
            return self.matches.service.store.secrets
        return self._own_secrets

    def _hello_session(self, given: str | None) -> str:
        if given is None:
            return self.secrets.new_session()
        if not self.secrets.check_session(given):
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, "session: not a session key this "
                                "server issued", field="session")
        return str(given)

    def caller(self, peer: Peer, request: Request, args: dict[str, Any]) -> Caller:
        """Who a match request comes from, for retries (SPEC 12.5): the session the request
        presents (`session`), else the one its byte-stream connection resumed in `hello`;
        without a session, the connection of this process only (and no token is ever
        stored for it or replayed to it)."""
        given = args.get("session")
        session = self._hello_session(given) if given is not None else self._sessions.get(
            peer.key)
        if session is None:
            return Caller(f"anon:{self._run}:{peer.key}", request.id)
        return Caller(self.secrets.scope(session), request.id, session)

    def _match_service(self) -> AsyncMatchService:
        if self.matches is None:
            raise ProtocolError(ErrorCode.FORBIDDEN, "hosted matches are off on this server "
                                "(started with --db off)")
        return self.matches

    def _match(self, peer: Peer, request: Request, route: Route, args: dict[str, Any],
               arrived: float) -> None:
        matches = self._match_service()
        cmd = request.cmd
        if route.watch:
            first = matches.service.match_watch(args, checked=True)  # not_found at once
            if args.get("follow", True) and getattr(peer, "partials", True):
                self._watch(peer, request, args, arrived, first)
                return
            result = first
        else:
            # the codec validated `args` by the command table: not validated again
            result = matches.service.handle(cmd, args, self.caller(peer, request, args),
                                            checked=True)
            match_id = result.get("match_id") or args.get("match_id")
            if isinstance(match_id, str) and not self.draining:
                matches.kick(match_id)  # bot seats act on their own (not while stopping)
        self._reply_now(peer, request, arrived, Reply.success(request.id, result))

    def _admit(self, peer: Peer, request: Request) -> tuple[_Client, Any]:
        """The client's entry (registered only once a request of it is in flight: a refused
        request leaves nothing behind) and the key of this request."""
        client = self._clients.get(peer.key) or _Client()
        key: Any = request.id if request.id is not None else ("anon", next(self._anon))
        if key in client.pending:
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"request {request.id!r} is already in "
                                "flight for this client", field="id")
        if len(client.pending) >= self.cfg.limits.max_inflight_per_client:
            raise ProtocolError(ErrorCode.BUSY, f"{len(client.pending)} requests of this client "
                                "are in flight", limit="max_inflight_per_client")
        return client, key

    def _watch(self, peer: Peer, request: Request, args: dict[str, Any], arrived: float,
               first: dict[str, Any]) -> None:
        """match_watch with follow: every event as partials, then the final reply when the
        match is over or closed. No default deadline: only an explicit `timeout_ms`."""
        if self.draining:
            raise ProtocolError(ErrorCode.BUSY, "the server is shutting down")
        matches = self._match_service()
        if self.watches >= self.cfg.limits.max_watches:
            raise ProtocolError(ErrorCode.BUSY, f"{self.watches} match_watch streams are open",
                                limit="max_watches")
        pending = self.open_stream(peer, request, arrived)
        match_id = first["match_id"]
        limit = int(args.get("limit") or 1000)

        def send(reply: dict[str, Any]) -> dict[str, Any]:
            if reply["events"] and not pending.done:
                peer.deliver(Partial(request.id, {**reply, "done": False}), request.encoding)
            return reply

        def fetch(after: int) -> dict[str, Any]:
            return send(matches.service.match_watch({"match_id": match_id, "after": after,
                                                     "limit": limit}))

        async def stream() -> None:
            after = int(args.get("after") or 0)
            reply = send(first)
            while not pending.done:
                if reply["events"]:
                    after = reply["events"][-1]["n"]
                    if not reply["done"] and reply["status"] == "playing":
                        # coalesce: the events of the next moments go out together, so
                        # a fast match watched by many costs a bounded number of sends
                        await asyncio.sleep(WATCH_COALESCE_S)
                elif reply["done"] or reply["status"] == "closed":
                    self._complete(pending, Reply.success(request.id, {
                        **reply, "events": [], "done": True}))
                    return
                else:
                    await matches.wait_events(match_id, after, None)
                # read and sent in this client's turn of the front's queue (front.py)
                reply = await self.front.in_turn(peer.key, functools.partial(fetch, after))

        async def guarded() -> None:
            try:
                await stream()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # one final reply, whatever happens
                err = to_protocol_error(exc)
                if err.code == ErrorCode.INTERNAL:
                    log.exception("event=watch_failed match=%s", match_id)
                self._complete(pending, Reply.failure(request.id, err))

        # counted from admission to the task's end (even one cancelled before it ran), so
        # that `max_watches` holds while a burst of watches waits for its tasks to start
        self._watch_count += 1
        pending.task = asyncio.create_task(guarded(), name=f"watch-{match_id}")
        pending.task.add_done_callback(self._watch_ended)

    def _watch_ended(self, _task: asyncio.Task[None]) -> None:
        self._watch_count -= 1

    def _offload(self, peer: Peer, request: Request, args: dict[str, Any],
                 arrived: float) -> bool:
        """Hand a stateless front command to a front replica (replicas.py); False when
        it is answered here instead: no other client waits (in the front or in a
        replica), no replica has room or is up (they start when another client first
        waits), the request has fields the command does not define (their warnings are
        written here), or its id is in flight (answered at once here, as without
        replicas)."""
        replicas = self.replicas
        if replicas is None or request.ignored:
            return False
        front = self.front
        if front.size == front.queued(peer.key) and not replicas.holding:
            return False  # no other client waits: answered here, one hop fewer
        if not replicas.started:
            replicas.start()  # other clients wait behind this one: time for more hands
            return False
        try:
            client, key = self._admit(peer, request)
        except ProtocolError:  # answered here, as without replicas
            return False
        pending = _Pending(peer, request, key, arrived)

        def answered(code: str | None, body: bytes) -> None:
            self._complete(pending, Encoded(body, code))
            front.release(peer.key)

        if not replicas.submit(request.cmd, args, request.id, request.encoding, answered):
            return False
        # one client's replies keep their order: its next messages wait for this answer
        front.hold(peer.key)
        self._track(peer, client, key, pending)
        return True

    def _reply_now(self, peer: Peer, request: Request, arrived: float,
                   reply: Reply | Encoded) -> None:
        if isinstance(reply, Encoded):
            self.stats.record(request.cmd, time.monotonic() - arrived, reply.code)
            peer.deliver(reply, request.encoding)
            return
        code = None if reply.ok or reply.error is None else str(reply.error.get("code"))
        self.stats.record(request.cmd, time.monotonic() - arrived, code)
        if request.ignored:  # fields the command does not define: say so (SPEC 3)
            warnings = warnings_for(request)
            if reply.ok:
                reply = Reply.success(reply.id, {**(reply.result or {}), "warnings": warnings})
            else:
                reply = Reply(reply.id, False, error={**(reply.error or {}),
                                                      "warnings": warnings})
        peer.deliver(reply, request.encoding)

    def _submit(self, peer: Peer, request: Request, route: Route, args: dict[str, Any],
                arrived: float) -> None:
        limits = self.cfg.limits
        if self.draining:
            raise ProtocolError(ErrorCode.BUSY, "the server is shutting down")
        job_checks.check_plies(args.get("plies"), limits.max_plies)
        job_args = route.prepare(_Context(self, peer), args)  # type: ignore[misc]
        client, key = self._admit(peer, request)
        timeout_ms = args.get("timeout_ms") or limits.default_timeout_ms
        deadline = arrived + timeout_ms / 1000.0
        pending = _Pending(peer, request, key, arrived, route=route)

        partials = getattr(peer, "partials", True)  # REQ sockets take one message per request

        def on_partial(payload: dict[str, Any]) -> None:
            if not pending.done and partials:
                peer.deliver(Partial(request.id, payload), request.encoding)

        try:
            job_id, future = self.pool.submit(
                request.cmd, job_args, deadline=deadline, on_partial=on_partial,
                heavy=route.heavy(job_args), owner=peer.key)
        except PoolBusy as exc:
            raise ProtocolError(ErrorCode.BUSY, str(exc), limit="max_queue") from None
        except PoolClosed as exc:
            raise ProtocolError(ErrorCode.BUSY, str(exc)) from None
        pending.job_id = job_id
        self._track(peer, client, key, pending, deadline)
        future.add_done_callback(lambda fut: self._job_done(pending, fut))

    def open_stream(self, peer: Peer, request: Request, arrived: float) -> _Pending:
        """Admit a request whose final reply comes later (a rollout): its pending entry,
        tracked, with its deadline only when the request gives `timeout_ms`."""
        client, key = self._admit(peer, request)
        pending = _Pending(peer, request, key, arrived)
        timeout_ms = request.args.get("timeout_ms")
        self._track(peer, client, key, pending,
                    arrived + timeout_ms / 1000.0 if timeout_ms else None)
        return pending

    def complete(self, pending: _Pending, reply: Reply) -> None:
        """The request's one final reply (nothing when it already has one)."""
        self._complete(pending, reply)

    def _track(self, peer: Peer, client: _Client, key: Any, pending: _Pending,
               deadline: float | None = None) -> None:
        """Count `pending` in flight, ended by `_expire` at `deadline` if one is given."""
        client.pending[key] = pending
        self._clients[peer.key] = client
        self._idle.clear()
        if deadline is not None:
            pending.timer = asyncio.get_running_loop().call_later(
                max(0.0, deadline - time.monotonic()), self._expire, pending)

    def _job_done(self, pending: _Pending, future: asyncio.Future[Outcome]) -> None:
        if future.cancelled() or pending.done:
            return
        outcome = future.result()
        if isinstance(outcome, Done):
            reply = Reply.success(pending.request.id, outcome.result)
        elif pending.stopping:  # stopped before any depth was finished: nothing to give
            reply = Reply.failure(pending.request.id, self._cancelled(pending))
        else:
            reply = Reply.failure(pending.request.id, outcome.error())
        self._complete(pending, reply)

    def _expire(self, pending: _Pending) -> None:
        pending.timer = None
        if pending.done:
            return
        ms = pending.request.args.get("timeout_ms") or self.cfg.limits.default_timeout_ms
        self._stop(pending, ProtocolError(ErrorCode.TIMEOUT, f"no answer within {ms} ms",
                                          field="timeout_ms"))

    def _stop(self, pending: _Pending, err: ProtocolError) -> None:
        self._complete(pending, Reply.failure(pending.request.id, err))
        if pending.job_id is not None:
            self.pool.abandon(pending.job_id)
        if pending.task is not None and pending.task is not asyncio.current_task():
            pending.task.cancel()

    def _complete(self, pending: _Pending, reply: Reply | Encoded) -> None:
        if pending.done:
            return
        pending.done = True
        if pending.timer is not None:
            pending.timer.cancel()
            pending.timer = None
        client = self._clients.get(pending.peer.key)
        if client is not None:
            client.pending.pop(pending.key, None)
            if not client.pending:
                del self._clients[pending.peer.key]
        if not self._clients and not self._jobs_running:
            self._idle.set()
        self._reply_now(pending.peer, pending.request, pending.arrived, reply)

    def cancel(self, peer: Peer, target: Any) -> bool:
        """`cancel`: a search that can answer with what it has (`analyze`, `best_move` with
        `time_ms`) is told to stop and ends `ok` with the deepest result it finished,
        `stopped: true` (SPEC 9); anything else ends at once with `cancelled`."""
        client = self._clients.get(peer.key)
        pending = client.pending.get(target) if client is not None else None
        if pending is None:
            return False
        if pending.on_cancel is not None:
            pending.on_cancel()
            return True
        if pending.stopping:
            return True
        route = pending.route
        if (pending.job_id is not None and route is not None
                and route.stops_with_answer(pending.request.args)
                and self.pool.stop(pending.job_id)):
            pending.stopping = True
            return True
        self._stop(pending, self._cancelled(pending))
        return True

    @staticmethod
    def _cancelled(pending: _Pending) -> ProtocolError:
        return ProtocolError(ErrorCode.CANCELLED, f"request {pending.request.id!r} was "
                             "cancelled")

    def _stop_all(self, key: str, err: ProtocolError, *, streams: bool = False) -> int:
        """End the requests client `key` has in flight (`streams`: its `match_watch`
        streams only) with `err`; returns how many were ended."""
        client = self._clients.get(key)
        ended = [p for p in (client.pending.values() if client is not None else ())
                 if not streams or p.task is not None]
        for pending in ended:
            self._stop(pending, err)
        return len(ended)

    def end_session(self, peer: Peer) -> None:
        """``quit`` or a closed connection: stop what the peer still has in flight."""
        self._stop_all(peer.key, ProtocolError(ErrorCode.CANCELLED, "the session ended"))
        peer.end_session()

    def end_streams(self, peer: Peer, why: str) -> int:
        """End the peer's `match_watch` streams, which never end by themselves, each with
        its final reply `cancelled` (`why`); returns how many were ended."""
        return self._stop_all(peer.key, ProtocolError(ErrorCode.CANCELLED, why), streams=True)

    def peer_gone(self, peer: Peer) -> None:
        self._sessions.pop(peer.key, None)
        # what it had queued in the front is never answered: counted as ignored
        self.stats.requests_ignored += self.front.forget(peer.key)
        self._stop_all(peer.key, ProtocolError(ErrorCode.CANCELLED, "the connection closed"))

    def pending_count(self, key: str) -> int:
        """Requests of this client not yet answered: in flight, or queued in the front."""
        client = self._clients.get(key)
        return (len(client.pending) if client is not None else 0) + self.front.queued(key)

    def shed(self, peer: Peer, request_id: Any, cmd: str, encoding: Encoding,
             error: ProtocolError) -> None:
        """Answer `busy` at once, before anything is queued (a ZeroMQ peer past its share
        of the front's queue, or the queue at its bound); `cmd` is a known command or
        "-" (it names a stats entry)."""
        self.stats.received += 1
        self.stats.record(cmd, 0.0, "busy")
        peer.deliver(Reply.failure(request_id, error), encoding)

    async def run_job(self, cmd: str, args: dict[str, Any],
                      timeout_s: float | None = None, owner: str = "") -> Outcome:
        """Run a worker job for an endpoint with its own wire language (gnubg): the
        same queue bound, deadline and stats, an :data:`Outcome` instead of a reply."""
        arrived = time.monotonic()
        self.stats.received += 1
        if timeout_s is None:
            timeout_s = self.cfg.limits.default_timeout_ms / 1000.0
        if self.draining:
            outcome: Outcome = Failed(0, ErrorCode.BUSY, "shutting down")
        else:
            try:
                job_id, future = self.pool.submit(cmd, args, deadline=arrived + timeout_s,
                                                  heavy=JOBS[cmd].heavy(args), owner=owner)
            except (PoolBusy, PoolClosed) as exc:
                outcome = Failed(0, ErrorCode.BUSY, str(exc))
            else:
                self._jobs_running += 1
                self._idle.clear()
                try:
                    outcome = await asyncio.wait_for(asyncio.shield(future), timeout_s)
                except TimeoutError:
                    self.pool.abandon(job_id)
                    outcome = Failed(job_id, ErrorCode.TIMEOUT, "no answer in time")
                except asyncio.CancelledError:
                    self.pool.abandon(job_id)  # the requester left: stop its work
                    raise
                finally:
                    self._jobs_running -= 1
                    if not self._clients and not self._jobs_running:
                        self._idle.set()
        code = None if isinstance(outcome, Done) else outcome.code
        self.stats.record(cmd, time.monotonic() - arrived, code)
        return outcome

    # ---- shutdown -------------------------------------------------------------------------

    async def drain(self, timeout: float) -> int:
        """Refuse new worker requests and wait (at most ``timeout``) for those in flight;
        the rest end with ``internal``. Returns how many were cut short."""
        self.draining = True
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.front.size and loop.time() < end:  # messages read before the signal
            await asyncio.sleep(0.01)
        timeout = max(0.0, end - loop.time())
        watch_again = ProtocolError(ErrorCode.CANCELLED, "the server is shutting down; watch "
                                    "again with `after` = the last event number received")
        for key in list(self._clients):  # watches never finish by themselves
            self._stop_all(key, watch_again, streams=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
        unfinished = ProtocolError(ErrorCode.INTERNAL, "the server stopped before this request "
                                   "finished")
        return sum(self._stop_all(key, unfinished) for key in list(self._clients))
