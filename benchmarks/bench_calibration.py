"""Calibration benchmark: are the network's probabilities, gammons and marcia included, right?

    python benchmarks/bench_calibration.py --variant backgammon --games 500 --seed 1 \
        [--weights FILE] [--every 4]

Plays `--games` games of the network against itself at 0 plies (seeded
dice) and, every `--every` turns, records the network's five probabilities
for the side on roll and what then happened in the game. An evaluator whose
figures are the true expectations under its own play has, on average, the
same predicted as observed rate for every result: the table prints both
(win; win and lose gammon/marcia; win and lose backgammon/marcia per punto)
with the observed rate's 95% interval. It also prints the predictions at the
opening position. In `backgammon` it adds GNU Backgammon's 0-ply figures
(PyPI `gnubg`, in-process) on the same positions: their mean and the mean
absolute difference from ours, per output.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one core, no BLAS threads

import numpy as np

from jacquetd.bots import features
from jacquetd.bots.choosers import neural_chooser
from jacquetd.bots.evaluator import candidate_evaluator
from jacquetd.bots.net import flip
from jacquetd.bots.selfplay import Turn, play_game, start_side
from jacquetd.rules import RawPlay, find_variant

OUTPUTS = ("win", "win gammon/marcia", "win bg/per punto", "lose gammon/marcia",
           "lose bg/per punto")


def gnubg_probs(me: Sequence[int], opp: Sequence[int]) -> np.ndarray:
    """GNU Backgammon's 0-ply cubeless probabilities for the side on roll (`me`)."""
    import gnubg  # optional dependency of the benchmarks only

    ec = gnubg.evalcontext(0, 0, 1, 0, 0)
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    return np.array(gnubg.evaluate((list(opp[1:26]), list(me[1:26])), ci, ec)[:5])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="backgammon")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=4, help="record one turn in this many")
    ap.add_argument("--weights", default=None, help="a network file instead of the shipped one")
    args = ap.parse_args(argv)
    v = find_variant(args.variant)
    ev = candidate_evaluator(v.name, args.weights)
    chooser = neural_chooser(ev)
    with_gnubg = v.name == "backgammon"

    preds: list[np.ndarray] = []
    theirs: list[np.ndarray] = []
    observed: list[np.ndarray] = []
    seen: list[tuple[int, np.ndarray, np.ndarray | None]] = []
    turn_no = [0]

    def on_turn(player: int, turn: Turn, raws: Sequence[RawPlay], k: int) -> None:
        turn_no[0] += 1
        if turn_no[0] % args.every:
            return
        me, opp = features.as_batch([turn.me]), features.as_batch([turn.opp])
        p = ev.probs(me, opp, np.array([turn.me_flag]), np.array([turn.opp_flag]))[0]
        gp = gnubg_probs(turn.me, turn.opp) if with_gnubg else None
        seen.append((player, p, gp))

    for g in range(args.games):
        rng = np.random.default_rng([args.seed, g])
        seen.clear()
        winner, points = play_game(v, (chooser, chooser), rng, first=g % 2, on_turn=on_turn)
        if winner < 0:
            continue
        for player, p, gp in seen:
            won = player == winner
            # the game's result in the five cumulative outcomes, from the winner's view
            res = np.array([1.0, points >= 2, points >= 3, 0.0, 0.0])
            observed.append(res if won else flip(res))
            preds.append(p)
            if gp is not None:
                theirs.append(gp)
        if (g + 1) % 50 == 0:
            sys.stderr.write(f"\r{g + 1}/{args.games} games, {len(preds)} positions   ")
            sys.stderr.flush()
    sys.stderr.write("\n")
    pr = np.array(preds)
    ob = np.array(observed)
    n = len(pr)
    print(f"{v.name}: {'network ' + args.weights if args.weights else 'shipped network'}, "
          f"{args.games} self-play games at 0 plies, {n} positions (seed {args.seed})")
    header = f"  {'output':<22}{'predicted':>10}{'observed':>10}{'95% CI':>16}"
    if with_gnubg:
        header += f"{'gnubg':>9}{'|ours-gnubg|':>14}"
    print(header)
    th = np.array(theirs) if theirs else None
    for k, name in enumerate(OUTPUTS):
        o = ob[:, k].mean()
        # positions of one game are correlated: a conservative interval counts games
        half = 1.96 * math.sqrt(max(o * (1 - o), 1e-12) / max(args.games, 1))
        line = (f"  {name:<22}{pr[:, k].mean():>10.3f}{o:>10.3f}"
                f"{f'{o - half:.3f}..{o + half:.3f}':>16}")
        if th is not None:
            line += f"{th[:, k].mean():>9.3f}{np.abs(pr[:, k] - th[:, k]).mean():>14.3f}"
        print(line)
    start = features.as_batch([start_side(v)])
    f0 = np.zeros(1, dtype=bool)
    p0 = ev.probs(start, start.copy(), f0, f0)[0]
    line = "  opening position (side on roll, before its roll): " + " ".join(
        f"{x:.3f}" for x in p0)
    print(line)
    if with_gnubg:
        s = start_side(v)
        print("  gnubg at the same position:                        " + " ".join(
            f"{x:.3f}" for x in gnubg_probs(s, s)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
