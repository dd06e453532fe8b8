"""The league and rollout jobs: the front check and the worker side of `bot_match`, and
`rollout_chunk`, the 36 trials that `rollout` hands to a worker (not a protocol
command). The `rollout` command itself runs in the front (`rollout_command`): it
streams, and it spreads its chunks over the worker pool or a Dask cluster. The
registry (`jacquetd.daemon.registry`) routes them.
"""

from __future__ import annotations

from typing import Any

from jacquetd.bots.interface import ENGINE
from jacquetd.daemon.engine_commands import WorkerCall
from jacquetd.daemon.front_commands import FrontContext
from jacquetd.errors import SearchTimedOut

ROLLOUT_CHUNK = "rollout_chunk"


def prepare_bot_match(ctx: FrontContext | None, args: dict[str, Any]) -> dict[str, Any]:
    from jacquetd.daemon.bot_match import check

    return check(args, list(ENGINE.levels))


def run_bot_match(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    from jacquetd.daemon.bot_match import run_bot_match as run

    return run(args, call)


def run_rollout_chunk(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    from jacquetd.bots.rollouts import run_chunk

    try:
        return {"chunk": run_chunk(args["spec"], int(args["index"]), call.should_stop)}
    except InterruptedError:
        raise SearchTimedOut() from None
