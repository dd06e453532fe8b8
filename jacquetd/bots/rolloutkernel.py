"""Cubeless 0-ply rollouts played wholly in compiled code.

`rollout_trials` plays `trials` games from a position (the side `me` on roll,
before its roll) with the 0-ply neural player on both sides, cubeless, in one
compiled call: the legal plays (`fastgen.kernel`), the input encoding
(`fastencode`), the networks and their routing (`fastnet`), the exact bear-off
tables (`bearoff.race_probabilities`, when the evaluator uses them) and the
dice. A game runs to its end (scored 1, 2 or 3 points by the variant's rules,
J12, B8, C4) or, with a `horizon`, for at most that many turns, a game still
running then being scored by the cubeless equity of the 0-ply evaluation of
the position reached.

Variance reduction as in GNU Backgammon's rollouts: the first roll is
stratified (trial t gets roll `order[t % 36]` of a seeded permutation of the
36 outcomes) and every turn's luck, E[best play | the roll] minus its mean
over the 21 rolls, is subtracted; each trial's value is from the view of the
side on roll at the start.

Dice. Trial t's roll at turn k >= 1 is a function of (seed, t, k) alone
(`later_roll`, a splitmix64 hash), written once in numba and once in Python,
so that `reference_trials` (the same games through `TruncatedRollout.turn`,
the Python path the project's other rollouts use) plays the very same dice.

Figures. The compiled path evaluates each play alone, as `fastnet`'s row
kernel does (float64 sums of the float32 weights), which is within 1e-6 of the
batched matrix products of `NeuralEvaluator.probs` (float32 rounding);
`RowEvaluator` is an evaluator held to batches that small, so that the reference
gives the compiled path's figures to about 1e-14, play for play. The row kernel's
work is cut in three ways that change the figures by rounding only:

- a play's first-layer sums start from those of the position it is played from
  (seen by the opponent, the side on roll next) and add only the inputs the
  play changed (a few dozen of a few hundred);
- the hidden units' sigmoid takes exp from a polynomial the compiler
  vectorises (`fastnet._sigmoids`, within 2e-14 of the library's exp);
- a position that several rolls of a turn reach is evaluated once.

The expansions of the first `CACHED_TURNS` turns of a trial depend only on
its first rolls, so they are computed once per call and shared by the trials
that roll the same (the position after turn k is a function of the rolls so
far: both players are deterministic).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from jacquetd import fastgen, kernel_cache
from jacquetd.rules.variants import opponent_point_map

from . import bearoff_store, fastencode, fastnet
from .evaluator import Evaluator, NeuralEvaluator
from .fastrollout import ROLL_INDEX, RolloutResult, TruncatedRollout
from .search import ROLLS, State

kernel_cache.check()  # before anything here compiles or loads a cache

_njit: Any = fastencode._njit

M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

ROLL36 = np.array([ROLL_INDEX[(k // 6 + 1, k % 6 + 1)] for k in range(36)], dtype=np.int64)
"""The roll (an index into ROLLS) of each of the 36 outcomes (die1 - 1) * 6 + die2 - 1."""
_DICE = np.array([(a, b) for a, b, _w in ROLLS], dtype=np.int64)
_WEIGHTS = np.array([w for _a, _b, w in ROLLS], dtype=np.float64)

SCORE_PLAIN, SCORE_PRIMES, SCORE_BACKGAMMON = 0, 1, 2
"""How a finished game scores its third level: never (jacquet-be, long-nardy), unless
the winner has held a prime (J12), or by the loser's checkers in the winner's table or
on the bar (C4)."""

CACHED_TURNS = 3
"""The turns whose expansions are shared by the trials with the same rolls so far."""
_SLOTS = 1 + 21 + 21 * 21  # the expansions of turns 0, 1 and 2 by the rolls before them
FULL_GAME_TURNS = 100_000
"""A full game longer than this many turns ends the call with an error (never seen)."""


def available() -> bool:
    """Whether the compiled rollout is there (numba installed and not disabled)."""
    return _njit is not None and fastgen.available() and fastnet.available()


# -- dice --------------------------------------------------------------------------------

def _mix(z: int) -> int:
    """splitmix64's finaliser of z + golden ratio (64-bit arithmetic)."""
    z = (z + _GOLDEN) & M64
    z = ((z ^ (z >> 30)) * _MIX1) & M64
    z = ((z ^ (z >> 27)) * _MIX2) & M64
    return z ^ (z >> 31)


def dice_key(seed: int | list[int]) -> int:
    """The 64-bit key of a seed (an int, or a list of ints folded in order)."""
    seq = [seed] if isinstance(seed, int) else list(seed)
    key = 0
    for s in seq:
        key = _mix(key ^ (s & M64))
    return key


def first_order(key: int) -> np.ndarray:
    """The 36 outcomes in the seeded order of the trials' first rolls (as roll indices):
    a Fisher-Yates shuffle driven by the key."""
    outcomes = list(range(36))
    z = _mix(key ^ 0x5157)
    for i in range(35, 0, -1):
        z = _mix(z)
        j = z % (i + 1)
        outcomes[i], outcomes[j] = outcomes[j], outcomes[i]
    return ROLL36[np.array(outcomes, dtype=np.int64)]


def later_roll(key: int, trial: int, turn: int) -> int:
    """Trial `trial`'s roll at turn `turn` >= 1 (an index into ROLLS)."""
    h = _mix(_mix(key ^ _mix(trial & M64)) ^ (turn & M64))
    return int(ROLL36[h % 36])


def _mix_c(z: np.uint64) -> np.uint64:
    z = z + np.uint64(_GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
    return z ^ (z >> np.uint64(31))


def _later_roll_c(key: np.uint64, trial: int, turn: int, roll36: np.ndarray) -> int:
    h = _mix_c(_mix_c(key ^ _mix_c(np.uint64(trial))) ^ np.uint64(turn))
    return int(roll36[np.int64(h % np.uint64(36))])


def _roll_table(key: np.uint64, roll36: np.ndarray, out: np.ndarray) -> None:
    for t in range(out.shape[0]):
        for k in range(out.shape[1]):
            out[t, k] = _later_roll_c(key, t, k, roll36)


# -- one position's 21 rolls ---------------------------------------------------------------

def _has_prime(side: np.ndarray) -> bool:
    """J12 (features.has_prime): six consecutive made points round the G5 circuit."""
    for start in range(24):
        ok = True
        for k in range(6):
            if side[1 + (start + k) % 24] < 2:
                ok = False
                break
        if ok:
            return True
    return False


def _race_probs(a: np.ndarray, b: np.ndarray, a_flag: bool, b_flag: bool,
                dist: np.ndarray, first_dist: np.ndarray, binom: np.ndarray,
                tracks_primes: bool, out: np.ndarray) -> None:
    """`bearoff.race_probabilities` of one position (`a` on roll), with the evaluator's
    J12 third level (`NeuralEvaluator._bear_off`)."""
    ra = 0
    rb = 0
    sa = -1
    sb = -1
    for k in range(6):
        sa += a[1 + k] + 1
        sb += b[1 + k] + 1
        ra += binom[sa, k + 1]
        rb += binom[sb, k + 1]
    m = dist.shape[1]
    win = 0.0
    wg = 0.0
    lg = 0.0
    ge_b = 0.0
    fge_b = 0.0
    gt_a = 0.0
    # the tails P(n_B >= n), P(f_B >= n), P(f_A > n), summed from the end
    for n in range(m - 1, -1, -1):
        pa = np.float64(dist[ra, n])
        ge_b += np.float64(dist[rb, n])
        fge_b += np.float64(first_dist[rb, n])
        win += pa * ge_b
        wg += pa * fge_b
        lg += np.float64(dist[rb, n]) * gt_a
        gt_a += np.float64(first_dist[ra, n])
    if b[0] != 0:
        wg = 0.0
    if a[0] != 0:
        lg = 0.0
    out[0] = win
    out[1] = min(wg, win)
    out[2] = 0.0
    out[3] = min(lg, 1.0 - win)
    out[4] = 0.0
    if tracks_primes:
        out[2] = 0.0 if a_flag else out[1]
        out[4] = 0.0 if b_flag else out[3]


def _hidden_sums(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, hs: np.ndarray) -> None:
    """The first layer's sums (before the sigmoid) of the input row `x` into `hs`,
    accumulated in float64 input by input."""
    for j in range(w1.shape[1]):
        hs[j] = b1[j]
    for i in range(x.shape[0]):
        if x[i] != 0.0:
            xi = np.float64(x[i])
            for j in range(w1.shape[1]):
                hs[j] += xi * w1[i, j]


def _forward_delta(x: np.ndarray, xb: np.ndarray, hb: np.ndarray, w1: np.ndarray,
                   w2t: np.ndarray, b2: np.ndarray, h: np.ndarray, idx: np.ndarray,
                   dv: np.ndarray, out: np.ndarray) -> None:
    """`fastnet._forward_row` of `x` from the first layer's sums `hb` of another row `xb`:
    only the inputs that differ are multiplied (the plays of a position change a few
    dozen of its inputs). The sums agree with the row kernel's to float64 rounding."""
    n_hidden = w1.shape[1]
    m = 0
    for i in range(x.shape[0]):  # without a branch: the differences come unpredictably
        idx[m] = i
        m += 1 if x[i] != xb[i] else 0
    for t in range(m):
        dv[t] = np.float64(x[idx[t]]) - np.float64(xb[idx[t]])
    for j in range(n_hidden):
        h[j] = hb[j]
    t = 0
    while t + 4 <= m:
        a = idx[t]
        b = idx[t + 1]
        c = idx[t + 2]
        d = idx[t + 3]
        xa = dv[t]
        xbb = dv[t + 1]
        xc = dv[t + 2]
        xd = dv[t + 3]
        for j in range(n_hidden):
            h[j] = (((h[j] + xa * w1[a, j]) + xbb * w1[b, j]) + xc * w1[c, j]) + xd * w1[d, j]
        t += 4
    while t < m:
        a = idx[t]
        xa = dv[t]
        for j in range(n_hidden):
            h[j] += xa * w1[a, j]
        t += 1
    fastnet._sigmoids(h, n_hidden)
    # each output's sum in eight interleaved partial sums (a vector's lanes), then paired
    acc = dv[:8]  # the differences are spent: their room holds the partial sums
    for k in range(5):
        acc[:] = 0.0
        j = 0
        while j + 8 <= n_hidden:
            for lane in range(8):
                acc[lane] += h[j + lane] * w2t[k, j + lane]
            j += 8
        while j < n_hidden:
            acc[0] += h[j] * w2t[k, j]
            j += 1
        sk = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        sk += b2[k]
        out[k] = 1.0 / (1.0 + math.exp(-min(max(sk, -40.0), 40.0)))


def _eval_row(a: np.ndarray, b: np.ndarray, af: np.ndarray, bf: np.ndarray, x: np.ndarray,
              xb: np.ndarray, hb: np.ndarray, hb_ok: np.ndarray, idx: np.ndarray,
              dv: np.ndarray, scratch: np.ndarray, h: np.ndarray, raw: np.ndarray,
              table: np.ndarray, vflags: int, version: int, width: int,
              escapes: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
              b2: np.ndarray, rw1: np.ndarray, rb1: np.ndarray, rw2: np.ndarray,
              rb2: np.ndarray, cw1: np.ndarray, cb1: np.ndarray, cw2: np.ndarray,
              cb2: np.ndarray, has_race: bool, has_crashed: bool, tflags: int,
              use_bearoff: bool, dist: np.ndarray, first_dist: np.ndarray,
              binom: np.ndarray, tracks_primes: bool, out: np.ndarray) -> None:
    """`fastnet._evaluate_rows` of the one position (a[0], b[0]) (a on roll), then the
    bear-off tables when both sides are home: its (5,) probabilities into `out`.

    The first layer starts from the sums of the base row `xb` (`hb[route]`, computed
    at the first row of that route, `hb_ok`)."""
    if use_bearoff and fastnet._both_home(a[0], b[0]):
        _race_probs(a[0], b[0], af[0], bf[0], dist, first_dist, binom, tracks_primes, out)
        return
    x[0, :] = 0.0
    fastencode._encode_rows(a, b, af, bf, table, vflags, version, width, escapes, x, scratch)
    contact = x[0, 2 * width] != 0.0
    if not contact and has_race:
        if not hb_ok[1]:
            _hidden_sums(xb, rw1, rb1, hb[1])
            hb_ok[1] = True
        _forward_delta(x[0], xb, hb[1], rw1, rw2, rb2, h, idx, dv, raw)
    elif contact and has_crashed and (fastnet._crashed_side(a[0])
                                      or fastnet._crashed_side(b[0])):
        if not hb_ok[2]:
            _hidden_sums(xb, cw1, cb1, hb[2])
            hb_ok[2] = True
        _forward_delta(x[0], xb, hb[2], cw1, cw2, cb2, h, idx, dv, raw)
    else:
        if not hb_ok[0]:
            _hidden_sums(xb, w1, b1, hb[0])
            hb_ok[0] = True
        _forward_delta(x[0], xb, hb[0], w1, w2, b2, h, idx, dv, raw)
    fastnet._tidy_row(raw, af[0], bf[0], tflags, out)


def _weighted_mean(best: np.ndarray, weights: np.ndarray) -> float:
    """numpy's `(weights * best).sum()` of the 21 rolls, in its order of additions
    (eight running sums, paired, then the last five)."""
    r = np.empty(8, dtype=np.float64)
    for i in range(8):
        r[i] = weights[i] * best[i]
    for i in range(8, 16):
        r[i - 8] += weights[i] * best[i]
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for i in range(16, 21):
        s += weights[i] * best[i]
    return float(s)


SEEN_SLOTS = 4096
"""The slots of an expansion's table of the positions it evaluated (a power of two)."""


def _play_key(row: np.ndarray, opp: np.ndarray) -> tuple[np.int64, np.int64]:
    """A key of the position a play leaves, unique among the plays of one position: the
    mover's counts on points 1-25 as nibbles, and the opponent's points it hit."""
    k1 = np.int64(0)
    k2 = np.int64(0)
    for i in range(1, 16):
        k1 |= np.int64(row[i]) << (4 * (i - 1))
    for i in range(16, 26):
        k2 |= np.int64(row[i]) << (4 * (i - 16))
    for q in range(1, 25):
        if row[26 + q] == 0 and opp[q] != 0:
            k2 |= np.int64(1) << (39 + q)
    return k1, k2


def _seen_slot(seen: np.ndarray, stamp: int, k1: np.int64, k2: np.int64) -> int:
    """The slot of (k1, k2) in the table `seen` (rows: stamp, k1, k2) as of `stamp`: its
    own when the key is there (the slot's stamp is `stamp`), else the empty one where it
    would go (an older stamp)."""
    mask = seen.shape[0] - 1
    i = ((k1 * -7046029254386353131 + k2 * -4658895280553007687) >> 20) & mask
    while seen[i, 0] == stamp and (seen[i, 1] != k1 or seen[i, 2] != k2):
        i = (i + 1) & mask
    return int(i)


def _expand(me: np.ndarray, opp: np.ndarray, me_flag: bool, opp_flag: bool,
            gflags: int, w8: np.ndarray, w64: np.ndarray, rows: np.ndarray,
            a: np.ndarray, b: np.ndarray, af: np.ndarray, bf: np.ndarray, x: np.ndarray,
            xb: np.ndarray, hb: np.ndarray, hb_ok: np.ndarray, idx: np.ndarray,
            dv: np.ndarray, scratch: np.ndarray, h: np.ndarray, raw: np.ndarray,
            p: np.ndarray, table: np.ndarray, vflags: int, version: int, width: int,
            escapes: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
            b2: np.ndarray, rw1: np.ndarray, rb1: np.ndarray, rw2: np.ndarray,
            rb2: np.ndarray, cw1: np.ndarray, cb1: np.ndarray, cw2: np.ndarray,
            cb2: np.ndarray, has_race: bool, has_crashed: bool, tflags: int,
            use_bearoff: bool, dist: np.ndarray, first_dist: np.ndarray,
            binom: np.ndarray, tracks_primes: bool, scoring: int, dice: np.ndarray,
            weights: np.ndarray, best: np.ndarray, chosen: np.ndarray,
            chosen_flag: np.ndarray, chosen_p: np.ndarray, slot: int, seen: np.ndarray,
            seen_eq: np.ndarray, seen_p: np.ndarray, seen_stamp: np.ndarray) -> float:
    """The 0-ply player's best play for each of the 21 rolls of (me, opp): its equity for
    the mover into best[slot, r], its five probabilities for the mover into
    chosen_p[slot, r], the sides it leaves (mover, then opponent: 52 counts)
    into chosen[slot, r] and the mover's prime flag after it into chosen_flag[slot, r].
    Returns the mean over the rolls, or NaN when the plays of a roll outgrow the
    workspace.

    A position that several rolls reach is evaluated once: `seen`, `seen_eq` and
    `seen_p` hold the keys, equities and probabilities of the plays met so far (until
    the table is half full), stamped with this expansion's number (`seen_stamp`,
    counted up)."""
    stamp = seen_stamp[0] + 1
    seen_stamp[0] = stamp
    filled = 0
    # the base of the plays' first layers: the position itself, seen by the opponent
    for i in range(26):
        a[0, i] = opp[i]
        b[0, i] = me[i]
    af[0] = opp_flag
    bf[0] = me_flag
    xb[0, :] = 0.0
    fastencode._encode_rows(a, b, af, bf, table, vflags, version, width, escapes, xb,
                            scratch)
    hb_ok[:] = False
    for r in range(21):
        n_ent = _walk(me, opp, dice[r, 0], dice[r, 1], gflags, w8, w64)
        if n_ent == 0:
            return np.nan
        top = -np.inf
        n = 0
        for e in range(n_ent):
            if not w8[gk.ENT0 + e, gk.E_KEEP]:
                continue
            _write_position(w8, e, opp, gflags, rows, n)
            mover_flag = me_flag
            if tracks_primes and not mover_flag:
                mover_flag = _has_prime(rows[n, :26])
            k1, k2 = _play_key(rows[n], opp)
            si = _seen_slot(seen, stamp, k1, k2)
            if seen[si, 0] == stamp:
                eq = seen_eq[si]
                for i in range(5):
                    p[i] = seen_p[si, i]
            elif rows[n, 0] == 15:  # the play wins: the result, from the winner's view
                p[0] = 1.0
                p[1] = 0.0
                p[2] = 0.0
                p[3] = 0.0
                p[4] = 0.0
                if rows[n, 26] == 0:
                    p[1] = 1.0
                    if scoring == SCORE_PRIMES:
                        p[2] = 0.0 if mover_flag else 1.0
                    elif scoring == SCORE_BACKGAMMON:
                        for i in range(19, 26):
                            if rows[n, 26 + i] != 0:
                                p[2] = 1.0
                                break
            else:
                for i in range(26):
                    a[0, i] = rows[n, 26 + i]
                    b[0, i] = rows[n, i]
                af[0] = opp_flag
                bf[0] = mover_flag
                _eval_row(a, b, af, bf, x, xb[0], hb, hb_ok, idx, dv, scratch, h, raw,
                          table, vflags,
                          version, width, escapes, w1, b1, w2, b2, rw1, rb1, rw2, rb2,
                          cw1, cb1, cw2, cb2, has_race, has_crashed, tflags, use_bearoff,
                          dist, first_dist, binom, tracks_primes, raw)
                p[0] = 1.0 - raw[0]
                p[1] = raw[3]
                p[2] = raw[4]
                p[3] = raw[1]
                p[4] = raw[2]
            if seen[si, 0] != stamp:
                eq = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
                if 2 * filled < seen.shape[0]:
                    seen[si, 0] = stamp
                    seen[si, 1] = k1
                    seen[si, 2] = k2
                    seen_eq[si] = eq
                    for i in range(5):
                        seen_p[si, i] = p[i]
                    filled += 1
            if eq > top:  # the first play of the highest equity
                top = eq
                for i in range(52):
                    chosen[slot, r, i] = rows[n, i]
                for i in range(5):
                    chosen_p[slot, r, i] = p[i]
                chosen_flag[slot, r] = mover_flag
            n += 1
        best[slot, r] = top
    return _weighted_mean(best[slot], weights)


def _trials(me0: np.ndarray, opp0: np.ndarray, me_flag0: bool, opp_flag0: bool,
            trials: int, trial0: int, first_roll: int, horizon: int, key: np.uint64,
            order: np.ndarray,
            roll36: np.ndarray, dice: np.ndarray, weights: np.ndarray, gflags: int,
            w8: np.ndarray, w64: np.ndarray, table: np.ndarray, vflags: int, version: int,
            width: int, escapes: np.ndarray, w1: np.ndarray, b1: np.ndarray,
            w2: np.ndarray, b2: np.ndarray, rw1: np.ndarray, rb1: np.ndarray,
            rw2: np.ndarray, rb2: np.ndarray, cw1: np.ndarray, cb1: np.ndarray,
            cw2: np.ndarray, cb2: np.ndarray, has_race: bool, has_crashed: bool,
            tflags: int, use_bearoff: bool, dist: np.ndarray, first_dist: np.ndarray,
            binom: np.ndarray, tracks_primes: bool, scoring: int, values: np.ndarray,
            raw_values: np.ndarray, probs: np.ndarray, vr_probs: np.ndarray,
            turns: np.ndarray, trace: np.ndarray, trace_rolls: np.ndarray) -> int:
    """Play trials trial0 .. trial0 + trials - 1 (see the module), the first roll
    `first_roll` (an index into ROLLS) or, when negative, rotated; returns 0, 1 when the
    plays of a roll outgrew the workspace (retry with a larger one), 2 when a game
    outran FULL_GAME_TURNS.

    Each trial's outcome probabilities go into `probs` as they came, and into
    `vr_probs` with every turn's luck on each of the five taken off (the chosen play's
    probabilities for that roll minus their mean over the 21 rolls, turned to the
    starting side's view): the equity of `vr_probs[t]` is `values[t]`."""
    rows = np.empty((w8.shape[0] - gk.ENT0, 52), dtype=np.int8)
    a = np.empty((1, 26), dtype=np.int16)
    b = np.empty((1, 26), dtype=np.int16)
    af = np.empty(1, dtype=np.bool_)
    bf = np.empty(1, dtype=np.bool_)
    x = np.zeros((1, w1.shape[0]), dtype=np.float32)
    scratch = np.empty(fastencode.SCRATCH, dtype=np.int64)
    n_hidden = max(w1.shape[1], rw1.shape[1], cw1.shape[1])
    xb = np.zeros((1, w1.shape[0]), dtype=np.float32)
    hb = np.zeros((3, n_hidden), dtype=np.float64)
    hb_ok = np.zeros(3, dtype=np.bool_)
    idx = np.empty(w1.shape[0], dtype=np.int64)
    dv = np.empty(w1.shape[0], dtype=np.float64)
    h = np.zeros(n_hidden, dtype=np.float64)
    raw = np.zeros(5, dtype=np.float64)
    p = np.zeros(5, dtype=np.float64)
    slots = _SLOTS + 1  # the shared expansions, then one for the later turns
    best = np.empty((slots, 21), dtype=np.float64)
    means = np.empty(slots, dtype=np.float64)
    means_p = np.empty((slots, 5), dtype=np.float64)
    luck_p = np.empty(5, dtype=np.float64)
    chosen = np.empty((slots, 21, 52), dtype=np.int8)
    chosen_flag = np.empty((slots, 21), dtype=np.bool_)
    chosen_p = np.empty((slots, 21, 5), dtype=np.float64)
    done = np.zeros(slots, dtype=np.bool_)
    seen = np.zeros((SEEN_SLOTS, 3), dtype=np.int64)
    seen_eq = np.zeros(SEEN_SLOTS, dtype=np.float64)
    seen_p = np.zeros((SEEN_SLOTS, 5), dtype=np.float64)
    seen_stamp = np.zeros(1, dtype=np.int64)
    me = np.empty(26, dtype=np.int16)
    opp = np.empty(26, dtype=np.int16)
    limit = horizon if horizon > 0 else FULL_GAME_TURNS
    for t in range(trials):
        for i in range(26):
            me[i] = me0[i]
            opp[i] = opp0[i]
        me_flag = me_flag0
        opp_flag = opp_flag0
        sign = 1.0
        luck = 0.0
        luck_p[:] = 0.0
        result = 0.0
        trial = trial0 + t
        roll = first_roll if first_roll >= 0 else order[trial % 36]
        slot = 0
        k = 0
        while True:
            if k >= CACHED_TURNS:
                slot = _SLOTS
            if slot == _SLOTS or not done[slot]:
                mean = _expand(me, opp, me_flag, opp_flag, gflags, w8, w64, rows, a, b,
                               af, bf, x, xb, hb, hb_ok, idx, dv, scratch, h, raw, p,
                               table, vflags,
                               version, width, escapes, w1, b1, w2, b2, rw1, rb1, rw2,
                               rb2, cw1, cb1, cw2, cb2, has_race, has_crashed, tflags,
                               use_bearoff, dist, first_dist, binom, tracks_primes,
                               scoring, dice, weights, best, chosen, chosen_flag,
                               chosen_p, slot, seen, seen_eq, seen_p, seen_stamp)
                if np.isnan(mean):
                    return 1
                means[slot] = mean
                for i in range(5):
                    m = 0.0
                    for r in range(21):
                        m += weights[r] * chosen_p[slot, r, i]
                    means_p[slot, i] = m
                done[slot] = True
            value = best[slot, roll]
            luck += sign * (value - means[slot])
            if sign > 0:
                for i in range(5):
                    luck_p[i] += chosen_p[slot, roll, i] - means_p[slot, i]
            else:  # the opponent's probabilities, seen from the starting side
                luck_p[0] -= chosen_p[slot, roll, 0] - means_p[slot, 0]
                luck_p[1] += chosen_p[slot, roll, 3] - means_p[slot, 3]
                luck_p[2] += chosen_p[slot, roll, 4] - means_p[slot, 4]
                luck_p[3] += chosen_p[slot, roll, 1] - means_p[slot, 1]
                luck_p[4] += chosen_p[slot, roll, 2] - means_p[slot, 2]
            result = sign * value
            if t < trace.shape[0] and k < trace.shape[1]:
                for i in range(52):
                    trace[t, k, i] = chosen[slot, roll, i]
                trace_rolls[t, k] = roll
            k += 1
            if chosen[slot, roll, 0] == 15:
                break
            if k >= limit:
                if horizon <= 0:
                    return 2
                break
            # the next position: the opponent on roll
            for i in range(26):
                me[i] = chosen[slot, roll, 26 + i]
                opp[i] = chosen[slot, roll, i]
            me_flag, opp_flag = opp_flag, chosen_flag[slot, roll]
            sign = -sign
            if k < CACHED_TURNS:
                slot = 1 + roll if k == 1 else 22 + (slot - 1) * 21 + roll
            roll = _later_roll_c(key, trial, k, roll36)
        values[t] = result - luck
        raw_values[t] = result
        turns[t] = k
        # the last play's probabilities, seen from the side on roll at the start
        if sign > 0:
            for i in range(5):
                probs[t, i] = chosen_p[slot, roll, i]
        else:
            probs[t, 0] = 1.0 - chosen_p[slot, roll, 0]
            probs[t, 1] = chosen_p[slot, roll, 3]
            probs[t, 2] = chosen_p[slot, roll, 4]
            probs[t, 3] = chosen_p[slot, roll, 1]
            probs[t, 4] = chosen_p[slot, roll, 2]
        for i in range(5):
            vr_probs[t, i] = probs[t, i] - luck_p[i]
    return 0


_walk: Any = None
_write_position: Any = None
_FUSED = fastnet._FUSED
if _njit is not None and fastgen.available():
    from jacquetd.fastgen import kernel as gk

    # the generator's walk and its writing of a play, here on arrays of counts
    _walk = gk._walk
    _write_position = gk._write_position

    _mix_c = _njit(cache=True, inline="always")(_mix_c)
    _later_roll_c = _njit(cache=True)(_later_roll_c)
    _has_prime = _njit(cache=True)(_has_prime)
    _race_probs = _njit(cache=True)(_race_probs)
    _hidden_sums = _njit(cache=True, fastmath=_FUSED)(_hidden_sums)
    _forward_delta = _njit(cache=True, error_model="numpy", fastmath=_FUSED)(_forward_delta)
    _eval_row = _njit(cache=True)(_eval_row)
    _weighted_mean = _njit(cache=True)(_weighted_mean)
    _play_key = _njit(cache=True, inline="always")(_play_key)
    _seen_slot = _njit(cache=True, inline="always")(_seen_slot)
    _expand = _njit(cache=True)(_expand)
    _trials = _njit(cache=True, nogil=True)(_trials)
    _roll_table = _njit(cache=True)(_roll_table)


# -- the calls -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Trace:
    """The plays of the first trials: `rows[t, k]` the sides the turn-k play of trial t
    left (mover's 26 counts, then the opponent's), `rolls[t, k]` its roll (an index into
    ROLLS), `turns[t]` how many turns trial t played."""

    rows: np.ndarray
    rolls: np.ndarray
    turns: np.ndarray


_EMPTY = np.zeros((1, 1), np.float32), np.zeros(1, np.float32), \
    np.zeros((5, 1), np.float64), np.zeros(5, np.float32)


def _layers(net: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A network's weights for the kernel: w1, b1 as they are (float32), w2 transposed
    to (5, hidden) in float64 (each output's weights side by side), b2."""
    if net is None:
        return _EMPTY
    return (np.ascontiguousarray(net.w1, dtype=np.float32),
            np.ascontiguousarray(net.b1, dtype=np.float32),
            np.ascontiguousarray(np.asarray(net.w2, dtype=np.float32).T, dtype=np.float64),
            np.ascontiguousarray(net.b2, dtype=np.float32))


def _scoring(ev: NeuralEvaluator) -> int:
    if ev.variant.tracks_primes:
        return SCORE_PRIMES
    return SCORE_BACKGAMMON if ev.variant.name == "backgammon" else SCORE_PLAIN


def _tables(ev: NeuralEvaluator) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
    """The bear-off tables as the evaluator would use them now (none: the networks)."""
    if ev.use_bearoff and ev._table_ready():
        db = ev.db
        return (True, np.ascontiguousarray(db.dist, dtype=np.float32),
                np.ascontiguousarray(db.first_dist, dtype=np.float32),
                bearoff_store._binomials())
    none = np.zeros((1, 1), np.float32)
    return False, none, none, bearoff_store._binomials()


WORKSPACE_ENTRIES = 4096
"""The move generator's workspace a call starts with; a position with more plays than it
holds makes the call start again with twice as much."""


def _run(ev: NeuralEvaluator, s: State, trials: int, seed: int | list[int],
         horizon: int | None, trace_trials: int, trace_turns: int, trial0: int = 0,
         first_roll: tuple[int, int] | None = None
         ) -> tuple[RolloutResult, np.ndarray, np.ndarray, Trace]:
    """The trials (`_trials`): values, outcome probabilities as they came and with the
    luck taken off each, and the trace asked for."""
    if not available():
        raise RuntimeError("the compiled rollout needs numba (fastgen and fastnet)")
    if not ev.compiled:
        raise ValueError(f"feature version {ev.feature_version} has no compiled encoder")
    if trials < 1:
        raise ValueError("trials must be at least 1")
    if horizon is not None and horizon < 1:
        raise ValueError("horizon must be at least 1 turn (None: full games)")
    if trial0 < 0:
        raise ValueError("trial0 must be at least 0")
    first = -1 if first_roll is None else ROLL_INDEX[first_roll]
    v = ev.variant
    key = dice_key(seed)
    version = ev.feature_version
    use_bearoff, dist, first_dist, binom = _tables(ev)
    values = np.empty(trials)
    raw = np.empty(trials)
    probs = np.empty((trials, 5))
    vr_probs = np.empty((trials, 5))
    turns = np.zeros(trials, dtype=np.int64)
    trace = np.zeros((trace_trials, trace_turns, 52), dtype=np.int8)
    trace_rolls = np.full((trace_trials, trace_turns), -1, dtype=np.int64)
    entries = WORKSPACE_ENTRIES
    while True:
        w8, w64 = gk.new_workspace(entries)
        code = _trials(
            np.array(s.me, dtype=np.int16), np.array(s.opp, dtype=np.int16),
            bool(s.me_flag), bool(s.opp_flag), trials, trial0, first, horizon or 0,
            np.uint64(key),
            first_order(key), ROLL36, _DICE, _WEIGHTS, fastgen.flags_of(v), w8, w64,
            np.array(opponent_point_map(v), dtype=np.int64), fastencode.variant_flags(v),
            version, fastencode.side_width(version), fastencode.ESCAPES,
            *_layers(ev.net), *_layers(ev.race_net), *_layers(ev.crashed_net),
            ev.race_net is not None, ev.crashed_net is not None, fastnet.tidy_flags(v),
            use_bearoff, dist, first_dist, binom, v.tracks_primes, _scoring(ev),
            values, raw, probs, vr_probs, turns, trace, trace_rolls)
        if code == 0:
            break
        if code == 2:
            raise RuntimeError(f"a game ran past {FULL_GAME_TURNS} turns")
        entries *= 2
    return RolloutResult(values, raw), probs, vr_probs, Trace(trace, trace_rolls, turns)


def rollout_trials(ev: NeuralEvaluator, s: State, *, trials: int, seed: int | list[int],
                   horizon: int | None) -> RolloutResult:
    """Play `trials` games of the 0-ply player from `s` (side on roll, before its roll),
    cubeless, full (`horizon` None) or of at most `horizon` turns, in compiled code;
    per-trial values from the view of the side on roll, luck subtracted (`values`) and
    not (`raw`). The same seed gives the same games (common random numbers)."""
    return _run(ev, s, trials, seed, horizon, 0, 0)[0]


def rollout_block(ev: NeuralEvaluator, s: State, *, trials: int, trial0: int,
                  seed: int | list[int], horizon: int | None,
                  first_roll: tuple[int, int] | None = None
                  ) -> tuple[RolloutResult, np.ndarray]:
    """Trials `trial0` .. `trial0 + trials - 1` of `rollout_trials` (the games a call of
    more trials from 0 plays under those numbers: a rollout may be played in blocks),
    the first roll `first_roll` in every trial when given (else rotated), with each
    trial's (trials, 5) outcome probabilities seen from the side on roll at the start:
    the result of a finished game, the evaluation of the last play's position when the
    game was cut at the horizon."""
    result, probs, _vr, _trace = _run(ev, s, trials, seed, horizon, 0, 0, trial0, first_roll)
    return result, probs


def traced_trials(ev: NeuralEvaluator, s: State, *, trials: int, seed: int | list[int],
                  horizon: int | None, trace_trials: int, trace_turns: int
                  ) -> tuple[RolloutResult, Trace]:
    """`rollout_trials` with the plays of the first `trace_trials` trials' first
    `trace_turns` turns."""
    result, _probs, _vr, trace = _run(ev, s, trials, seed, horizon, trace_trials,
                                      trace_turns)
    return result, trace


@dataclass(frozen=True, slots=True)
class Label:
    """A position's outcome probabilities by a rollout, for fitting a network on: the
    mean over the trials of each trial's probabilities with every turn's luck on each
    taken off (`probs`, the side on roll's view, before its roll), their standard
    errors, and the trials' equities (`result`: the equity of `probs` is
    `result.equity`)."""

    probs: np.ndarray
    std_errors: np.ndarray
    result: RolloutResult


def rollout_label(ev: NeuralEvaluator, s: State, *, trials: int, seed: int | list[int],
                  horizon: int | None) -> Label:
    """`rollout_trials`' games, read as a training label: the five outcome probabilities,
    each variance-reduced as the equity is (GNU Backgammon's rollouts reduce every
    output so), which a network's five outputs can be fitted to."""
    result, _probs, vr, _trace = _run(ev, s, trials, seed, horizon, 0, 0)
    n = len(vr)
    se = vr.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(5, math.inf)
    return Label(vr.mean(axis=0), se, result)


def warm_up() -> float:
    """Compile (or load) the rollout kernel now, by one short trial from the `jacquet`
    start; returns the seconds it took (0.0 without numba). A first compile takes about
    a minute of one core, so a caller with a core to spare runs it aside."""
    if not available():
        return 0.0
    from jacquetd.rules import Position

    from .evaluator import neural_evaluator
    from .players import state_of

    t0 = time.perf_counter()
    rollout_trials(neural_evaluator("jacquet"), state_of(Position.initial("jacquet")),
                   trials=1, seed=0, horizon=1)
    return time.perf_counter() - t0


def compiled_rolls(key: int, trials: int, turns: int) -> np.ndarray:
    """(trials, turns) rolls of the compiled dice (`later_roll` of each trial and turn),
    to check them against the Python ones."""
    if not available():
        raise RuntimeError("the compiled rollout needs numba (fastgen and fastnet)")
    out = np.empty((trials, turns), dtype=np.int64)
    _roll_table(np.uint64(key), ROLL36, out)
    return out


class CompiledRollout(TruncatedRollout):
    """`TruncatedRollout` whose `run` plays its trials in compiled code (`rollout_trials`:
    the same players, the same variance reduction, several times faster) on this
    module's counter-based dice, not on `TrialDice`: its figures are other draws of the
    same estimate, not the same numbers. `turn` and `expand` stay the Python ones."""

    def __init__(self, ev: Evaluator, *, cache_limit: int = 20_000) -> None:
        if not isinstance(ev, NeuralEvaluator):
            raise TypeError("compiled rollouts need a NeuralEvaluator")
        if not available():
            raise RuntimeError("compiled rollouts need numba")
        super().__init__(ev, cache_limit=cache_limit)
        self.neural = ev

    def run(self, s: State, *, trials: int, seed: int | list[int], horizon: int
            ) -> RolloutResult:
        if horizon < 1:
            raise ValueError("horizon must be at least 1 turn")
        return rollout_trials(self.neural, s, trials=trials, seed=seed, horizon=horizon)


# -- the reference -------------------------------------------------------------------------

class RowEvaluator:
    """An evaluator that runs a `NeuralEvaluator` on batches too small for its matrix
    products (`fastnet.BATCH_ROWS`): every position is evaluated alone by the row
    kernel, as the compiled rollout evaluates it."""

    def __init__(self, ev: NeuralEvaluator) -> None:
        self.ev = ev
        self.variant = ev.variant

    def probs(self, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
              opp_flag: np.ndarray) -> np.ndarray:
        n = me.shape[0]
        step = fastnet.BATCH_ROWS - 1
        if n <= step:
            return self.ev.probs(me, opp, me_flag, opp_flag)
        return np.concatenate([self.ev.probs(me[i:i + step], opp[i:i + step],
                                             me_flag[i:i + step], opp_flag[i:i + step])
                               for i in range(0, n, step)])


def reference_trials(roller: TruncatedRollout, s: State, *, trials: int,
                     seed: int | list[int], horizon: int | None, trace_trials: int = 0,
                     trace_turns: int = 0) -> tuple[RolloutResult, Trace]:
    """The games of `rollout_trials` (same dice) played in Python by `roller.turn`
    (`search.roll_replies`, the evaluator, `TruncatedRollout`'s choice and luck); with
    `roller` on a `RowEvaluator`, the compiled path's figures to float64 rounding."""
    key = dice_key(seed)
    order = first_order(key)
    limit = horizon if horizon is not None else FULL_GAME_TURNS
    values = np.empty(trials)
    raw = np.empty(trials)
    turns = np.zeros(trials, dtype=np.int64)
    trace = np.zeros((trace_trials, trace_turns, 52), dtype=np.int8)
    trace_rolls = np.full((trace_trials, trace_turns), -1, dtype=np.int64)
    for t in range(trials):
        state: State | None = s
        roll = int(order[t % 36])
        sign = 1.0
        luck = 0.0
        result = 0.0
        k = 0
        while True:
            assert state is not None
            lucky, value, nxt = roller.turn(state, roll)
            luck += sign * lucky
            result = sign * value
            if t < trace_trials and k < trace_turns:
                trace_rolls[t, k] = roll
                if nxt is not None:
                    trace[t, k] = nxt.opp + nxt.me
                else:
                    trace[t, k, 0] = 15  # the game ended: the winner's side only
            k += 1
            if nxt is None or k >= limit:
                break
            state = nxt
            sign = -sign
            roll = later_roll(key, t, k)
        values[t] = result - luck
        raw[t] = result
        turns[t] = k
    return RolloutResult(values, raw), Trace(trace, trace_rolls, turns)
