"""Benchmark of the rules core: legal-play generations per second, beside GNU Backgammon.

    python3 -m benchmarks.bench_rules            # 2,000 positions per variant, best of 5 rounds
    python3 -m benchmarks.bench_rules --quick    # 500 positions, best of 2 rounds
    python3 -m benchmarks.bench_rules --profile  # cProfile of generate() on the backgammon suite
    python3 -m benchmarks.bench_rules --nardy    # long-nardy against jacquet only (see below)

For each variant it times, on the fixed seeded suite of `benchmarks/positions.py`
(positions with dice from random games):

- `generate(pos)`: the raw generator bots call in their inner loop;
- `legal_plays(pos)` with every play's canonical text (`.move`) and resulting
  position (`.after`) built: what answering the protocol costs;
- the compiled generator `jacquetd.fastgen` (numba), when available:
  `fastgen.generate(pos)` (the same `RawPlay` list as `generate`) and
  `fastgen.generate_arrays(...)` (positions and steps as int8 arrays, what a
  neural net takes). Its results are first checked against `generate` on the
  whole suite; its compilation (or the load of numba's cache) is timed apart.

Then `legal_plays()` of `long-nardy` against `jacquet` on comparable positions: the
two suites' positions grouped by how many legal plays they have, and per group the
time of a call in each variant and their ratio (the goal: long-nardy within 1.5x of
jacquet's time).

On the same `backgammon` positions it times GNU Backgammon in-process (the
PyPI package `gnubg`, when importable): `findbestmoves` at 0 ply, cubeless
(it generates every legal move, then evaluates each with the net), and its
bare C generator `GenerateMoves` reached through ctypes (no evaluation). The
ratios are ours / theirs in calls per second, for each of our generators; the
goals are 2x `findbestmoves` and, as a stretch, 0.25x the bare C generator. gnubg caches
evaluations by position, so `findbestmoves` is timed once with its cache cold
and then, for the repeated rounds, with the cache sized to 0.

Each figure is the best of several rounds over the whole suite (the least
disturbed by other load); the median is shown beside it. Rounds of the
figures compared are interleaved, and boards are converted before timing, for
both sides. Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.positions import (
    DEFAULT_SEED,
    VARIANT_NAMES,
    GnubgMoveGenerator,
    describe,
    gnubg_board,
    gnubg_evalcontext,
    suite,
)
from jacquetd import fastgen
from jacquetd.rules import Position, generate, legal_plays

GOAL_FINDBESTMOVES = 2.0
GOAL_BARE_C = 0.25


def timed(fn: Callable[[], Any], rounds: int) -> list[float]:
    """Seconds per round of `fn` (one pass over a suite)."""
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


class Rate:
    """Calls per second over `n` calls per round, best and median of the rounds."""

    def __init__(self, n: int, seconds: Sequence[float]) -> None:
        self.n = n
        self.best = n / min(seconds)
        self.median = n / statistics.median(seconds)

    def __str__(self) -> str:
        return f"{self.best:>11,.0f} {self.median:>11,.0f}"


def run_generate(positions: Sequence[Position]) -> Callable[[], None]:
    def run() -> None:
        for p in positions:
            generate(p)
    return run


def run_fast_generate(positions: Sequence[Position]) -> Callable[[], None]:
    fast = fastgen.generate

    def run() -> None:
        for p in positions:
            fast(p)
    return run


def run_fast_arrays(positions: Sequence[Position]) -> Callable[[], None]:
    arrays = fastgen.generate_arrays

    def run() -> None:
        for p in positions:
            arrays(p.variant, p.me, p.opp, p.dice)
    return run


def fast_mismatches(positions: Sequence[Position]) -> int:
    """Positions where fastgen's plays differ from generate()'s (order and spellings included)."""
    bad = 0
    for p in positions:
        want = generate(p)
        arrays, _ = fastgen.generate_arrays(p.variant, p.me, p.opp, p.dice)
        if fastgen.generate(p) != want or arrays.tolist() != [list(r.me + r.opp) for r in want]:
            bad += 1
    return bad


def run_legal_plays(positions: Sequence[Position]) -> Callable[[], None]:
    def run() -> None:
        for p in positions:
            for play in legal_plays(p):
                play.move  # noqa: B018 - built on first access
                play.after  # noqa: B018
    return run


def quiet(fn: Callable[[], Any]) -> Any:
    """Run `fn` with the process's standard output (file descriptor 1) silenced."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        return fn()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def interleaved(fns: Sequence[Callable[[], Any]], rounds: int) -> list[list[float]]:
    """Seconds per round of each of `fns`, their rounds taken in turn (fair under shared load)."""
    out: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            out[i].append(time.perf_counter() - t0)
    return out


def compare_with_gnubg(positions: Sequence[Position], rounds: int) -> None:
    """Our generate() beside gnubg on the same backgammon positions, rounds interleaved."""
    n = len(positions)
    ours = run_generate(positions)
    try:
        import gnubg
    except ImportError as exc:
        rate = Rate(n, timed(ours, rounds))
        print(f"{'ours: generate()':<40} | {rate} |")
        print(f"note: gnubg not importable ({exc}): no comparison")
        return
    boards = [(gnubg_board(p.me, p.opp), p.dice) for p in positions]
    cubeinfo = gnubg.cubeinfo()
    evalcontext = gnubg_evalcontext()
    fbm = gnubg.findbestmoves

    def run_fbm() -> None:
        for board, dice in boards:
            fbm(board, cubeinfo, evalcontext, dice)

    labels = ["ours: generate()", "gnubg.findbestmoves, cache off"]
    goals = [0.0, GOAL_FINDBESTMOVES]
    fns: list[Callable[[], Any]] = [ours, run_fbm]
    fast_labels = []
    if fastgen.available():
        fast_labels = ["ours: fastgen.generate()", "ours: fastgen.generate_arrays()"]
        fns += [run_fast_generate(positions), run_fast_arrays(positions)]
    notes = []
    # gnubg caches evaluations by position, so a second pass over the same suite
    # mostly reads that cache: one cold pass with the cache as shipped first,
    # then the cache sized to 0 so that every round does the full work.
    cold = Rate(n, timed(run_fbm, 1))
    quiet(lambda: gnubg.command("set cache 0"))
    try:
        cgen = GnubgMoveGenerator()
    except (RuntimeError, OSError) as exc:
        notes.append(f"gnubg's bare C generator not reachable ({exc}): no stretch ratio")
    else:
        cboards = [(cgen.c_board(b), d[0], d[1]) for b, d in boards]
        count = cgen.count

        def run_c() -> None:
            for cb, d1, d2 in cboards:
                count(cb, d1, d2)

        fns.append(run_c)
    all_rates = [Rate(n, t) for t in interleaved(fns, rounds)]
    rates = all_rates[:2]
    fast_rates = all_rates[2:2 + len(fast_labels)]
    if len(all_rates) > 2 + len(fast_labels):
        labels.append("gnubg GenerateMoves (bare C, ctypes)")
        goals.append(GOAL_BARE_C)
        rates.append(all_rates[-1])
    labels.insert(2, "gnubg.findbestmoves, cold cache, 1 pass")
    goals.insert(2, GOAL_FINDBESTMOVES)
    rates.insert(2, cold)

    head = (f"{'backgammon, same positions':<40} | {'best /s':>11} {'median /s':>11} | "
            f"{'ours/theirs':>11} | goal")
    print(head)
    print("-" * (len(head) + 12))
    for label, rate, goal in zip(labels, rates, goals, strict=True):
        if not goal:
            print(f"{label:<40} | {rate} | {'':>11} |")
            continue
        ratio = rates[0].best / rate.best
        verdict = "met" if ratio >= goal else "not met"
        print(f"{label:<40} | {rate} | {ratio:>10.2f}x | >= {goal}x {verdict}")
    for label, rate in zip(fast_labels, fast_rates, strict=True):
        print(f"{label:<40} | {rate} | {'':>11} |")
    print("findbestmoves: 0 ply, cubeless, deterministic, no noise; it generates every legal "
          "move,\nthen scores each with the net (bear-off databases in races).")
    for note in notes:
        print(f"note: {note}")
    # every generator of ours against each of theirs (best calls/s)
    short = {"gnubg.findbestmoves, cache off": "findbestmoves, cache off",
             "gnubg GenerateMoves (bare C, ctypes)": "bare C GenerateMoves"}
    theirs = [(short[lbl], r, g) for lbl, r, g in zip(labels, rates, goals, strict=True)
              if lbl in short]
    print()
    head = f"{'ours / theirs (best calls/s)':<40}" + "".join(
        f" | {lbl:>24}" for lbl, _, _ in theirs)
    print(head)
    print("-" * len(head))
    ours_all = [("generate() (pure Python)", rates[0])] + [
        (lbl.removeprefix("ours: "), r) for lbl, r in zip(fast_labels, fast_rates, strict=True)]
    for label, rate in ours_all:
        cells = []
        for _, their, goal in theirs:
            ratio = rate.best / their.best
            cells.append(f"{ratio:>7.2f}x ({'met' if ratio >= goal else 'not met':>7} {goal}x)")
        print(f"{label:<40}" + "".join(f" | {c:>24}" for c in cells))


def benchmark(count: int, rounds: int) -> None:
    print(f"jacquetd rules benchmark: {count:,} positions with dice per variant "
          f"(seeded random games, seed {DEFAULT_SEED}), best of {rounds} rounds")
    print(f"Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    suites = {v: suite(v, count) for v in VARIANT_NAMES}
    fast = fastgen.available()
    if fast:
        warm = fastgen.warm_up()
        print(f"jacquetd.fastgen (numba {fastgen_numba_version()}): warm-up {warm:.2f} s "
              "(compilation, or loading numba's cache when the kernel was compiled before)")
    else:
        print(f"jacquetd.fastgen unavailable: {fastgen.unavailable_reason()}")
    print()
    header = (f"{'variant':<11} {'plays/pos':>9} | {'generate() calls/s':>23} | "
              f"{'legal_plays()+move+after /s':>27}")
    print(header)
    print(f"{'':<11} {'':>9} | {'best':>11} {'median':>11} | {'best':>13} {'median':>13}")
    print("-" * len(header))
    fast_rows = []
    for v, positions in suites.items():
        plays = sum(len(generate(p)) for p in positions) / len(positions)
        fns = [run_generate(positions), run_legal_plays(positions)]
        if fast:
            fns += [run_fast_generate(positions), run_fast_arrays(positions)]
        gen, full, *fast_rates = (Rate(len(positions), t) for t in interleaved(fns, rounds))
        print(f"{v:<11} {plays:>9.1f} | {gen} | {full.best:>13,.0f} {full.median:>13,.0f}")
        if fast:
            fast_rows.append((v, fast_mismatches(positions), gen, *fast_rates))
    if fast_rows:
        print()
        header = (f"{'variant':<11} {'differ':>6} | {'fastgen.generate() /s':>23} {'x pure':>6} | "
                  f"{'fastgen.generate_arrays() /s':>29} {'x pure':>6}")
        print(header)
        print(f"{'':<11} {'':>6} | {'best':>11} {'median':>11} {'':>6} | "
              f"{'best':>14} {'median':>14} {'':>6}")
        print("-" * len(header))
        for v, bad, gen, fgen, farr in fast_rows:
            print(f"{v:<11} {bad:>6} | {fgen} {fgen.best / gen.best:>5.1f}x | "
                  f"{farr.best:>14,.0f} {farr.median:>14,.0f} {farr.best / gen.best:>5.1f}x")
        print("differ: positions of the suite where fastgen's plays are not exactly generate()'s "
              "(order and spellings included)")
    print()
    compare_nardy(suites, rounds)
    bg = suites["backgammon"]
    print()
    print("backgammon suite: " + ", ".join(f"{k} {v}" for k, v in describe(bg).items()))
    print()
    compare_with_gnubg(bg, rounds)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


NARDY_GOAL = 1.5
PLAY_GROUPS = ((1, 1), (2, 5), (6, 15), (16, 40), (41, 10_000))


def compare_nardy(suites: dict[str, list[Position]], rounds: int) -> None:
    """`legal_plays()`+move+after of long-nardy against jacquet, positions grouped by their
    number of legal plays, rounds interleaved; then `fastgen.generate()` likewise (what
    the daemon's `legal_moves` runs) when the compiled generator is available."""
    _compare_nardy(suites, rounds, run_legal_plays, "legal_plays()+move+after")
    if fastgen.available():
        fastgen.warm_up()
        print()
        _compare_nardy(suites, rounds, run_fast_generate, "fastgen.generate()")


def _compare_nardy(suites: dict[str, list[Position]], rounds: int,
                   runner: Callable[[Sequence[Position]], Callable[[], None]],
                   label: str) -> None:
    by_group: dict[str, list[list[Position]]] = {}
    for v in ("jacquet", "long-nardy"):
        groups: list[list[Position]] = [[] for _ in PLAY_GROUPS]
        for p in suites[v]:
            n = len(generate(p))
            for i, (lo, hi) in enumerate(PLAY_GROUPS):
                if lo <= n <= hi:
                    groups[i].append(p)
        by_group[v] = groups
    header = (f"{'legal plays':<12} | {'jacquet pos':>11} {'us/call':>8} | "
              f"{'long-nardy pos':>14} {'us/call':>8} | {'ratio':>6} | goal")
    print(f"{label}, long-nardy against jacquet on comparable positions "
          f"(best of {rounds} rounds)")
    print(header)
    print("-" * len(header))
    total = {"jacquet": 0.0, "long-nardy": 0.0}
    for i, (lo, hi) in enumerate(PLAY_GROUPS):
        jac, ln = by_group["jacquet"][i], by_group["long-nardy"][i]
        label = f"{lo}" if lo == hi else f"{lo}-{hi}" if hi < 10_000 else f"{lo}+"
        if not jac or not ln:
            print(f"{label:<12} | {len(jac):>11} {'':>8} | {len(ln):>14} {'':>8} |")
            continue
        tj, tl = interleaved([runner(jac), runner(ln)], rounds)
        uj, ul = 1e6 * min(tj) / len(jac), 1e6 * min(tl) / len(ln)
        total["jacquet"] += uj * len(jac)
        total["long-nardy"] += ul * len(ln)
        ratio = ul / uj
        print(f"{label:<12} | {len(jac):>11} {uj:>8.1f} | {len(ln):>14} {ul:>8.1f} | "
              f"{ratio:>5.2f}x | {'met' if ratio <= NARDY_GOAL else 'not met'} "
              f"<= {NARDY_GOAL}x")
    uj = total["jacquet"] / len(suites["jacquet"])
    ul = total["long-nardy"] / len(suites["long-nardy"])
    print(f"{'whole suites':<12} | {len(suites['jacquet']):>11} {uj:>8.1f} | "
          f"{len(suites['long-nardy']):>14} {ul:>8.1f} | {ul / uj:>5.2f}x |")


def fastgen_numba_version() -> str:
    try:
        import numba
    except ImportError:
        return "?"
    return str(numba.__version__)


def profile(count: int, top: int) -> None:
    """cProfile of generate() over the backgammon suite, hottest functions first."""
    positions = suite("backgammon", count)
    run = run_generate(positions)
    run()  # warm caches
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        run()
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    print(f"cProfile: generate() x {3 * len(positions):,} on the backgammon suite "
          "(sorted by own time)")
    print(out.getvalue())


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--quick", action="store_true", help="500 positions, 2 rounds")
    ap.add_argument("--positions", type=int, help="positions per variant (default 2000)")
    ap.add_argument("--rounds", type=int, help="timed rounds per figure (default 5)")
    ap.add_argument("--profile", action="store_true",
                    help="profile generate() on the backgammon suite instead")
    ap.add_argument("--top", type=int, default=20, help="functions shown by --profile")
    ap.add_argument("--nardy", action="store_true",
                    help="only long-nardy against jacquet on comparable positions")
    args = ap.parse_args(argv)
    count = args.positions or (500 if args.quick else 2000)
    rounds = args.rounds or (2 if args.quick else 5)
    if args.nardy:
        compare_nardy({v: suite(v, count) for v in ("jacquet", "long-nardy")}, rounds)
    elif args.profile:
        profile(count, args.top)
    else:
        benchmark(count, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
