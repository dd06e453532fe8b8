"""Where a compiled rollout's time goes: turns by phase, and each play's parts.

    python benchmarks/bench_rollout_parts.py --variant backgammon --trials 100 --seed 3

A 0-ply rollout turn (`rolloutkernel`) expands the position for each of the 21 rolls:
it generates the plays, encodes each resulting position and runs the network on it from
the first-layer sums of a base row (only the inputs that differ are multiplied), and
keeps the best. This benchmark plays `--trials` full games from the start with the
shipped networks (the same games as `rollout_trials`, traced), then prints:

- the turns a game spends in each phase (`phases.phase_of`, the mover's phase);
- for the positions of each phase met in those games (at most `--positions` of them),
  the cost of each part a play, in compiled loops of the kernel's own functions: the
  legal plays of all 21 rolls (`fastgen` walk and write), the input encoding of each
  play's position (`fastencode._encode_rows`, the network's feature version), and the
  network's forward from the previous play's row (`rolloutkernel._forward_delta`,
  which the kernel runs from the position's own row) with how many inputs differ; and
  the forward of networks of other widths on the same rows (untrained weights: a
  network's cost depends on its shape alone), to show what a narrower network would
  save. (Where both sides are home the kernel reads the exact bear-off tables instead
  of the network; the `bear-off` phase is the mover's, whatever the opponent's.)

Times are wall-clock microseconds in this process, one thread, each the fastest of five
runs; run it on an idle machine. The plays counted include those several rolls reach,
which the kernel evaluates once.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

import numpy as np

from jacquetd import fastgen
from jacquetd.bots import fastencode, rolloutkernel
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.net import Net
from jacquetd.bots.phases import PHASES, phase_of
from jacquetd.bots.players import state_of
from jacquetd.rules import Position
from jacquetd.rules.variants import opponent_point_map

_njit: Any = fastencode._njit


def _all_plays(me: np.ndarray, opp: np.ndarray, dice: np.ndarray, gflags: int,
               w8: np.ndarray, w64: np.ndarray, rows: np.ndarray, out: np.ndarray) -> int:
    """The positions every play of every roll leaves from each (me[p], opp[p]), as the
    kernel writes them (mover's 26 counts, then the opponent's), into `out` while it has
    room; returns how many there are."""
    m = 0
    for p in range(me.shape[0]):
        for r in range(21):
            n_ent = rolloutkernel._walk(me[p], opp[p], dice[r, 0], dice[r, 1], gflags, w8,
                                        w64)
            n = 0
            for e in range(n_ent):
                if not w8[gk.ENT0 + e, gk.E_KEEP]:
                    continue
                rolloutkernel._write_position(w8, e, opp[p], gflags, rows, n)
                if m < out.shape[0]:
                    out[m, :] = rows[n]
                m += 1
                n += 1
    return m


def _encode_all(a_rows: np.ndarray, b_rows: np.ndarray, table: np.ndarray, vflags: int,
                version: int, width: int, escapes: np.ndarray, x: np.ndarray,
                scratch: np.ndarray, keep: np.ndarray) -> None:
    """Encode each row alone, as the kernel does (`keep` receives the rows)."""
    a = np.empty((1, 26), np.int16)
    b = np.empty((1, 26), np.int16)
    af = np.zeros(1, np.bool_)
    bf = np.zeros(1, np.bool_)
    for i in range(a_rows.shape[0]):
        a[0, :] = a_rows[i]
        b[0, :] = b_rows[i]
        x[0, :] = 0.0
        fastencode._encode_rows(a, b, af, bf, table, vflags, version, width, escapes, x,
                                scratch)
        if i < keep.shape[0]:
            keep[i, :] = x[0]


def _forward_all(xs: np.ndarray, hb: np.ndarray, w1: np.ndarray, w2t: np.ndarray,
                 b2: np.ndarray, out: np.ndarray) -> float:
    """The forward of each row from the sums `hb` of the row before it (a checksum)."""
    n_in = xs.shape[1]
    h = np.zeros(w1.shape[1])
    idx = np.empty(n_in, np.int64)
    dv = np.empty(n_in)
    s = 0.0
    for i in range(1, xs.shape[0]):
        rolloutkernel._forward_delta(xs[i], xs[i - 1], hb, w1, w2t, b2, h, idx, dv, out)
        s += out[0]
    return s


def _differing(xs: np.ndarray) -> float:
    """Mean count of inputs that differ between consecutive rows."""
    c = 0
    for i in range(1, xs.shape[0]):
        for j in range(xs.shape[1]):
            if xs[i, j] != xs[i - 1, j]:
                c += 1
    return c / max(xs.shape[0] - 1, 1)


gk: Any = None
if _njit is not None and fastgen.available():
    from jacquetd.fastgen import kernel as gk

    # not cached: the module runs as a script and is imported by the tests under
    # another name, and a cache written under one is not read under the other
    _all_plays = _njit(_all_plays)
    _encode_all = _njit(_encode_all)
    _forward_all = _njit(_forward_all)
    _differing = _njit(_differing)


def _timed(fn: Any, *args: Any, repeats: int = 5) -> float:
    """Seconds of the fastest of `repeats` calls of `fn` (after one untimed call): the
    one least disturbed by other work on the machine."""
    fn(*args)
    fastest = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn(*args)
        fastest = min(fastest, time.perf_counter() - t)
    return fastest


def parts(variant: str, positions: list[tuple[np.ndarray, np.ndarray]], max_rows: int,
          widths: tuple[int, ...]) -> dict[str, float]:
    """The per-play costs (microseconds) of the positions (mover, opponent) on roll."""
    ev = neural_evaluator(variant)
    v = ev.variant
    me = np.array([p[0] for p in positions], dtype=np.int16)
    opp = np.array([p[1] for p in positions], dtype=np.int16)
    gflags = fastgen.flags_of(v)
    w8, w64 = gk.new_workspace(1 << 16)
    rows = np.empty((w8.shape[0] - gk.ENT0, 52), dtype=np.int8)
    plays = np.empty((max_rows, 52), dtype=np.int8)
    dice = rolloutkernel._DICE
    gen_s = _timed(_all_plays, me, opp, dice, gflags, w8, w64, rows, plays)
    n_plays = _all_plays(me, opp, dice, gflags, w8, w64, rows, plays)
    kept = plays[:min(n_plays, max_rows)]
    # each play's position seen by the opponent, on roll next (as the kernel evaluates it)
    a_rows = np.ascontiguousarray(kept[:, 26:52], dtype=np.int16)
    b_rows = np.ascontiguousarray(kept[:, :26], dtype=np.int16)
    version = ev.feature_version
    width = fastencode.side_width(version)
    table = np.array(opponent_point_map(v), dtype=np.int64)
    x = np.zeros((1, ev.net.n_inputs), np.float32)
    xs = np.zeros((len(kept), ev.net.n_inputs), np.float32)
    scratch = np.empty(fastencode.SCRATCH, np.int64)
    enc_s = _timed(_encode_all, a_rows, b_rows, table, fastencode.variant_flags(v), version,
                   width, fastencode.ESCAPES, x, scratch, xs)
    out = {"positions": float(len(positions)), "plays a position": n_plays / len(positions),
           "generation": 1e6 * gen_s / n_plays, "encoding": 1e6 * enc_s / len(kept),
           "inputs differing": _differing(xs)}
    nets = [("forward", ev.net)] + [(f"forward {h} hidden", Net(ev.net.n_inputs, h, seed=1))
                                    for h in widths if h != ev.net.n_hidden]
    for name, net in nets:
        w1, b1, w2t, b2 = rolloutkernel._layers(net)
        hb = np.zeros(net.n_hidden)
        rolloutkernel._hidden_sums(xs[0], w1, b1, hb)
        fwd_s = _timed(_forward_all, xs, hb, w1, w2t, b2, np.zeros(5))
        out[name] = 1e6 * fwd_s / max(len(kept) - 1, 1)
    out["hidden"] = float(ev.net.n_hidden)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="backgammon")
    ap.add_argument("--trials", type=int, default=100, help="full games traced from the start")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--positions", type=int, default=400,
                    help="positions of each phase whose plays are timed")
    ap.add_argument("--widths", default="128,192",
                    help="other network widths whose forward is timed on the same rows")
    args = ap.parse_args(argv)
    if gk is None:
        raise SystemExit("needs numba (the compiled kernels)")
    ev = neural_evaluator(args.variant)
    s = state_of(Position.initial(args.variant))
    _res, trace = rolloutkernel.traced_trials(ev, s, trials=args.trials, seed=args.seed,
                                              horizon=None, trace_trials=args.trials,
                                              trace_turns=400)
    by_phase: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {p: [] for p in PHASES}
    counts: Counter[str] = Counter()
    for t in range(args.trials):
        for k in range(int(trace.turns[t]) - 1):
            row = trace.rows[t, k]
            me, opp = row[26:52].copy(), row[:26].copy()  # the next mover, then its opponent
            phase = phase_of(ev.variant, me, opp)
            counts[phase] += 1
            if len(by_phase[phase]) < args.positions:
                by_phase[phase].append((me, opp))
    games = args.trials
    print(f"{args.variant}: {games} full games from the start (seed {args.seed}), "
          f"{sum(counts.values()) / games:.1f} turns a game after the first: "
          + ", ".join(f"{p} {counts[p] / games:.1f}" for p in PHASES if counts[p]))
    widths = tuple(int(w) for w in args.widths.split(",") if w)
    for phase in PHASES:
        if not by_phase[phase]:
            continue
        f = parts(args.variant, by_phase[phase], 200_000, widths)
        extra = "".join(f", {k} {f[k]:.2f}" for k in f if k.startswith("forward "))
        print(f"  {phase}: {int(f['positions'])} positions, {f['plays a position']:.0f} plays "
              f"a position (21 rolls); us a play: generation {f['generation']:.2f}, "
              f"encoding {f['encoding']:.2f}, forward ({int(f['hidden'])} hidden, "
              f"{f['inputs differing']:.1f} inputs differing) {f['forward']:.2f}{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
