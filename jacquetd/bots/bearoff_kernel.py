"""Compiled kernels of the bear-off databases: the plays of a roll and the one-sided solve.

The one-sided tables (`bearoff.build`) and the two-sided cubeful ones
(`bearoff_cube.build`) need, for every position of up to 15 checkers on the six
points and each of the 21 rolls, the positions its legal plays reach: a million
move generations. `bearoff.plays` does one in Python and is the reference
(checked against the rules core's generator); `plays_into` here is the same
algorithm on arrays, compiled, so that the tables build in seconds instead of
minutes (a daemon's first start builds them in the background).

Positions are ranks (`bearoff.rank`); `Positions` holds, for every rank, its
counts on points 1-6, its number of checkers and the binomial table that ranks
a placement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from jacquetd import kernel_cache

kernel_cache.check()  # before anything here compiles or loads a cache

POINTS = 6


@dataclass(frozen=True)
class Positions:
    """Every one-sided position of up to some number of checkers, by rank."""

    counts: np.ndarray
    """counts[rank]: the checkers on points 1-6 (int64, shape (n, 6))."""
    checkers: np.ndarray
    """checkers[rank]: how many checkers are left (int64)."""
    binom: np.ndarray
    """binom[n, k] = C(n, k), for ranking (int64)."""


class Workspace:
    """The scratch arrays of `plays_into` for positions of `size` ranks."""

    def __init__(self, size: int) -> None:
        self.value = np.zeros(size, dtype=np.int64)  # found: how many dice the play used
        self.found_at = np.full(size, -1, dtype=np.int64)  # the call that found it
        self.seen_at = np.full(size, -1, dtype=np.int64)  # the level that reached it
        self.stamp = np.zeros(1, dtype=np.int64)
        self.found = np.zeros(size, dtype=np.int64)
        self.level = np.zeros(size, dtype=np.int64)
        self.next_level = np.zeros(size, dtype=np.int64)
        self.first = np.zeros((POINTS, POINTS), dtype=np.int64)
        self.second = np.zeros((POINTS, POINTS), dtype=np.int64)


@njit(cache=True)
def _rank(c: np.ndarray, binom: np.ndarray) -> int:  # pragma: no cover - compiled
    r = 0
    s = -1
    for k in range(POINTS):
        s += c[k] + 1
        r += binom[s, k + 1]
    return r


@njit(cache=True)
def _die_moves(pos: np.ndarray, d: int, rearmost: bool, out: np.ndarray
               ) -> int:  # pragma: no cover - compiled
    """`bearoff.single_die`: the positions one checker moved by `d` reaches, into `out`."""
    highest = 0
    for q in range(POINTS, 0, -1):
        if pos[q - 1] > 0:
            highest = q
            break
    n = 0
    for src in range(highest, 0, -1):
        if pos[src - 1] == 0:
            continue
        dst = src - d
        if dst <= 0 and (dst < 0 or rearmost) and src != highest:
            continue
        for k in range(POINTS):
            out[n, k] = pos[k]
        out[n, src - 1] -= 1
        if dst > 0:
            out[n, dst - 1] += 1
        n += 1
    return n


@njit(cache=True)
def _note(p: int, call: int, found_at: np.ndarray, found: np.ndarray, nf: int
          ) -> int:  # pragma: no cover - compiled
    """Add rank `p` to this call's found list unless it is there: the list's new length."""
    if found_at[p] != call:
        found_at[p] = call
        found[nf] = p
        nf += 1
    return nf


@njit(cache=True)
def _plays(a: int, d1: int, d2: int, rearmost: bool, counts: np.ndarray,
           checkers: np.ndarray, binom: np.ndarray, value: np.ndarray, found_at: np.ndarray,
           seen_at: np.ndarray, stamp: np.ndarray, found: np.ndarray, level: np.ndarray,
           next_level: np.ndarray, first: np.ndarray, second: np.ndarray, out: np.ndarray
           ) -> int:  # pragma: no cover - compiled
    """`bearoff.plays` of rank `a`: the ranks reached, sorted, into `out`; their number.

    A found position's value is the number of dice its play used (10 + the die when a
    single die of a non-double was played), as in the reference."""
    stamp[0] += 1
    call = stamp[0]
    nf = 0
    if d1 == d2:
        level[0] = a
        nl = 1
        for depth in range(5):
            stamp[0] += 1
            reach = stamp[0]
            nn = 0
            for i in range(nl):
                p = level[i]
                v = -1
                k = 0
                if depth == 4 or checkers[p] == 0:
                    v = 4
                else:
                    k = _die_moves(counts[p], d1, rearmost, first)
                    if k == 0:
                        v = depth
                if v >= 0:
                    grown = _note(p, call, found_at, found, nf)
                    value[p] = v if grown > nf else max(value[p], v)
                    nf = grown
                    continue
                for j in range(k):
                    q = _rank(first[j], binom)
                    if seen_at[q] != reach:
                        seen_at[q] = reach
                        next_level[nn] = q
                        nn += 1
            for i in range(nn):
                level[i] = next_level[i]
            nl = nn
            if nl == 0:
                break
    else:
        hi = max(d1, d2)
        lo = min(d1, d2)
        for t in range(2):
            die1 = hi if t == 0 else lo
            die2 = lo if t == 0 else hi
            k1 = _die_moves(counts[a], die1, rearmost, first)
            for i in range(k1):
                s1 = _rank(first[i], binom)
                if checkers[s1] == 0:
                    nf = _note(s1, call, found_at, found, nf)
                    value[s1] = 2
                    continue
                k2 = _die_moves(counts[s1], die2, rearmost, second)
                if k2 == 0:
                    grown = _note(s1, call, found_at, found, nf)
                    if grown > nf:  # one die only, unless a play of both reached it
                        value[s1] = 10 + die1
                    nf = grown
                    continue
                for j in range(k2):
                    s2 = _rank(second[j], binom)
                    nf = _note(s2, call, found_at, found, nf)
                    value[s2] = 2
        if nf == 0:
            out[0] = a
            return 1
    most = 0
    for i in range(nf):
        v = value[found[i]]
        most = max(most, 1 if v >= 10 else v)
    n = 0
    for i in range(nf):
        v = value[found[i]]
        if (1 if v >= 10 else v) == most:
            out[n] = found[i]
            n += 1
    if most == 1 and d1 != d2:  # one die only: the higher one when it can be played
        higher = 0
        for i in range(n):
            if value[out[i]] == 10 + max(d1, d2):
                out[higher] = out[i]
                higher += 1
        if higher > 0:
            n = higher
    if rearmost and n > 1:  # J10: as many checkers off as the dice allow
        least = checkers[out[0]]
        for i in range(1, n):
            least = min(least, checkers[out[i]])
        kept = 0
        for i in range(n):
            if checkers[out[i]] == least:
                out[kept] = out[i]
                kept += 1
        n = kept
    out[:n] = np.sort(out[:n])
    return n


def plays_into(positions: Positions, work: Workspace, a: int, d1: int, d2: int, rule: str,
               out: np.ndarray) -> int:
    """The ranks every legal play of (d1, d2) reaches from rank `a` under `rule`, sorted,
    written into `out` (room for every rank); their number."""
    return int(_plays(a, d1, d2, rule == "rearmost", positions.counts, positions.checkers,
                      positions.binom, work.value, work.found_at, work.seen_at, work.stamp,
                      work.found, work.level, work.next_level, work.first, work.second,
                      out))


@njit(cache=True)
def _lex_less(x: np.ndarray, y: np.ndarray) -> bool:  # pragma: no cover - compiled
    for k in range(POINTS):
        if x[k] != y[k]:
            return bool(x[k] < y[k])
    return False


@njit(cache=True)
def _best(out: np.ndarray, n: int, score: np.ndarray, counts: np.ndarray
          ) -> int:  # pragma: no cover - compiled
    """The rank among out[:n] with the lowest score, ties to the lowest counts (as
    `min(..., key=(score, counts))` in Python)."""
    best = out[0]
    for i in range(1, n):
        q = out[i]
        if score[q] < score[best] or (score[q] == score[best]
                                      and _lex_less(counts[q], counts[best])):
            best = q
    return int(best)


@njit(cache=True)
def _solve_one_sided(order: np.ndarray, rearmost: bool, counts: np.ndarray,
                     checkers: np.ndarray, binom: np.ndarray, dice1: np.ndarray,
                     dice2: np.ndarray, weights: np.ndarray, expected: np.ndarray,
                     first_expected: np.ndarray, dist: np.ndarray, first_dist: np.ndarray,
                     value: np.ndarray, found_at: np.ndarray, seen_at: np.ndarray,
                     stamp: np.ndarray, found: np.ndarray, level: np.ndarray,
                     next_level: np.ndarray, first: np.ndarray, second: np.ndarray,
                     out: np.ndarray) -> None:  # pragma: no cover - compiled
    """`bearoff.build`'s loop: positions in `order` (by pips, so that every position a
    roll reaches is solved first), each roll's play minimising the expected rolls to
    bear everything off, and, apart, to bear the first checker off."""
    rolls = dist.shape[1]
    for idx in range(order.shape[0]):
        r = order[idx]
        total = checkers[r]
        if total == 0:
            dist[r, 0] = 1.0
            first_dist[r, 0] = 1.0
            continue
        e = 1.0
        fe = 1.0
        off_chance = 0.0
        for k in range(weights.shape[0]):
            n = _plays(r, dice1[k], dice2[k], rearmost, counts, checkers, binom, value,
                       found_at, seen_at, stamp, found, level, next_level, first, second, out)
            w = weights[k]
            best = _best(out, n, expected, counts)
            e += w * expected[best]
            for m in range(1, rolls):
                dist[r, m] += w * dist[best, m - 1]
            bears_one_off = False
            for i in range(n):
                if checkers[out[i]] < total:
                    bears_one_off = True
            if bears_one_off:
                off_chance += w
            else:
                fbest = _best(out, n, first_expected, counts)
                fe += w * first_expected[fbest]
                for m in range(1, rolls):
                    first_dist[r, m] += w * first_dist[fbest, m - 1]
        expected[r] = e
        first_expected[r] = fe
        first_dist[r, 1] += off_chance


def solve_one_sided(positions: Positions, rule: str, rolls: tuple[tuple[int, int, float], ...],
                    max_rolls: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(expected, first_expected, dist, first_dist) of every rank of `positions` under
    `rule`: see `bearoff.OneSided`. `rolls` are the 21 (d1, d2, probability)."""
    size = positions.counts.shape[0]
    pips = positions.counts @ np.arange(1, POINTS + 1)
    order = np.argsort(pips, kind="stable")
    expected = np.zeros(size)
    first_expected = np.zeros(size)
    dist = np.zeros((size, max_rolls))
    first_dist = np.zeros((size, max_rolls))
    work = Workspace(size)
    out = np.zeros(size, dtype=np.int64)
    d1 = np.array([r[0] for r in rolls], dtype=np.int64)
    d2 = np.array([r[1] for r in rolls], dtype=np.int64)
    w = np.array([r[2] for r in rolls])
    _solve_one_sided(order, rule == "rearmost", positions.counts, positions.checkers,
                     positions.binom, d1, d2, w, expected, first_expected, dist, first_dist,
                     work.value, work.found_at, work.seen_at, work.stamp, work.found,
                     work.level, work.next_level, work.first, work.second, out)
    return expected, first_expected, dist, first_dist
