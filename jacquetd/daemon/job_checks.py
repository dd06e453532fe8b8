"""The front's side of the worker commands: a job's arguments are checked here, before
a worker takes it, so that a bad position is refused at once without occupying a
worker; and a job is sorted as heavy or cheap for the pool."""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.daemon import scale_commands
from jacquetd.daemon.gnubg_commands import GNUBG_DECIDE, GNUBG_EVALUATE
from jacquetd.daemon.plays import with_dice
from jacquetd.daemon.positions import resolve_position
from jacquetd.rules import Position

HEAVY_PLIES = 2  # a search this deep or deeper is heavy work
HEAVY_BUDGET_MS = 1000  # so is a time budget over this


def is_heavy(cmd: str, args: dict[str, Any]) -> bool:
    """Whether a worker job may hold its worker long (it then waits while the workers
    kept for cheap requests are the only free ones)."""
    if cmd in ("analyze_record",):
        return True
    if cmd == "match_bot":
        job = getattr(getattr(args.get("call"), "func", None), "__self__", None)
        return float(getattr(job, "time_s", 0.0)) * 1000 > HEAVY_BUDGET_MS
    plies = args.get("plies")
    if cmd in (GNUBG_DECIDE, GNUBG_EVALUATE):
        plies = (args.get("options") or {}).get("plies")
    if isinstance(plies, int) and plies >= HEAVY_PLIES:
        return True
    budget = args.get("time_ms")
    return isinstance(budget, int) and budget > HEAVY_BUDGET_MS


def check_plies(plies: Any, max_plies: int, field: str = "plies") -> None:
    """Refuse a search deeper than the server's `max_plies` (bad_argument, limit named)."""
    if isinstance(plies, int) and plies > max_plies:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{field}: {plies} is deeper than this "
                            f"server serves (limits.max_plies = {max_plies})", field=field,
                            limit="max_plies")


def prepare(cmd: str, args: dict[str, Any]) -> dict[str, Any]:
    """Check a worker command's position in the front; return the job's arguments."""
    if cmd in scale_commands.PREPARE:  # bot_match (jacquetd.daemon.scale_commands)
        return scale_commands.PREPARE[cmd](args)
    if cmd == "analyze_record":
        from jacquetd.daemon.record_analysis import read_record

        read_record(args.get("record"))  # a record that cannot be read is refused at once
        return {k: v for k, v in args.items() if k in ("record", "game", "luck")}
    if cmd == "luck":
        pos = resolve_position(args["position"])
    else:
        pos = resolve_position(args["position"], args.get("dice"))
    if cmd in ("best_move", "analyze"):
        with_dice(pos)
    elif pos.dice:
        raise ProtocolError(ErrorCode.BAD_POSITION, f"{cmd} takes a position before the roll "
                            "(no dice)", field="position.dice")
    if cmd == "cube" and pos.cube is None:
        raise ProtocolError(ErrorCode.BAD_POSITION, "the cube is off in this position: there "
                            "is no doubling decision", field="position.cube", rule="C1")
    if cmd == "luck" and pos.game_over():
        raise ProtocolError(ErrorCode.BAD_POSITION, "the game is over: nobody rolls",
                            field="position")
    job = dict(args)
    job["position"] = pos  # validated here, once: the worker takes it as it is
    if cmd != "luck":
        job.pop("dice", None)
    return job


def job_position(args: dict[str, Any]) -> Position:
    """The position of a worker job: the one `prepare` validated (it crosses the pipe
    pickled, and is not validated again), or a structured map from any other caller."""
    value = args["position"]
    return value if isinstance(value, Position) else Position.from_dict(value)
