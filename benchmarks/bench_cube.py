"""Cube decisions against GNU Backgammon's 2-ply cubeful analysis (backgammon).

    python benchmarks/bench_cube.py --positions 500 --plies 0 --seed 17

Positions come from seeded `neural` self-play games (each position before
the roll, one in `--rate` kept). Every position is judged twice: for money
(the cube centred, or owned at 2 by the side on roll) and in a 7-point match
at a seeded score (the cube centred, or owned at 2 when it does not already
win the match; no Crawford game). For each, our action (no double,
double/take, double/pass, too good; `jacquetd.bots.analysis.cube_decision`
at `--plies`) is compared with the proper cube action GNU Backgammon prints
(`hint` at 2 plies, cubeful, in-process through the PyPI package `gnubg`; no
Jacoby rule, no beavers, as in jacquetd's money play).

The cost of a disagreement is measured by gnubg's own cubeful equities
(no double, double/take, double/pass; money: points per cube unit, match:
gnubg's normalised match equity): the doubler's loss, best(ND, min(DT, DP))
minus the equity of our action, plus, when our take/pass answer differs from
gnubg's, |DT - DP|. Printed: agreement and mean cost of the disagreements
(the goal is at least 90% and under 0.02), also over the close positions
(where gnubg's no-double and double equities differ by less than 0.1).

`--reference 0 1` also judges GNU Backgammon's own cube actions at 0 and
1 ply the same way, on the same decisions in the same run: what a
disagreement with its 2-ply costs when the judge is gnubg itself at a
shallower depth.

`--weights FILE` judges with a candidate network in place of the shipped one,
`--crashed-weights FILE` with a candidate crashed network beside it (the
positions are still sampled by the shipped networks, so two runs with the
same seed judge the same decisions).

`--scan` also prints the agreement for Janowski cube efficiencies from 0.4
to 0.9 (contact) on the same positions, to measure which one fits best.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from positions import gnubg_board

from jacquetd.bots import analysis, cubeful
from jacquetd.bots import cube as cubemod
from jacquetd.bots.choosers import neural_chooser
from jacquetd.bots.evaluator import candidate_evaluator, neural_evaluator
from jacquetd.bots.search import Searcher
from jacquetd.bots.selfplay import Turn, play_game
from jacquetd.rules import Position, RawPlay, find_variant
from jacquetd.rules.position import Cube, CubeOwner, MatchState

MATCH_LENGTH = 7
CLOSE = 0.1


@dataclass(frozen=True)
class Case:
    """One cube decision to judge."""

    position: Position
    mode: str  # 'money' or 'match'


@dataclass(frozen=True)
class GnubgCube:
    """gnubg's cube analysis: proper action class and cubeful equities (doubler's view)."""

    action: str
    nd: float
    dt: float
    dp: float


def sample_positions(count: int, seed: int, rate: float) -> list[tuple[tuple[int, ...],
                                                                      tuple[int, ...]]]:
    """`count` (me, opp) positions before the roll from seeded neural self-play."""
    v = find_variant("backgammon")
    choose = neural_chooser(neural_evaluator(v.name))
    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    game = 0
    while len(out) < count:
        pick = np.random.default_rng([seed, game, 3])

        def hook(player: int, turn: Turn, raws: Sequence[RawPlay], k: int,
                 _pick: np.random.Generator = pick) -> None:
            if len(out) < count and _pick.random() < rate:
                out.append((turn.me, turn.opp))

        play_game(v, (choose, choose), np.random.default_rng([seed, game]), first=game % 2,
                  on_turn=hook)
        game += 1
    return out


def make_cases(sides: list[tuple[tuple[int, ...], tuple[int, ...]]], seed: int) -> list[Case]:
    rng = np.random.default_rng([seed, 99])
    cases = []
    for me, opp in sides:
        owned = rng.random() < 0.3
        cube = Cube(2, CubeOwner.ON_ROLL) if owned else Cube(1, CubeOwner.CENTRE)
        cases.append(Case(Position.validated("backgammon", me, opp, cube=cube), "money"))
        a, b = (int(x) for x in rng.integers(0, MATCH_LENGTH - 1, size=2))
        need_me = MATCH_LENGTH - a
        owned = rng.random() < 0.3 and need_me > 2
        cube = Cube(2, CubeOwner.ON_ROLL) if owned else Cube(1, CubeOwner.CENTRE)
        cases.append(Case(Position.validated("backgammon", me, opp, cube=cube,
                                             match=MatchState(MATCH_LENGTH, (a, b))), "match"))
    return cases


class Gnubg:
    """The in-process gnubg, driven by its command language; `hint` output is parsed."""

    def __init__(self, plies: int = 2) -> None:
        import gnubg

        self.g = gnubg
        self.libc = ctypes.CDLL(None)
        for cmd in ("set threads 1", "set player 0 human", "set player 1 human",
                    "set jacoby off", "set beavers 0", "new session",
                    "set evaluation cubedecision evaluation cubeful on",
                    "set evaluation cubedecision evaluation prune off"):
            self._quiet(cmd)
        self.plies = -1
        self.set_plies(plies)

    def set_plies(self, plies: int) -> None:
        """The depth of the cube analyses that follow."""
        if plies != self.plies:
            self._quiet(f"set evaluation cubedecision evaluation plies {plies}")
            self.plies = plies

    def _run(self, cmd: str) -> str:
        self.libc.fflush(None)
        sys.stdout.flush()
        saved = os.dup(1)
        with tempfile.TemporaryFile() as tmp:
            os.dup2(tmp.fileno(), 1)
            try:
                self.g.command(cmd)
                self.libc.fflush(None)
            finally:
                os.dup2(saved, 1)
                os.close(saved)
            tmp.seek(0)
            return tmp.read().decode(errors="replace")

    def _quiet(self, cmd: str) -> None:
        self._run(cmd)

    def analyse(self, pos: Position) -> GnubgCube:
        g = self.g
        board = gnubg_board(pos.me, pos.opp)
        c = pos.cube or Cube()
        owner = {CubeOwner.CENTRE: -1, CubeOwner.ON_ROLL: 0, CubeOwner.OPPONENT: 1}[c.owner]
        if pos.match is None:
            ci = g.cubeinfo(c.value, owner, 0, 0, (0, 0), 0, 0)
        else:
            m = pos.match
            ci = g.cubeinfo(c.value, owner, 0, m.length, tuple(m.score), int(m.crawford), 0)
        ci["jacoby"] = 0  # the match id carries the rule: money play here has no Jacoby
        ci["beavers"] = 0
        pi = g.posinfo(0, 0, 0, 1, (0, 0))
        gid = g.gnubgid(board, ci, pi)
        self._quiet(f"set gnubgid {gid}")
        text = self._run("hint")
        return parse_hint(text)


_EQ = re.compile(r"^\s*\d\.\s+(No double|No redouble|Double, take|Redouble, take|"
                 r"Double, pass|Redouble, pass)\s+([+-]?\d+\.\d+)", re.M)
_PROPER = re.compile(r"Proper cube action:\s*(.+)")


def parse_hint(text: str) -> GnubgCube:
    eqs: dict[str, float] = {}
    for name, value in _EQ.findall(text):
        key = {"No double": "nd", "No redouble": "nd", "Double, take": "dt",
               "Redouble, take": "dt", "Double, pass": "dp", "Redouble, pass": "dp"}[name]
        eqs[key] = float(value)
    m = _PROPER.search(text)
    if m is None or len(eqs) != 3:
        raise RuntimeError(f"cannot read gnubg's cube analysis:\n{text}")
    return GnubgCube(action_class(m.group(1)), eqs["nd"], eqs["dt"], eqs["dp"])


def action_class(proper: str) -> str:
    """gnubg's 'Proper cube action' text as one of our four classes."""
    p = proper.lower()
    if p.startswith("too good"):
        return "too good"
    if p.startswith("no double") or p.startswith("no redouble"):
        return "no double"
    if "take" in p or "beaver" in p:
        return "double/take"
    if "pass" in p:
        return "double/pass"
    raise RuntimeError(f"unknown gnubg cube action {proper!r}")


def our_class(d: cubemod.CubeDecision) -> str:
    if d.action == "double":
        return "double/take" if d.take == "take" else "double/pass"
    return "too good" if d.action == "too_good" else "no double"


def cost(ours: str, g: GnubgCube) -> float:
    """Equity lost by our action, by gnubg's cubeful figures (doubler plus taker)."""
    best = max(g.nd, min(g.dt, g.dp))
    doubles = ours in ("double/take", "double/pass")
    doubler = best - (min(g.dt, g.dp) if doubles else g.nd)
    our_take = ours in ("double/take", "no double")
    if ours == "no double":
        our_take = None  # type: ignore[assignment]
    gnubg_take = g.dt <= g.dp
    taker = 0.0
    if our_take is not None and our_take != gnubg_take:
        taker = abs(g.dt - g.dp)
    return max(doubler, 0.0) + taker


def decision_at(pos: Position, probs: tuple[float, ...], x_contact: float | None
                ) -> cubemod.CubeDecision:
    """Our decision from given probabilities; `x_contact` replaces the contact efficiency."""
    return cubemod.position_decision(pos, probs, analysis.match_model(pos.variant), x_contact)


def gnubg_race_efficiency(pips: float) -> float:
    """GNU Backgammon's race cube efficiency (its defaults), to measure against ours."""
    return min(0.7, max(0.6, 0.55 + 0.00125 * pips))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--plies", type=int, default=0, help="our evaluation depth")
    ap.add_argument("--gnubg-plies", type=int, default=2)
    ap.add_argument("--method", choices=("shipped", "janowski", "cubeful", "deep"),
                    default="shipped",
                    help="as analysis.cube_decision ships them, Janowski at --plies, "
                         "the one-roll cubeful search with leaves at --plies - 1 (money "
                         "and match), or the cubeful search two rolls deep, leaves at "
                         "--plies - 2")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--rate", type=float, default=0.2)
    ap.add_argument("--scan", action="store_true", help="also scan contact efficiencies")
    ap.add_argument("--reference", type=int, nargs="*", default=[], metavar="PLIES",
                    help="also judge gnubg's own cube actions at these depths")
    ap.add_argument("--race-x", choices=("shipped", "gnubg"), default="shipped",
                    help="race cube efficiency: ours (0.68 x min(1, pips/50)) or GNU "
                         "Backgammon's (0.55 + 0.00125 x pips, within 0.6-0.7)")
    ap.add_argument("--worst", type=int, default=0, metavar="N",
                    help="also list the N costliest disagreements (position, gnubg's "
                         "equities, our winning and gammon chances)")
    ap.add_argument("--weights", default=None,
                    help="a network file in place of the shipped one (a candidate, before "
                         "it ships)")
    ap.add_argument("--crashed-weights", default=None,
                    help="a crashed network file beside the contact network (a candidate)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    started = time.monotonic()
    if args.race_x == "gnubg":
        cubemod.race_efficiency = gnubg_race_efficiency  # type: ignore[assignment]
    sides = sample_positions(args.positions, args.seed, args.rate)
    cases = make_cases(sides, args.seed)
    gn = Gnubg(args.gnubg_plies)
    searcher = Searcher(neural_evaluator("backgammon"))
    if args.weights or args.crashed_weights:
        searcher = Searcher(candidate_evaluator("backgammon", args.weights,
                                                crashed_weights=args.crashed_weights))
        analysis._searcher = lambda variant: searcher  # type: ignore[assignment]
        analysis.gammon_rate.cache_clear()
    rows: list[dict[str, Any]] = []
    scan = [round(x, 2) for x in np.arange(0.4, 0.91, 0.05)] if args.scan else []
    for k, case in enumerate(cases):
        pos = case.position
        refs = {}
        for plies in args.reference:
            gn.set_plies(plies)
            refs[plies] = gn.analyse(pos).action
        gn.set_plies(args.gnubg_plies)
        g = gn.analyse(pos)
        probs = analysis.evaluate(pos, plies=args.plies).probs()
        if args.method == "shipped":
            d = analysis.cube_decision(pos, plies=args.plies)
        elif args.method == "deep" and case.mode == "money":
            d = cubeful.money_decision_deep(searcher, pos, max(args.plies, 2))
        elif args.method == "deep":
            d = cubeful.match_decision_deep(searcher, pos, analysis.match_model(pos.variant),
                                            max(args.plies, 2))
        elif args.method == "cubeful" and case.mode == "money":
            d = cubeful.money_decision(searcher, pos, max(args.plies, 1))
        elif args.method == "cubeful":
            d = cubeful.match_decision(searcher, pos, analysis.match_model(pos.variant),
                                       max(args.plies, 1))
        else:
            d = decision_at(pos, probs, None)
        ours = our_class(d)
        row = {"mode": case.mode, "gnubg": g.action, "ours": ours, "cost": cost(ours, g),
               "position": pos.to_id(), "probs": [round(float(p), 3) for p in probs],
               "close": abs(g.nd - min(g.dt, g.dp)) < CLOSE,
               "scan": {str(x): our_class(decision_at(pos, probs, x)) for x in scan},
               "refs": refs, "g": g}
        rows.append(row)
        if (k + 1) % 50 == 0:
            sys.stderr.write(f"\r{k + 1}/{len(cases)} decisions   ")
    sys.stderr.write("\n")
    out: dict[str, Any] = {"positions": args.positions, "plies": args.plies,
                           "method": args.method, "race_x": args.race_x,
                           "gnubg_plies": args.gnubg_plies, "seed": args.seed}
    print(f"backgammon cube decisions: ours ({args.method}, race efficiency {args.race_x}) at "
          f"{args.plies} plies vs gnubg "
          f"{args.gnubg_plies}-ply "
          f"cubeful, {args.positions} positions from neural self-play (seed {args.seed})"
          + "".join(f"; judged with {Path(f).name}"
                    for f in (args.weights, args.crashed_weights) if f))
    for mode in ("money", "match"):
        for subset, name in ((lambda r: True, "all"), (lambda r: r["close"], "close")):
            rs = [r for r in rows if r["mode"] == mode and subset(r)]
            if not rs:
                continue
            agree = sum(1 for r in rs if r["ours"] == r["gnubg"]) / len(rs)
            dis = [r["cost"] for r in rs if r["ours"] != r["gnubg"]]
            mean_dis = float(np.mean(dis)) if dis else 0.0
            mean_all = float(np.mean([r["cost"] for r in rs]))
            print(f"  {mode:5} {name:5} {len(rs):4d} decisions: agreement {100 * agree:5.1f}%  "
                  f"mean cost of disagreements {mean_dis:.4f}  mean cost per decision "
                  f"{mean_all:.4f}")
            out[f"{mode}_{name}"] = {"n": len(rs), "agreement": agree,
                                     "mean_cost_disagreements": mean_dis,
                                     "mean_cost": mean_all}
        confusion: dict[str, int] = {}
        for r in rows:
            if r["mode"] == mode and r["ours"] != r["gnubg"]:
                key = f"{r['ours']} (gnubg: {r['gnubg']})"
                confusion[key] = confusion.get(key, 0) + 1
        for key, n in sorted(confusion.items(), key=lambda kv: -kv[1]):
            print(f"      {n:4d}  ours {key}")
        for plies in args.reference:
            rs = [r for r in rows if r["mode"] == mode]
            agree = sum(1 for r in rs if r["refs"][plies] == r["gnubg"]) / len(rs)
            costs = [cost(r["refs"][plies], r["g"]) for r in rs]
            dis = [c for c, r in zip(costs, rs, strict=True) if r["refs"][plies] != r["gnubg"]]
            mean_dis = float(np.mean(dis)) if dis else 0.0
            print(f"  {mode:5} gnubg {plies}-ply: agreement {100 * agree:5.1f}%  mean cost of "
                  f"disagreements {mean_dis:.4f}  mean cost per decision "
                  f"{float(np.mean(costs)):.4f}")
            out[f"{mode}_gnubg_{plies}"] = {"n": len(rs), "agreement": agree,
                                           "mean_cost_disagreements": mean_dis,
                                           "mean_cost": float(np.mean(costs))}
    if args.worst:
        print(f"  the {args.worst} costliest disagreements (gnubg ND / DT / DP; our "
              "win, win gammon, win backgammon, lose gammon, lose backgammon):")
        costly = sorted((r for r in rows if r["ours"] != r["gnubg"]), key=lambda r: -r["cost"])
        for r in costly[:args.worst]:
            g = r["g"]
            print(f"    {r['cost']:.3f} {r['mode']:5} ours {r['ours']}, gnubg {r['gnubg']} "
                  f"({g.nd:+.3f} / {g.dt:+.3f} / {g.dp:+.3f}); ours {r['probs']}\n"
                  f"          {r['position']}")
    if scan:
        print("  contact efficiency scan (all decisions): x, agreement, mean cost per decision")
        for x in scan:
            for mode in ("money", "match"):
                rs = [r for r in rows if r["mode"] == mode]
                agree = sum(1 for r in rs if r["scan"][str(x)] == r["gnubg"]) / len(rs)
                mean = float(np.mean([cost(r["scan"][str(x)], r["g"]) for r in rs]))
                print(f"    x={x:.2f} {mode:5} agreement {100 * agree:5.1f}%  "
                      f"mean cost per decision {mean:.4f}")
    print(f"  {time.monotonic() - started:.0f} s")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
