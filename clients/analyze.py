"""`jacquet-analyze`: review a match record with the engine, as gnubg's `analyse match` does.

    jacquet-analyze match.jmat                  # our record (RECORDS.md)
    jacquet-analyze match.mat --plies 1         # a Jellyfish .mat (backgammon)
    jacquet-analyze match.sgf --html review.html
    jacquet-analyze match.jmat --json > review.json
    jacquet-analyze league.records/             # a league's records: each, then by player
    jacquet-analyze --match ID --connect tcp://127.0.0.1:7780   # a hosted match

The file (a `jacquet-match/1` record, a `.mat` or a GNU Backgammon SGF, told apart by
their content) is checked here, then sent whole to the engine's `analyze_record`
(protocol/SPEC.md), which judges every checker play and every cube decision. A progress
bar runs on standard error when it is a terminal. The program prints each player's
summary (decisions, marks, losses, error rate, PR, luck) and the marked decisions;
`--json` prints the whole result instead, `--html OUT` writes a self-contained report
with the equity graph and the board of every marked decision (replayed with the engine's
`position` and `apply_move`). Several files, or a directory of them (a league's
records), are reviewed one after the other, and each player's figures over all of them
follow, by the player's name. Ctrl-C sends `cancel`: the engine stops after the decision
in hand and the report covers what was done; a second Ctrl-C leaves at once.

The engine is `python -m jacquetd stdio` with this Python, started in its own session
(so that Ctrl-C at the terminal reaches this program only), unless `--daemon` names
another command or `--connect` a running daemon.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from jacquetd_protocol.match_files import read_match_file
from jacquetd_protocol.records import MatchRecord, RecordError

from . import analyze_report
from .about import version_text
from .client import JacquetClient
from .errors import EngineError, EngineStartError
from .spawning import EXIT_ENGINE_START, default_engine_command, spawn_engine

log = logging.getLogger(__name__)

PROG = "jacquet-analyze"
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
BAR_WIDTH = 30
PLAIN_EVERY_S = 2.0


# -- reading the file --------------------------------------------------------------------


def read_text(path: Path) -> str:
    """The file's text: UTF-8 (a byte-order mark skipped), else Latin-1 (old `.mat`
    files)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def players(record: MatchRecord) -> tuple[str, str]:
    p0, p1 = record.players
    return (p0 or "player 0", p1 or "player 1")


def move_numbers(record: MatchRecord) -> dict[str, int]:
    """`"GAME:INDEX"` -> the move number of the decision at that action: 1 for the game's
    first move, counting the moves of both sides; a cube decision takes the number of the
    move that follows it."""
    out: dict[str, int] = {}
    for rec in record.games:
        moves = 0
        for i, action in enumerate(rec.actions):
            out[f"{rec.number}:{i}"] = moves + 1
            if action.kind == "move":
                moves += 1
    return out


# -- progress ------------------------------------------------------------------------------


class Progress:
    """A bar redrawn in place on a terminal; with `plain`, a line every few seconds
    elsewhere; else nothing."""

    def __init__(self, stream: TextIO, *, plain: bool) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.plain = plain
        self.started = time.monotonic()
        self.last = 0.0
        self.marked = 0

    def update(self, done: int, total: int, force: bool = False) -> None:
        now = time.monotonic()
        frac = done / total if total else 1.0
        text = (f"{done}/{total} actions, {self.marked} marked, "
                f"{now - self.started:.0f} s")
        if self.tty:
            filled = int(frac * BAR_WIDTH)
            self.stream.write(f"\r\x1b[K[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {text}")
            self.stream.flush()
        elif self.plain and (force or now - self.last >= PLAIN_EVERY_S):
            self.last = now
            self.stream.write(f"{PROG}: {text}\n")
            self.stream.flush()

    def say(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        self.stream.flush()

    def end(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


# -- the analysis ----------------------------------------------------------------------------


async def analyse(engine: JacquetClient, request: Mapping[str, Any],
                  progress: Progress) -> dict[str, Any]:
    """Run `analyze_record` with partials, drawing the progress. The first SIGINT sends
    `cancel`, and the engine's final reply (a prefix, `stopped`) is returned; a second one
    raises KeyboardInterrupt."""
    loop = asyncio.get_running_loop()
    analysis = await engine.stream("analyze_record", timeout=0, partials=True, **request)
    interrupts = 0
    stopping: asyncio.Task[None] | None = None

    def on_sigint() -> None:
        nonlocal interrupts, stopping
        interrupts += 1
        if interrupts > 1:
            raise KeyboardInterrupt
        progress.say(f"{PROG}: interrupted; stopping after the decision in hand "
                     "(Ctrl-C again to leave at once)")
        stopping = loop.create_task(analysis.stop())

    handled = True
    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread; Windows
        handled = False
    try:
        result: dict[str, Any] = {}
        async for ranking in analysis:
            raw: dict[str, Any] = dict(ranking.raw)
            if ranking.final:
                result = raw
                break
            progress.marked += sum(1 for e in [*raw.get("moves", []), *raw.get("cube", [])]
                                   if e.get("mark"))
            if "done" in raw and "total" in raw:
                progress.update(int(raw["done"]), int(raw["total"]))
        if "done" in result and "total" in result:
            progress.update(int(result["done"]), int(result["total"]), force=True)
        return result
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)
        if stopping is not None:
            with contextlib.suppress(EngineError):
                await stopping
        progress.end()


async def replay_boards(engine: JacquetClient, record: MatchRecord,
                        wanted: set[tuple[int, int]]) -> dict[str, dict[str, Any]]:
    """The position before each decision of `wanted` (game, action index), replayed on the
    engine: `"GAME:INDEX"` -> `position` (structured, seen by the side on turn, with the
    dice of a move; a double pending for the answer to one), `on_roll` (that side) and
    `same_direction` (the variant's geometry, as the engine's `hello` describes it).
    Only the games that hold a wanted decision are replayed, each up to its last one."""
    out: dict[str, dict[str, Any]] = {}
    start = dict((await engine.position(f"start:{record.variant}"))["position"])
    cube_on = record.cube if record.cube is not None else "cube" in start
    rules = engine.variant(record.variant)
    plays_opening = rules.opening_plays_opening_dice
    for rec in record.games:
        mine = [i for g, i in wanted if g == rec.number]
        if not mine or rec.opening is None:
            continue
        last = max(mine)
        d0, d1 = rec.opening
        turn = 0 if d0 > d1 else 1
        pos: dict[str, Any] = {k: v for k, v in start.items() if k not in ("cube", "match")}
        if cube_on:
            pos["cube"] = {"value": 1, "owner": "centre", "pending": False}
        if record.length > 0:
            pos["match"] = {"length": record.length,
                            "score": [rec.score[turn], rec.score[1 - turn]],
                            "crawford": rec.crawford}
        dice: list[int] = [max(d0, d1), min(d0, d1)] if plays_opening else []
        for i, action in enumerate(rec.actions[:last + 1]):
            if (rec.number, i) in wanted:
                seen = dict(pos, dice=list(dice))
                if action.kind in ("take", "drop") and "cube" in pos:
                    seen["cube"] = dict(pos["cube"], pending=True)
                out[f"{rec.number}:{i}"] = {"position": seen, "on_roll": turn,
                                            "same_direction": rules.same_direction}
            if action.kind == "roll" and action.dice is not None:
                dice = list(action.dice)
            elif action.kind == "move":
                played = await engine.apply_move(pos, action.move or "", dice)
                pos = dict(played["position"])
                dice, turn = [], 1 - turn
            elif action.kind == "take" and "cube" in pos:
                value = int(pos["cube"]["value"])
                pos["cube"] = {"value": 2 * value, "owner": "opponent", "pending": False}
    return out


def build_report(path: Path, record: MatchRecord, result: Mapping[str, Any]) -> dict[str, Any]:
    """The `--json` map: the record's facts and the engine's result as it came."""
    return {"file": path.name, "variant": record.variant, "length": record.length,
            "players": list(players(record)), "numbers": move_numbers(record),
            "analysis": dict(result)}


#: The files a directory given as FILE stands for: a league's records and match files.
RECORD_SUFFIXES = (".txt", ".jmat", ".mat", ".sgf")


def record_paths(given: list[str]) -> list[Path]:
    """The files to analyse: each FILE, a directory standing for its record files (a
    league's `.records` folder), sorted by name."""
    out: list[Path] = []
    for name in given:
        path = Path(name)
        if path.is_dir():
            out += sorted(p for p in path.iterdir()
                          if p.is_file() and p.suffix.lower() in RECORD_SUFFIXES)
        else:
            out.append(path)
    return out


def read_record(path: Path, game: int | None, err: TextIO) -> tuple[str, MatchRecord] | None:
    """The file's text and record, checked here; None (said on `err`) when it cannot be
    read or has no game `game`."""
    try:
        text = read_text(path)
    except OSError as exc:
        err.write(f"{PROG}: {path}: {exc.strerror or exc}\n")
        return None
    try:
        record = read_match_file(text)
    except RecordError as exc:
        err.write(f"{PROG}: {path}: {exc}\n")
        return None
    if game is not None and game not in [g.number for g in record.games]:
        err.write(f"{PROG}: {path}: no game {game} (the record has {len(record.games)})\n")
        return None
    return text, record


async def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.match is not None:
        return await run_hosted(args, out, err)
    paths = record_paths(args.file)
    if not paths:
        err.write(f"{PROG}: no record files in {', '.join(args.file)}\n")
        return EXIT_BAD_INPUT
    if len(paths) > 1 and (args.html or args.game is not None):
        err.write(f"{PROG}: --html and --game take one record ({len(paths)} given)\n")
        return EXIT_BAD_INPUT
    records = []
    for path in paths:
        read = read_record(path, args.game, err)
        if read is None:
            return EXIT_BAD_INPUT
        records.append((path, *read))
    progress = Progress(err, plain=args.progress)
    if args.connect:
        engine = await JacquetClient.open(args.connect, timeout=0)
    else:
        if err.isatty():
            progress.say(f"{PROG}: starting the engine (its very first start compiles the "
                         "move generator and takes a while)...")
        engine = await spawn_engine(args.daemon.split() if args.daemon
                                    else default_engine_command(), timeout=0,
                                    start_new_session=True)
    reports: list[dict[str, Any]] = []
    stopped: Mapping[str, Any] | None = None
    async with engine:
        if not engine.supports("analyze_record"):
            err.write(f"{PROG}: this engine has no analyze_record command\n")
            return EXIT_BAD_INPUT
        for path, text, record in records:
            request: dict[str, Any] = {"record": text, "plies": args.plies,
                                       "game": args.game, "doubtful": args.doubtful,
                                       "error": args.error, "blunder": args.blunder,
                                       "luck": not args.no_luck}
            if args.timeout is not None:
                request["timeout_ms"] = int(args.timeout * 1000)
            request = {k: v for k, v in request.items() if v is not None}
            result = await analyse(engine, request, progress)
            report = build_report(path, record, result)
            reports.append(report)
            if args.html:
                found = analyze_report.marked(report)
                boards: dict[str, dict[str, Any]] = {}
                try:
                    boards = await replay_boards(engine, record,
                                                 {(d["game"], d["index"]) for d in found})
                except EngineError as exc:
                    err.write(f"{PROG}: the boards could not be replayed ({exc}); the report "
                              "has none\n")
                Path(args.html).write_text(analyze_report.html_report(report, boards),
                                           encoding="utf-8")
            if result.get("stopped"):
                stopped = result
                break
    several = len(records) > 1
    combined = analyze_report.combine(reports) if several else []
    if args.json:
        json.dump({"files": reports, "players": combined} if several else reports[0], out,
                  indent=1)
        out.write("\n")
    else:
        for report in reports:
            if several:
                out.write(f"== {report['file']}\n")
            out.write(analyze_report.terminal_summary(report))
            if several:
                out.write("\n")
        if several:
            out.write(analyze_report.combined_summary(combined, len(reports)))
    if args.html:
        err.write(f"{PROG}: report written to {args.html}\n")
    if stopped is not None:
        err.write(f"{PROG}: interrupted: the analysis covers {stopped.get('done')} of "
                  f"{stopped.get('total')} actions of {reports[-1]['file']}\n")
        return EXIT_INTERRUPTED
    return 0


async def run_hosted(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """`--match ID`: the record of a match the daemon at `--connect` hosts (`match_export`),
    reviewed as a file of it would be, under the name `match-ID.txt`."""
    engine = await JacquetClient.open(args.connect, timeout=0)
    async with engine:
        try:
            text = str((await engine.request("match_export", match_id=args.match))["record"])
        except EngineError as exc:
            err.write(f"{PROG}: match {args.match}: {exc}\n")
            return EXIT_BAD_INPUT
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"match-{args.match}.txt"
        path.write_text(text, encoding="utf-8")
        args.file, args.match = [str(path)], None
        return await run(args, out, err)


def _threshold(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 10.0:
        raise argparse.ArgumentTypeError("from 0 to 10")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n")[0].replace("`", ""),
        epilog="Exit status: 0 the whole record analysed; 2 a file that cannot be read, a "
        f"bad argument or a refused request; {EXIT_ENGINE_START} the engine could not be "
        f"started; {EXIT_INTERRUPTED} interrupted (after one Ctrl-C the report covers the "
        "decisions done).")
    parser.add_argument("file", metavar="FILE", nargs="*",
                        help="the match: a jacquet-match/1 record, a .mat or an SGF file; "
                        "with several, or a directory (a league's records), each is "
                        "reviewed and then every player over all of them")
    parser.add_argument("--version", action="version", version=version_text(PROG))
    parser.add_argument("--match", metavar="ID",
                        help="review the match ID hosted by the daemon at --connect, in "
                        "place of a file")
    parser.add_argument("--plies", type=int, choices=(0, 1, 2), default=0,
                        help="depth of the analysis (default 0; 2 takes far longer)")
    parser.add_argument("--game", type=int, metavar="N", help="analyse game N only")
    parser.add_argument("--html", metavar="OUT",
                        help="also write a self-contained HTML report to OUT")
    parser.add_argument("--json", action="store_true",
                        help="print the whole result as JSON on standard output, in place "
                        "of the summary")
    parser.add_argument("--doubtful", type=_threshold, metavar="LOSS",
                        help="the loss marked doubtful (default: the engine's, 0.04)")
    parser.add_argument("--error", type=_threshold, metavar="LOSS",
                        help="the loss marked error (default: the engine's, 0.08)")
    parser.add_argument("--blunder", type=_threshold, metavar="LOSS",
                        help="the loss marked blunder (default: the engine's, 0.16)")
    parser.add_argument("--no-luck", action="store_true", help="do not judge the luck")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="give up after this long (default: the engine's own deadline)")
    parser.add_argument("--progress", action="store_true",
                        help="progress lines on standard error even when it is not a "
                        "terminal (on a terminal a bar is drawn anyway)")
    parser.add_argument("--connect", metavar="TARGET",
                        help="a running daemon: tcp://HOST:PORT (ZeroMQ), socket://HOST:PORT "
                        "(TCP stream) (default: spawn `python -m jacquetd stdio` with this "
                        "Python)")
    parser.add_argument("--daemon", metavar="COMMAND",
                        help="the engine command to spawn instead (default: python -m "
                        "jacquetd stdio)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.game is not None and args.game < 1:
        parser.error("--game: 1 or more")
    if (args.match is None) == (not args.file):
        parser.error("give a FILE (or several), or --match ID")
    if args.match is not None and not args.connect:
        parser.error("--match needs --connect: the daemon that hosts the match")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(run(args, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except EngineStartError as exc:
        print(f"{PROG}: cannot start the engine: {exc}", file=sys.stderr)
        return EXIT_ENGINE_START
    except EngineError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
