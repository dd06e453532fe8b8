"""Speed benchmark of the bots, beside GNU Backgammon's own figures in the same run.

    python benchmarks/bench_bots.py [--positions 30] [--seed 1]

Prints evaluations per second of the learned evaluator (batched: encoding
plus network, and the network alone), the time to encode a position in
every feature version from 2 on (on the same batch), and the latency of
`best_move` of the `random` and `heuristic` levels and at 0, 1 and 2 plies
(median and 90th percentile over positions taken from random games) for every
variant; then, on the same backgammon positions, GNU
Backgammon's (PyPI `gnubg`, in-process) evaluations per second at 0 plies
and `findbestmove` latency at 0, 1 and 2 plies.
"""

from __future__ import annotations

import argparse
import os
import random
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one core, no BLAS threads

import numpy as np

from jacquetd.bots import features, get_bot
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.rules import Position, legal_plays


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


def latency(fn, items) -> tuple[float, float]:
    times = []
    for it in items:
        t = time.perf_counter()
        fn(it)
        times.append(time.perf_counter() - t)
    return float(np.median(times)) * 1000, float(np.percentile(times, 90)) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", default="jacquet,jacquet-be,backgammon")
    args = ap.parse_args(argv)
    bg_positions: list[Position] = []
    for variant in args.variants.split(","):
        positions = sample_positions(variant, args.positions, args.seed)
        if variant == "backgammon":
            bg_positions = positions
        ev = neural_evaluator(variant)
        me = features.as_batch([p.me for p in positions] * 34)[:1000]
        opp = features.as_batch([p.opp for p in positions] * 34)[:1000]
        flags = np.zeros(len(me), dtype=bool)
        ev.probs(me, opp, flags, flags)
        t = time.perf_counter()
        reps = 20
        for _ in range(reps):
            ev.probs(me, opp, flags, flags)
        full = reps * len(me) / (time.perf_counter() - t)
        x = features.encode(ev.variant, me, opp, flags, flags, ev.feature_version)
        t = time.perf_counter()
        for _ in range(reps):
            ev.net.forward(x)
        net_only = reps * len(me) / (time.perf_counter() - t)
        print(f"{variant}: evaluations/s batched (1000 a batch): {full:,.0f} with encoding, "
              f"{net_only:,.0f} network alone")
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
            med, p90 = latency(lambda p, b=bot: b.choose(p), positions)
            print(f"{variant}: best_move of {level}: median {med:.3f} ms, "
                  f"p90 {p90:.3f} ms ({len(positions)} positions)")
        for plies, level in ((0, "neural"), (1, "neural-1"), (2, "neural-2")):
            bot = get_bot(level, variant)
            items = positions if plies < 2 else positions[: max(5, len(positions) // 3)]
            med, p90 = latency(lambda p, b=bot: b.choose(p), items)
            print(f"{variant}: best_move at {plies} plies: median {med:.1f} ms, "
                  f"p90 {p90:.1f} ms ({len(items)} positions)")
    if bg_positions:
        try:
            import gnubg
        except ImportError:
            print("gnubg: not installed")
            return 0
        ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
        boards = [(list(p.opp[1:26]), list(p.me[1:26])) for p in bg_positions]
        ec0 = gnubg.evalcontext(0, 0, 1, 0, 0)
        t = time.perf_counter()
        n = 0
        while time.perf_counter() - t < 1.0:
            for b in boards:
                gnubg.evaluate(b, ci, ec0)
                n += 1
        rate = n / (time.perf_counter() - t)
        print(f"gnubg: evaluations/s at 0 plies (one at a time, {len(boards)} positions "
              f"repeated): {rate:,.0f}")
        for plies in (0, 1, 2):
            ec = gnubg.evalcontext(0, plies, 1, 0, 0)
            items = list(zip(boards, bg_positions, strict=True))
            if plies == 2:
                items = items[: max(5, len(items) // 3)]
            med, p90 = latency(lambda it, e=ec: gnubg.findbestmove(it[0], ci, e, it[1].dice),
                               items)
            print(f"gnubg: findbestmove at {plies} plies: median {med:.2f} ms, "
                  f"p90 {p90:.2f} ms ({len(items)} positions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
