"""Rollout speed: our compiled rollouts against GNU Backgammon's, games per second per core.

    python benchmarks/bench_rollout.py
    python benchmarks/bench_rollout.py --trials 288 --truncated-trials 1296 --json out.json

Both sides roll out the starting position (the side on roll before its roll, any dice,
doubles allowed) with the same settings: 0-ply chequer play for both players, cubeless,
variance reduction on (each turn's luck by the 0-ply evaluation of the best play of each
of the 21 rolls, subtracted), the first roll stratified (gnubg: quasi-random dice), once
with full games (played to the end, no truncation at the bear-off databases) and once
truncated after `--plies` turns (half-moves; the game then scored by the 0-ply cubeless
evaluation). `--phases` adds, in backgammon, full games from two later positions, to
show where a game's time goes: a race (three checkers on each of a side's points 7-11,
contact over) and a bear-off (three on each of the points 1-5, both sides home).

- ours: `rolloutkernel.rollout_trials` with the variant's shipped evaluator, in this
  process, one thread; timed in CPU seconds of this process after one untimed call
  (compilation, the bear-off tables);
- GNU Backgammon (backgammon only): the Debian binary (`gnubg -t -q -r`, a private HOME,
  `set threads 1`) running its own `rollout` command; timed in CPU seconds of the gnubg
  process, minus those of a run that only sets up the position (its start-up and the
  loading of its networks and databases).

Figures are games per second per core: trials / CPU seconds. The ratio ours / gnubg is
printed for backgammon. The settings of both sides are printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_gnubg_matches import find_gnubg

from jacquetd.bots import rolloutkernel
from jacquetd.bots.evaluator import NoNetwork, neural_evaluator
from jacquetd.bots.players import state_of
from jacquetd.rules import Position
from jacquetd.rules.gnubg_id import position_id

VARIANTS = ("jacquet", "jacquet-be", "backgammon", "long-nardy")
START_ID = "4HPwATDgc/ABMA"
"""gnubg's position ID of the starting position."""
MONEY_NO_DICE = "cAkAAAAAAAAA"
"""gnubg's match ID of a money game, cube 1 centred, player 1 on roll, no dice rolled."""


def gnubg_settings(trials: int, plies: int | None, seed: int, prune: bool) -> list[str]:
    """The rollout settings given to gnubg (chequer play 0-ply both sides, cubeless,
    variance reduction, quasi-random dice, no truncation at the bear-off databases)."""
    on_off = "on" if prune else "off"
    out = ["set threads 1",
           f"set rollout trials {trials}",
           "set rollout cubeful off",
           "set rollout varredn on",
           "set rollout quasirandom on",
           "set rollout initial off",
           f"set rollout seed {seed}",
           "set rollout player 0 chequerplay plies 0",
           "set rollout player 1 chequerplay plies 0",
           f"set rollout player 0 chequerplay prune {on_off}",
           f"set rollout player 1 chequerplay prune {on_off}",
           "set rollout bearofftruncation exact off",
           "set rollout bearofftruncation onesided off"]
    if plies is None:
        out.append("set rollout truncation enable off")
    else:
        out += ["set rollout truncation enable on",
                f"set rollout truncation plies {plies}",
                "set rollout truncation chequerplay plies 0"]
    return out


PHASES = {"race": tuple(3 if 7 <= i <= 11 else 0 for i in range(26)),
          "bearoff": tuple(3 if 1 <= i <= 5 else 0 for i in range(26))}
"""`--phases`: the later positions, each side's checkers (index 0 borne off, 1-24 the
points, 25 the bar; both sides alike): three on each of the points 7-11, and 1-5."""


def setup(position: Position) -> list[str]:
    """gnubg's commands that set up `position` (backgammon), the side on roll to roll."""
    return ["new game", f"set board {position_id(position)}", f"set matchid {MONEY_NO_DICE}"]


SETUP = ["new game", f"set board {START_ID}", f"set matchid {MONEY_NO_DICE}"]


def run_gnubg(commands: list[str], home: Path) -> tuple[str, float]:
    """Feed `commands` to `gnubg -t -q -r` (HOME=`home`): what it printed and the CPU
    seconds it used (all its threads)."""
    home.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([find_gnubg(), "-t", "-q", "-r"],
                          input="\n".join([*commands, ""]).encode(), capture_output=True,
                          timeout=6 * 3600, env={**os.environ, "HOME": str(home)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (proc.stdout + proc.stderr).decode(errors="replace"), cpu


def gnubg_rate(trials: int, plies: int | None, seed: int, prune: bool, home: Path,
               position: Position | None = None) -> dict[str, Any]:
    """gnubg's games per CPU second on the rollout of `position` (the start by default)."""
    settings = gnubg_settings(trials, plies, seed, prune)
    board = SETUP if position is None else setup(position)
    _, base = run_gnubg([*settings, *board], home)
    out, cpu = run_gnubg([*settings, *board, "rollout"], home)
    if "Rollout done" not in out:
        raise RuntimeError(f"gnubg did not finish its rollout:\n{out[-2000:]}")
    seconds = max(cpu - base, 1e-9)
    return {"trials": trials, "cpu_seconds": seconds, "startup_cpu_seconds": base,
            "games_per_second": trials / seconds, "settings": settings + board + ["rollout"]}


def our_rate(variant: str, trials: int, plies: int | None, seed: int,
             position: Position | None = None) -> dict[str, Any]:
    """Our games per CPU second on the rollout of `position` (the start by default)."""
    ev = neural_evaluator(variant)
    s = state_of(position or Position.initial(variant))
    rolloutkernel.rollout_trials(ev, s, trials=1, seed=seed, horizon=2)  # compile, tables
    c0 = time.process_time()
    w0 = time.perf_counter()
    res = rolloutkernel.rollout_trials(ev, s, trials=trials, seed=seed, horizon=plies)
    cpu = time.process_time() - c0
    wall = time.perf_counter() - w0
    return {"trials": trials, "cpu_seconds": cpu, "wall_seconds": wall,
            "games_per_second": trials / cpu, "equity": res.equity,
            "std_error": res.std_error, "std_error_raw": res.std_error_raw}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=144, help="trials of full games")
    ap.add_argument("--truncated-trials", type=int, default=720,
                    help="trials of truncated games")
    ap.add_argument("--plies", type=int, default=7,
                    help="turns (half-moves) of a truncated game")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--no-gnubg", action="store_true", help="time ours only")
    ap.add_argument("--gnubg-prune", choices=("on", "off"), default="off",
                    help="gnubg's pruning networks in its 0-ply chequer play (ours has none; "
                         "its default is on)")
    ap.add_argument("--phases", action="store_true",
                    help="backgammon: also full games from a race and from a bear-off "
                         "(PHASES), --trials each")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args()
    if not rolloutkernel.available():
        sys.exit("the compiled rollout needs numba")
    modes: list[tuple[str, int, int | None, tuple[int, ...] | None]] = [
        ("full", args.trials, None, None),
        (f"truncated-{args.plies}", args.truncated_trials, args.plies, None)]
    if args.phases:
        modes += [(f"{name}-full", args.trials, None, side) for name, side in PHASES.items()]
    ours_settings = ("jacquetd rolloutkernel.rollout_trials: 0-ply neural player both sides "
                     "(every legal play evaluated by the full networks, exact bear-off "
                     "tables), cubeless, luck variance reduction (21 rolls, 0-ply), first "
                     "roll stratified over 36, one thread; position: the start (with "
                     "--phases also PHASES), side on roll before its roll")
    print(f"ours:  {ours_settings}")
    if not args.no_gnubg:
        print(f"gnubg: {find_gnubg()} -t -q -r, HOME private; "
              + "; ".join(gnubg_settings(args.trials, None, args.seed,
                                         args.gnubg_prune == "on"))
              + f"; truncated: set rollout truncation enable on / plies {args.plies} / "
                "chequerplay plies 0; " + "; ".join(SETUP) + "; rollout")
    report: dict[str, Any] = {"ours_settings": ours_settings, "variants": {}}
    print(f"{'variant':12} {'mode':13} {'trials':>6} {'ours g/s':>9} {'gnubg g/s':>9} "
          f"{'ratio':>6}  ours equity (se)")
    with tempfile.TemporaryDirectory(prefix="bench-rollout-") as tmp:
        for variant in args.variants.split(","):
            try:
                neural_evaluator(variant)
            except NoNetwork:
                print(f"{variant:12} (no network)")
                continue
            rows: dict[str, Any] = {}
            for mode, trials, plies, side in modes:
                if side is not None and variant != "backgammon":
                    continue
                position = None if side is None else Position(variant, side, side)
                ours = our_rate(variant, trials, plies, args.seed, position)
                row: dict[str, Any] = {"ours": ours}
                theirs = None
                if variant == "backgammon" and not args.no_gnubg:
                    theirs = gnubg_rate(trials, plies, args.seed, args.gnubg_prune == "on",
                                        Path(tmp) / "home", position)
                    row["gnubg"] = theirs
                    row["ratio"] = ours["games_per_second"] / theirs["games_per_second"]
                rows[mode] = row
                g = f"{theirs['games_per_second']:9.1f}" if theirs else f"{'':9}"
                r = f"{row['ratio']:6.2f}" if theirs else f"{'':6}"
                print(f"{variant:12} {mode:13} {trials:6d} {ours['games_per_second']:9.1f} "
                      f"{g} {r}  {ours['equity']:+.4f} ({ours['std_error']:.4f})", flush=True)
            report["variants"][variant] = rows
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
