"""Strength benchmark: bot A against bot B over N games, raw and luck-adjusted.

    python benchmarks/bench_strength.py --variant jacquet --a neural --b heuristic \
        --games 2000 --seed 1

Levels: random, heuristic, neural, neural-1, neural-2, and in `backgammon`
also gnubg, gnubg-1, gnubg-2 (GNU Backgammon's own evaluator through the
PyPI package `gnubg`, in-process, choosing the play whose resulting position
it rates best at that many plies, cubeless). The cube is not used; points per
game count marcia/gammon and marcia per punto/backgammon (J12, B8, C4).

Bot A opens the even games, bot B the odd ones; game g has its own dice
(seed [seed, g]), so `--jobs N` (N processes) gives the same figures as one.
`--weights-a`/`--weights-b` put a network file (a training checkpoint, say)
in place of the shipped one, to compare two networks. Luck adjustment: every roll's
luck as judged by a fixed evaluator (the variant's network at 0 plies) is
subtracted from the result: luck = E[best equity | this roll] - E over all
21 rolls, from the roller's view. It is unbiased and shrinks the confidence
interval several-fold. Prints wins, points per game and 95% intervals.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one core, no BLAS threads

import numpy as np

from jacquetd.bots.choosers import heuristic_chooser, random_chooser
from jacquetd.bots.evaluator import candidate_evaluator, neural_evaluator
from jacquetd.bots.luck import roll_luck
from jacquetd.bots.players import stop_function
from jacquetd.bots.search import Searcher, State
from jacquetd.bots.selfplay import Chooser, Turn, play_game
from jacquetd.rules import RawPlay, Variant, find_variant


def gnubg_chooser(plies: int) -> Chooser:
    """GNU Backgammon's evaluator picks the play whose result it rates best (cubeless)."""
    import gnubg  # optional dependency of the benchmarks only

    ec = gnubg.evalcontext(0, plies, 1, 0, 0)
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)

    def board(on_roll: Sequence[int], other: Sequence[int]) -> tuple[list[int], list[int]]:
        # gnubg: (not on roll, on roll); index 0-23 = points 1-24, 24 = the bar
        return (list(other[1:26]), list(on_roll[1:26]))

    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        best, best_eq = 0, math.inf
        for i, r in enumerate(raws):
            if r.me[0] == 15:
                return i
            eq = gnubg.evaluate(board(r.opp, r.me), ci, ec)[5]  # the opponent's equity
            if eq < best_eq:
                best, best_eq = i, eq
        return best

    return choose


def make_chooser(level: str, variant: Variant, seed: int | list[int],
                 weights: str | None = None, race_weights: str | None = None,
                 crashed_weights: str | None = None, time_ms: int | None = None) -> Chooser:
    """The chooser of a level; `weights`, `race_weights` and `crashed_weights` replace
    the shipped networks of a neural level (`evaluator.candidate_evaluator`); with
    `time_ms`, a neural level searches each move until that much time has passed and
    plays the deepest ranking it finished (at most its plies)."""
    if level == "random":
        return random_chooser(np.random.default_rng(seed))
    if level == "heuristic":
        return heuristic_chooser(variant)
    if level.startswith("gnubg"):
        if variant.name != "backgammon":
            raise SystemExit("gnubg plays backgammon only")
        return gnubg_chooser(int(level.split("-")[1]) if "-" in level else 0)
    plies = {"neural": 0, "neural-1": 1, "neural-2": 2, "neural-3": 3}.get(level)
    if plies is None:
        raise SystemExit(f"unknown level {level!r}")
    searcher = Searcher(candidate_evaluator(variant.name, weights, race_weights=race_weights,
                                            crashed_weights=crashed_weights))

    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        state = State(turn.me, turn.opp, turn.me_flag, turn.opp_flag)
        return searcher.best(state, raws, plies, stop_function(time_ms, None))

    return choose


def interval(xs: Sequence[float]) -> tuple[float, float]:
    """The mean of `xs` and the half-width of its 95% interval (normal approximation);
    (nan, nan) for no values, an infinite half-width for one."""
    if not xs:
        return math.nan, math.nan
    mean = float(np.mean(xs))
    half = 1.96 * float(np.std(xs, ddof=1)) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return mean, half


def _files(weights: str | None, race: str | None, crashed: str | None = None) -> str:
    names = [Path(f).name for f in (weights, race, crashed) if f]
    return f" [{' + '.join(names)}]" if names else ""


def play_games(args: argparse.Namespace, games: Sequence[int]
               ) -> list[tuple[int, int, int, float]]:
    """Play the given game numbers; (game, winner, points for A, luck A - luck B) each.

    Game g uses its own dice stream (seed [seed, g]), so the figures do not
    depend on how the games are shared between processes.
    """
    v = find_variant(args.variant)
    judge = neural_evaluator(v.name)
    luck = [0.0, 0.0]
    first_turn = [True]

    def on_turn(player: int, turn: Turn, raws: Sequence[RawPlay], k: int) -> None:
        opening = first_turn[0] and v.opening_plays_opening_dice
        first_turn[0] = False
        if args.no_luck:
            return
        state = State(turn.me, turn.opp, turn.me_flag, turn.opp_flag)
        d = (min(turn.dice), max(turn.dice))
        luck[player] += roll_luck(judge, state, d, opening_no_doubles=opening)

    out = []
    for g in games:
        choosers = (make_chooser(args.a, v, [args.seed, g, 0], args.weights_a,
                                 args.race_weights_a, args.crashed_weights_a, args.time_ms_a),
                    make_chooser(args.b, v, [args.seed, g, 1], args.weights_b,
                                 args.race_weights_b, args.crashed_weights_b, args.time_ms_b))
        luck[0] = luck[1] = 0.0
        first_turn[0] = True
        rng = np.random.default_rng([args.seed, g])
        winner, points = play_game(v, choosers, rng, first=g % 2, on_turn=on_turn)
        result = points if winner == 0 else -points
        out.append((g, winner, result, luck[0] - luck[1]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="jacquet")
    ap.add_argument("--a", required=True, help="level of bot A")
    ap.add_argument("--b", required=True, help="level of bot B")
    ap.add_argument("--weights-a", default=None,
                    help="a network file (.npz) to use instead of the shipped one for A")
    ap.add_argument("--weights-b", default=None, help="the same for B")
    ap.add_argument("--race-weights-a", default=None,
                    help="a race network file for A (with --weights-a, or the shipped contact "
                         "network)")
    ap.add_argument("--race-weights-b", default=None, help="the same for B")
    ap.add_argument("--crashed-weights-a", default=None,
                    help="a crashed network file for A (with --weights-a, or the shipped "
                         "contact network)")
    ap.add_argument("--crashed-weights-b", default=None, help="the same for B")
    ap.add_argument("--time-ms-a", type=int, default=None,
                    help="a neural A searches each move this long and plays the deepest "
                    "ranking it finished (strength per second: give it the time per move "
                    "of the level it meets)")
    ap.add_argument("--time-ms-b", type=int, default=None, help="the same for B")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes to share the games (the figures do not depend on it)")
    ap.add_argument("--no-luck", action="store_true", help="skip the luck adjustment")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args(argv)
    v = find_variant(args.variant)
    args.variant = v.name
    for level in (args.a, args.b):  # fail on a bad level before starting any process
        make_chooser(level, v, 0)
    chunk = 25
    batches = [list(range(i, min(i + chunk, args.games))) for i in range(0, args.games, chunk)]
    started = time.monotonic()
    results: list[tuple[int, int, int, float]] = []

    def report() -> None:
        raw = [r[2] for r in results]
        adj = [r[2] - r[3] for r in results]
        m, h = interval(raw)
        ma, ha = interval(adj)
        rate = len(results) / (time.monotonic() - started)
        sys.stderr.write(f"\r{len(results)}/{args.games} games  raw {m:+.3f}±{h:.3f}  "
                         f"adjusted {ma:+.3f}±{ha:.3f}  {rate:.2f} games/s   ")
        sys.stderr.flush()

    if args.jobs <= 1:
        for batch in batches:
            results += play_games(args, batch)
            report()
    else:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(args.jobs, mp_context=ctx) as pool:
            for part in pool.map(play_games, [args] * len(batches), batches):
                results += part
                report()
    sys.stderr.write("\n")
    results.sort()
    wins = [sum(1 for r in results if r[1] == k) for k in (0, 1)]
    abandoned = sum(1 for r in results if r[1] < 0)
    raw = [float(r[2]) for r in results]
    adj = [r[2] - r[3] for r in results]
    m, h = interval(raw)
    ma, ha = interval(adj)
    elapsed = time.monotonic() - started
    name_a = args.a + _files(args.weights_a, args.race_weights_a, args.crashed_weights_a)
    name_b = args.b + _files(args.weights_b, args.race_weights_b, args.crashed_weights_b)
    name_a += f" ({args.time_ms_a} ms a move)" if args.time_ms_a else ""
    name_b += f" ({args.time_ms_b} ms a move)" if args.time_ms_b else ""
    print(f"{v.name}: {name_a} (A) vs {name_b} (B), {args.games} games, seed {args.seed}")
    print(f"  wins: A {wins[0]}  B {wins[1]}" + (f"  abandoned {abandoned}" if abandoned else ""))
    print(f"  points per game for A, raw:           {m:+.3f}  "
          f"(95% CI {m - h:+.3f} .. {m + h:+.3f})")
    if not args.no_luck:
        print(f"  points per game for A, luck-adjusted: {ma:+.3f}  "
              f"(95% CI {ma - ha:+.3f} .. {ma + ha:+.3f})")
    print(f"  {elapsed:.0f} s with {args.jobs} process(es)")
    if args.json:
        print(json.dumps({"variant": v.name, "a": name_a, "b": name_b, "games": args.games,
                          "seed": args.seed, "wins": wins, "abandoned": abandoned,
                          "ppg": m, "ci95": h,
                          "ppg_adjusted": None if args.no_luck else ma,
                          "ci95_adjusted": None if args.no_luck else ha,
                          "seconds": round(elapsed, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
