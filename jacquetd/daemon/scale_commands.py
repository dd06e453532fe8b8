"""Where the league and rollout commands join the daemon's tables.

`handlers` reads two things from here: the front checks of the worker
commands (`PREPARE`) and the worker jobs (`WORKER_HANDLERS`: `bot_match`, and
`rollout_chunk`, the 36 trials that `rollout` hands to a worker; not a protocol
command). The `rollout` command
itself runs in the front (`rollout_command`): it streams, and it spreads its
chunks over the worker pool or a Dask cluster.
"""

from __future__ import annotations

from typing import Any

from jacquetd.bots.interface import ENGINE
from jacquetd.errors import SearchTimedOut

ROLLOUT_CHUNK = "rollout_chunk"


def _prepare_bot_match(args: dict[str, Any]) -> dict[str, Any]:
    from jacquetd.daemon.bot_match import check

    return check(args, list(ENGINE.levels))


def _run_bot_match(args: dict[str, Any], call: Any) -> dict[str, Any]:
    from jacquetd.daemon.bot_match import run_bot_match

    return run_bot_match(args, call)


def _run_rollout_chunk(args: dict[str, Any], call: Any) -> dict[str, Any]:
    from jacquetd.bots.rollouts import run_chunk

    try:
        return {"chunk": run_chunk(args["spec"], int(args["index"]), call.should_stop)}
    except InterruptedError:
        raise SearchTimedOut() from None


PREPARE = {"bot_match": _prepare_bot_match}
WORKER_HANDLERS = {"bot_match": _run_bot_match, ROLLOUT_CHUNK: _run_rollout_chunk}
