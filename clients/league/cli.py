"""`jacquet-league`: play a league described in a TOML file, or the built-in demo.

    jacquet-league run LEAGUE.toml [--concurrency N] [--resume] [--results FILE]
                   [--scheduler tcp://HOST:PORT | --local-cluster N]
    jacquet-league demo [--out DIR]

`run` writes, next to the league file unless told otherwise, the results
journal `NAME.results.jsonl` (append-only; `--resume` continues it), the
report `NAME.report.html`, the match records in `NAME.records/` and the
engines' error output in `NAME.logs/`, and prints the standings.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from pathlib import Path

from ..client import JacquetClient
from ..errors import EngineError
from .config import LeagueConfigError, load_league, parse_league
from .journal import JournalError
from .runner import League, LeagueOptions, LeagueResult
from .standings import format_table

DEMO = {
    "name": "demo",
    "variant": "jacquet",
    "format": "round-robin",
    "games": 4,
    "time_ms": 50,
    "seed": 2024,
}
#: Levels the demo prefers, at 0 plies so that it stays quick.
DEMO_LEVELS = ("random", "heuristic", "neural")


async def demo_engines(connect: str | None) -> list[dict[str, object]]:
    """Three of the daemon's levels (it says which it has in `hello`); if it has fewer,
    the same level under several names."""
    if connect:
        client = await JacquetClient.open(connect)
    else:
        client = await JacquetClient.spawn(["jacquetd", "stdio"])
    async with client:
        levels = [str(x) for x in client.server.get("levels", ["random"])]
    chosen = [lv for lv in DEMO_LEVELS if lv in levels] or levels[:1] or ["random"]
    engines: list[dict[str, object]] = []
    for i in range(3):
        level = chosen[i % len(chosen)]
        name = level if i < len(chosen) else f"{level}-{i + 1}"
        engines.append({"name": name, "level": level, **({"plies": 0} if level != "random"
                                                          else {})})
    return engines


def _options(args: argparse.Namespace, base: Path, stem: str) -> LeagueOptions:
    out = Path(args.out) if getattr(args, "out", None) else base
    return LeagueOptions(
        results=Path(args.results) if args.results else out / f"{stem}.results.jsonl",
        report=Path(args.report) if args.report else out / f"{stem}.report.html",
        records_dir=out / f"{stem}.records", resume=args.resume,
        concurrency=args.concurrency, connect=args.connect, progress=not args.quiet,
        log_dir=out / f"{stem}.logs", move_timeout=args.move_timeout,
        scheduler=args.scheduler, local_cluster=args.local_cluster)


def _finish(result: LeagueResult) -> int:
    print(format_table(result.standings))
    state = ("stopped by the SPRT" if result.stopped_by_sprt
             else "finished" if result.finished else "interrupted (run again with --resume)")
    print(f"\n{result.standings.matches} matches, {result.standings.games} games in "
          f"{result.elapsed_s:.1f} s, {result.faults} engine faults; {state}")
    for note in result.notes:
        print(note)
    if result.report is not None:
        print(f"report: {result.report}")
    return 0 if result.finished else 1


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--concurrency", "-j", type=int, help="games played at once")
    p.add_argument("--results", help="the results journal (JSON lines)")
    p.add_argument("--report", help="where to write the HTML report")
    p.add_argument("--resume", action="store_true", help="continue an existing journal")
    p.add_argument("--connect", help="the daemon to use instead of the league file's: "
                   "tcp://HOST:PORT (ZeroMQ), socket://HOST:PORT, or a command")
    p.add_argument("--move-timeout", type=float, help="seconds before a silent engine "
                   "loses the game (default: 3 x time_ms + 5)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="play the pairs of games "
                   "on the workers of this Dask scheduler (also [cluster] scheduler in the "
                   "league file; needs jacquetd[cluster])")
    p.add_argument("--local-cluster", type=int, metavar="N", help="play the pairs on a Dask "
                   "cluster of N local worker processes")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--log-level", default="warning")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jacquet-league", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="play a league file")
    run.add_argument("league", help="the league file (TOML)")
    _common(run)
    demo = sub.add_parser("demo", help="a small built-in league against a daemon it starts")
    demo.add_argument("--out", help="folder for the results (default: a new temporary one)")
    _common(demo)
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "run":
            path = Path(args.league)
            config = load_league(path)
            options = _options(args, path.parent, path.stem)
        else:
            if not args.out:
                args.out = tempfile.mkdtemp(prefix="jacquet-league-demo-")
            engines = asyncio.run(demo_engines(args.connect))
            config = parse_league({**DEMO, "engines": engines}, ".")
            options = _options(args, Path(args.out), "demo")
        if args.concurrency is not None and args.concurrency < 1:
            parser.error("--concurrency: at least 1")
        if args.local_cluster is not None and args.local_cluster < 1:
            parser.error("--local-cluster: at least 1 worker")
        return _finish(asyncio.run(League(config, options).run()))
    except (LeagueConfigError, JournalError, OSError) as exc:
        print(f"jacquet-league: {exc}", file=sys.stderr)
        return 2
    except EngineError as exc:  # the daemon itself failed; the journal keeps what was played
        print(f"jacquet-league: the daemon failed: {exc}; run again with --resume",
              file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("\njacquet-league: interrupted; run again with --resume to continue",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
