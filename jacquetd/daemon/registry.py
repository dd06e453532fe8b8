"""The command registry: where every command runs and what runs it, declared once.

The protocol's command table (``jacquetd_protocol.commands.COMMANDS``) is the one
place of a command's parameters; this module is the one place of its route: a
:class:`Route` per command says where it runs (:class:`Runs`), its `prepare` (the
arguments made into a worker job, the position parsed and validated once), its
handler, its msgpack reply writer, its cancel and weight policies. The service, the
front replicas, the worker processes and the gnubg endpoint all read it; nothing
else names commands.

Every protocol command has exactly one route and every route of a protocol command
names one (checked at import, and again by :func:`declare`). Worker jobs that are no
protocol command (the gnubg endpoint's, a rollout's chunk, a hosted match's bot
seat) are routes with ``protocol=False``: a client cannot send them.

A command is added by a :class:`jacquetd_protocol.commands.Command` in the protocol's
table and a :class:`Route` in :data:`_ROUTES` below (docs/guides/adding-a-command.md);
:func:`declare` adds one to a running process (the tests' toy command). A worker
command must be declared in this module: worker processes import it, not the code
that started the daemon.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jacquetd_protocol.commands import COMMANDS, MATCH_COMMANDS, Command, Entry, with_usage
from jacquetd_protocol.errors import ProtocolError

from jacquetd.daemon import (
    engine_commands,
    front_commands,
    gnubg_commands,
    job_checks,
    packed_plays,
    rollout_command,
    scale_commands,
)
from jacquetd.daemon.engine_commands import WorkerHandler
from jacquetd.daemon.front_commands import FrontContext, FrontHandler

Prepare = Callable[[FrontContext | None, dict[str, Any]], dict[str, Any]]
"""(context, checked arguments) -> the worker job's arguments; raises what is wrong."""
PackedWriter = Callable[[Any, dict[str, Any]], bytes | None]
"""(request id, checked arguments) -> the msgpack success reply's bytes, or None to
take the result map's way; raises what the command's handler raises."""
StreamStart = Callable[..., None]
"""(service, peer, request, arguments, arrival time): starts a request whose final
reply comes later (``rollout_command.start``)."""
Policy = Callable[[dict[str, Any]], bool]


class Runs(enum.Enum):
    """Where a command runs."""

    FRONT = "front"  # answered at once in the front process (`front`)
    # as FRONT, and stateless: a front replica may answer it while other clients wait
    # (worth the hop only when the work is more than the hop's cost: not `position`)
    REPLICA = "replica"
    WORKER = "worker"  # `prepare` in the front, then `worker` in a worker process
    STREAM = "stream"  # `start` in the front; the final reply comes later
    MATCH = "match"  # the hosted-match service (jacquetd.matches)


@dataclass(frozen=True, eq=False)
class Route:
    """One command's route. `heavy` (weight: whether a job may hold its worker long) and
    `stops_with_answer` (cancel: whether a `cancel` ends it `ok` with the deepest result
    finished rather than `cancelled`) read the job's and the request's arguments."""

    name: str
    runs: Runs
    front: FrontHandler | None = None
    packed: PackedWriter | None = None
    prepare: Prepare | None = None
    worker: WorkerHandler | None = None
    start: StreamStart | None = None
    heavy: Policy = job_checks.deep_search
    stops_with_answer: Policy = job_checks.never_stops
    bypasses_limits: bool = False  # admitted past its client's in-flight limit and a full
    # front queue (a control command: the transports read `BYPASSES_LIMITS`)
    jumps_queue: bool = False  # answered at once, ahead of the front's queue, when nothing
    # of its connection waits there (the transports read `JUMPS_QUEUE`)
    ends_session: bool = False  # the session ends once its reply is sent
    watch: bool = False  # MATCH: a match's events, streamed as partials (`follow`)
    protocol: bool = True  # False: a worker job only the daemon itself submits
    defaults: dict[str, Any] = field(default_factory=dict)  # filled from COMMANDS
    command: Command | None = None  # a protocol command's parameters (filled from COMMANDS)

    def check(self) -> None:
        """Raise ValueError unless the route has what its `runs` needs."""
        need: dict[Runs, tuple[str, ...]] = {
            Runs.FRONT: ("front",), Runs.REPLICA: ("front",),
            Runs.WORKER: ("worker",) + (("prepare",) if self.protocol else ()),
            Runs.STREAM: ("start",), Runs.MATCH: ()}
        missing = [n for n in need[self.runs] if getattr(self, n) is None]
        if missing:
            raise ValueError(f"route {self.name}: {self.runs.value} needs {missing}")
        if not self.protocol and self.runs is not Runs.WORKER:
            raise ValueError(f"route {self.name}: only a worker job may be no protocol "
                             "command")


_fc = front_commands
_ec = engine_commands
_jc = job_checks

_ROUTES: tuple[Route, ...] = (
    Route("hello", Runs.FRONT, front=_fc.handle_hello),
    Route("help", Runs.FRONT, front=_fc.handle_help),
    Route("ping", Runs.FRONT, front=_fc.handle_ping, bypasses_limits=True, jumps_queue=True),
    Route("position", Runs.FRONT, front=_fc.handle_position),
    Route("legal_moves", Runs.REPLICA, front=_fc.handle_legal_moves,
          packed=packed_plays.legal_moves_reply),
    Route("apply_move", Runs.REPLICA, front=_fc.handle_apply_move),
    Route("stats", Runs.FRONT, front=_fc.handle_stats),
    Route("cancel", Runs.FRONT, front=_fc.handle_cancel, bypasses_limits=True),
    Route("quit", Runs.FRONT, front=_fc.handle_quit, bypasses_limits=True,
          ends_session=True),
    Route("best_move", Runs.WORKER, prepare=_jc.prepare_rolled, worker=_ec.run_best_move,
          stops_with_answer=_jc.stops_with_budget),
    Route("analyze", Runs.WORKER, prepare=_jc.prepare_rolled, worker=_ec.run_analyze,
          stops_with_answer=_jc.always_stops),
    Route("evaluate", Runs.WORKER, prepare=_jc.prepare_evaluate, worker=_ec.run_evaluate),
    Route("cube", Runs.WORKER, prepare=_jc.prepare_cube, worker=_ec.run_cube),
    Route("luck", Runs.WORKER, prepare=_jc.prepare_luck, worker=_ec.run_luck),
    Route("analyze_record", Runs.WORKER, prepare=_jc.prepare_analyze_record,
          worker=_ec.run_analyze_record, heavy=_jc.always_heavy,
          stops_with_answer=_jc.always_stops),
    Route("bot_match", Runs.WORKER, prepare=scale_commands.prepare_bot_match,
          worker=scale_commands.run_bot_match),
    Route("rollout", Runs.STREAM, start=rollout_command.start),
    *(Route(c.name, Runs.MATCH, watch=c.name == "match_watch") for c in MATCH_COMMANDS),
    # worker jobs the daemon submits itself
    Route(gnubg_commands.GNUBG_DECIDE, Runs.WORKER, worker=gnubg_commands.run_gnubg_decide,
          heavy=_jc.deep_option_search, protocol=False),
    Route(gnubg_commands.GNUBG_EVALUATE, Runs.WORKER,
          worker=gnubg_commands.run_gnubg_evaluate, heavy=_jc.deep_option_search,
          protocol=False),
    Route(scale_commands.ROLLOUT_CHUNK, Runs.WORKER, worker=scale_commands.run_rollout_chunk,
          heavy=_jc.always_heavy, protocol=False),
    Route(engine_commands.MATCH_BOT, Runs.WORKER, worker=engine_commands.run_match_bot,
          protocol=False),
)

ROUTES: dict[str, Route] = {}
"""The route of every protocol command, by name (what a client may send)."""
TABLE: Mapping[str, Entry] = ROUTES  # type: ignore[assignment]  # each names its command
"""`ROUTES` as the codec's command table: the transports decode with it, so that a
request's route is found by the codec's one lookup (`Request.entry`)."""
JOBS: dict[str, Route] = {}
"""The route of every worker job (protocol commands and the daemon's own), by name."""
BYPASSES_LIMITS: set[str] = set()
"""The control commands admitted past their client's in-flight limit and a full front
queue (`cancel`, `ping`, `quit`)."""
JUMPS_QUEUE: set[str] = set()
"""The commands a transport answers at once, ahead of the front's queue, when nothing
of the same connection waits there (`ping`)."""


def _add(route: Route) -> None:
    route.check()
    if route.name in JOBS or route.name in ROUTES:
        raise ValueError(f"route {route.name}: declared twice")
    if route.protocol:
        command = COMMANDS.get(route.name)
        if command is None:
            raise ValueError(f"route {route.name}: no protocol command of that name")
        route = dataclasses.replace(
            route, defaults={p.name: p.default for p in command.all_params()}, command=command,
            front=_teaching(route.front, command), packed=_teaching(route.packed, command),
            prepare=_teaching(route.prepare, command))
        ROUTES[route.name] = route
        if route.bypasses_limits:
            BYPASSES_LIMITS.add(route.name)
        if route.jumps_queue:
            JUMPS_QUEUE.add(route.name)
    elif route.name in COMMANDS:
        raise ValueError(f"route {route.name}: a protocol command cannot be a daemon job")
    if route.runs is Runs.WORKER:
        JOBS[route.name] = route


def _teaching(handler: Any, command: Command) -> Any:
    """`handler` (None stays None) whose refusals of an argument carry `command`'s usage
    line, as the codec's refusals do: a position or a move is read where the command
    runs, not in the codec, and its refusal teaches the same way."""
    if handler is None:
        return None

    @functools.wraps(handler)
    def run(*args: Any) -> Any:
        try:
            return handler(*args)
        except ProtocolError as exc:
            raise with_usage(exc, command) from None

    return run


def _check_complete() -> None:
    unrouted = sorted(set(COMMANDS) - set(ROUTES))
    if unrouted:
        raise ValueError(f"protocol commands without a route: {unrouted}")


for _route in _ROUTES:
    _add(_route)
_check_complete()


def declare(command: Command, route: Route) -> None:
    """Add a command to this process: its parameters to the protocol's table (`hello`
    lists it, the codecs read its arguments) and its route here. Call it before the
    daemon serves; a `Runs.WORKER` route declared this way does not reach the worker
    processes (they import this module only)."""
    if command.name != route.name or command.name in COMMANDS:
        raise ValueError(f"declare {command.name}: a new command and its own route")
    COMMANDS[command.name] = command
    try:
        _add(route)
    except ValueError:
        del COMMANDS[command.name]
        raise


def worker_handler(name: str) -> WorkerHandler | None:
    """The worker side of job `name`, or None."""
    route = JOBS.get(name)
    return route.worker if route is not None else None


def packed_reply(cmd: str, request_id: Any, args: dict[str, Any], encoding: str
                 ) -> bytes | None:
    """The encoded success reply to front command `cmd` when it has a direct writer for
    `encoding` (msgpack), else None; raises what the command's handler raises."""
    route = ROUTES.get(cmd)
    if encoding != "msgpack" or route is None or route.packed is None:
        return None
    return route.packed(request_id, args)
