"""One round of training on rollouts, and the test a candidate network must pass to ship.

    python benchmarks/rollout_round.py --variant jacquet --round 1 --games 100 --seed 21 \\
        --trials 18 --horizon 4,5 --work rounds

A round is four steps, each command printed before it runs. The first two are skipped
when their networks are already in `--work`, so a round run again goes straight to the
tests; those are played again each time (the truth sets' rollouts of plays outside their
candidates are kept beside them and not repeated):

1. **Labels and fit.** `jacquetd distill --teacher-rollout TRIALS`: the positions of
   `--games` games played by the previous round's network (the shipped one in round 1),
   each labelled by `TRIALS` truncated rollouts of that network at 0 plies with every
   turn's luck taken off each of the five probabilities (by default the mean of
   rollouts cut after 4 and after 5 turns, which cancels the network's bias for or
   against the side on roll: `bench_horizon.py`), then a fit that starts from that
   network. The labelled positions are kept (`<variant>-round-N.npz`); later rounds fit on
   them too (`--more-data`), so the data grows round by round.
2. **Its pruning network.** `jacquetd train-prune --weights`: the searching levels prune
   the replies with a small network fitted to the full one, so a candidate searches with
   one fitted to itself (`--prune-states` positions, written beside the candidate). Only
   when a searching level is judged (`--levels`).
3. **Head to head.** `bench_strength.py`: the candidate at 0 plies against the shipped
   network at 0 plies, luck-adjusted (`--h2h-games`, default 400).
4. **Truth sets it was not trained on.** `bench_truth.py --versus-shipped` on each
   `--truth` file (default: the variant's 0-ply truth set, and where they exist the
   judge that searches 1 ply, `truth/<variant>.ply1.jsonl`, and GNU Backgammon's
   rollouts, `truth/backgammon.gnubg.jsonl`): the candidate's error minus the shipped
   network's, paired on the same decisions, at the levels of `--levels` (default
   `neural,neural-2`: the network alone, and the level that plays by default, since a
   network that gains at 0 plies can gain nothing once searched: the first `jacquet`
   round to pass at 0 plies errs more at 2). In `backgammon` gnubg itself is left out
   (`--no-gnubg`).

The verdict ships the candidate only if it wins the head-to-head (the 95% interval of
its luck-adjusted points a game above 0) and errs less on every truth set (the paired
difference below 0 at every level judged). The round's commands, data size, times,
figures and verdict are appended to `benchmarks/data/rounds.jsonl`. Shipping itself stays
a deliberate act: copy the network into `jacquetd/bots/weights/` and measure the strength
table again (`strength_table.py --run`), which marks the figures of the old network stale.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "data" / "rounds.jsonl"
TRUTH_DIR = HERE / "truth"


def run_json(cmd: list[str]) -> tuple[dict[str, Any], float]:
    """Run a benchmark command with `--json`, echoing its output; its last JSON line and
    the seconds it took."""
    print("== " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"{cmd[1] if len(cmd) > 1 else cmd[0]} failed ({proc.returncode})")
    last = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not last:
        raise SystemExit(f"no JSON figures from {' '.join(cmd[:2])}")
    return json.loads(last[-1]), time.monotonic() - started


def distill_command(args: argparse.Namespace, work: Path, previous: Path | None,
                    earlier_data: list[Path]) -> list[str]:
    """The `jacquetd distill` call of the round: labels by rollouts of `previous` (the
    shipped network when None), a fit starting from it."""
    name = f"{args.variant}-round-{args.round}"
    cmd = ["jacquetd", "distill", "--variant", args.variant, "--games", str(args.games),
           "--seed", str(args.seed), "--teacher-rollout", str(args.trials),
           "--rollout-horizon", str(args.horizon), "--per-turn", str(args.per_turn),
           "--jobs", str(args.jobs), "--data", str(work / f"{name}.npz"),
           "--out", str(work / name), "--epochs", str(args.epochs), "--lr", str(args.lr),
           "--quiet"]
    if previous is not None:
        cmd += ["--weights", str(previous)]
    for d in earlier_data:
        cmd += ["--more-data", str(d)]
    return cmd


def default_truths(variant: str) -> list[str]:
    """The truth sets a candidate is judged on unless told: the variant's 0-ply set and,
    where they exist, the judge that searches 1 ply and the set rolled out by GNU
    Backgammon (`backgammon`): none of them is made of training positions."""
    names = [f"{variant}.jsonl", f"{variant}.ply1.jsonl", f"{variant}.gnubg.jsonl"]
    return [str(TRUTH_DIR / n) for n in names if (TRUTH_DIR / n).exists()]


def verdict(h2h: dict[str, Any], truths: dict[str, dict[str, Any]]) -> tuple[bool, list[str]]:
    """Whether the candidate ships, and the reasons (each test passed or failed)."""
    reasons = []
    low = h2h["ppg_adjusted"] - h2h["ci95_adjusted"]
    wins = low > 0
    reasons.append(f"head to head {h2h['ppg_adjusted']:+.3f} ± {h2h['ci95_adjusted']:.3f}: "
                   + ("wins" if wins else "does not win (the interval reaches 0)"))
    better = True
    for name, figures in truths.items():
        for pair, d in figures["paired"].items():
            ok = d["mean_mp"] < 0
            better &= ok
            reasons.append(f"{name} {pair}: {d['mean_mp']:+.2f} ± {d['ci95_mp'] or 0:.2f} mp "
                           + ("(errs less)" if ok else "(does not err less)"))
    return wins and better, reasons


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--round", type=int, required=True,
                    help="the round's number: round N starts from round N-1's network in "
                    "--work (round 1 from the shipped one)")
    ap.add_argument("--work", default="rounds", help="folder of the rounds' data and networks")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=21,
                    help="seed of the collecting games and the rollouts' dice (give each "
                    "round its own)")
    ap.add_argument("--trials", type=int, default=18, help="rollouts a label")
    ap.add_argument("--horizon", default="4,5",
                    help="turns a rollout lasts, or several joined by commas, the label "
                    "their mean (default 4,5: see `jacquetd distill --help`)")
    ap.add_argument("--per-turn", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--h2h-games", type=int, default=400)
    ap.add_argument("--truth", action="append", default=None,
                    help="truth files to judge on (repeat; default: `default_truths`)")
    ap.add_argument("--levels", default="neural,neural-2",
                    help="levels judged on the truth sets (comma-separated; default the "
                    "network alone and the default level)")
    ap.add_argument("--prune-states", type=int, default=3000,
                    help="positions the candidate's pruning network is fitted on (see "
                    "`jacquetd train-prune --help`)")
    ap.add_argument("--truth-limit", type=int, default=None,
                    help="judge on the first N decisions of each truth set only")
    ap.add_argument("--records", default=str(RECORDS),
                    help="where the round's record is appended (default data/rounds.jsonl)")
    args = ap.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    previous = None
    if args.round > 1:
        previous = work / f"{args.variant}-round-{args.round - 1}" / f"{args.variant}.npz"
        if not previous.exists():
            raise SystemExit(f"round {args.round} starts from {previous}: run round "
                             f"{args.round - 1} first")
    earlier = [work / f"{args.variant}-round-{k}.npz" for k in range(1, args.round)]
    earlier = [d for d in earlier if d.exists()]
    out_dir = work / f"{args.variant}-round-{args.round}"
    candidate = out_dir / f"{args.variant}.npz"
    distill = distill_command(args, work, previous, earlier)
    started = time.monotonic()
    if not candidate.exists():
        print("== " + " ".join(shlex.quote(c) for c in distill), flush=True)
        subprocess.run(distill, check=True)
    fit = json.loads((out_dir / f"{args.variant}.json").read_text())
    print(f"candidate: {fit['positions']} positions, labelled and fitted in {fit['seconds']} s; "
          f"held-out {fit.get('fit')}")
    searching = [lv for lv in args.levels.split(",") if lv.strip() not in ("", "neural")]
    prune_file = out_dir / f"{args.variant}-prune.npz"
    prune_cmd = ["jacquetd", "train-prune", "--variant", args.variant, "--weights",
                 str(candidate), "--states", str(args.prune_states), "--seed", str(args.seed),
                 "--out", str(prune_file)]
    if searching and not prune_file.exists():
        print("== " + " ".join(shlex.quote(c) for c in prune_cmd), flush=True)
        subprocess.run(prune_cmd, check=True)
    prune_recipe = None  # as the file's own recipe says: it may come from an earlier run
    if searching:
        prune_meta = json.loads(prune_file.with_suffix(".json").read_text())
        prune_recipe = {k: prune_meta.get(k) for k in ("command", "network_sha256", "rows",
                                                        "test_rolls_best_kept")}
    py = sys.executable
    h2h, h2h_s = run_json([py, str(HERE / "bench_strength.py"), "--variant", args.variant,
                           "--a", "neural", "--weights-a", str(candidate), "--b", "neural",
                           "--games", str(args.h2h_games), "--seed", str(1000 + args.seed),
                           "--jobs", str(args.jobs), "--json"])
    truth_files = args.truth or default_truths(args.variant)
    truths: dict[str, dict[str, Any]] = {}
    truth_s = 0.0
    for t in truth_files:
        figures, s = run_json([py, str(HERE / "bench_truth.py"), "--variant", args.variant,
                               "--truth", t, "--level", args.levels, "--weights",
                               str(candidate), "--versus-shipped", "--json", "--no-gnubg",
                               *(["--prune", str(prune_file)] if searching else []),
                               *(["--limit", str(args.truth_limit)] if args.truth_limit
                                 else [])])
        truths[Path(t).name] = figures
        truth_s += s
    ships, reasons = verdict(h2h, truths)
    print(("SHIPS" if ships else "DOES NOT SHIP") + ":")
    for r in reasons:
        print(f"  {r}")
    record = {
        "date": date.today().isoformat(), "variant": args.variant, "round": args.round,
        "distill": " ".join(shlex.quote(Path(c).name if "/" in c else c) for c in distill),
        "levels": args.levels,
        "prune": prune_recipe,
        "positions": fit["positions"], "distill_seconds": fit["seconds"],
        "head_to_head": {k: h2h[k] for k in ("games", "seed", "ppg_adjusted",
                                             "ci95_adjusted")},
        "head_to_head_seconds": round(h2h_s, 1),
        "truth": {name: f["paired"] for name, f in truths.items()},
        "truth_seconds": round(truth_s, 1), "truth_limit": args.truth_limit,
        "ships": ships, "network": f"{out_dir.name}/{candidate.name}",
        "seconds": round(time.monotonic() - started, 1)}
    records = Path(args.records)
    records.parent.mkdir(parents=True, exist_ok=True)
    with records.open("a") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
