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

from ..about import version_text
from ..client import JacquetClient
from ..errors import EngineError, EngineStartError
from ..spawning import EXIT_ENGINE_START, spawn_engine
from .config import LeagueConfigError, load_league, parse_league
from .journal import JournalError
from .progress import Progress
from .runner import DAEMON_TIMEOUT_S, League, LeagueOptions, LeagueResult
from .standings import format_table

DEMO = {
    "name": "demo",
    "variant": "jacquet",
    "format": "round-robin",
    "games": 4,
    "time_ms": 50,
    "seed": 2024,
    "concurrency": 2,
}
#: Levels the demo prefers, at 0 plies so that it stays quick.
DEMO_LEVELS = ("random", "heuristic", "neural")


def demo_engines(levels: list[str]) -> list[dict[str, object]]:
    """Three of the daemon's levels (it says which it has in `hello`); if it has fewer,
    the same level under several names."""
    chosen = [lv for lv in DEMO_LEVELS if lv in levels] or levels[:1] or ["random"]
    engines: list[dict[str, object]] = []
    for i in range(3):
        level = chosen[i % len(chosen)]
        name = level if i < len(chosen) else f"{level}-{i + 1}"
        engines.append({"name": name, "level": level, **({"plies": 0} if level != "random"
                                                          else {})})
    return engines


async def run_demo(args: argparse.Namespace) -> LeagueResult:
    """The demo: one engine, started (or reached) once, with a progress line from the
    first second (the engine's very first start compiles its move generator)."""
    progress = Progress(1, enabled=not args.quiet)
    progress.tick_every()
    progress.set_phase("starting the engine (python -m jacquetd stdio; its very first start "
                       "compiles the move generator, later starts take seconds)"
                       if not args.connect else f"connecting to {args.connect}")
    try:
        if args.connect:
            client = await JacquetClient.open(args.connect, timeout=DAEMON_TIMEOUT_S)
        else:
            log_dir = Path(args.out) / "demo.logs"
            log_dir.mkdir(parents=True, exist_ok=True)
            with open(log_dir / "daemon.stderr.log", "ab") as stderr:
                client = await spawn_engine(timeout=DAEMON_TIMEOUT_S, stderr=stderr)
    except BaseException:
        progress.close()
        raise
    levels = [str(x) for x in client.server.get("levels", ["random"])]
    config = parse_league({**DEMO, "engines": demo_engines(levels)}, ".")
    options = _options(args, Path(args.out), "demo")
    options.client, options.progress_line = client, progress
    return await League(config, options).run()


def _options(args: argparse.Namespace, base: Path, stem: str) -> LeagueOptions:
    out = Path(args.out) if getattr(args, "out", None) else base
    return LeagueOptions(
        results=Path(args.results) if args.results else out / f"{stem}.results.jsonl",
        report=Path(args.report) if args.report else out / f"{stem}.report.html",
        records_dir=out / f"{stem}.records", resume=args.resume,
        concurrency=args.concurrency, connect=args.connect, progress=not args.quiet,
        log_dir=out / f"{stem}.logs", move_timeout=args.move_timeout,
        scheduler=args.scheduler, local_cluster=args.local_cluster, luck=not args.no_luck)


def _finish(result: LeagueResult) -> int:
    print(format_table(result.standings, luck_judged=result.luck_judged))
    if result.standings.luck_available:
        print("luck-adj: net points per game with the luck of the dice taken out (the "
              "daemon's `luck` command)")
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
    p.add_argument("--concurrency", "-j", type=int, metavar="N",
                   help="games played at once (default: the league file's `concurrency`, "
                   "else 1; the demo: 2)")
    p.add_argument("--results", metavar="FILE",
                   help="the results journal, JSON lines (default: NAME.results.jsonl in "
                   "the output folder)")
    p.add_argument("--report", metavar="FILE", help="where to write the HTML report "
                   "(default: NAME.report.html in the output folder)")
    p.add_argument("--resume", action="store_true",
                   help="continue an existing journal (default: refuse to overwrite one)")
    p.add_argument("--connect", metavar="TARGET",
                   help="the daemon to use instead of the league file's: tcp://HOST:PORT "
                   "(ZeroMQ), socket://HOST:PORT, or a command (default: the file's [daemon], "
                   "else spawn `python -m jacquetd stdio` with this Python)")
    p.add_argument("--move-timeout", type=float, metavar="S",
                   help="seconds before a silent engine loses the game "
                   "(default: 3 x time_ms / 1000 + 5)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="play the pairs of games "
                   "on the workers of this Dask scheduler (default: the league file's "
                   "[cluster] scheduler, else here; needs jacquetd[cluster])")
    p.add_argument("--local-cluster", type=int, metavar="N", help="play the pairs on a Dask "
                   "cluster of N local worker processes (loopback only)")
    p.add_argument("--no-luck", action="store_true",
                   help="do not judge the luck of each roll: raw results only, no "
                   "luck-adjusted figures, several times faster (default: the league file's "
                   "`luck`, else judged)")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress line (default: a bar on a terminal, a line every few "
                   "seconds elsewhere, on stderr)")
    p.add_argument("--log-level", default="warning",
                   choices=("debug", "info", "warning", "error"),
                   help="this program's log level (default: warning)")
    p.add_argument("--version", action="version", version=version_text("jacquet-league"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jacquet-league", description=__doc__.split("\n")[0],
                                     epilog="Exit status: 0 finished, 1 interrupted or "
                                     "unfinished, 2 bad league file or arguments, 3 the "
                                     f"engine failed during the league, {EXIT_ENGINE_START} "
                                     "the engine could not be started.")
    parser.add_argument("--version", action="version", version=version_text("jacquet-league"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands")
    run = sub.add_parser("run", help="play a league file",
                         description="Play the league described by a TOML file; the journal, "
                         "the report, the records and the engines' logs go next to it.")
    run.add_argument("league", help="the league file (TOML)")
    _common(run)
    demo = sub.add_parser("demo", help="a small built-in league against a daemon it starts",
                          description="Three of the daemon's bot levels in a round robin "
                          "(4 games a pairing, 50 ms a move), with a progress line the whole "
                          "time; writes the report and the records to --out.")
    demo.add_argument("--out", metavar="DIR",
                      help="folder for the results (default: a new temporary folder)")
    _common(demo)
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.concurrency is not None and args.concurrency < 1:
        sub.choices[args.command].error("--concurrency: at least 1")
    if args.local_cluster is not None and args.local_cluster < 1:
        sub.choices[args.command].error("--local-cluster: at least 1 worker")
    try:
        if args.command == "run":
            path = Path(args.league)
            config = load_league(path)
            options = _options(args, path.parent, path.stem)
            return _finish(asyncio.run(League(config, options).run()))
        if not args.out:
            args.out = tempfile.mkdtemp(prefix="jacquet-league-demo-")
        return _finish(asyncio.run(run_demo(args)))
    except (LeagueConfigError, JournalError, OSError) as exc:
        print(f"jacquet-league: {exc}", file=sys.stderr)
        return 2
    except EngineStartError as exc:
        print(f"jacquet-league: cannot start the engine: {exc}", file=sys.stderr)
        return EXIT_ENGINE_START
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
