"""League throughput, side by side with the same pairing in one process:
``python benchmarks/bench_league.py``.

In one run, on one core each:

1. in-process: the two levels play `--games` games in this process
   (`bench_strength.py`'s loop: raw positions, no protocol);
2. league with `bot_match`: the league against `jacquetd stdio --workers 1`,
   one request per pair of games (the daemon plays them next to the bots);
3. league move by move: the same league through the referee (`legal_moves`,
   `best_move` and `luck` per turn), for reference;

each with luck off and on (`--no-luck`: off only), and the ratio of each
league's games per second to the in-process rate. Then, with `--external N`,
the league's own overhead per decision with a trivial external engine (it
plays the first legal play; `tests/clients/first_engine.py`) against itself
for N games: per turn, the wall time from the roll to the accepted play minus
the engine's answer time (its `best_move` round trip), p50 and p90, and the
league process's CPU time per turn (a figure other jobs on the machine hardly
move); `--full-records` repeats it without `compact` play records.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from jacquetd_clients import game as game_module  # noqa: E402
from jacquetd_clients.league import League, LeagueOptions, parse_league  # noqa: E402
from jacquetd_clients.league import engines as engines_module  # noqa: E402

DAEMON = [sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"]
ENGINE = [sys.executable, str(REPO / "tests" / "clients" / "first_engine.py")]


def in_process(a: str, b: str, variant: str, games: int, luck: bool) -> float:
    """Games per second of bench_strength's loop on one core."""
    import bench_strength

    args = bench_strength.parser().parse_args(
        ["--variant", variant, "--a", a, "--b", b, "--seed", "7", *([] if luck else ["--no-luck"])])
    bench_strength.play_games(args, [0, 1])  # load the networks first
    started = time.perf_counter()
    bench_strength.play_games(args, list(range(games)))
    return games / (time.perf_counter() - started)


def league(a: str, b: str, variant: str, games: int, luck: bool, server_loop: bool,
           folder: Path) -> tuple[float, int]:
    """Games per second of a league (after its untimed warm-up), and the games played."""
    tag = f"{'s' if server_loop else 'r'}{int(luck)}"
    config = parse_league({
        "name": f"bench-{tag}", "variant": variant, "games": games, "time_ms": 50, "seed": 7,
        "daemon": {"command": DAEMON},
        "engines": [{"name": f"{a}-a", "level": a}, {"name": f"{b}-b", "level": b}],
    }, str(REPO))
    stamps: list[tuple[float, int]] = []

    def on_match(entry: dict[str, Any]) -> None:
        stamps.append((time.perf_counter(), len(entry["games"])))

    options = LeagueOptions(results=folder / f"{tag}.jsonl", progress=False, luck=luck,
                            server_loop=server_loop, on_match=on_match)
    result = asyncio.run(League(config, options).run())
    # from the first pair's end to the last: neither the daemon's start nor its warm-up
    first = 2 if len(stamps) > 2 else 1
    games = sum(n for _t, n in stamps[first:])
    return games / (stamps[-1][0] - stamps[first - 1][0]), result.standings.games


class _Timing(game_module.Observer):
    """Per turn: from the roll to the accepted play."""

    def __init__(self) -> None:
        self.rolled_at = 0.0
        self.turns: list[float] = []

    async def rolled(self, state: Any, seat: int, dice: Any) -> None:
        self.rolled_at = time.perf_counter()

    async def moved(self, state: Any, seat: int, dice: Any, play: Any) -> None:
        self.turns.append(time.perf_counter() - self.rolled_at)


def external_overhead(games: int, variant: str, folder: Path, compact: bool = True
                      ) -> dict[str, float]:
    """The league's overhead per decision with the trivial engine against itself, and the
    league process's CPU time per decision (`compact`: the referee asks for compact
    play records, as the league does; False: full records, as before protocol 1.2)."""
    asked: dict[int, float] = {}  # turn number -> the engine's answer time
    timing = _Timing()
    original = engines_module.ProtocolPlayer.choose

    async def timed_choose(self: Any, turn: Any) -> Any:
        started = time.perf_counter()
        try:
            return await original(self, turn)
        finally:
            asked[len(timing.turns)] = time.perf_counter() - started

    def referee(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("observer", timing)
        kwargs["compact"] = compact
        return real_referee(*args, **kwargs)

    real_referee = game_module.Referee
    engines_module.ProtocolPlayer.choose = timed_choose  # type: ignore[method-assign]
    import jacquetd_clients.league.runner as runner_module
    runner_module.Referee = referee  # type: ignore[misc]
    try:
        config = parse_league({
            "name": "bench-external", "variant": variant, "games": games, "time_ms": 50,
            "seed": 7, "daemon": {"command": DAEMON},
            "engines": [{"name": "first-a", "command": ENGINE},
                        {"name": "first-b", "command": ENGINE}],
        }, str(REPO))
        options = LeagueOptions(results=folder / f"external-{compact}.jsonl", progress=False,
                                luck=False)
        cpu = time.process_time()
        asyncio.run(League(config, options).run())
        cpu = time.process_time() - cpu
    finally:
        engines_module.ProtocolPlayer.choose = original  # type: ignore[method-assign]
        runner_module.Referee = real_referee  # type: ignore[misc]
    # the turns where the engine was asked (a forced roll is played without it)
    overhead = [(timing.turns[i] - answer) * 1e3 for i, answer in asked.items()
                if i < len(timing.turns)]
    q = statistics.quantiles(overhead, n=10) if len(overhead) >= 10 else [float("nan")] * 9
    return {"decisions": len(overhead), "p50_ms": statistics.median(overhead),
            "p90_ms": q[8], "engine_p50_ms": statistics.median(asked.values()) * 1e3,
            "cpu_ms": cpu / max(1, len(timing.turns)) * 1e3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per run (default 40)")
    parser.add_argument("--variant", default="jacquet")
    parser.add_argument("--a", default="heuristic")
    parser.add_argument("--b", default="neural")
    parser.add_argument("--no-luck", action="store_true", help="only the runs without luck")
    parser.add_argument("--no-throughput", action="store_true", help="skip the league runs")
    parser.add_argument("--external", type=int, default=0, metavar="N",
                        help="games of the trivial external engine for the overhead figure")
    parser.add_argument("--full-records", action="store_true",
                        help="also measure the external engine with full play records "
                             "(legal_moves without compact), for comparison")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print(f"{args.a} vs {args.b}, {args.variant}, {args.games} money games per run, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_throughput:
            print(f"{'luck':>5} {'in-process g/s':>15} {'bot_match g/s':>14} {'ratio':>6} "
                  f"{'per-move g/s':>13} {'ratio':>6}")
            for luck in ([False] if args.no_luck else [False, True]):
                base = in_process(args.a, args.b, args.variant, args.games, luck)
                fast, _ = league(args.a, args.b, args.variant, args.games, luck, True,
                                 Path(tmp))
                slow, _ = league(args.a, args.b, args.variant, args.games, luck, False,
                                 Path(tmp))
                print(f"{'on' if luck else 'off':>5} {base:>15.2f} {fast:>14.2f} "
                      f"{fast / base:>6.2f} {slow:>13.2f} {slow / base:>6.2f}")
        for compact in ([True, False] if args.full_records else [True]) if args.external else []:
            o = external_overhead(args.external, args.variant, Path(tmp), compact)
            print(f"external engine ({'compact' if compact else 'full'} play records, load "
                  f"{os.getloadavg()[0]:.1f}): {o['decisions']} decisions, league overhead per "
                  f"decision p50 {o['p50_ms']:.2f} ms, p90 {o['p90_ms']:.2f} ms (engine's "
                  f"answer p50 {o['engine_p50_ms']:.2f} ms); league process CPU "
                  f"{o['cpu_ms']:.2f} ms per turn")


if __name__ == "__main__":
    main()
