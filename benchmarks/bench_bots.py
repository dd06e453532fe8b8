"""Speed benchmark of the bots, beside GNU Backgammon's own figures in the same run.

    python benchmarks/bench_bots.py [--positions 30] [--seed 1]

Prints, for every variant, 0-ply evaluations per second of the learned
evaluator on distinct positions (every position that a play of a roll
leaves from the sampled positions, each evaluated once): batched (1000 a
call, as the searches and rollouts call it) and one position a call (as a
`best_move` at 0 plies does), for the compiled path and the numpy
reference path, each beside GNU Backgammon's (PyPI `gnubg`, in-process, one
position a call, on the backgammon positions of the same kind, each once so
that its position cache does not serve them) with the ratio ours / gnubg;
the encoding time of a position in every feature version from 2 on; and
the latency of `best_move` of the `random` and `heuristic` levels and at 0,
1 and 2 plies (median and 90th percentile), and at 1 and 2 plies without the
pruning networks, beside gnubg's `findbestmove` at 0, 1 and 2 plies on the
same backgammon positions, with each variant's ratio to gnubg's figure; and the
latency of the cube decision a bot of each searching level makes before its roll
(at the level's `cube_depth`). Each
position's latency is the fastest of `--repeats` moves; gnubg's position cache
is emptied before each of its moves (ours keeps none from one move to the next).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import sys
import time
from collections.abc import Iterator

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one core, no BLAS threads

import numpy as np

from jacquetd.bots import features, get_bot
from jacquetd.bots.evaluator import NeuralEvaluator, neural_evaluator
from jacquetd.bots.interface import ENGINE
from jacquetd.bots.search import Searcher, SearchSettings, State, roll_replies
from jacquetd.rules import Position, generate_raw, legal_plays


def sample_positions(variant: str, n: int, seed: int) -> list[Position]:
    """Positions with dice, from random games (skipping forced plays)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.initial(variant).with_dice((rng.randint(1, 6), rng.randint(1, 6)))
        for _ in range(rng.randint(2, 60)):
            after = rng.choice(legal_plays(pos)).after
            if after.game_over():
                break
            pos = after.with_dice((rng.randint(1, 6), rng.randint(1, 6)))
        if len(legal_plays(pos)) > 1:
            out.append(pos)
    return out


def distinct_replies(variant: str, positions: list[Position]) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct position (side on roll, opponent) that a play of a roll leaves
    from `positions`, in a seeded shuffled order."""
    ev = neural_evaluator(variant)
    rows = []
    for p in positions:
        after_me, after_opp, _, _ = roll_replies(ev, State(p.me, p.opp))
        live = after_me[:, 0] < 15
        rows.append(np.concatenate([after_opp[live], after_me[live]], axis=1))
    both = np.unique(np.concatenate(rows), axis=0)
    np.random.default_rng(0).shuffle(both)
    return np.ascontiguousarray(both[:, :26]), np.ascontiguousarray(both[:, 26:])


def rate_batched(probs, me: np.ndarray, opp: np.ndarray, batch: int = 1000) -> float:
    """Evaluations per second, `batch` distinct positions a call, each position once."""
    flags = np.zeros(batch, dtype=bool)
    probs(me[:batch], opp[:batch], flags[: len(me[:batch])], flags[: len(me[:batch])])  # warm
    t = time.perf_counter()
    for lo in range(0, len(me), batch):
        m, o = me[lo:lo + batch], opp[lo:lo + batch]
        probs(m, o, flags[: len(m)], flags[: len(m)])
    return len(me) / (time.perf_counter() - t)


def rate_single(probs, me: np.ndarray, opp: np.ndarray, seconds: float = 1.0) -> float:
    """Evaluations per second, one distinct position a call (for about `seconds`)."""
    flag = np.zeros(1, dtype=bool)
    probs(me[:1], opp[:1], flag, flag)
    t = time.perf_counter()
    n = 0
    while n < len(me) and time.perf_counter() - t < seconds:
        probs(me[n:n + 1], opp[n:n + 1], flag, flag)
        n += 1
    return n / (time.perf_counter() - t)


def gnubg_rate(me: np.ndarray, opp: np.ndarray, seconds: float = 1.0) -> float | None:
    """GNU Backgammon's 0-ply evaluations per second, one distinct position a call
    (each once: its cache holds none of them), or None without the `gnubg` module."""
    try:
        import gnubg
    except ImportError:
        return None
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    ec0 = gnubg.evalcontext(0, 0, 1, 0, 0)
    boards = [(o[1:26].tolist(), m[1:26].tolist()) for m, o in zip(me, opp, strict=True)]
    t = time.perf_counter()
    n = 0
    while n < len(boards) and time.perf_counter() - t < seconds:
        gnubg.evaluate(boards[n], ci, ec0)
        n += 1
    return n / (time.perf_counter() - t)


def latency(fn, items, repeats: int = 1, before=None) -> tuple[float, float]:
    """(median, 90th percentile) in ms over `items` of each item's fastest of `repeats`
    timed calls of `fn(item)` (the fastest: the one least disturbed by other work on
    the machine); `before()`, untimed, runs before each call."""
    times = []
    for it in items:
        fastest = math.inf
        for _ in range(repeats):
            if before is not None:
                before()
            t = time.perf_counter()
            fn(it)
            fastest = min(fastest, time.perf_counter() - t)
        times.append(fastest)
    return float(np.median(times)) * 1000, float(np.percentile(times, 90)) * 1000


GNUBG_CACHE_ENTRIES = 1 << 19
"""The size GNU Backgammon's position cache is given back after each emptying."""


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """File descriptor 1 to /dev/null for the block (GNU Backgammon's C code prints)."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def gnubg_empty_cache(gnubg) -> None:
    """Empty GNU Backgammon's position cache (sizing it to nothing and back empties
    it): its move then evaluates every position anew, as ours does, rather than
    finding what an earlier call on the same position left there."""
    with _quiet_stdout():
        gnubg.command("set cache 0")
        gnubg.command(f"set cache {GNUBG_CACHE_ENTRIES}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", default="jacquet,jacquet-be,backgammon")
    ap.add_argument("--rates-only", action="store_true",
                    help="print the evaluation rates only (no encoding or best_move timings)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="rounds of the evaluation-rate figures (ours and gnubg's interleaved)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="timed moves a position and level, the fastest counting (gnubg's "
                         "position cache emptied before each)")
    args = ap.parse_args(argv)
    names = args.variants.split(",")
    names_n = len(names)
    # gnubg keeps a position cache: every round of every variant gets positions of its own
    bg_sample = distinct_replies("backgammon", sample_positions(
        "backgammon", args.positions * names_n, args.seed + 1000))
    slices = names_n * args.rounds
    if gnubg_rate(bg_sample[0][:10], bg_sample[1][:10], 0.01) is None:
        print("gnubg: not installed")

    bg_positions: list[Position] = []
    ours: dict[tuple[str, int], tuple[float, float]] = {}
    for variant in names:
        positions = sample_positions(variant, args.positions, args.seed)
        if variant == "backgammon":
            bg_positions = positions
        shipped = neural_evaluator(variant)
        ev = NeuralEvaluator(shipped.variant, shipped.net, race_net=shipped.race_net,
                             crashed_net=shipped.crashed_net)
        d_me, d_opp = distinct_replies(variant, positions)
        # rounds interleave ours and gnubg's so that both see the same load; medians
        figures: dict[str, list[float]] = {}
        for r in range(args.rounds):
            lo, hi = r * len(d_me) // args.rounds, (r + 1) * len(d_me) // args.rounds
            k = names.index(variant) * args.rounds + r
            g_lo, g_hi = k * len(bg_sample[0]) // slices, (k + 1) * len(bg_sample[0]) // slices
            g = gnubg_rate(bg_sample[0][g_lo:g_hi], bg_sample[1][g_lo:g_hi], 0.5)
            for name, value in (
                    ("gnubg", g or 0.0),
                    ("batched", rate_batched(ev.probs, d_me[lo:hi], d_opp[lo:hi])),
                    ("batched ref", rate_batched(ev.probs_reference, d_me[lo:hi], d_opp[lo:hi])),
                    ("single", rate_single(ev.probs, d_me[lo:hi], d_opp[lo:hi], 0.5)),
                    ("single ref", rate_single(ev.probs_reference, d_me[lo:hi], d_opp[lo:hi],
                                               0.5))):
                figures.setdefault(name, []).append(value)
        med = {k: float(np.median(v)) for k, v in figures.items()}
        gn = med["gnubg"]

        def vs(name: str, gn: float = gn, med: dict[str, float] = med,
               figures: dict[str, list[float]] = figures) -> str:
            lo, hi = min(figures[name]), max(figures[name])
            ratio = f", {med[name] / gn:.2f}x gnubg" if gn else ""
            return f"{med[name]:,.0f} (range {lo:,.0f}-{hi:,.0f}{ratio})"

        print(f"{variant}: 0-ply evaluations/s on {len(d_me)} distinct positions, median of "
              f"{args.rounds} rounds: batched (1000 a call) {vs('batched')}; one a call "
              f"{vs('single')}; numpy reference path: batched {vs('batched ref')}, one a "
              f"call {vs('single ref')}")
        if gn:
            print(f"{variant}: gnubg 0-ply evaluations/s in the same rounds (backgammon, one "
                  f"distinct position a call, {len(bg_sample[0]) // slices} new positions a "
                  f"round): {vs('gnubg')}")
        if args.rates_only:
            continue
        me = features.as_batch([p.me for p in positions] * 34)[:1000]
        opp = features.as_batch([p.opp for p in positions] * 34)[:1000]
        flags = np.zeros(len(me), dtype=bool)
        reps = 20
        x = features.encode(ev.variant, me, opp, flags, flags, ev.feature_version)
        ev.net.forward(x)
        t = time.perf_counter()
        for _ in range(reps):
            ev.net.forward(x)
        net_only = reps * len(me) / (time.perf_counter() - t)
        print(f"{variant}: evaluations/s of the contact network alone (1000 a batch, encoded): "
              f"{net_only:,.0f}")
        per_version = []
        for version in features.VERSIONS[1:]:
            features.encode(ev.variant, me, opp, flags, flags, version)  # compile or load
            t = time.perf_counter()
            for _ in range(reps):
                features.encode(ev.variant, me, opp, flags, flags, version)
            us = 1e6 * (time.perf_counter() - t) / (reps * len(me))
            per_version.append(f"version {version} {us:.2f} us")
        print(f"{variant}: encoding a position: {', '.join(per_version)}")
        for level in ("random", "heuristic"):
            bot = get_bot(level, variant, seed=args.seed)
            med, p90 = latency(lambda p, b=bot: b.choose(p), positions, args.repeats)
            print(f"{variant}: best_move of {level}: median {med:.3f} ms, "
                  f"p90 {p90:.3f} ms ({len(positions)} positions)")
        for plies, level in ((0, "neural"), (1, "neural-1"), (2, "neural-2")):
            bot = get_bot(level, variant)
            med, p90 = latency(lambda p, b=bot: b.choose(p), positions, args.repeats)
            ours[variant, plies] = (med, p90)
            print(f"{variant}: best_move at {plies} plies: median {med:.1f} ms, "
                  f"p90 {p90:.1f} ms ({len(positions)} positions)")
        for level in ("neural", "neural-1", "neural-2"):
            depth = ENGINE.cube_depth(level)
            med, p90 = latency(lambda p, n=depth: ENGINE.cube(p.without_dice(), plies=n),
                               positions, args.repeats)
            at = f"{depth} ply" if depth == 1 else f"{depth} plies"
            print(f"{variant}: cube decision of {level} (at {at}, before its roll): "
                  f"median {med:.2f} ms, p90 {p90:.2f} ms ({len(positions)} positions)")
        unpruned = Searcher(neural_evaluator(variant), SearchSettings(prune=False))
        for plies in (1, 2):
            med, p90 = latency(lambda p, n=plies, s=unpruned: s.best(
                State(p.me, p.opp, p.primed[0], p.primed[1]),
                generate_raw(s.variant, p.me, p.opp, p.dice), n), positions, args.repeats)
            print(f"{variant}: best play at {plies} plies without pruning: "
                  f"median {med:.1f} ms, p90 {p90:.1f} ms ({len(positions)} positions)")
    if bg_positions and not args.rates_only:
        try:
            import gnubg
        except ImportError:
            print("gnubg: not installed")
            return 0
        ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
        boards = [(list(p.opp[1:26]), list(p.me[1:26])) for p in bg_positions]
        for plies in (0, 1, 2):
            ec = gnubg.evalcontext(0, plies, 1, 0, 0)
            items = list(zip(boards, bg_positions, strict=True))
            med, p90 = latency(lambda it, e=ec: gnubg.findbestmove(it[0], ci, e, it[1].dice),
                               items, args.repeats, lambda: gnubg_empty_cache(gnubg))
            print(f"gnubg: findbestmove at {plies} plies: median {med:.2f} ms, "
                  f"p90 {p90:.2f} ms ({len(items)} positions, its cache emptied before "
                  "each move)")
            for variant in names:
                if (variant, plies) in ours:
                    o_med, o_p90 = ours[variant, plies]
                    print(f"{variant}: best_move at {plies} plies against gnubg's: median "
                          f"{o_med / med:.2f}x, p90 {o_p90 / p90:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
