"""Error rates against a truth set: equity lost per decision by each level.

    python benchmarks/bench_truth.py --variant backgammon --level neural-2

For every decision of `benchmarks/truth/<variant>.jsonl` (see make_truth.py)
each level chooses a play; its error is the rolled-out equity of the best
play minus that of the play chosen (0 when it chose the best). Printed per
level: the mean error in millipoints (thousandths of a point per game,
cubeless) with a 95% interval over the decisions, the share of blunders
(error over 0.08), and the same by phase of the game (contact, race,
bear-off, and the courier phase in the Jacquet variants).

`--level` may be repeated or comma-separated (default: every neural level
and heuristic). In `backgammon` GNU Backgammon at 0, 1 and 2 plies (the PyPI
package `gnubg`, in-process, cubeless, as in bench_strength.py) is judged on
the same decisions in the same run unless `--no-gnubg`, and each neural level is
compared with gnubg at the same depth decision by decision (the mean of the paired
differences with its 95% interval: the test of "at or below gnubg's error").

A play that a level chooses but the truth set did not roll out is rolled out
here with the file's own settings and seed (same dice as the other candidates),
and kept in `<variant>.extra.jsonl` for the next runs; `--no-extra` skips
those decisions for that level instead (and says how many).

`--filter` and `--no-prune` set the neural levels' search (`SearchSettings`);
`--versus-unpruned` also judges each searching level without its pruning
network and prints the paired difference, the test that pruning costs no
strength. `--versus-shipped` (with `--weights`) judges each neural level with the
shipped networks too and prints the candidate's paired difference to them: the
truth-set half of a candidate network's test before it ships (rollout_round.py).

`--truth benchmarks/truth/backgammon.gnubg.jsonl` judges the same decisions
against rollouts played and scored by GNU Backgammon (make_truth.py `--player
gnubg`): a yardstick that does not share our network's judgement.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_strength import interval
from make_truth import TRUTH_DIR, Roller, make_roller, read_truth

from jacquetd import fastgen
from jacquetd.bots import heuristic
from jacquetd.bots.evaluator import candidate_evaluator
from jacquetd.bots.phases import PHASES
from jacquetd.bots.prune import PruneNet
from jacquetd.bots.search import DEFAULT_SETTINGS, Searcher, SearchSettings, State, after
from jacquetd.rules import RawPlay, Variant, find_variant, generate_raw

BLUNDER = 0.08
NEURAL = {"neural": 0, "neural-1": 1, "neural-2": 2}
DEFAULT_LEVELS = ("heuristic", "neural", "neural-1", "neural-2")
GNUBG_LEVELS = ("gnubg", "gnubg-1", "gnubg-2")
PAIRS = (("neural", "gnubg"), ("neural-1", "gnubg-1"), ("neural-2", "gnubg-2"))
UNPRUNED = "/full"
"""Suffix of a neural level searched without pruning (`--versus-unpruned`)."""
SHIPPED = "/shipped"
"""Suffix of a neural level played with the shipped networks, not `--weights`
(`--versus-shipped`)."""


def level_chooser(level: str, variant: Variant,  # type: ignore[no-untyped-def]
                  weights: str | None = None, crashed_weights: str | None = None,
                  settings: SearchSettings = DEFAULT_SETTINGS, prune: str | None = None):
    """A function (state, raws) -> index of the play `level` picks; `weights` replaces the
    shipped contact network of the neural levels, `crashed_weights` the crashed one
    (`evaluator.candidate_evaluator`), `prune` the pruning network of their search;
    `settings` are the neural levels' move filter and pruning."""
    if level in NEURAL:
        searcher = Searcher(candidate_evaluator(variant.name, weights,
                                                crashed_weights=crashed_weights), settings)
        if prune and searcher.pruner is not None:
            searcher.pruner = PruneNet.load(prune)
        plies = NEURAL[level]
        return lambda state, raws: searcher.best(state, raws, plies)
    if level == "heuristic":
        return lambda state, raws: int(np.argmax(heuristic.scores(variant, raws)))
    if level.startswith("gnubg"):
        if variant.name != "backgammon":
            raise SystemExit("gnubg plays backgammon only")
        from bench_strength import gnubg_chooser

        choose = gnubg_chooser(int(level.split("-")[1]) if "-" in level else 0)
        return lambda state, raws: choose(None, raws)  # type: ignore[arg-type]
    raise SystemExit(f"unknown level {level!r}; levels: heuristic, neural, neural-1, neural-2"
                     f", gnubg, gnubg-1, gnubg-2")


def _key(me: Sequence[int], opp: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(me), tuple(opp)


class Extras:
    """Rollouts of plays outside a truth file's candidates, kept beside it."""

    def __init__(self, path: Path, header: dict[str, Any], variant: Variant) -> None:
        self.path = path
        self.settings = header["settings"]
        self.variant = variant
        self.roller: Roller | None = None
        self.data: dict[tuple[int, tuple[int, ...], tuple[int, ...]], dict[str, Any]] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    if r.get("settings") == self.settings:
                        self.data[(r["id"], *_key(r["after_me"], r["after_opp"]))] = r
        self.added = 0

    def equity(self, rec: dict[str, Any], state: State, raw: RawPlay) -> float:
        k = (rec["id"], *_key(raw.me, raw.opp))
        got = self.data.get(k)
        if got is None:
            if raw.me[0] == 15:
                raise AssertionError("a winning play is always a candidate")
            if self.roller is None:
                fastgen.warm_up()
                self.roller = make_roller(self.variant.name,
                                          self.settings.get("player", "neural"),
                                          self.settings.get("network"),
                                          plies=self.settings.get("plies") or 0)
            s = self.settings
            res = self.roller.run(after(state, raw, self.variant.tracks_primes),
                                  trials=s["trials"], seed=[s["seed"], rec["id"]],
                                  horizon=s["horizon"])
            got = {"id": rec["id"], "after_me": list(raw.me), "after_opp": list(raw.opp),
                   "equity": round(-res.equity, 5), "se": round(res.std_error, 5),
                   "settings": self.settings}
            self.data[k] = got
            with self.path.open("a") as f:
                f.write(json.dumps(got, separators=(",", ":")) + "\n")
            self.added += 1
        return float(got["equity"])


def evaluate_levels(variant: Variant, header: dict[str, Any], records: list[dict[str, Any]],
                    levels: Sequence[str], extras: Extras | None,
                    weights: str | None = None, crashed_weights: str | None = None,
                    settings: SearchSettings = DEFAULT_SETTINGS, prune: str | None = None
                    ) -> dict[str, dict[str, Any]]:
    """Per level: errors per decision (None where unknown), phases, seconds. `weights`,
    `crashed_weights` and `prune` are a candidate's (`level_chooser`); the levels
    suffixed `SHIPPED` play the shipped networks."""
    unpruned = SearchSettings(settings.filters, prune=False)
    choosers = {}
    for lv in levels:
        if lv.endswith(SHIPPED):
            choosers[lv] = level_chooser(lv.removesuffix(SHIPPED), variant, None, None, settings)
        else:
            choosers[lv] = level_chooser(lv.removesuffix(UNPRUNED), variant, weights,
                                         crashed_weights,
                                         unpruned if lv.endswith(UNPRUNED) else settings,
                                         prune)
    out: dict[str, dict[str, Any]] = {lv: {"errors": [], "phases": [], "skipped": 0,
                                           "seconds": 0.0, "by_id": {}} for lv in levels}
    for rec in records:
        state = State(tuple(rec["me"]), tuple(rec["opp"]), rec["me_flag"], rec["opp_flag"])
        raws = generate_raw(variant, state.me, state.opp, tuple(rec["dice"]))
        cand = {_key(c["after_me"], c["after_opp"]): c["equity"] for c in rec["candidates"]}
        picks: dict[str, int] = {}
        for lv in levels:
            t = time.process_time()
            picks[lv] = choosers[lv](state, raws) if len(raws) > 1 else 0
            out[lv]["seconds"] += time.process_time() - t
        values: dict[str, float | None] = {}
        for lv, k in picks.items():
            key = _key(raws[k].me, raws[k].opp)
            if key in cand:
                values[lv] = cand[key]
            elif extras is not None:
                values[lv] = extras.equity(rec, state, raws[k])
            else:
                values[lv] = None
        known = list(cand.values())
        if extras is not None:
            known += [e["equity"] for (i, *_rest), e in extras.data.items() if i == rec["id"]]
        best = max(known)
        for lv in levels:
            val = values[lv]
            if val is None:
                out[lv]["skipped"] += 1
                continue
            out[lv]["errors"].append(best - val)
            out[lv]["phases"].append(rec["phase"])
            out[lv]["by_id"][rec["id"]] = best - val
    return out


def summary(errors: Sequence[float]) -> dict[str, Any]:
    mp = [1000.0 * e for e in errors]
    m, h = interval(mp)
    return {"n": len(mp), "mean_mp": m, "ci95_mp": h if math.isfinite(h) else None,
            "blunders": (sum(1 for e in errors if e > BLUNDER) / len(errors)) if errors
            else math.nan}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--level", action="append", default=None,
                    help="level(s) to judge (repeat or comma-separate)")
    ap.add_argument("--truth", default=None, help="truth file (default truth/<variant>.jsonl)")
    ap.add_argument("--limit", type=int, default=None, help="use the first N decisions only")
    ap.add_argument("--no-gnubg", action="store_true", help="backgammon: leave gnubg out")
    ap.add_argument("--no-extra", action="store_true",
                    help="do not roll out plays outside the truth candidates")
    ap.add_argument("--weights", default=None,
                    help="a network file in place of the shipped one for the neural levels "
                         "(a candidate network, before it ships)")
    ap.add_argument("--crashed-weights", default=None,
                    help="a crashed network file for the neural levels (a candidate)")
    ap.add_argument("--prune", default=None,
                    help="a pruning network file for the neural levels' search (one fitted "
                    "to --weights: `jacquetd train-prune --weights`)")
    ap.add_argument("--json", action="store_true", help="also print the figures as JSON")
    ap.add_argument("--filter", default=DEFAULT_SETTINGS.filter_text(),
                    help="the neural levels' move filter, CANDIDATES:WINDOW per depth "
                    f"(default {DEFAULT_SETTINGS.filter_text()})")
    ap.add_argument("--no-prune", action="store_true",
                    help="the neural levels search every reply (no pruning networks)")
    ap.add_argument("--versus-unpruned", action="store_true",
                    help=f"also judge each searching level without pruning (LEVEL{UNPRUNED}) "
                    "and print the paired difference")
    ap.add_argument("--versus-shipped", action="store_true",
                    help=f"with --weights: also judge each neural level with the shipped "
                    f"networks (LEVEL{SHIPPED}) and print the candidate's paired difference")
    args = ap.parse_args(argv)
    if args.versus_shipped and not (args.weights or args.crashed_weights):
        ap.error("--versus-shipped compares a candidate network: give --weights or "
                 "--crashed-weights")
    v = find_variant(args.variant)
    settings = SearchSettings(SearchSettings.parse_filters(args.filter), not args.no_prune)
    path = Path(args.truth) if args.truth else TRUTH_DIR / f"{v.name}.jsonl"
    header, records = read_truth(path)
    if header is None or not records:
        raise SystemExit(f"no truth set at {path} (make it with benchmarks/make_truth.py)")
    if header["variant"] != v.name:
        raise SystemExit(f"{path.name} is a {header['variant']} truth set")
    if args.limit:
        records = records[:args.limit]
    levels: list[str] = []
    for item in args.level or list(DEFAULT_LEVELS):
        levels += [x.strip() for x in item.split(",") if x.strip()]
    if args.versus_unpruned:
        levels += [lv + UNPRUNED for lv in levels if NEURAL.get(lv, 0) > 0]
    if args.versus_shipped:
        levels += [lv + SHIPPED for lv in levels if lv in NEURAL]
    if v.name == "backgammon" and not args.no_gnubg:
        levels += [g for g in GNUBG_LEVELS if g not in levels]
    extras = None if args.no_extra else Extras(path.with_suffix(".extra.jsonl"), header, v)
    started = time.monotonic()
    res = evaluate_levels(v, header, records, levels, extras, args.weights,
                          args.crashed_weights, settings, args.prune)
    ro = header["rollout"]
    files = " + ".join(Path(f).name for f in (args.weights, args.crashed_weights, args.prune)
                       if f)
    state = ("complete" if header["complete"] else
             f"partial: {header['decisions_done']} of {header['decisions_wanted']} decisions")
    print(f"{v.name}: {len(records)} decisions of {path.name} "
          f"(rollouts: {ro['trials']} trials, {ro['player']}, truncated after "
          f"{ro['horizon_turns']} turns; code {header['code_version']}; "
          f"{state})" + (f"; neural levels with {files}" if files else "")
          + f"; search: filter {settings.filter_text()}, "
          f"{'pruning' if settings.prune else 'no pruning'}")
    diff_se = [c["diff_se"] for r in records for c in r["candidates"] if c["diff_se"] > 0]
    if diff_se:
        print(f"  rollout noise: median standard error of a candidate's difference to the "
              f"best {1000 * float(np.median(diff_se)):.1f} mp")
    phases = [p for p in PHASES if any(r["phase"] == p for r in records)]
    counts = {p: sum(1 for r in records if r["phase"] == p) for p in phases}
    print("  error per decision, millipoints (95% CI); blunders = share of errors over "
          f"{BLUNDER}; [the level's thinking time over the decisions]")
    print(f"  {'level':16} {'all':>22} {'blunders':>9}  " +
          "  ".join(f"{p + ' (' + str(counts[p]) + ')':>20}" for p in phases))
    table: dict[str, Any] = {}
    for lv in levels:
        r = res[lv]
        s = summary(r["errors"])
        by = {p: summary([e for e, q in zip(r["errors"], r["phases"], strict=True) if q == p])
              for p in phases}
        table[lv] = {"all": s, "phases": by, "skipped": r["skipped"],
                     "seconds": round(r["seconds"], 1)}
        cells = "  ".join(f"{by[p]['mean_mp']:8.1f} ± {by[p]['ci95_mp'] or 0:6.1f}    "
                          if by[p]["n"] > 1 else f"{'-':>20}" for p in phases)
        skipped = f"  ({r['skipped']} not rolled out)" if r["skipped"] else ""
        print(f"  {lv:16} {s['mean_mp']:9.1f} ± {s['ci95_mp'] or 0:5.1f} ({s['n']:3d}) "
              f"{100 * s['blunders']:7.1f}%  {cells}{skipped}  [{r['seconds']:.1f} s]")
    pairs = [(ours, theirs) for ours, theirs in PAIRS if ours in res and theirs in res]
    pairs += [(lv, lv + UNPRUNED) for lv in levels if lv + UNPRUNED in res]
    pairs += [(lv, lv + SHIPPED) for lv in levels if lv + SHIPPED in res]
    paired: dict[str, Any] = {}
    if pairs:
        print("  paired on the same decisions, the first level minus the second "
              "(mp, 95% CI; below 0: the first errs less)")
    for ours, theirs in pairs:
        a, b = res[ours]["by_id"], res[theirs]["by_id"]
        both = sorted(set(a) & set(b))
        m, h = interval([1000.0 * (a[i] - b[i]) for i in both])
        paired[f"{ours} - {theirs}"] = {
            "n": len(both), "mean_mp": m, "ci95_mp": h if math.isfinite(h) else None}
        print(f"  {ours + ' - ' + theirs:20} {m:+6.2f} ± {h:4.2f} ({len(both)})")
    if extras is not None and extras.added:
        print(f"  rolled out {extras.added} plays outside the candidates "
              f"(kept in {extras.path.name})")
    print(f"  {time.monotonic() - started:.0f} s")
    if args.json:
        print(json.dumps({"variant": v.name, "truth": path.name,
                          "decisions": len(records), "levels": table,
                          "paired": paired}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
