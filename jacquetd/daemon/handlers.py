"""One handler per protocol command, and the one place where exceptions
become error codes.

Handlers are plain functions of validated arguments (``protocol.commands``
has already checked types and ranges). *Front* handlers are cheap and run in
the asyncio process (``hello``, ``ping``, ``position``, ``legal_moves``,
``apply_move``, ``stats``, ``cancel``, ``quit``); *worker* handlers search or
evaluate and run in a worker process (``best_move``, ``analyze``,
``evaluate``, ``cube``, and the gnubg endpoint's decisions). A worker
command's arguments are first checked in the front (``prepare``), so a bad
position is refused at once without occupying a worker.

Every exception a handler raises goes through :func:`to_protocol_error`:
rules errors keep their RULES.md id, a missing engine is ``bad_argument``,
anything unexpected is ``internal`` with a generic message (the traceback
goes to the log, never to the peer).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from jacquetd_protocol import gnubg_wire
from jacquetd_protocol.commands import describe
from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.daemon import engine_api, gnubg, scale_commands
from jacquetd.daemon.positions import board_literal, position_fields, resolve_position
from jacquetd.rules import (
    VARIANTS,
    AmbiguousMoveError,
    GameStateError,
    IllegalMoveError,
    MoveSyntaxError,
    Play,
    Position,
    PositionError,
    RulesError,
    apply_move,
    legal_plays,
)
from jacquetd.rules.position import CHECKERS
from jacquetd.rules.scoring import game_result, result_name
from jacquetd.version import version

log = logging.getLogger(__name__)

try:  # the compiled move generator (numba); the pure one otherwise
    from jacquetd import fastgen as _fastgen_module

    _fastgen: Any = _fastgen_module if _fastgen_module.available() else None
except ImportError:  # pragma: no cover - numpy missing
    _fastgen = None

ENGINE_NAME = "jacquetd"

#: Worker jobs of the gnubg endpoint (not protocol commands).
GNUBG_DECIDE = "gnubg_decide"
GNUBG_EVALUATE = "gnubg_evaluate"


# ---- exceptions -> error codes: the one mapping ------------------------------------------


def to_protocol_error(exc: BaseException) -> ProtocolError:
    """The error a peer sees for ``exc``."""
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, PositionError):
        return ProtocolError(ErrorCode.BAD_POSITION, exc.message, field="position", rule=exc.rule)
    if isinstance(exc, AmbiguousMoveError):
        return ProtocolError(
            ErrorCode.ILLEGAL_MOVE, exc.message, field="move", rule=exc.rule,
            candidates=list(exc.candidates),
        )
    if isinstance(exc, IllegalMoveError | MoveSyntaxError):
        return ProtocolError(ErrorCode.ILLEGAL_MOVE, exc.message, field="move", rule=exc.rule)
    if isinstance(exc, GameStateError):
        return ProtocolError(ErrorCode.BAD_POSITION, exc.message, field="position", rule=exc.rule)
    if isinstance(exc, RulesError):
        return ProtocolError(ErrorCode.BAD_POSITION, exc.message, rule=exc.rule)
    if isinstance(exc, engine_api.Unsupported):
        return ProtocolError(ErrorCode.BAD_ARGUMENT, str(exc), field=exc.field)
    if isinstance(exc, SearchTimedOut):
        return ProtocolError(ErrorCode.TIMEOUT, "the deadline passed during the search")
    return ProtocolError(ErrorCode.INTERNAL, "internal error")


def error_fields(exc: BaseException) -> tuple[str, str, str | None, str | None, dict[str, Any]]:
    """``(code, message, rule, field, extra)`` of ``exc``: what a worker sends back."""
    err = to_protocol_error(exc)
    return str(err.code), err.message, err.rule, err.field, dict(err.extra)


class SearchTimedOut(RuntimeError):
    """A search was stopped by its deadline before it had any answer."""


# ---- positions -----------------------------------------------------------------------------


def _with_dice(pos: Position) -> Position:
    if not pos.dice:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT,
                            "dice: the position has no dice; give `dice`", field="dice")
    return pos


# ---- fast paths for the front process ------------------------------------------------------
#
# legal_moves is the daemon's hottest command: the plays come from the compiled generator
# (same plays, order and spellings as the rules core; tests/daemon/test_units.py compares
# them); the rules core caches the packed sides of ids and the spellings of plays.

def position_id(pos: Position) -> str:
    """``pos.to_id()`` (kept as a name the handlers share)."""
    return pos.to_id()


def plays_of(pos: Position) -> list[Play]:
    """``legal_plays(pos)``, by the compiled generator when it is available."""
    if _fastgen is not None and pos.dice and not pos.game_over():
        return [Play(pos, raw) for raw in _fastgen.generate(pos)]
    return legal_plays(pos)


def game_result_of(play: Play) -> dict[str, Any] | None:
    """The result of the game when ``play`` ends it (the mover bore off its last checker):
    the mover (``on_roll`` of the position the play was made in) wins ``points`` (J12, B8,
    C4, times the cube by C3)."""
    raw = play.raw
    if raw.me[0] < CHECKERS:
        return None
    after = play.after
    variant = after.rules
    points = game_result(variant, raw.me, raw.opp, after.primed[1])
    cube = after.cube.value if after.cube is not None else 1
    return {"winner": "on_roll", "points": points * cube,
            "name": result_name(variant, points)}


def play_dict(play: Play) -> dict[str, Any]:
    after = play.after
    d = {
        "move": play.move,
        **position_fields(after),
        "hits": play.hits,
        "borne_off": play.borne_off,
    }
    if play.raw.me[0] == CHECKERS:
        d["result"] = game_result_of(play)
    return d


def warm_up() -> float:
    """Compile (or load) the compiled move generator now rather than on the first request;
    returns the seconds it took (0.0 without it)."""
    if _fastgen is None:
        return 0.0
    # On a first start both compiles are due: the encoder's runs in a second process
    # meanwhile (another core), and is then loaded from the cache it wrote.
    aside = _compile_encoder_aside()
    try:
        seconds = float(_fastgen.warm_up())
    except Exception:  # a kernel that disagrees with the rules core is not used
        log.exception("event=fastgen_disabled")
        _disable_fastgen()
        return 0.0
    finally:
        if aside is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                aside.wait(ENCODER_ASIDE_TIMEOUT_S)
            if aside.poll() is None:
                aside.kill()
    return seconds + warm_up_encoder()


ENCODER_ASIDE_TIMEOUT_S = 600.0


def _encoder_cached() -> bool:
    """Whether numba's cache holds the compiled encoder (its index file): in
    ``$NUMBA_CACHE_DIR`` when set, else beside the module."""
    spec = importlib.util.find_spec("jacquetd.bots.fastencode")
    if spec is None or spec.origin is None:
        return True  # no bots: nothing to compile
    pattern = "fastencode._encode_rows-*.nbi"
    chosen = os.environ.get("NUMBA_CACHE_DIR")  # when set, numba looks there alone
    places = [Path(chosen)] if chosen else [Path(spec.origin).parent / "__pycache__"]
    return any(next(place.rglob(pattern), None) is not None for place in places
               if place.is_dir())


def _compile_encoder_aside() -> subprocess.Popen[bytes] | None:
    if _encoder_cached():
        return None
    try:
        return subprocess.Popen(
            [sys.executable, "-c",
             "from jacquetd.daemon.handlers import warm_up_encoder; warm_up_encoder()"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def warm_up_encoder() -> float:
    """Compile (or load) the networks' compiled input encoder here, once, before the
    workers start: otherwise every worker compiles it at its first neural request, all
    at the same time. Returns the seconds it took (0.0 without the bots or numba)."""
    t0 = time.perf_counter()
    try:
        import numpy as np

        from jacquetd.bots import features
        from jacquetd.rules.variants import find_variant
    except ImportError:
        return 0.0
    pos = Position.initial("jacquet")
    try:
        features.encode(find_variant("jacquet"), np.array([pos.me], dtype=np.int16),
                        np.array([pos.opp], dtype=np.int16))
    except Exception:  # the workers will meet (and report) the same failure
        log.warning("event=encoder_warm_up_failed", exc_info=True)
    return time.perf_counter() - t0


def _disable_fastgen() -> None:
    global _fastgen
    _fastgen = None


# ---- front handlers -----------------------------------------------------------------------


class FrontContext(Protocol):
    """What front handlers may ask of the service (implemented by ``service.Service``)."""

    def hello_extra(self) -> dict[str, Any]: ...

    def stats_result(self) -> dict[str, Any]: ...

    def cancel(self, target: Any) -> bool: ...


FrontHandler = Callable[[FrontContext, dict[str, Any]], dict[str, Any]]


def handle_hello(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    from jacquetd_protocol.version import negotiate

    chosen = negotiate(args.get("versions"))
    extra = ctx.hello_extra()
    result = describe(extra.pop("codec_limits"))
    result.update(
        protocol=chosen,
        engine=ENGINE_NAME,
        version=version(),
        variants=list(VARIANTS),
        levels=extra.pop("levels"),
    )
    result["limits"] = extra.pop("limits")
    result.update(extra)
    return result


def handle_ping(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    return {}


def handle_position(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    pos = resolve_position(args["position"])
    return position_fields(pos)


def compact_play_dict(play: Play) -> dict[str, Any]:
    """The compact play record (`legal_moves` with `compact`): move, id, board literal."""
    after = play.after
    d: dict[str, Any] = {"move": play.move, "position_id": after.to_id(),
                         "board": board_literal(after)}
    if play.raw.me[0] == CHECKERS:
        d["result"] = game_result_of(play)
    return d


def handle_legal_moves(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    pos = _with_dice(resolve_position(args["position"], args.get("dice")))
    record = compact_play_dict if args.get("compact") else play_dict
    plays = [record(p) for p in plays_of(pos)]
    return {"count": len(plays), "plays": plays}


def handle_apply_move(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    pos = _with_dice(resolve_position(args["position"], args.get("dice")))
    return play_dict(apply_move(pos, args["move"]))


def handle_stats(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.stats_result()


def handle_cancel(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    target = args["target"]
    if not ctx.cancel(target):
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no request {target!r} of this client is in "
                            "flight", field="target")
    return {"target": target}


def handle_quit(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    return {}  # the transport ends the session after sending this reply


FRONT_HANDLERS: dict[str, FrontHandler] = {
    "hello": handle_hello,
    "ping": handle_ping,
    "position": handle_position,
    "legal_moves": handle_legal_moves,
    "apply_move": handle_apply_move,
    "stats": handle_stats,
    "cancel": handle_cancel,
    "quit": handle_quit,
}


# ---- worker commands: checked in the front, run in a worker --------------------------------


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
        _with_dice(pos)
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


@dataclass
class WorkerCall:
    """What a worker handler gets besides its arguments."""

    deadline: float | None
    seed: int | None
    stop_flag: Callable[[], bool]
    report: Callable[[dict[str, Any]], None]
    test_levels: bool = False

    def should_stop(self) -> bool:
        return self.stop_flag() or (self.deadline is not None and time.monotonic() >= self.deadline)


WorkerHandler = Callable[[dict[str, Any], WorkerCall], dict[str, Any]]


def _test_bot(level: str, call: WorkerCall, time_ms: int | None) -> None:
    """Levels for the daemon's own fault tests (``test_levels = true``): ``test-sleep``
    sleeps ``time_ms`` watching the stop flag, ``test-hang`` sleeps ignoring it,
    ``test-crash`` kills its worker process, ``test-hog`` takes memory until stopped."""
    seconds = (time_ms or 1000) / 1000.0
    if level == "test-crash":
        os._exit(70)
    if level == "test-hog":  # grows by 64 MB every 50 ms until stopped
        hoard = []
        end = time.monotonic() + seconds
        while time.monotonic() < end and not call.should_stop():
            hoard.append(bytearray(64 << 20))
            time.sleep(0.05)
        raise SearchTimedOut()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if level == "test-sleep" and call.should_stop():
            raise SearchTimedOut()
        time.sleep(0.01)


TEST_LEVELS = ("test-sleep", "test-hang", "test-crash", "test-hog")


def run_best_move(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    level = args.get("level") or engine_api.default_level()
    started = time.monotonic()
    if call.test_levels and level in TEST_LEVELS:
        _test_bot(level, call, args.get("time_ms"))
        play = legal_plays(pos)[0]
    elif args.get("plies") is not None and engine_api.searches(level):
        # an explicit depth: the top play of the deepest ranking finished (as `analyze`)
        ranking = _deepest(pos, int(args["plies"]), 1, args.get("time_ms"), call, None)
        play = ranking[0].play
    else:
        bot = engine_api.get_bot(level, pos.variant, args.get("seed", call.seed))
        play = bot.choose(pos, movetime_ms=args.get("time_ms"), should_stop=call.should_stop)
    result = {
        "play": play_dict(play),
        "level": level,
        "elapsed_ms": round((time.monotonic() - started) * 1e3, 3),
    }
    if call.stop_flag():  # a cancel: the best play of the deepest search finished
        result["stopped"] = True
    return result


def _ranked(entry: Any) -> dict[str, Any]:
    d = play_dict(entry.play)
    probs = entry.evaluation.to_dict()
    for key in ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"):
        d[key] = probs[key]
    d["equity"] = entry.equity
    d["plies"] = entry.plies
    return d


def _deepest(pos: Position, plies: int, max_plays: int | None, time_ms: int | None,
             call: WorkerCall, each: Callable[[list[Any]], None] | None) -> list[Any]:
    """The ranking of the deepest search finished (at most `plies`) before the budget
    `time_ms`, the deadline or a stop; `each` sees every ranking as it is finished."""
    budget_end = time.monotonic() + time_ms / 1000.0 if time_ms else None

    def stop() -> bool:
        return call.should_stop() or (budget_end is not None and time.monotonic() >= budget_end)

    last: list[Any] | None = None
    for ranking in engine_api.analyze(pos, plies, max_plays, stop):
        last = ranking
        if each is not None:
            each(ranking)
        if call.should_stop():
            break
    if last is None:
        raise SearchTimedOut()
    return last


def run_analyze(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    started = time.monotonic()
    plies = int(args.get("plies", 1))

    def report(ranking: list[Any]) -> None:
        call.report({
            "plays": [_ranked(e) for e in ranking],
            "plies": ranking[0].plies if ranking else 0,
            "elapsed_ms": round((time.monotonic() - started) * 1e3, 3),
        })

    last = _deepest(pos, plies, args.get("max_plays", 10), args.get("time_ms"), call,
                    report if args.get("partials", True) else None)
    result = {
        "plays": [_ranked(e) for e in last],
        "plies": last[0].plies if last else plies,
        "elapsed_ms": round((time.monotonic() - started) * 1e3, 3),
    }
    if call.stop_flag():  # a cancel: the deepest ranking finished before it
        result["stopped"] = True
    return result


def run_evaluate(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    plies = int(args.get("plies") or 0)
    result = engine_api.evaluate(pos, plies)
    result["plies"] = plies
    return result


def run_luck(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    d1, d2 = args["dice"]
    return {"luck": round(engine_api.luck(pos, (int(d1), int(d2))), 6), "plies": 0}


def run_analyze_record(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    from jacquetd.daemon.record_analysis import analyze_record, read_record

    return analyze_record(read_record(args["record"]), game=args.get("game"),
                          luck=bool(args.get("luck", True)), should_stop=call.should_stop)


def run_match_bot(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    """A bot seat's decision for a hosted match (``jacquetd.daemon.hosted``)."""
    from jacquetd.daemon.hosted import run_match_bot as run

    return run(args)


def run_cube(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    plies = int(args.get("plies") or 0)
    result = engine_api.cube_decision(pos, plies)
    result.setdefault("plies", plies)
    return result


# ---- the gnubg endpoint's decisions ----------------------------------------------------------


def run_gnubg_decide(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    """The reply line to a ``board:`` request: a move, a cube action or a resignation
    answer. Without an evaluator the cube policy is fixed and plain: never double,
    always take, reject resignations."""
    question = gnubg.board_position(args["board"])
    options = args.get("options", {})
    pos = question.position
    level = args.get("level") or engine_api.default_level()
    resignation = options.get("resignation")
    if resignation:
        return {"reply": _gnubg_resignation(pos, question.actor_on_roll, int(resignation))}
    if not question.actor_on_roll:
        return {"reply": _gnubg_take(pos)}
    if not pos.dice:
        return {"reply": _gnubg_double(pos)}
    bot = engine_api.get_bot(level, pos.variant, args.get("seed", call.seed))
    play = _as_gnubg_plays_it(pos, bot.choose(pos, should_stop=call.should_stop))
    return {"reply": gnubg_wire.format_move(play.move), "move": play.move}


def _as_gnubg_plays_it(pos: Position, play: Play) -> Play:
    """The winning play that uses the most dice, when `play` wins with fewer.

    Our rules count the dice left over after the fifteenth checker is off as
    played (docs/RULES-READINGS.md, reading 1), so with one checker on the
    2-point and 4-1, both 2/off and 2/1*/off win. GNU Backgammon keeps only
    the play that uses both dice and refuses the other (it records "cannot
    move" and the game goes on), so its endpoint gets the longest winning play.
    """
    if not play.after.game_over():
        return play
    winners = [p for p in plays_of(pos) if p.after.game_over()]
    longest = max(p.dice_used for p in winners)
    if play.dice_used >= longest:
        return play
    return next(p for p in winners if p.dice_used == longest)


def _gnubg_double(pos: Position) -> str:
    try:
        decision = engine_api.cube_decision(pos, 0)
    except engine_api.Unsupported:
        return "roll\n"
    return "double\n" if decision.get("action") == "double" else "roll\n"


def _gnubg_take(pos: Position) -> str:
    # `pos` is from the doubler's side (on roll, double pending); the answer is ours.
    try:
        decision = engine_api.cube_decision(pos, 0)
    except engine_api.Unsupported:
        return "take\n"
    return "drop\n" if decision.get("take") == "drop" else "take\n"


def _gnubg_resignation(pos: Position, on_roll_is_us: bool, points: int) -> str:
    try:
        evaluation = engine_api.evaluate(pos.without_dice(), 0)
    except engine_api.Unsupported:
        return "reject\n"
    equity = float(evaluation["equity"])
    ours = equity if on_roll_is_us else -equity
    cube = pos.cube.value if pos.cube is not None else 1
    return "accept\n" if points * cube >= ours * cube else "reject\n"


def run_gnubg_evaluate(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    """``evaluation fibsboard``: P(win), P(win g), P(win bg), P(lose g), P(lose bg) and
    the equity, for the side to act."""
    question = gnubg.board_position(args["board"])
    pos = question.position.without_dice()
    plies = int(args.get("options", {}).get("plies", 0))
    e = engine_api.evaluate(pos, plies)
    # the sixth number: money equity, or in match play the match-winning chance (cubeless)
    last = engine_api.match_winning_chance(pos, e) if pos.match is not None else e["equity"]
    if question.actor_on_roll:
        values = [e["win"], e["win_gammon"], e["win_backgammon"], e["lose_gammon"],
                  e["lose_backgammon"], last]
    else:
        values = [1.0 - e["win"], e["lose_gammon"], e["lose_backgammon"], e["win_gammon"],
                  e["win_backgammon"], 1.0 - last if pos.match is not None else -last]
    return {"reply": gnubg.format_evaluation([float(v) for v in values])}


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

_worker_state: dict[str, Any] = {"seed": None, "test_levels": False}


def init_worker(seed: int | None, test_levels: bool = False) -> None:
    _worker_state["seed"] = seed
    _worker_state["test_levels"] = test_levels
    engine_api.no_table_builds_in_requests()
    for level in engine_api.levels():  # warm the bots' imports before the first request
        if level != "random":
            break


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
                      report, bool(_worker_state["test_levels"]))
    return handler(args, call)
