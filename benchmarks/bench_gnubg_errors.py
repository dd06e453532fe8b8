"""Where a level of ours loses to GNU Backgammon: the plays where the two differ.

    python benchmarks/bench_gnubg_errors.py --games 1000 --seed 41 --jobs 2

Plays the head-to-head of bench_strength.py (`--level`, default `neural`,
against gnubg at `--gnubg-plies`, default 0, same seeding: game g has the dice
of seed [seed, g], our level opens the even games). On every turn of ours with
two or more plays, gnubg's choice for the same roll is computed too; where the
two differ, both plays are judged by gnubg at `--judge-plies` (default 2,
cubeless, its own evaluator one level deeper than the players). The cost of a
disagreement is the judge's equity of gnubg's play minus that of ours (negative
when the judge prefers ours).

Printed by phase of our side (contact, race, bear-off; `phases.py`): turns,
disagreements, the mean cost of a disagreement and the cost per game in
millipoints, with 95% intervals. The cost per game is what our choices give away
against gnubg's on the same rolls, by the judge: the phase where it is largest
is where the next network should improve.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_strength import gnubg_chooser, interval, make_chooser
from positions import gnubg_board

from jacquetd.bots.evaluator import score_of
from jacquetd.bots.phases import phase_of
from jacquetd.bots.selfplay import Turn, play_game
from jacquetd.rules import RawPlay, find_variant

PHASES = ("contact", "race", "bear-off")


def play(args: argparse.Namespace, games: Sequence[int]) -> list[tuple[int, str, float | None]]:
    """(game, phase, cost or None when both chose the same play) for our turns."""
    import gnubg  # optional dependency of the benchmarks only

    v = find_variant("backgammon")
    judge_ec = gnubg.evalcontext(0, args.judge_plies, 1, 0, 0.0)
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    theirs = gnubg_chooser(args.gnubg_plies)

    def judged(raw: RawPlay) -> float:
        if raw.me[0] == 15:  # the play wins: single, gammon or backgammon (B8)
            return float(score_of(v, raw.me, raw.opp, False))
        return -float(gnubg.evaluate(gnubg_board(raw.opp, raw.me), ci, judge_ec)[5])

    out: list[tuple[int, str, float | None]] = []
    for g in games:
        ours = make_chooser(args.level, v, [args.seed, g, 0], args.weights, args.race_weights,
                            args.crashed_weights)
        def hook(player: int, turn: Turn, raws: Sequence[RawPlay], k: int, game: int = g
                 ) -> None:
            if player != 0 or len(raws) < 2:
                return
            phase = phase_of(v, turn.me, turn.opp)
            kg = theirs(turn, raws)
            if kg == k:
                out.append((game, phase, None))
                return
            out.append((game, phase, judged(raws[kg]) - judged(raws[k])))

        play_game(v, (ours, theirs), np.random.default_rng([args.seed, g]), first=g % 2,
                  on_turn=hook)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="neural", help="our level (neural, neural-1, ...)")
    ap.add_argument("--gnubg-plies", type=int, default=0, help="gnubg's level as the opponent")
    ap.add_argument("--judge-plies", type=int, default=2, help="gnubg's depth as the judge")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--weights", default=None,
                    help="a candidate contact network for our level (default: the shipped one)")
    ap.add_argument("--race-weights", default=None, help="a candidate race network")
    ap.add_argument("--crashed-weights", default=None, help="a candidate crashed network")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = ap.parse_args(argv)
    started = time.monotonic()
    chunk = 20
    batches = [list(range(i, min(i + chunk, args.games))) for i in range(0, args.games, chunk)]
    rows: list[tuple[int, str, float | None]] = []
    if args.jobs <= 1:
        for b in batches:
            rows += play(args, b)
    else:
        with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("fork")
                                 ) as pool:
            for part in pool.map(play, [args] * len(batches), batches):
                rows += part
    files = [Path(f).name for f in (args.weights, args.race_weights, args.crashed_weights) if f]
    named = f" [{' + '.join(files)}]" if files else ""
    print(f"backgammon: {args.level}{named} against gnubg {args.gnubg_plies}-ply, "
          f"{args.games} games, seed {args.seed}; our plays that differ from gnubg's, "
          f"judged by gnubg {args.judge_plies}-ply (cubeless), millipoints")
    print(f"  {'phase':9} {'turns':>6} {'differ':>7} {'cost per disagreement':>24} "
          f"{'cost per game':>18}")
    table = {}
    for phase in (*PHASES, "all"):
        mine = [r for r in rows if phase in ("all", r[1])]
        costs = [1000 * c for _g, _p, c in mine if c is not None]
        per_game = np.zeros(args.games)
        for g, _p, c in mine:
            if c is not None:
                per_game[g] += 1000 * c
        m, h = interval(costs)
        pg, pgh = interval(list(per_game))
        table[phase] = {"turns": len(mine), "differ": len(costs), "mean_cost_mp": m,
                        "ci95": h, "per_game_mp": pg, "per_game_ci95": pgh}
        print(f"  {phase:9} {len(mine):6d} {len(costs):7d} {m:14.1f} ± {h:6.1f} "
              f"{pg:10.2f} ± {pgh:5.2f}")
    print(f"  {time.monotonic() - started:.0f} s with {args.jobs} process(es)")
    if args.json:
        print(json.dumps({"level": args.level, "gnubg_plies": args.gnubg_plies,
                          "judge_plies": args.judge_plies, "games": args.games,
                          "seed": args.seed, "phases": table}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
