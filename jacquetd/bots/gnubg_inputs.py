"""GNU Backgammon's contact-network inputs, computed as its evaluator computes them.

Feature version 5 adds, in `backgammon`, the inputs by which GNU Backgammon's
contact and crashed networks see a side, so that a network distilled from gnubg
sees the position exactly as its teacher does (versions 3 and 4 approximate most
of them in our own terms). Per side, 32 values:

- the bar in the four-unit code of the points (1, 2, 3 or more, half the excess
  over 3), where versions 1-4 give the bar one unit;
- the checkers borne off in gnubg's two codes: in thirds up to 8 (its contact
  network) and in fifths up to 15 (its crashed network);
- gnubg's 22 "half inputs", in this order: the pips needed to break contact
  (/167), the rearmost checker (/24), the rearmost anchor (/24), the most
  forward anchor in the opponent's home or outfield (k/6, or 2 with none), the
  pips the side's hits would cost the opponent (/432), the rolls that hit one
  and two checkers (/36), the rolls that let the rearmost checker escape (/36),
  the opponent's containment beyond and before its rearmost checker and their
  squares, the side's mobility (/3600), its one-sided moment (/400), the pips a
  dance costs and the chance of not entering, its timing (/100), its backbone,
  the backgame inputs, the free pips (/100) and the escapes of the rearmost
  checker that pass the nearest blocked point (/36).

The definitions follow gnubg's `eval.c` (`CalculateHalfInputs`, `menOffAll`,
`menOffNonCrashed`) rule for rule, including its heuristics (a weak board does
not count hits on its 1- and 2-points as hits it would make; a checker on the
bar that hits elsewhere needs the other die to enter). The board is in gnubg's
frame: index 0 is the side's own 1-point, 23 its 24-point, 24 the bar; our
positions (index 0 borne off, 1-24 the points, 25 the bar) map to it by
dropping index 0. Every function here compiles with numba (`fastencode` calls
them per row) and runs as plain Python for the numpy reference.
"""

from __future__ import annotations

import math
import types
from typing import Any

import numpy as np

PER_SIDE = 32
"""Inputs per side that feature version 5 adds."""

SCRATCH = 39 + 21 + 21
"""The int64 working space of `half_inputs`: hits by way, pips and checkers by roll."""

# aanCombination: the ways (indices into _WAYS) to hit from n pips away, n = 1..24.
_COMBINATIONS = np.array([
    [0, -1, -1, -1, -1], [1, 2, -1, -1, -1], [3, 4, 5, -1, -1], [6, 7, 8, 9, -1],
    [10, 11, 12, -1, -1], [13, 14, 15, 16, 17], [18, 19, 20, -1, -1],
    [21, 22, 23, 24, -1], [25, 26, 27, -1, -1], [28, 29, -1, -1, -1],
    [30, -1, -1, -1, -1], [31, 32, 33, -1, -1], [-1, -1, -1, -1, -1],
    [-1, -1, -1, -1, -1], [34, -1, -1, -1, -1], [35, -1, -1, -1, -1],
    [-1, -1, -1, -1, -1], [36, -1, -1, -1, -1], [-1, -1, -1, -1, -1],
    [37, -1, -1, -1, -1], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1],
    [-1, -1, -1, -1, -1], [38, -1, -1, -1, -1]], dtype=np.int64)

# One way to hit: (all intermediate points needed?, three intermediate distances,
# dice faces used, pips travelled).
_WAYS = np.array([
    [1, 0, 0, 0, 1, 1], [1, 0, 0, 0, 1, 2], [1, 1, 0, 0, 2, 2], [1, 0, 0, 0, 1, 3],
    [0, 1, 2, 0, 2, 3], [1, 1, 2, 0, 3, 3], [1, 0, 0, 0, 1, 4], [0, 1, 3, 0, 2, 4],
    [1, 2, 0, 0, 2, 4], [1, 1, 2, 3, 4, 4], [1, 0, 0, 0, 1, 5], [0, 1, 4, 0, 2, 5],
    [0, 2, 3, 0, 2, 5], [1, 0, 0, 0, 1, 6], [0, 1, 5, 0, 2, 6], [0, 2, 4, 0, 2, 6],
    [1, 3, 0, 0, 2, 6], [1, 2, 4, 0, 3, 6], [0, 1, 6, 0, 2, 7], [0, 2, 5, 0, 2, 7],
    [0, 3, 4, 0, 2, 7], [0, 2, 6, 0, 2, 8], [0, 3, 5, 0, 2, 8], [1, 4, 0, 0, 2, 8],
    [1, 2, 4, 6, 4, 8], [0, 3, 6, 0, 2, 9], [0, 4, 5, 0, 2, 9], [1, 3, 6, 0, 3, 9],
    [0, 4, 6, 0, 2, 10], [1, 5, 0, 0, 2, 10], [0, 5, 6, 0, 2, 11], [1, 6, 0, 0, 2, 12],
    [1, 4, 8, 0, 3, 12], [1, 3, 6, 9, 4, 12], [1, 5, 10, 0, 3, 15], [1, 4, 8, 12, 4, 16],
    [1, 6, 12, 0, 3, 18], [1, 5, 10, 15, 4, 20], [1, 6, 12, 18, 4, 24]], dtype=np.int64)

# aaRoll: for each of the 21 rolls (11, 21, 22, 31, ...), the ways it can hit.
_ROLLS = np.array([
    [0, 2, 5, 9], [0, 1, 4, -1], [1, 8, 17, 24], [0, 3, 7, -1], [1, 3, 12, -1],
    [3, 16, 27, 33], [0, 6, 11, -1], [1, 6, 15, -1], [3, 6, 20, -1], [6, 23, 32, 35],
    [0, 10, 14, -1], [1, 10, 19, -1], [3, 10, 22, -1], [6, 10, 26, -1],
    [10, 29, 34, 37], [0, 13, 18, -1], [1, 13, 21, -1], [3, 13, 25, -1],
    [6, 13, 28, -1], [10, 13, 30, -1], [13, 31, 36, 38]], dtype=np.int64)


def _escape_tables() -> tuple[np.ndarray, np.ndarray]:
    """gnubg's two escape tables: entry m (bit i set: the point i + 1 pips ahead is
    blocked, i < 12) counts the rolls that pass the blocks; the second counts only
    rolls whose sum reaches beyond the nearest blocked point."""
    table0 = np.zeros(1 << 12, dtype=np.int64)
    table1 = np.zeros(1 << 12, dtype=np.int64)
    for m in range(1 << 12):
        low = 0
        while m and not m >> low & 1:
            low += 1
        for n0 in range(6):
            for n1 in range(n0 + 1):
                if m >> (n0 + n1 + 1) & 1 or (m >> n0 & 1 and m >> n1 & 1):
                    continue
                w = 1 if n0 == n1 else 2
                table0[m] += w
                if m and n0 + n1 + 1 > low:
                    table1[m] += w
    return table0, table1


ESCAPES0, ESCAPES1 = _escape_tables()


def _top(bits: int) -> int:
    """The highest set bit of 0 <= bits < 2**53 (-1 for none)."""
    return math.frexp(bits)[1] - 1


def _held(board: np.ndarray) -> int:
    """Bit i set when board[i] holds two or more checkers (i = 0..24)."""
    bits = 0
    for i in range(25):
        if board[i] >= 2:
            bits |= 1 << i
    return bits


def _escape_key(held: int, n: int) -> int:
    """gnubg's `Escapes` key of a board whose held points are `held` (`_held`): bit i
    set when board[24 + i - n] holds two or more, for i below min(n, 12)."""
    m = n if n < 12 else 12
    return (held >> (24 - n)) & ((1 << m) - 1)


def _hits(board: np.ndarray, opp: np.ndarray, a_hit: np.ndarray) -> None:
    """Fill `a_hit[w]` with the points (bits) from which way `w` hits a blot."""
    n_board = 0
    for i in range(6):
        if board[i] > 0:
            n_board += 1
    first = 23 if n_board > 2 else 21
    for i in range(first, -1, -1):
        if opp[i] != 1:
            continue
        for j in range(24 - i, 25):
            if board[j] == 0 or (j < 6 and board[j] == 2):
                continue
            for n in range(5):
                w = _COMBINATIONS[j - 24 + i, n]
                if w == -1:
                    break
                blocked = False
                if _WAYS[w, 0] == 1:
                    if _WAYS[w, 4] > 1:
                        for k in range(3):
                            m = _WAYS[w, 1 + k]
                            if m <= 0:
                                break
                            if opp[i - m] > 1:
                                blocked = True
                                break
                elif opp[i - _WAYS[w, 1]] > 1 and opp[i - _WAYS[w, 2]] > 1:
                    blocked = True
                if not blocked:
                    a_hit[w] |= 1 << j


def _shot_rolls(board: np.ndarray, opp: np.ndarray, a_hit: np.ndarray,
                pips: np.ndarray, chequers: np.ndarray) -> None:
    """Per roll, the pips its best hit costs and the checkers it hits (gnubg's rules)."""
    if board[24] == 0:
        for i in range(21):
            used = -1
            for j in range(4):
                r = _ROLLS[i, j]
                if r < 0:
                    break
                if a_hit[r] == 0:
                    continue
                if _WAYS[r, 4] == 1:
                    k = _top(a_hit[r] & 0xFFFFFE)  # the farthest hitter, points 1-23
                    if k > 0:
                        if used != k or board[k] > 1:
                            chequers[i] += 1
                        used = k
                        if k - _WAYS[r, 5] + 1 > pips[i]:
                            pips[i] = k - _WAYS[r, 5] + 1
                        if _ROLLS[i, 3] >= 0 and a_hit[r] & ~(1 << k):
                            chequers[i] += 1
                else:
                    if chequers[i] == 0:
                        chequers[i] = 1
                    k = _top(a_hit[r] & 0xFFFFFF)
                    if k - _WAYS[r, 5] + 1 > pips[i]:
                        pips[i] = k - _WAYS[r, 5] + 1
                    for m in range(3):
                        mid = _WAYS[r, 1 + m]
                        if mid <= 0:
                            break
                        if opp[23 - k + mid] == 1:
                            chequers[i] += 1
                            break
    elif board[24] == 1:
        for i in range(21):
            entered = False
            for j in range(4):
                r = _ROLLS[i, j]
                if r < 0:
                    break
                if a_hit[r] == 0:
                    continue
                if _WAYS[r, 4] == 1:
                    # gnubg walks the hitters from the bar down: the bar's checker
                    # (entering hits) counts, then only the farthest other hitter,
                    # when the other die enters and no earlier way of the roll did
                    if a_hit[r] >> 24 & 1:
                        chequers[i] += 1
                        if 25 - _WAYS[r, 5] > pips[i]:
                            pips[i] = 25 - _WAYS[r, 5]
                    k = _top(a_hit[r] & 0xFFFFFE)
                    if k > 0 and not entered:
                        other = _WAYS[_ROLLS[i, 1 - j], 5]
                        if opp[other - 1] <= 1:
                            entered = True
                            chequers[i] += 1
                            if k - _WAYS[r, 5] + 1 > pips[i]:
                                pips[i] = k - _WAYS[r, 5] + 1
                else:
                    if not a_hit[r] >> 24 & 1:
                        continue
                    if chequers[i] == 0:
                        chequers[i] = 1
                    if 25 - _WAYS[r, 5] > pips[i]:
                        pips[i] = 25 - _WAYS[r, 5]
                    for m in range(3):
                        mid = _WAYS[r, 1 + m]
                        if mid <= 0:
                            break
                        if opp[mid + 1] == 1:
                            chequers[i] += 1
                            break
    else:
        for i in range(21):
            for j in range(2):
                r = _ROLLS[i, j]
                if not a_hit[r] >> 24 & 1:
                    continue
                if _WAYS[r, 4] != 1:
                    continue
                chequers[i] += 1
                if 25 - _WAYS[r, 5] > pips[i]:
                    pips[i] = 25 - _WAYS[r, 5]


def half_inputs(board: np.ndarray, opp: np.ndarray, out: np.ndarray, col: int,
                scratch: np.ndarray) -> None:
    """Write the 22 half inputs of the side `board` against `opp` (gnubg's frame,
    25 entries each) into out[col:col + 22]; `scratch` is SCRATCH int64 entries of
    working space (any contents)."""
    opp_back = -1
    for i in range(24, -1, -1):
        if opp[i] > 0:
            opp_back = i
            break
    opp_back = 23 - opp_back
    n = 0
    for i in range(opp_back + 1, 25):
        n += (i + 1 - opp_back) * board[i]
    out[col] = n / 167.0  # break contact
    free = 0
    for i in range(0, opp_back):
        free += (i + 1) * board[i]
    out[col + 20] = free / 100.0
    # timing
    t = 24 * board[24]
    spare = board[24]
    i = 23
    while i >= 12 and i > opp_back:
        c = board[i]
        if c > 0 and c != 2:
            add = c - 2 if c > 2 else 1
            spare += add
            t += i * add
        i -= 1
    while i >= 6:
        c = board[i]
        spare += c
        t += i * c
        i -= 1
    for i in range(5, -1, -1):
        c = board[i]
        if c > 2:
            t += i * (c - 2)
            spare += c - 2
        elif c < 2:
            need = 2 - c
            if spare >= need:
                t -= i * need
                spare -= need
    out[col + 16] = max(t, 0) / 100.0
    # back checker and anchors
    back = 24
    while back >= 0 and board[back] == 0:
        back -= 1
    out[col + 1] = back / 24.0
    i = 23 if back == 24 else back
    while i >= 0 and board[i] < 2:
        i -= 1
    out[col + 2] = i / 24.0
    fwd = 0
    for j in range(18, i + 1):
        if board[j] >= 2:
            fwd = 24 - j
            break
    if fwd == 0:
        for j in range(17, 11, -1):
            if board[j] >= 2:
                fwd = 24 - j
                break
    out[col + 3] = 2.0 if fwd == 0 else fwd / 6.0
    # shots
    scratch[:SCRATCH] = 0
    a_hit = scratch[:39]
    pips = scratch[39:60]
    chequers = scratch[60:SCRATCH]
    _hits(board, opp, a_hit)
    _shot_rolls(board, opp, a_hit, pips, chequers)
    np_ = 0
    n1 = 0
    n2 = 0
    for i in range(21):
        w = 1 if _ROLLS[i, 3] > 0 else 2
        np_ += pips[i] * w
        if chequers[i] > 0:
            n1 += w
            if chequers[i] > 1:
                n2 += w
    out[col + 4] = np_ / (12.0 * 36.0)
    out[col + 5] = n1 / 36.0
    out[col + 6] = n2 / 36.0
    # escapes and containment
    mine = _held(board)
    bits = _escape_key(mine, 23 - opp_back)
    out[col + 7] = ESCAPES0[bits] / 36.0
    out[col + 21] = ESCAPES1[bits] / 36.0
    least = 36
    i = 15
    while i < 24 - opp_back:
        e = ESCAPES0[_escape_key(mine, i)]
        if e < least:
            least = e
        i += 1
    a = (36 - least) / 36.0
    out[col + 8] = a
    out[col + 9] = a * a
    if opp_back < 0:
        i = 15
        least = 36
    while i < 24:
        e = ESCAPES0[_escape_key(mine, i)]
        if e < least:
            least = e
        i += 1
    c2 = (36 - least) / 36.0
    out[col + 10] = c2
    out[col + 11] = c2 * c2
    theirs = _held(opp)
    mobility = 0
    for i in range(6, 25):
        if board[i] > 0:
            mobility += (i - 5) * board[i] * ESCAPES0[_escape_key(theirs, i)]
    out[col + 12] = mobility / 3600.0
    # one-sided moment (integer arithmetic, rounding up)
    j = 0
    n = 0
    for i in range(25):
        j += board[i]
        n += i * board[i]
    if j > 0:
        n = (n + j - 1) // j
    j = 0
    k = 0
    for i in range(n + 1, 25):
        if board[i] > 0:
            j += board[i]
            k += board[i] * (i - n) * (i - n)
    if j > 0:
        k = (k + j - 1) // j
    out[col + 13] = k / 400.0
    # entering
    if board[24] > 0:
        loss = 0
        two = board[24] > 1
        for i in range(6):
            if opp[i] > 1:
                loss += 4 * (i + 1)
                for j in range(i + 1, 6):
                    if opp[j] > 1:
                        loss += 2 * (i + j + 2)
                    elif two:
                        loss += 2 * (i + 1)
            elif two:
                for j in range(i + 1, 6):
                    if opp[j] > 1:
                        loss += 2 * (j + 1)
        out[col + 14] = loss / (36.0 * (49.0 / 6.0))
    closed = 0
    for i in range(6):
        if opp[i] > 1:
            closed += 1
    out[col + 15] = (36 - (closed - 6) * (closed - 6)) / 36.0
    # backbone (gnubg measures every later point against the most forward one)
    first = -1
    w = 0
    tot = 0
    for p in range(23, 0, -1):
        if board[p] >= 2:
            if first == -1:
                first = p
                continue
            d = first - p
            c = 11 if d <= 6 else (13 - d if d <= 11 else 0)
            w += c * board[first]
            tot += board[first]
    out[col + 17] = 1.0 - w / (tot * 11.0) if tot > 0 else 0.0
    # backgame
    anchors = 0
    for i in range(18, 24):
        if board[i] > 1:
            anchors += 1
    if anchors >= 1:
        there = 0
        for i in range(18, 25):
            there += board[i]
        if anchors > 1:
            out[col + 18] = (there - 3) / 4.0
        else:
            out[col + 19] = there / 8.0


def side_inputs(me: np.ndarray, opp: np.ndarray, out: np.ndarray, col: int) -> None:
    """Write the 32 version-5 inputs of the side `me` against `opp` (our numbering:
    0 borne off, 1-24 the points, 25 the bar) into out[col:col + 32]."""
    side_inputs_into(me, opp, out, col, np.zeros(SCRATCH, dtype=np.int64))


def side_inputs_into(me: np.ndarray, opp: np.ndarray, out: np.ndarray, col: int,
                     scratch: np.ndarray) -> None:
    """`side_inputs` with the caller's working space (`half_inputs`' `scratch`)."""
    board = me[1:]  # gnubg's frame: the points, then the bar
    bar = me[25]
    out[col] = 1.0 if bar >= 1 else 0.0
    out[col + 1] = 1.0 if bar >= 2 else 0.0
    out[col + 2] = 1.0 if bar >= 3 else 0.0
    out[col + 3] = (bar - 3) / 2.0 if bar > 3 else 0.0
    off = me[0]
    if off > 5:
        out[col + 4] = 1.0
        out[col + 5] = 1.0
        out[col + 6] = (off - 6) / 3.0
    elif off > 2:
        out[col + 4] = 1.0
        out[col + 5] = (off - 3) / 3.0
    else:
        out[col + 4] = off / 3.0
    if off > 10:
        out[col + 7] = 1.0
        out[col + 8] = 1.0
        out[col + 9] = (off - 10) / 5.0
    elif off > 5:
        out[col + 7] = 1.0
        out[col + 8] = (off - 5) / 5.0
    else:
        out[col + 7] = off / 5.0
    half_inputs(board, opp[1:], out, col + 10, scratch)


_KERNELS = ("_top", "_held", "_escape_key", "_hits", "_shot_rolls", "half_inputs",
            "side_inputs_into")


def compiled(njit: Any) -> Any:
    """`side_inputs_into` compiled with `njit`, the functions above left as plain Python.

    Each function is copied into a namespace of its own in which its callees
    are the compiled copies, so that the plain functions stay the numpy
    reference that the tests compare the compiled encoder with.
    """
    namespace = dict(globals())
    for name in _KERNELS:
        plain = globals()[name]
        copy = types.FunctionType(plain.__code__, namespace, name, plain.__defaults__)
        copy.__qualname__ = plain.__qualname__
        namespace[name] = njit(cache=True)(copy)
    return namespace["side_inputs_into"]
