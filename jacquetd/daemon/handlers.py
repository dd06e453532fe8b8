"""Which handler answers which command: the front's table (``front_commands``) and the
workers' (``engine_commands``, ``gnubg_commands``, and the league and rollout jobs of
``scale_commands``), and the entry point a worker process calls for each job.

Handlers are plain functions of validated arguments (the protocol's command table
has already checked types and ranges). Every exception a handler raises becomes an
error reply through the one mapping, :func:`jacquetd.errors.to_protocol_error`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.bots import bearoff
from jacquetd.daemon import fault_hook, scale_commands
from jacquetd.daemon.engine_commands import (
    WorkerCall,
    WorkerHandler,
    run_analyze,
    run_analyze_record,
    run_best_move,
    run_cube,
    run_evaluate,
    run_luck,
    run_match_bot,
)
from jacquetd.daemon.fault_hook import FaultLevels
from jacquetd.daemon.front_commands import FRONT_HANDLERS
from jacquetd.daemon.gnubg_commands import (
    GNUBG_DECIDE,
    GNUBG_EVALUATE,
    run_gnubg_decide,
    run_gnubg_evaluate,
)

__all__ = ["FRONT_HANDLERS", "GNUBG_DECIDE", "GNUBG_EVALUATE", "WORKER_HANDLERS",
           "init_worker", "run_worker_command"]

WORKER_HANDLERS: dict[str, WorkerHandler] = {
    "best_move": run_best_move,
    "analyze": run_analyze,
    "evaluate": run_evaluate,
    "cube": run_cube,
    "luck": run_luck,
    "analyze_record": run_analyze_record,
    "match_bot": run_match_bot,
    GNUBG_DECIDE: run_gnubg_decide,
    GNUBG_EVALUATE: run_gnubg_evaluate,
}

WORKER_HANDLERS.update(scale_commands.WORKER_HANDLERS)

_worker_state: dict[str, Any] = {"seed": None}


def init_worker(seed: int | None, faults: FaultLevels | None = None) -> None:
    """Prepare this worker process: its seed, and the fault levels a test installed in
    the front (`fault_hook`; None in service)."""
    _worker_state["seed"] = seed
    fault_hook.install(faults)
    if faults is not None:
        faults.start()
    bearoff.BUILD_ON_DEMAND = False  # a request never builds a table: its deadline would
    # cut the build short; races are evaluated without it until the daemon has built it


def run_worker_command(
    cmd: str,
    args: dict[str, Any],
    deadline: float | None,
    seed: int | None,
    stop_flag: Callable[[], bool],
    report: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    handler = WORKER_HANDLERS.get(cmd)
    if handler is None:
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"no worker command {cmd}")
    call = WorkerCall(deadline, seed if seed is not None else _worker_state["seed"], stop_flag,
                      report)
    return handler(args, call)
