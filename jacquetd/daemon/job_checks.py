"""The front's side of the worker commands: each command's `prepare` (its arguments
checked before a worker takes them, so that a bad position is refused at once without
occupying a worker; the position parsed and validated here, once, into the rules
core's `Position`) and the weight policies that sort a job as heavy or cheap for the
pool. The registry (`jacquetd.daemon.registry`) names which command uses which."""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.daemon.front_commands import FrontContext
from jacquetd.daemon.plays import with_dice
from jacquetd.daemon.positions import resolve_position
from jacquetd.rules import Position

HEAVY_PLIES = 2  # a search this deep or deeper is heavy work
HEAVY_BUDGET_MS = 1000  # so is a time budget over this


# ---- weight policies: (job arguments) -> whether the job may hold its worker long -------

def deep_search(args: dict[str, Any]) -> bool:
    """A search of `HEAVY_PLIES` or more, or a time budget over `HEAVY_BUDGET_MS`: it then
    waits while the workers kept for cheap requests are the only free ones."""
    plies = args.get("plies")
    if isinstance(plies, int) and plies >= HEAVY_PLIES:
        return True
    budget = args.get("time_ms")
    return isinstance(budget, int) and budget > HEAVY_BUDGET_MS


def deep_option_search(args: dict[str, Any]) -> bool:
    """`deep_search` of a gnubg line's options (its `plies`)."""
    return deep_search(args.get("options") or {})


def always_heavy(args: dict[str, Any]) -> bool:
    return True


# ---- cancel policies: (request arguments) -> whether a cancel ends it with an answer ----

def never_stops(args: dict[str, Any]) -> bool:
    return False


def always_stops(args: dict[str, Any]) -> bool:
    """An iterative search (`analyze`): a cancel ends it `ok` with the deepest result."""
    return True


def stops_with_budget(args: dict[str, Any]) -> bool:
    """A search with a budget (`best_move` with `time_ms`) deepens iteratively: a cancel
    ends it `ok` with the deepest result finished."""
    return bool(args.get("time_ms"))


# ---- prepare: (context, checked arguments) -> the job's arguments ------------------------

def check_plies(plies: Any, max_plies: int, field: str = "plies") -> None:
    """Refuse a search deeper than the server's `max_plies` (bad_argument, limit named)."""
    if isinstance(plies, int) and plies > max_plies:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"{field}: {plies} is deeper than this "
                            f"server serves (limits.max_plies = {max_plies})", field=field,
                            limit="max_plies")


def _job(args: dict[str, Any], pos: Position, *, keep_dice: bool = False) -> dict[str, Any]:
    job = dict(args)
    job["position"] = pos  # validated here, once: the worker takes it as it is
    if not keep_dice:
        job.pop("dice", None)
    return job


def _before_roll(cmd: str, pos: Position) -> Position:
    if pos.dice:
        raise ProtocolError(ErrorCode.BAD_POSITION, f"{cmd} takes a position before the roll "
                            "(no dice)", field="position.dice")
    return pos


def prepare_rolled(ctx: FrontContext | None, args: dict[str, Any]) -> dict[str, Any]:
    """`best_move`, `analyze`: a position with dice (its own or `dice`)."""
    return _job(args, with_dice(resolve_position(args["position"], args.get("dice"))))


def prepare_evaluate(ctx: FrontContext | None, args: dict[str, Any]) -> dict[str, Any]:
    """`evaluate`: a position before the roll."""
    pos = resolve_position(args["position"], args.get("dice"))
    return _job(args, _before_roll("evaluate", pos))


def prepare_cube(ctx: FrontContext | None, args: dict[str, Any]) -> dict[str, Any]:
    """`cube`: a position before the roll, with the cube in play (C1)."""
    pos = _before_roll("cube", resolve_position(args["position"], args.get("dice")))
    if pos.cube is None:
        raise ProtocolError(ErrorCode.BAD_POSITION, "the cube is off in this position: there "
                            "is no doubling decision", field="position.cube", rule="C1")
    return _job(args, pos)


def prepare_luck(ctx: FrontContext | None, args: dict[str, Any]) -> dict[str, Any]:
    """`luck`: a position before the roll, of a game not over; `dice` is the roll judged."""
    pos = _before_roll("luck", resolve_position(args["position"]))
    if pos.game_over():
        raise ProtocolError(ErrorCode.BAD_POSITION, "the game is over: nobody rolls",
                            field="position")
    return _job(args, pos, keep_dice=True)


def prepare_analyze_record(ctx: FrontContext | None, args: dict[str, Any]) -> dict[str, Any]:
    """`analyze_record`: the record text itself, or that of a hosted match; a record that
    cannot be read is refused at once."""
    from jacquetd.daemon.record_analysis import read_record

    record = args.get("record")
    if record is None:
        if args.get("match_id") is None or ctx is None:
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, "record: give `record` (the text of "
                                "a match record) or `match_id`", field="record")
        record = ctx.match_record(args["match_id"])
    read_record(record)
    job = {k: v for k, v in args.items()
           if k in ("game", "luck", "plies", "doubtful", "error", "blunder", "partials",
                     "annotate")}
    job["record"] = record
    return job


def job_position(args: dict[str, Any]) -> Position:
    """The position of a worker job: the one `prepare` validated (it crosses the pipe
    pickled, and is not validated again), or a structured map from any other caller."""
    value = args["position"]
    return value if isinstance(value, Position) else Position.from_dict(value)
