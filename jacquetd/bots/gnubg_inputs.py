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

from jacquetd import kernel_cache

kernel_cache.check()  # before anything here compiles or loads a cache

PER_SIDE = 32
"""Inputs per side that feature version 5 adds."""

SCRATCH = 39 + 21 + 21
"""The int64 working space of `half_inputs` (hits by way, pips and checkers by roll)
and of `pair_inputs_into` (hits by way, or five figures a die)."""

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


def _contact_and_timing(board: np.ndarray, opp_back: int, out: np.ndarray, col: int) -> None:
    """The pips to break contact (out[col]), the free pips (out[col + 20]) and the timing
    (out[col + 16]) of `half_inputs`, `opp_back` the opponent's rearmost checker in this
    side's frame."""
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


def _escapes(mine: int, opp_back: int, out: np.ndarray, col: int) -> None:
    """The escapes of the rearmost checker and the containment inputs of `half_inputs`
    (out[col + 7] to out[col + 11], out[col + 21]), `mine` the side's `_held` points."""
    bits = _escape_key(mine, 23 - opp_back)
    out[col + 7] = ESCAPES0[bits] / 36.0
    out[col + 21] = ESCAPES1[bits] / 36.0
    least = _least_escapes(mine, 15, 24 - opp_back, 36)
    a = (36 - least) / 36.0
    out[col + 8] = a
    out[col + 9] = a * a
    # the second containment goes on from where the first stopped, with its least
    # escapes; from point 15 afresh when the opponent has no checker back
    if opp_back < 0:
        least = _least_escapes(mine, 15, 24, 36)
    else:
        least = _least_escapes(mine, max(15, 24 - opp_back), 24, least)
    c2 = (36 - least) / 36.0
    out[col + 10] = c2
    out[col + 11] = c2 * c2


def _least_escapes(mine: int, lo: int, hi: int, least: int) -> int:
    """The fewest escapes (`ESCAPES0`) from points lo .. hi - 1 past `mine`'s held
    points, starting from `least`."""
    for i in range(lo, hi):
        e = ESCAPES0[_escape_key(mine, i)]
        if e < least:
            least = e
    return least


def _entering(board: np.ndarray, opp: np.ndarray, out: np.ndarray, col: int) -> None:
    """The pips a dance costs (out[col + 14]) of `half_inputs`, for a side on the bar."""
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


def _backgame(board: np.ndarray, out: np.ndarray, col: int) -> None:
    """The backgame inputs of `half_inputs` (out[col + 18], out[col + 19])."""
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
    _contact_and_timing(board, opp_back, out, col)
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
    _escapes(mine, opp_back, out, col)
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
    _entering(board, opp, out, col)
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
    _backgame(board, out, col)


def side_inputs(me: np.ndarray, opp: np.ndarray, out: np.ndarray, col: int) -> None:
    """Write the 32 version-5 inputs of the side `me` against `opp` (our numbering:
    0 borne off, 1-24 the points, 25 the bar) into out[col:col + 32]."""
    side_inputs_into(me, opp, out, col, np.zeros(SCRATCH, dtype=np.int64))


def side_inputs_into(me: np.ndarray, opp: np.ndarray, out: np.ndarray, col: int,
                     scratch: np.ndarray) -> None:
    """`side_inputs` with the caller's working space (`half_inputs`' `scratch`)."""
    board = me[1:]  # gnubg's frame: the points, then the bar
    _codes(me, out, col)
    half_inputs(board, opp[1:], out, col + 10, scratch)


# The compiled encoder's path: the same inputs as `side_inputs`, computed with
# bit operations over the points and with what the two sides of a row share
# (held points, blots) computed once. `side_inputs` and the functions it calls
# stay the plain reference that the tests compare this path with, bit for bit.


def _top_table() -> np.ndarray:
    """Entry b (0 <= b < 2**13): the highest set bit of b, -1 for none."""
    table = np.full(1 << 13, -1, dtype=np.int64)
    for b in range(1, 1 << 13):
        table[b] = b.bit_length() - 1
    return table


_TOPS = _top_table()


def _top25(bits: int) -> int:
    """`_top` of 0 <= bits < 2**25 by table (without a branch)."""
    high = _TOPS[bits >> 12]
    low = _TOPS[bits & 0xFFF]
    return int(high + 12 if high >= 0 else low)


def _way_table() -> np.ndarray:
    """Per way of `_WAYS`: (pips, kind, three intermediate distances), kind 0 when
    nothing can block it (one die), 1 when every intermediate point must be open
    (one die used several times: an absent distance repeats the first), 2 when one
    of the two intermediate points must be (two different dice)."""
    table = np.zeros((len(_WAYS), 5), dtype=np.int64)
    for w, (every, m1, m2, m3, dice, pips) in enumerate(_WAYS.tolist()):
        assert w in _COMBINATIONS[pips - 1]  # the way hits from `pips` away
        if every == 1 and dice == 1:
            kind = 0
        elif every == 1:
            kind = 1
            m2 = m2 if m2 > 0 else m1
            m3 = m3 if m3 > 0 else m1
        else:
            kind = 2
            m3 = m1
        table[w] = (pips, kind, m1, m2, m3)
    return table


_WAY_BITS = _way_table()


def _roll_ways() -> np.ndarray:
    """Per roll of `_ROLLS`: the ways it can hit, as bits."""
    bits = np.zeros(len(_ROLLS), dtype=np.int64)
    for i, ways in enumerate(_ROLLS.tolist()):
        for w in ways:
            if w >= 0:
                bits[i] |= 1 << w
    return bits


_ROLL_WAYS = _roll_ways()


def _hit_bits(sources: int, blots: int, blocks: int, a_hit: np.ndarray) -> int:
    """`_hits` by bits: `sources` has bit j set for a point j that hits (checkers, and
    not a weak board's two on its first six points), `blots` bit t for an opposing
    blot that may be hit on my point t (index t of the side's frame), `blocks` bit t
    for a point t the opponent holds. Fills a_hit (39) and returns the ways that hit,
    as bits."""
    ways = 0
    for w in range(39):
        pips = _WAY_BITS[w, 0]
        kind = _WAY_BITS[w, 1]
        if kind == 0:
            open_ = blots
        elif kind == 1:
            open_ = blots & ~((blocks >> _WAY_BITS[w, 2]) | (blocks >> _WAY_BITS[w, 3])
                              | (blocks >> _WAY_BITS[w, 4]))
        else:
            open_ = blots & ~((blocks >> _WAY_BITS[w, 2]) & (blocks >> _WAY_BITS[w, 3]))
        hit = (open_ << pips) & sources
        a_hit[w] = hit
        if hit:
            ways |= 1 << w
    return ways


def _shot_rolls_bits(board: np.ndarray, opp: np.ndarray, a_hit: np.ndarray, ways: int
                     ) -> tuple[int, int, int]:
    """`_shot_rolls` summed over the rolls as `half_inputs` sums it: (the pips the
    rolls' best hits cost, weighted by the roll's chances of 36; the chances of the
    rolls that hit a checker; of those that hit two). The rolls none of whose ways
    hit (`ways`: `_hit_bits`' answer) are skipped."""
    total = 0
    n1 = 0
    n2 = 0
    bar = board[24]
    for i in range(21):
        if not ways & _ROLL_WAYS[i]:
            continue
        pips = 0
        chequers = 0
        if bar == 0:
            used = -1
            for j in range(4):
                r = _ROLLS[i, j]
                if r < 0:
                    break
                hit = a_hit[r]
                if hit == 0:
                    continue
                if _WAYS[r, 4] == 1:
                    k = _top25(hit & 0xFFFFFE)  # the farthest hitter, points 1-23
                    if k > 0:
                        if used != k or board[k] > 1:
                            chequers += 1
                        used = k
                        if k - _WAYS[r, 5] + 1 > pips:
                            pips = k - _WAYS[r, 5] + 1
                        if _ROLLS[i, 3] >= 0 and hit & ~(1 << k):
                            chequers += 1
                else:
                    if chequers == 0:
                        chequers = 1
                    k = _top25(hit & 0xFFFFFF)
                    if k - _WAYS[r, 5] + 1 > pips:
                        pips = k - _WAYS[r, 5] + 1
                    for m in range(3):
                        mid = _WAYS[r, 1 + m]
                        if mid <= 0:
                            break
                        if opp[23 - k + mid] == 1:
                            chequers += 1
                            break
        elif bar == 1:
            entered = False
            for j in range(4):
                r = _ROLLS[i, j]
                if r < 0:
                    break
                hit = a_hit[r]
                if hit == 0:
                    continue
                if _WAYS[r, 4] == 1:
                    if hit >> 24 & 1:
                        chequers += 1
                        if 25 - _WAYS[r, 5] > pips:
                            pips = 25 - _WAYS[r, 5]
                    k = _top25(hit & 0xFFFFFE)
                    if k > 0 and not entered:
                        other = _WAYS[_ROLLS[i, 1 - j], 5]  # one die: j is 0 or 1
                        if opp[other - 1] <= 1:
                            entered = True
                            chequers += 1
                            if k - _WAYS[r, 5] + 1 > pips:
                                pips = k - _WAYS[r, 5] + 1
                else:
                    if not hit >> 24 & 1:
                        continue
                    if chequers == 0:
                        chequers = 1
                    if 25 - _WAYS[r, 5] > pips:
                        pips = 25 - _WAYS[r, 5]
                    for m in range(3):
                        mid = _WAYS[r, 1 + m]
                        if mid <= 0:
                            break
                        if opp[mid + 1] == 1:
                            chequers += 1
                            break
        else:
            for j in range(2):
                r = _ROLLS[i, j]
                if not a_hit[r] >> 24 & 1:
                    continue
                if _WAYS[r, 4] != 1:
                    continue
                chequers += 1
                if 25 - _WAYS[r, 5] > pips:
                    pips = 25 - _WAYS[r, 5]
        w = 1 if _ROLLS[i, 3] > 0 else 2
        total += pips * w
        if chequers > 0:
            n1 += w
            if chequers > 1:
                n2 += w
    return total, n1, n2


def _direct(d: int, sources: int, blots: int, held: int, info: np.ndarray) -> None:
    """The hits of one die of d pips (nothing blocks them) into info[d], info[7 + d],
    info[14 + d], info[21 + d]: the farthest hitter but the 1-point (0 for none), the
    pips its hit costs (0 for none), whether another point hits, whether the
    farthest holds two or more; info[28 + d]: whether the bar's checker hits."""
    hit = (blots << d) & sources
    k = _top25(hit & 0xFFFFFE)
    k = k if k > 0 else 0
    info[d] = k
    info[7 + d] = k - d + 1 if k > 0 else 0
    info[14 + d] = 1 if hit & ~(1 << k) else 0
    info[21 + d] = held >> k & 1
    info[28 + d] = hit >> 24 & 1


def _shots(board: np.ndarray, sources: int, blots: int, blocks: int, held: int,
           opp_blots_rev: int, opp_held: int, opp_blots: int, info: np.ndarray
           ) -> tuple[int, int, int]:
    """`half_inputs`' sums over the rolls of `_shot_rolls` (the pips the rolls' best
    hits cost, weighted by the roll's chances of 36; the chances of the rolls that
    hit a checker; of those that hit two), with no more than one checker on the bar.

    Bits as `_hit_bits` takes them (`sources`, `blots`, `blocks`), and: `held` the
    side's points with two or more (its frame), `opp_blots_rev` the opponent's blots
    (the side's frame), `opp_held` and `opp_blots` the opponent's points with two or
    more and its blots (the opponent's frame). `info` is 35 entries of working space.

    The rolls are those of `_ROLLS` in their ways' terms (the tests check the
    tables): a roll of two dice d0 < d1 has each die's way, then the way of both,
    d0 + d1 pips, open when either intermediate point (d0 or d1 short of the
    blot) is; a double of d has the way of one die, then of n = 2, 3, 4 dice,
    n * d pips, open when every point d, 2d, ... short of the blot is. Each die's
    hits are worked out once for the rolls that use them (`_direct`)."""
    for d in range(1, 7):
        _direct(d, sources, blots, held, info)
    total = 0
    n1 = 0
    n2 = 0
    if board[24] == 0:
        for d0 in range(1, 7):
            for d1 in range(d0 + 1, 7):
                k0 = info[d0]
                k1 = info[d1]
                chequers = (1 if k0 else 0) + (1 if k1 and (k1 != k0 or info[21 + d1]) else 0)
                pips = max(info[7 + d0], info[7 + d1])
                far = d0 + d1
                hit = ((blots & ~((blocks >> d0) & (blocks >> d1))) << far) & sources
                # without a branch (whether a way hits is not predictable): with no
                # hit, k is `far` and counts for nothing
                k = _top25(hit | 1 << far)
                h = 1 if hit else 0
                chequers += h * ((1 if chequers == 0 else 0) + (
                    ((opp_blots_rev >> (k - d0)) | (opp_blots_rev >> (k - d1))) & 1))
                pips = max(pips, h * (k - far + 1))
                total += 2 * pips
                n1 += 2 if chequers > 0 else 0
                n2 += 2 if chequers > 1 else 0
        for d in range(1, 7):
            chequers = 1 + info[14 + d] if info[d] else 0
            pips = info[7 + d]
            open_ = blots
            for n in range(2, 5):
                open_ &= ~(blocks >> ((n - 1) * d))
                far = n * d
                hit = (open_ << far) & sources
                k = _top25(hit | 1 << far)
                h = 1 if hit else 0
                blot_met = 0
                for m in range(1, n):
                    blot_met |= opp_blots_rev >> (k - m * d)
                chequers += h * ((1 if chequers == 0 else 0) + (blot_met & 1))
                pips = max(pips, h * (k - far + 1))
            total += pips
            n1 += 1 if chequers > 0 else 0
            n2 += 1 if chequers > 1 else 0
        return total, n1, n2
    # one checker on the bar: it enters and hits with a die, or a checker hits with
    # a die when the other die enters; more dice hit only from the bar
    for d0 in range(1, 7):
        for d1 in range(d0 + 1, 7):
            chequers = info[28 + d0] + info[28 + d1]
            pips = 0
            if info[28 + d0]:
                pips = 25 - d0
            if info[28 + d1]:
                pips = max(pips, 25 - d1)
            entered = False
            if info[d0] and not opp_held >> (d1 - 1) & 1:
                entered = True
                chequers += 1
                pips = max(pips, info[7 + d0])
            if info[d1] and not entered and not opp_held >> (d0 - 1) & 1:
                chequers += 1
                pips = max(pips, info[7 + d1])
            far = d0 + d1
            if (blots & ~((blocks >> d0) & (blocks >> d1))) >> (24 - far) & 1:
                chequers += (1 if chequers == 0 else 0) + (
                    ((opp_blots >> (d0 + 1)) | (opp_blots >> (d1 + 1))) & 1)
                pips = max(pips, 25 - far)
            total += 2 * pips
            n1 += 2 if chequers > 0 else 0
            n2 += 2 if chequers > 1 else 0
    for d in range(1, 7):
        chequers = info[28 + d]
        pips = 25 - d if chequers else 0
        if info[d] and not opp_held >> (2 * d - 1) & 1:
            chequers += 1
            pips = max(pips, info[7 + d])
        open_ = blots
        for n in range(2, 5):
            open_ &= ~(blocks >> ((n - 1) * d))
            far = n * d
            if open_ >> (24 - far) & 1:
                blot_met = 0
                for m in range(1, n):
                    blot_met |= opp_blots >> (m * d + 1)
                chequers += (1 if chequers == 0 else 0) + (blot_met & 1)
                pips = max(pips, 25 - far)
        total += pips
        n1 += 1 if chequers > 0 else 0
        n2 += 1 if chequers > 1 else 0
    return total, n1, n2


def _points(board: np.ndarray) -> tuple[int, int, int, int, int]:
    """(checkers, held, blots, held reversed, blots reversed) of a side's 25 entries in
    its frame, as bits: bit i for index i; reversed, bit 23 - i for the points
    (i < 24), that is the opponent's frame."""
    any_ = 0
    held = 0
    blots = 0
    held_rev = 0
    blots_rev = 0
    for i in range(24):
        c = board[i]
        if c > 0:
            any_ |= 1 << i
            if c >= 2:
                held |= 1 << i
                held_rev |= 1 << (23 - i)
            else:
                blots |= 1 << i
                blots_rev |= 1 << (23 - i)
    c = board[24]
    if c > 0:
        any_ |= 1 << 24
        if c >= 2:
            held |= 1 << 24
        else:
            blots |= 1 << 24
    return any_, held, blots, held_rev, blots_rev


def _half_bits(board: np.ndarray, opp: np.ndarray, mine_any: int, mine_held: int,
               theirs_any: int, theirs_held: int, theirs_blots: int, theirs_held_rev: int,
               theirs_blots_rev: int, out: np.ndarray, col: int,
               scratch: np.ndarray) -> None:
    """`half_inputs` given both sides' `_points`."""
    opp_back = 23 - _top25(theirs_any)
    _contact_and_timing(board, opp_back, out, col)
    # back checker and anchors
    back = _top25(mine_any)
    out[col + 1] = back / 24.0
    below = 0xFFFFFF if back == 24 else (1 << (back + 1)) - 1
    i = _top25(mine_held & below)
    out[col + 2] = i / 24.0
    fwd = 0
    if i >= 18:
        near = mine_held & ((1 << (i + 1)) - (1 << 18))
        if near:
            fwd = 24 - _top25(near & -near)
    if fwd == 0:
        outfield = mine_held & ((1 << 18) - (1 << 12))
        if outfield:
            fwd = 24 - _top25(outfield)
    out[col + 3] = 2.0 if fwd == 0 else fwd / 6.0
    # shots
    if theirs_blots_rev:
        # the points j that hit: those with checkers but for a home point with
        # exactly two; a weak board (checkers on two or fewer of its first six
        # points) does not hit on its 1- and 2-points
        sources = mine_any
        n_board = 0
        for i in range(6):
            c = board[i]
            if c > 0:
                n_board += 1
            if c == 2:
                sources &= ~(1 << i)
        blots = theirs_blots_rev if n_board > 2 else theirs_blots_rev & ~3
        a_hit = scratch[:39]
        np_ = 0
        n1 = 0
        n2 = 0
        if board[24] <= 1:
            np_, n1, n2 = _shots(board, sources, blots, theirs_held_rev, mine_held,
                                 theirs_blots_rev, theirs_held, theirs_blots, scratch)
        else:
            ways = _hit_bits(sources, blots, theirs_held_rev, a_hit)
            if ways:
                np_, n1, n2 = _shot_rolls_bits(board, opp, a_hit, ways)
        out[col + 4] = np_ / (12.0 * 36.0)
        out[col + 5] = n1 / 36.0
        out[col + 6] = n2 / 36.0
    else:
        out[col + 4] = 0.0
        out[col + 5] = 0.0
        out[col + 6] = 0.0
    # escapes and containment
    mine = mine_held
    _escapes(mine, opp_back, out, col)
    theirs = theirs_held
    mobility = 0
    for i in range(6, 25):  # an empty point adds nothing (no branch)
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
    for i in range(n + 1, 25):  # an empty point adds nothing (no branch)
        j += board[i]
        k += board[i] * (i - n) * (i - n)
    if j > 0:
        k = (k + j - 1) // j
    out[col + 13] = k / 400.0
    # entering
    _entering(board, opp, out, col)
    closed = 0
    for i in range(6):
        closed += theirs_held >> i & 1
    out[col + 15] = (36 - (closed - 6) * (closed - 6)) / 36.0
    # backbone (gnubg measures every later point against the most forward one)
    points = mine_held & 0xFFFFFE  # the points 1-23 held
    first = _top25(points)
    w = 0
    tot = 0
    if first > 0:
        count = 0
        for p in range(1, first):
            d = first - p
            on = points >> p & 1
            count += on
            w += on * (11 if d <= 6 else (13 - d if d <= 11 else 0))
        w *= board[first]
        tot = count * board[first]
    out[col + 17] = 1.0 - w / (tot * 11.0) if tot > 0 else 0.0
    # backgame
    _backgame(board, out, col)


def _codes(me: np.ndarray, out: np.ndarray, col: int) -> None:
    """The bar and borne-off codes of `side_inputs_into` (out[col:col + 10])."""
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


def pair_inputs_into(me: np.ndarray, opp: np.ndarray, out: np.ndarray, col_me: int,
                     col_opp: int, scratch: np.ndarray) -> None:
    """`side_inputs_into` of both sides of a row: `me` against `opp` into
    out[col_me:col_me + 32], `opp` against `me` into out[col_opp:col_opp + 32], the
    points' bits computed once for both. `out`'s 64 entries must be zero on entry."""
    a = me[1:]
    b = opp[1:]
    a_any, a_held, a_blots, a_held_rev, a_blots_rev = _points(a)
    b_any, b_held, b_blots, b_held_rev, b_blots_rev = _points(b)
    _codes(me, out, col_me)
    _half_bits(a, b, a_any, a_held, b_any, b_held, b_blots, b_held_rev, b_blots_rev, out,
               col_me + 10, scratch)
    _codes(opp, out, col_opp)
    _half_bits(b, a, b_any, b_held, a_any, a_held, a_blots, a_held_rev, a_blots_rev, out,
               col_opp + 10, scratch)


_KERNELS = ("_top", "_held", "_escape_key", "_least_escapes", "_contact_and_timing",
            "_escapes", "_entering", "_backgame", "_hits", "_shot_rolls", "half_inputs",
            "side_inputs_into", "_top25", "_hit_bits", "_shot_rolls_bits", "_direct", "_shots",
            "_points", "_half_bits", "_codes", "pair_inputs_into")


def compiled(njit: Any) -> tuple[Any, Any]:
    """`side_inputs_into` and `pair_inputs_into` compiled with `njit`, the functions
    above left as plain Python.

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
    return namespace["side_inputs_into"], namespace["pair_inputs_into"]
