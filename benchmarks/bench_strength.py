"""Strength benchmark: bot A against bot B over N games, raw and luck-adjusted.

    python benchmarks/bench_strength.py --variant jacquet --a neural --b heuristic \
        --games 2000 --seed 1

Levels: random, heuristic, neural, neural-1, neural-2, and in `backgammon`
also gnubg, gnubg-1, gnubg-2 (GNU Backgammon's own evaluator through the
PyPI package `gnubg`, in-process, choosing the play whose resulting position
it rates best at that many plies, cubeless). The cube is not used; points per
game count marcia/gammon and marcia per punto/backgammon (J12, B8, C4).

Bot A opens the odd games, bot B the even ones. Luck adjustment: every roll's
luck as judged by a fixed evaluator (the variant's network at 0 plies) is
subtracted from the result: luck = E[best equity | this roll] - E over all
21 rolls, from the roller's view. It is unbiased and shrinks the confidence
interval several-fold. Prints wins, points per game and 95% intervals.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one core, no BLAS threads

import numpy as np

from jacquetd.bots.choosers import heuristic_chooser, random_chooser
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.luck import roll_luck
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


def make_chooser(level: str, variant: Variant, seed: int) -> Chooser:
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
    searcher = Searcher(neural_evaluator(variant.name))

    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        state = State(turn.me, turn.opp, turn.me_flag, turn.opp_flag)
        return searcher.best(state, raws, plies)

    return choose


def interval(xs: list[float]) -> tuple[float, float]:
    mean = float(np.mean(xs))
    half = 1.96 * float(np.std(xs, ddof=1)) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return mean, half


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="jacquet")
    ap.add_argument("--a", required=True, help="level of bot A")
    ap.add_argument("--b", required=True, help="level of bot B")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-luck", action="store_true", help="skip the luck adjustment")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args(argv)
    v = find_variant(args.variant)
    choosers = (make_chooser(args.a, v, args.seed), make_chooser(args.b, v, args.seed + 1))
    judge = neural_evaluator(v.name)
    rng = np.random.default_rng(args.seed)
    raw: list[float] = []
    adj: list[float] = []
    wins = [0, 0]
    abandoned = 0
    started = time.monotonic()
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

    for g in range(args.games):
        luck[0] = luck[1] = 0.0
        first_turn[0] = True
        winner, points = play_game(v, choosers, rng, first=g % 2, on_turn=on_turn)
        if winner >= 0:
            wins[winner] += 1
        else:
            abandoned += 1
        result = points if winner == 0 else -points
        raw.append(result)
        adj.append(result - luck[0] + luck[1])
        if (g + 1) % 50 == 0 or g + 1 == args.games:
            m, h = interval(raw)
            ma, ha = interval(adj)
            rate = (g + 1) / (time.monotonic() - started)
            sys.stderr.write(f"\r{g + 1}/{args.games} games  raw {m:+.3f}±{h:.3f}  "
                             f"adjusted {ma:+.3f}±{ha:.3f}  {rate:.2f} games/s   ")
            sys.stderr.flush()
    sys.stderr.write("\n")
    m, h = interval(raw)
    ma, ha = interval(adj)
    elapsed = time.monotonic() - started
    print(f"{v.name}: {args.a} (A) vs {args.b} (B), {args.games} games, seed {args.seed}")
    print(f"  wins: A {wins[0]}  B {wins[1]}" + (f"  abandoned {abandoned}" if abandoned else ""))
    print(f"  points per game for A, raw:           {m:+.3f}  "
          f"(95% CI {m - h:+.3f} .. {m + h:+.3f})")
    if not args.no_luck:
        print(f"  points per game for A, luck-adjusted: {ma:+.3f}  "
              f"(95% CI {ma - ha:+.3f} .. {ma + ha:+.3f})")
    print(f"  {elapsed:.0f} s")
    if args.json:
        print(json.dumps({"variant": v.name, "a": args.a, "b": args.b, "games": args.games,
                          "seed": args.seed, "wins": wins, "abandoned": abandoned,
                          "ppg": m, "ci95": h,
                          "ppg_adjusted": None if args.no_luck else ma,
                          "ci95_adjusted": None if args.no_luck else ha,
                          "seconds": round(elapsed, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
