"""The entry point of a worker process: its state, set once when it starts, and the
call of each job's handler, found in the registry (`jacquetd.daemon.registry`).

Handlers are plain functions of validated arguments (the protocol's command table
and the command's `prepare` have checked them in the front). Every exception a
handler raises becomes an error reply through the one mapping,
:func:`jacquetd.errors.to_protocol_error`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.bots import bearoff_store
from jacquetd.daemon import fault_hook, registry
from jacquetd.daemon.engine_commands import WorkerCall
from jacquetd.daemon.fault_hook import FaultLevels
from jacquetd.search_settings import DEFAULT_SETTINGS, SearchSettings, use_settings


@dataclass(frozen=True)
class WorkerState:
    """What one worker process was started with: the seed of jobs that give none."""

    seed: int | None


def init_worker(seed: int | None, faults: FaultLevels | None = None,
                search: SearchSettings = DEFAULT_SETTINGS) -> WorkerState:
    """Prepare this worker process: the fault levels a test installed in the front
    (`fault_hook`; None in service), the daemon's search settings (its move filter and
    pruning), and no bear-off table built on demand (a request's deadline would cut the
    build short; races are evaluated without it until the daemon has built it). Returns
    the state its jobs run with."""
    use_settings(search)
    fault_hook.install(faults)
    if faults is not None:
        faults.start()
    bearoff_store.never_build()  # this process's policy, set once before any job
    return WorkerState(seed)


def run_worker_command(state: WorkerState, cmd: str, args: dict[str, Any],
                       deadline: float | None, seed: int | None, stop_flag: Callable[[], bool],
                       report: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    handler = registry.worker_handler(cmd)
    if handler is None:
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"no worker command {cmd}")
    call = WorkerCall(deadline, seed if seed is not None else state.seed, stop_flag, report)
    return handler(args, call)
