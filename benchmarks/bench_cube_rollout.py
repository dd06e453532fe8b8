"""Money cube decisions against cubeful rollouts, in every variant.

    python benchmarks/bench_cube_rollout.py --variant jacquet --positions 100 \
        --trials 648 --horizon 10 --seed 17 --jobs 2

The Jacquet variants have no outside engine to check cube decisions against
(`bench_cube.py` compares backgammon with GNU Backgammon), so the reference is a
cubeful rollout of each decision (`jacquetd.bots.cuberollout`): the no-double and
double/take lines played on the same dice by the 0-ply player, both sides using our
money cube policy in every later turn, truncated after `--horizon` turns and scored
there by Janowski's cubeful equity after the best cube action (with several
horizons, `--horizon 10,11`, each trial is valued by the mean of its values cut
after each: the leaves then have each side on roll alike, which cancels a network's
bias for or against the side on roll). The rollout's proper action (no double,
double/take, double/pass, too good) is compared with the action
`analysis.cube_decision` gives at 0 and 1 plies (Janowski's formula on the cubeless
probabilities; in backgammon the one-roll cubeful search at 1 ply).

Positions come from seeded `neural` self-play in the variant (before the roll,
the cube centred, one turn in `--rate` kept) whose 0-ply winning chances for
the side on roll lie in the doubling window (`--window`, default 0.55-0.95):
positions far outside it are no doubles and takes that every method agrees on.
Printed per level: agreement, mean cost per decision and mean cost of the
disagreements by the rollout's own equities (the doubler's loss plus, when the
take/pass answer differs, |DT - DP|, as in bench_cube.py), and the number of
decisions whose rollout verdict is within two standard errors of another
action ("unsure"). Caution: the rollouts share the 0-ply network's judgement
(its plays, its cube policy in later turns and its probabilities at the
horizon), so the check measures how well our decision agrees with our own
played-out policy, not with perfect play. `--network NAME` rolls the same positions
out with another network of ours kept in `truth/networks/` (`make_truth.py
--network`): a stronger player's verdicts, saved with the network's name.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_cube import GnubgCube, cost, our_class  # noqa: E402
from make_truth import code_version, rollout_evaluator, truth_evaluator  # noqa: E402

from jacquetd.bots import analysis, cubeful  # noqa: E402
from jacquetd.bots import cube as cubemod  # noqa: E402
from jacquetd.bots.choosers import neural_chooser  # noqa: E402
from jacquetd.bots.cuberollout import CubefulRollout  # noqa: E402
from jacquetd.bots.evaluator import neural_evaluator  # noqa: E402
from jacquetd.bots.players import state_of  # noqa: E402
from jacquetd.bots.search import Searcher  # noqa: E402
from jacquetd.bots.selfplay import Turn, play_game  # noqa: E402
from jacquetd.bots.supervised import parse_horizons  # noqa: E402
from jacquetd.rules import Position, RawPlay, find_variant  # noqa: E402
from jacquetd.rules.position import Cube, CubeOwner  # noqa: E402

LEVELS = ("0", "1", "2")  # `analysis.cube_decision` at these plies
LABELS = {"0": "ours at 0 plies", "1": "ours at 1 ply", "2": "ours at 2 plies",
          "c1": "one-roll cubeful search, 1 ply", "c2": "one-roll cubeful search, 2 plies",
          "d2": "two-roll cubeful search, 2 plies", "d3": "two-roll cubeful search, 3 plies"}
_SEARCHERS: dict[str, Searcher] = {}


def searcher_for(variant: str) -> Searcher:
    """One searcher per variant and process (its evaluator's caches are shared)."""
    if variant not in _SEARCHERS:
        _SEARCHERS[variant] = Searcher(neural_evaluator(variant))
    return _SEARCHERS[variant]


def sample(variant: str, count: int, seed: int, rate: float, window: tuple[float, float],
           one_a_game: bool = False) -> list[Position]:
    """`count` positions before the roll, cube centred, from seeded neural self-play, the
    side on roll's 0-ply winning chances inside `window`: a share `rate` of the turns, or
    with `one_a_game` one turn of each game, drawn alike among its turns in the window
    (positions of one game are alike: a set of one a game says more for its size)."""
    v = find_variant(variant)
    ev = truth_evaluator(variant)
    searcher = Searcher(ev)
    choose = neural_chooser(ev)
    out: list[Position] = []
    game = 0
    while len(out) < count:
        pick = np.random.default_rng([seed, game, 3])
        seen: list[Position] = []

        def hook(player: int, turn: Turn, raws: Sequence[RawPlay], k: int,
                 _pick: np.random.Generator = pick, _seen: list[Position] = seen) -> None:
            if len(out) >= count or (not one_a_game and _pick.random() >= rate):
                return
            pos = Position.validated(variant, turn.me, turn.opp,
                                     primed=(turn.me_flag, turn.opp_flag),
                                     cube=Cube(1, CubeOwner.CENTRE))
            win = float(searcher.evaluate_states([state_of(pos)], 0)[0][0])
            if window[0] <= win <= window[1]:
                (_seen if one_a_game else out).append(pos)

        play_game(v, (choose, choose), np.random.default_rng([seed, game]), first=game % 2,
                  on_turn=hook)
        if one_a_game and seen:
            out.append(seen[int(pick.integers(len(seen)))])
        game += 1
    return out


def horizon_text(horizon: int | list[int]) -> str:
    """A saved horizon as the reports say it: '10', or '10 and 11 (the mean)'."""
    if isinstance(horizon, int):
        return str(horizon)
    return " and ".join(str(h) for h in horizon) + " (the mean)"


DRAWS = {True: "one a game", False: "several a game", None: "one or several a game"}
"""How the positions were drawn (`--one-a-game`; None: sets of both kinds judged as one)."""


SCAN = tuple(round(x, 2) for x in np.arange(0.40, 0.96, 0.05))
SHIFTS = (-0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03)
"""`--scan`: shifts of the cubeless winning chances before Janowski's formula (the
shipped efficiency): what undoing a network's bias for or against the side on roll
would do to the cube."""


def roll_out(job: tuple[str, str, int, int | tuple[int, ...], int, int, float, str | None]
             ) -> dict[str, Any]:
    """The cubeful rollout of one position's decision: its figures, as saved (`--save`).
    `x` is the contact efficiency of the rollout's own cube policy and of its verdict;
    `network`, a network of `truth/networks/` playing the rollout instead of the one the
    positions were sampled with."""
    variant, position_id, trials, horizon, seed, index, x, network = job
    pos = Position.from_id(position_id)
    ev = truth_evaluator(variant) if network is None else rollout_evaluator(variant, network)
    roller = CubefulRollout(Searcher(ev), x_contact=x)
    result = roller.run(state_of(pos), trials=trials, seed=[seed, index], horizon=horizon)
    proper = our_class(result.decision(cubemod.efficiency(pos, x)))
    se = result.difference_se
    # unsure: another action is within two standard errors of the verdict
    unsure = (abs(result.dt - result.nd) < 2 * se or abs(result.dt - 1.0) < 2 * result.dt_se
              or abs(result.nd - 1.0) < 2 * result.nd_se)
    return {"position_id": position_id, "proper": proper, "nd": result.nd, "dt": result.dt,
            "nd_se": result.nd_se, "dt_se": result.dt_se, "difference_se": se,
            "unsure": bool(unsure)}


def judge(row: dict[str, Any], cubeful_plies: Sequence[int] = (), scan: bool = True,
          deep_plies: Sequence[int] = ()) -> dict[str, Any]:
    """Our levels' actions on one rolled-out decision, their costs by the rollout's
    figures, and (for the scan) the action at each contact efficiency in `SCAN` from the
    0-, 1- and 2-ply probabilities (Janowski's formula; each depth evaluated once).
    `cubeful_plies`: also the one-roll cubeful search (`cubeful.money_decision`) at
    these depths (levels 'c1', 'c2'); `deep_plies`: the two-roll cubeful search
    (`cubeful.money_decision_deep`) at these depths (levels 'd2', 'd3')."""
    pos = Position.from_id(row["position_id"])
    ref = GnubgCube(row["proper"], row["nd"], row["dt"], 1.0)
    out = dict(row)
    decisions = {level: analysis.cube_decision(pos, plies=int(level)) for level in LEVELS}
    for plies in cubeful_plies:
        decisions[f"c{plies}"] = cubeful.money_decision(searcher_for(pos.variant), pos, plies)
    for plies in deep_plies:
        decisions[f"d{plies}"] = cubeful.money_decision_deep(searcher_for(pos.variant), pos,
                                                             plies)
    for level, decision in decisions.items():
        ours = our_class(decision)
        out[f"ours_{level}"] = ours
        out[f"cost_{level}"] = cost(ours, ref)
    model = analysis.match_model(pos.variant)
    for level in LEVELS if scan else ():
        probs = analysis.evaluate(pos, plies=int(level)).probs()
        for x in SCAN:
            ours = our_class(cubemod.position_decision(pos, probs, model, x))
            out[f"scan{level}_{x}"] = (ours, cost(ours, ref))
        for d in SHIFTS:
            shifted = np.array(probs, dtype=float)
            shifted[0] = min(max(shifted[0] + d, 0.0), 1.0)
            ours = our_class(cubemod.position_decision(pos, shifted, model))
            out[f"shift{level}_{d}"] = (ours, cost(ours, ref))
    return out


def _scan_cells(rows: list[dict[str, Any]], kind: str, value: float) -> str:
    """One line of a scan: at 0, 1 and 2 plies, the agreement, the mean cost a decision
    and the mean cost of the disagreements of the actions `judge` kept under
    `{kind}{level}_{value}`."""
    cells = []
    for level in LEVELS:
        got = [r[f"{kind}{level}_{value}"] for r in rows]
        wrong = [c for (ours, c), r in zip(got, rows, strict=True) if ours != r["proper"]]
        agree = 1 - len(wrong) / len(rows)
        cells.append(f"{agree:6.1%} {float(np.mean([c for _o, c in got])):.4f} "
                     f"{float(np.mean(wrong)) if wrong else 0.0:.4f}")
    return " | ".join(cells)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="jacquet",
                    choices=("jacquet", "jacquet-be", "backgammon"))
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--trials", type=int, default=648, help="trials per line (36 x k)")
    ap.add_argument("--horizon", default="10",
                    help="turns played before Janowski, or several joined by commas: each "
                    "trial valued by the mean over them (10,11 cancels a network's bias "
                    "for or against the side on roll at the leaves: `cuberollout`)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--rate", type=float, default=0.25,
                    help="the share of the turns in the window kept")
    ap.add_argument("--one-a-game", action="store_true",
                    help="keep one turn of each game instead, drawn alike among its turns "
                         "in the window (the positions of one game are alike)")
    ap.add_argument("--window", type=float, nargs=2, default=(0.55, 0.95))
    ap.add_argument("--jobs", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--json", action="store_true", help="also print every decision as JSON")
    ap.add_argument("--network", default=None,
                    help="roll out with this network of truth/networks/ (<variant>-<tag>.npz) "
                         "instead of the one the positions are sampled with")
    ap.add_argument("--save", type=Path, help="write the rollouts' figures to this file "
                    "(JSON lines, the settings first)")
    ap.add_argument("--load", type=Path, nargs="+",
                    help="judge the rollouts saved in these files instead of rolling out "
                    "(the first one's settings replace the options; several files of one "
                    "variant are judged as one set, their seeds listed)")
    ap.add_argument("--efficiency", type=float,
                    help="contact cube efficiency of the rollouts' own cube policy and "
                    "of their verdicts (default: the variant's shipped value)")
    ap.add_argument("--cubeful", type=int, nargs="*", default=[], metavar="PLIES",
                    help="also judge the one-roll cubeful search at these depths "
                    "(backgammon money play uses it at 1 ply and more)")
    ap.add_argument("--deep", type=int, nargs="*", default=[], metavar="PLIES",
                    choices=(2, 3),
                    help="also judge the two-roll cubeful search at these depths (backgammon "
                         "uses it from 2 plies on)")
    ap.add_argument("--scan", action="store_true",
                    help="also the agreement at 0, 1 and 2 plies for contact efficiencies "
                         "0.40-0.95 (Janowski's formula on each depth's probabilities)")
    args = ap.parse_args(argv)
    if args.efficiency is None:
        args.efficiency = cubemod.contact_efficiency(args.variant)
    try:
        horizons = parse_horizons(str(args.horizon))
    except ValueError as exc:
        ap.error(str(exc).replace("--rollout-horizon", "--horizon"))
    args.horizon = horizons[0] if len(horizons) == 1 else list(horizons)
    started = time.monotonic()
    if args.load is not None:
        rolled = []
        seeds = []
        draws = set()
        first: dict[str, Any] = {}
        for k, path in enumerate(args.load):
            lines = path.read_text().splitlines()
            settings = json.loads(lines[0])
            # files made before the options: efficiency 0.68, several positions a game
            shape = {"variant": settings["variant"], "trials": settings["trials"],
                     "horizon": settings["horizon"], "window": settings["window"],
                     "efficiency": settings.get("efficiency", 0.68),
                     "network": settings.get("network")}
            if k == 0:
                first = shape
                for key, value in shape.items():
                    setattr(args, key, value)
            else:  # judged as one set, the rollouts must be alike
                differ = [key for key in shape if shape[key] != first[key]]
                if differ:
                    ap.error(f"{path.name} and {args.load[0].name} differ in "
                             + ", ".join(f"{key} ({shape[key]} against {first[key]})"
                                         for key in differ))
            seeds.append(str(settings["seed"]))
            draws.add(bool(settings.get("one_a_game", False)))
            rolled += [json.loads(line) for line in lines[1:]]
        args.seed = ", ".join(seeds)
        args.one_a_game = True if draws == {True} else False if draws == {False} else None
    else:
        if args.network is not None:
            args.network = Path(args.network).name
            rollout_evaluator(args.variant, args.network)  # fails before the sampling
        positions = sample(args.variant, args.positions, args.seed, args.rate,
                           tuple(args.window), args.one_a_game)
        jobs = [(args.variant, pos.to_id(), args.trials, horizons, args.seed, i,
                 args.efficiency, args.network)
                for i, pos in enumerate(positions)]
        if args.jobs > 1:
            with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
                rolled = pool.map(roll_out, jobs, chunksize=1)
        else:
            rolled = [roll_out(job) for job in jobs]
        if args.save is not None:
            settings = {key: getattr(args, key) for key in
                        ("variant", "positions", "trials", "horizon", "seed", "rate",
                         "efficiency", "one_a_game")}
            settings["window"] = list(args.window)
            if args.network is not None:
                settings["network"] = args.network
            settings["code_version"] = code_version()
            settings["command"] = "python benchmarks/bench_cube_rollout.py " + " ".join(
                argv if argv is not None else sys.argv[1:])
            args.save.write_text("".join(json.dumps(r) + "\n" for r in [settings, *rolled]))
    rows = [judge(r, args.cubeful, args.scan, args.deep) for r in rolled]
    print(f"{args.variant}: money cube decisions of {len(rows)} positions from neural "
          f"self-play (seed {args.seed}, {DRAWS[args.one_a_game]}"
          f", 0-ply winning chances {args.window[0]}-"
          f"{args.window[1]}) against cubeful rollouts ({args.trials} trials per line, "
          f"0-ply player{'' if args.network is None else ' ' + args.network}, "
          f"our cube policy at contact efficiency {args.efficiency}, "
          f"truncated after {horizon_text(args.horizon)} turns); "
          f"{time.monotonic() - started:.0f} s")
    classes = ("no double", "double/take", "double/pass", "too good")
    print("rollout verdicts: " + ", ".join(
        f"{c} {sum(1 for r in rows if r['proper'] == c)}" for c in classes)
        + f"; unsure (another action within 2 standard errors) "
          f"{sum(1 for r in rows if r['unsure'])}")
    for plies in [*LEVELS, *(f"c{p}" for p in args.cubeful), *(f"d{p}" for p in args.deep)]:
        agree = [r for r in rows if r[f"ours_{plies}"] == r["proper"]]
        dis = [r[f"cost_{plies}"] for r in rows if r[f"ours_{plies}"] != r["proper"]]
        sure = [r for r in rows if not r["unsure"]]
        sure_agree = sum(1 for r in sure if r[f"ours_{plies}"] == r["proper"])
        sure_dis = [r[f"cost_{plies}"] for r in sure if r[f"ours_{plies}"] != r["proper"]]
        mean = float(np.mean([r[f"cost_{plies}"] for r in rows]))
        print(f"  {LABELS.get(plies, plies)}: agreement {len(agree) / len(rows):.1%} "
              f"({sure_agree}/{len(sure)} where the rollout is sure, their disagreements "
              f"costing {float(np.mean(sure_dis)) if sure_dis else 0.0:.4f}), mean cost "
              f"per decision {mean:.4f}, mean cost of the disagreements "
              f"{float(np.mean(dis)) if dis else 0.0:.4f} ({len(dis)})")
        mix: dict[str, int] = {}
        for r in rows:
            if r[f"ours_{plies}"] != r["proper"]:
                key = f"{r[f'ours_{plies}']} where the rollout says {r['proper']}"
                mix[key] = mix.get(key, 0) + 1
        for key, n in sorted(mix.items(), key=lambda kv: -kv[1]):
            print(f"    {n:3d} x {key}")
    if args.scan:
        print("  agreement, mean cost per decision and mean cost of the disagreements by "
              "contact efficiency, Janowski's formula on the probabilities at 0, 1 and 2 "
              f"plies (shipped {cubemod.contact_efficiency(args.variant)}):")
        for x in SCAN:
            print(f"    {x:.2f}: " + _scan_cells(rows, "scan", x))
        print("  the same by a shift of the cubeless winning chances before Janowski's "
              "formula (the shipped efficiency):")
        for d in SHIFTS:
            print(f"    {d:+.2f}: " + _scan_cells(rows, "shift", d))
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
