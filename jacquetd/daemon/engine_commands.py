"""The engine commands a worker process runs: ``best_move``, ``analyze``, ``evaluate``,
``cube``, ``luck``, ``analyze_record`` and the hosted matches' bot decisions. Each
takes the job's arguments (checked in the front by the command's `prepare`, see
``job_checks``) and a :class:`WorkerCall`, and asks the bots' engine
(``jacquetd.bots.interface.ENGINE``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jacquetd.bots.interface import ENGINE
from jacquetd.daemon import fault_hook
from jacquetd.daemon.job_checks import job_position
from jacquetd.daemon.plays import play_dict
from jacquetd.errors import SearchTimedOut
from jacquetd.rules import Position, legal_plays


@dataclass
class WorkerCall:
    """What a worker handler gets besides its arguments."""

    deadline: float | None
    seed: int | None
    stop_flag: Callable[[], bool]
    report: Callable[[dict[str, Any]], None]

    def should_stop(self) -> bool:
        return self.stop_flag() or (self.deadline is not None and time.monotonic() >= self.deadline)


WorkerHandler = Callable[[dict[str, Any], WorkerCall], dict[str, Any]]

MATCH_BOT = "match_bot"
"""The worker job of a hosted match's bot seat (not a protocol command)."""


def run_best_move(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    level = args.get("level") or ENGINE.default_level
    started = time.monotonic()
    faults = fault_hook.installed()  # only ever set by the daemon's own tests
    if faults is not None and level in faults.levels:
        faults.run(level, call.should_stop, args.get("time_ms"))
        play = legal_plays(pos)[0]
    elif args.get("plies") is not None and ENGINE.searches(level):
        # an explicit depth: the top play of the deepest ranking finished (as `analyze`)
        ranking = _deepest(pos, int(args["plies"]), 1, args.get("time_ms"), call, None)
        play = ranking[0].play
    else:
        play = ENGINE.choose(pos, level, seed=args.get("seed", call.seed),
                             movetime_ms=args.get("time_ms"), should_stop=call.should_stop)
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
    for ranking in ENGINE.analyze(pos, plies=plies, max_plays=max_plays, should_stop=stop):
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
    result: dict[str, Any] = ENGINE.evaluate(pos, plies=plies).to_dict()
    result["plies"] = plies
    return result


def run_luck(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    d1, d2 = args["dice"]
    return {"luck": round(ENGINE.luck(pos, (int(d1), int(d2))), 6), "plies": 0}


def run_analyze_record(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    from jacquetd.daemon.record_analysis import analyze_record, read_record

    thresholds = {k: float(args[k]) for k in ("doubtful", "error", "blunder")
                  if args.get(k) is not None}
    return analyze_record(read_record(args["record"]), game=args.get("game"),
                          luck=bool(args.get("luck", True)), plies=int(args.get("plies") or 0),
                          thresholds=thresholds, should_stop=call.should_stop,
                          cancelled=call.stop_flag,
                          report=call.report if args.get("partials") else None,
                          annotate=bool(args.get("annotate")))


def run_match_bot(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    """A bot seat's decision for a hosted match (``jacquetd.daemon.hosted``): `call` is
    the seat's decider, bound to its question, pickled by the front."""
    return {"answer": str(args["call"]())}


def run_cube(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    pos = job_position(args)
    plies = int(args.get("plies") or 0)
    result: dict[str, Any] = ENGINE.cube(pos, plies=plies).to_dict()
    result.setdefault("plies", plies)
    return result
