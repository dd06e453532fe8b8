"""League throughput benchmark: ``python benchmarks/bench_league.py``.

Plays the same small 0-ply league (two of the daemon's bot levels at 0 plies,
one money game per match, seats swapped on each dice stream) with
`--concurrency 1` and `2`, each against its own `jacquetd stdio` spawned by
the league (or a running daemon, `--connect tcp://...`), and prints games per
second and moves per second (after the league's untimed warm-up of the bots,
shown apart) and the wall time.
Every game goes through the protocol: `legal_moves` per roll, `best_move` per
decision. The journal and report go to a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from jacquetd_clients import SimpleClient  # noqa: E402
from jacquetd_clients.league import League, LeagueOptions, parse_league  # noqa: E402

DAEMON = [sys.executable, "-m", "jacquetd", "stdio"]
PREFERRED = ("heuristic", "neural", "random")


def pick_levels(connect: str | None) -> list[str]:
    with (SimpleClient.open(connect) if connect else SimpleClient.spawn(DAEMON)) as daemon:
        levels = [str(x) for x in daemon.server["levels"]]
    chosen = [lv for lv in PREFERRED if lv in levels] or levels
    return (chosen * 2)[:2]


def run(levels: list[str], games: int, concurrency: int, variant: str, folder: Path,
        connect: str | None = None) -> tuple[float, float, int, int]:
    config = parse_league({
        "name": f"bench-c{concurrency}", "variant": variant, "games": games,
        "time_ms": 50, "seed": 7, "concurrency": concurrency,
        "daemon": {"connect": connect} if connect else {"command": DAEMON},
        "engines": [{"name": f"{levels[0]}-a", "level": levels[0], "plies": 0},
                    {"name": f"{levels[1]}-b", "level": levels[1], "plies": 0}],
    }, str(REPO))
    options = LeagueOptions(results=folder / f"c{concurrency}.jsonl",
                            report=folder / f"c{concurrency}.html", progress=False)
    started = time.perf_counter()
    result = asyncio.run(League(config, options).run())
    elapsed = time.perf_counter() - started
    moves = sum(g["moves"] for m in result.matches for g in m["games"])
    return elapsed, result.warm_up_s, result.standings.games, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games (default 20)")
    parser.add_argument("--variant", default="jacquet")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--connect", help="a running daemon (tcp://HOST:PORT) instead of "
                        "spawning `jacquetd stdio` for each run")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    levels = pick_levels(args.connect)
    where = f"daemon at {args.connect}" if args.connect else "daemon over stdio"
    print(f"league: {levels[0]} vs {levels[1]} at 0 plies, {args.variant}, {args.games} "
          f"money games, client-side seeded dice, {where}")
    print(f"{'concurrency':>11} {'games':>6} {'wall s':>7} {'warm-up s':>9} {'games/s':>8} "
          f"{'moves/s':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for c in args.concurrency:
            elapsed, warm, games, moves = run(levels, args.games, c, args.variant, Path(tmp),
                                              args.connect)
            playing = elapsed - warm  # games per second count the games, not the warm-up
            print(f"{c:>11} {games:>6} {elapsed:>7.2f} {warm:>9.2f} {games / playing:>8.2f} "
                  f"{moves / playing:>8.1f}")


if __name__ == "__main__":
    main()
