"""Strength benchmark: bot A against bot B over N games, raw and luck-adjusted.

    python benchmarks/bench_strength.py --variant jacquet --a neural --b heuristic \
        --games 2000 --seed 1

Levels: random, heuristic, neural, neural-1, neural-2, and in `backgammon`
also gnubg, gnubg-1, gnubg-2 (GNU Backgammon's own evaluator through the
PyPI package `gnubg`, in-process, choosing the play whose resulting position
it rates best at that many plies, cubeless) and gnubg-own-0, -1, -2 (its own
move choice, `findbestmove`, with its move filters: as fast as its hints).
The cube is not used; points per game count marcia/gammon and marcia per
punto/backgammon (J12, B8, C4).

Bot A opens the even games, bot B the odd ones; game g has its own dice
(seed [seed, g]), so `--jobs N` (N processes) gives the same figures as one.
`--weights-a`/`--weights-b` put a network file (a training checkpoint, say)
in place of the shipped one, to compare two networks, and `--prune-a`/`--prune-b`
the pruning network of a searching level (one fitted to that network). Luck adjustment: every roll's
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
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one core, no BLAS threads

import numpy as np

from jacquetd.bots.choosers import heuristic_chooser, random_chooser
from jacquetd.bots.evaluator import candidate_evaluator, neural_evaluator
from jacquetd.bots.luck import roll_luck
from jacquetd.bots.players import stop_function
from jacquetd.bots.prune import PruneNet
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


def gnubg_own_chooser(plies: int) -> Chooser:
    """GNU Backgammon's own move at `plies` (`findbestmove`: its move filters and pruning
    decide which plays go deeper, as its hints and its own play do; cubeless). The
    module's move tuple (one (from, to) pair per die) ends at the first checker borne
    off, the off point reading as its end: then the plays that begin so are rated by
    `gnubg_chooser`'s rule at the same plies, which is how gnubg chose among them."""
    import gnubg  # optional dependency of the benchmarks only

    ec = gnubg.evalcontext(0, plies, 1, 0, 0)
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    rate = gnubg_chooser(plies)

    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        if len(raws) == 1:
            return 0
        me, opp = list(turn.me), list(turn.opp)
        move = gnubg.findbestmove((opp[1:26], me[1:26]), ci, ec, turn.dice)
        steps = Counter(zip(move[::2], move[1::2], strict=False))  # 25: the bar, 0: off
        if len(move) % 2:  # cut at a checker borne off
            steps[(move[-1], 0)] += 1
            begun = [i for i, r in enumerate(raws)
                     if not steps - Counter((st.src, st.dst) for st in r.steps)]
            return begun[rate(turn, [raws[i] for i in begun])] if begun else rate(turn, raws)
        for src, dst in zip(move[::2], move[1::2], strict=True):
            me[src] -= 1
            me[dst] += 1
            if opp[25 - dst] == 1:  # a hit: to the bar
                opp[25 - dst], opp[25] = 0, opp[25] + 1
        for i, r in enumerate(raws):
            if list(r.me) == me and list(r.opp) == opp:
                return i
        raise RuntimeError(f"gnubg's move {move} is none of the legal plays")

    return choose


def make_chooser(level: str, variant: Variant, seed: int | list[int],
                 weights: str | None = None, race_weights: str | None = None,
                 crashed_weights: str | None = None, time_ms: int | None = None,
                 cpu_time: bool = False, prune_weights: str | None = None) -> Chooser:
    """The chooser of a level; `weights`, `race_weights` and `crashed_weights` replace
    the shipped networks of a neural level (`evaluator.candidate_evaluator`), and
    `prune_weights` the pruning network of its search (a candidate's own); with
    `time_ms`, a neural level searches each move until that much time has passed (of
    the thread's CPU time with `cpu_time`, which other work on the machine does not
    take away) and plays the deepest ranking it finished (at most its plies)."""
    if level == "random":
        return random_chooser(np.random.default_rng(seed))
    if level == "heuristic":
        return heuristic_chooser(variant)
    if level.startswith("gnubg"):
        if variant.name != "backgammon":
            raise SystemExit("gnubg plays backgammon only")
        if level.startswith("gnubg-own-"):
            return gnubg_own_chooser(int(level.rsplit("-", 1)[1]))
        return gnubg_chooser(int(level.split("-")[1]) if "-" in level else 0)
    plies = {"neural": 0, "neural-1": 1, "neural-2": 2, "neural-3": 3}.get(level)
    if plies is None:
        raise SystemExit(f"unknown level {level!r}")
    searcher = Searcher(candidate_evaluator(variant.name, weights, race_weights=race_weights,
                                            crashed_weights=crashed_weights))
    if prune_weights and searcher.pruner is not None:  # pruning off leaves it off
        searcher.pruner = PruneNet.load(prune_weights)

    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        state = State(turn.me, turn.opp, turn.me_flag, turn.opp_flag)
        if time_ms is not None and cpu_time:
            deadline = time.thread_time() + time_ms / 1000.0
            return searcher.best(state, raws, plies, lambda: time.thread_time() >= deadline)
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


def _files(weights: str | None, race: str | None, crashed: str | None = None,
           prune: str | None = None) -> str:
    names = [Path(f).name for f in (weights, race, crashed, prune) if f]
    return f" [{' + '.join(names)}]" if names else ""


Played = tuple[int, int, int, float, float, int, float, int]
"""A game's figures: its number, the winner, points for A, luck A - luck B, then A's
CPU seconds choosing its plays and the plays it chose among two or more, and B's."""


def timed(chooser: Chooser, spent: list[float]) -> Chooser:
    """`chooser`, adding its CPU time and count of real choices to `spent` [s, n]."""

    def choose(turn: Turn, raws: Sequence[RawPlay]) -> int:
        if len(raws) < 2:
            return chooser(turn, raws)
        t = time.thread_time()
        k = chooser(turn, raws)
        spent[0] += time.thread_time() - t
        spent[1] += 1
        return k

    return choose


def play_games(args: argparse.Namespace, games: Sequence[int]) -> list[Played]:
    """Play the given game numbers (`Played` each).

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
        spent = ([0.0, 0], [0.0, 0])
        choosers = (timed(make_chooser(args.a, v, [args.seed, g, 0], args.weights_a,
                                       args.race_weights_a, args.crashed_weights_a,
                                       args.time_ms_a, args.cpu_time, args.prune_a), spent[0]),
                    timed(make_chooser(args.b, v, [args.seed, g, 1], args.weights_b,
                                       args.race_weights_b, args.crashed_weights_b,
                                       args.time_ms_b, args.cpu_time, args.prune_b), spent[1]))
        luck[0] = luck[1] = 0.0
        first_turn[0] = True
        rng = np.random.default_rng([args.seed, g])
        winner, points = play_game(v, choosers, rng, first=g % 2, on_turn=on_turn)
        result = points if winner == 0 else -points
        out.append((g, winner, result, luck[0] - luck[1], spent[0][0], int(spent[0][1]),
                    spent[1][0], int(spent[1][1])))
    return out


def parser() -> argparse.ArgumentParser:
    """The command line (`bench_league.py` builds its games' settings from it too)."""
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
    ap.add_argument("--prune-a", default=None,
                    help="a pruning network file for A's search (one fitted to --weights-a: "
                         "`jacquetd train-prune --weights`)")
    ap.add_argument("--prune-b", default=None, help="the same for B")
    ap.add_argument("--time-ms-a", type=int, default=None,
                    help="a neural A searches each move this long and plays the deepest "
                    "ranking it finished (strength per second: give it the time per move "
                    "of the level it meets)")
    ap.add_argument("--time-ms-b", type=int, default=None, help="the same for B")
    ap.add_argument("--cpu-time", action="store_true",
                    help="count --time-ms-a/-b in the thread's CPU time, not wall time (a "
                         "fair budget on a machine shared with other work)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes to share the games (the figures do not depend on it)")
    ap.add_argument("--no-luck", action="store_true", help="skip the luck adjustment")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    v = find_variant(args.variant)
    args.variant = v.name
    for level in (args.a, args.b):  # fail on a bad level before starting any process
        make_chooser(level, v, 0)
    chunk = 25
    batches = [list(range(i, min(i + chunk, args.games))) for i in range(0, args.games, chunk)]
    started = time.monotonic()
    results: list[Played] = []

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
    name_a = args.a + _files(args.weights_a, args.race_weights_a, args.crashed_weights_a,
                             args.prune_a)
    name_b = args.b + _files(args.weights_b, args.race_weights_b, args.crashed_weights_b,
                             args.prune_b)
    clock = " CPU" if args.cpu_time else ""
    name_a += f" ({args.time_ms_a} ms{clock} a move)" if args.time_ms_a else ""
    name_b += f" ({args.time_ms_b} ms{clock} a move)" if args.time_ms_b else ""
    per_move = [1e3 * sum(r[4 + 2 * k] for r in results)
                / max(1, sum(r[5 + 2 * k] for r in results)) for k in (0, 1)]
    print(f"{v.name}: {name_a} (A) vs {name_b} (B), {args.games} games, seed {args.seed}")
    print(f"  wins: A {wins[0]}  B {wins[1]}" + (f"  abandoned {abandoned}" if abandoned else ""))
    print(f"  points per game for A, raw:           {m:+.3f}  "
          f"(95% CI {m - h:+.3f} .. {m + h:+.3f})")
    if not args.no_luck:
        print(f"  points per game for A, luck-adjusted: {ma:+.3f}  "
              f"(95% CI {ma - ha:+.3f} .. {ma + ha:+.3f})")
    print(f"  CPU time a play chosen among two or more: A {per_move[0]:.1f} ms, "
          f"B {per_move[1]:.1f} ms")
    print(f"  {elapsed:.0f} s with {args.jobs} process(es)")
    if args.json:
        print(json.dumps({"variant": v.name, "a": name_a, "b": name_b, "games": args.games,
                          "seed": args.seed, "wins": wins, "abandoned": abandoned,
                          "ppg": m, "ci95": h,
                          "ppg_adjusted": None if args.no_luck else ma,
                          "ci95_adjusted": None if args.no_luck else ha,
                          "cpu_ms_a_move": [round(x, 2) for x in per_move],
                          "seconds": round(elapsed, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
