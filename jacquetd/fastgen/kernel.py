"""The compiled legal-play generator: `jacquetd.rules.movegen.generate_raw` in numba.

This module imports numba at the top; `jacquetd.fastgen` imports it only when
numba is importable. The kernel follows the pure generator step for step, so
that it finds the same plays in the same order with the same first-found
spellings (G8):

- `_prepare` and `_advance` are `movegen._single_steps`: every legal move of
  one checker by one die, every rule checked after the die (G6, J3-J9,
  B3-B7, N4-N8), in the same order (the bar first, else sources from high to low);
- two different dice are tried higher first, then lower first; doubles are
  walked depth first with a set of the positions already expanded at each
  depth (`generate_raw`);
- plays are deduplicated by the position they produce (G8), filtered by G7
  (most dice, a game won mid-turn counting the dice it played, else the
  higher die) and, where the variant has it, by J10 (most borne off).

State. The side to move is 26 counts in its own numbering (0 off, 1..24,
25 bar). The opponent never moves during the turn, so its state is the set of
its blots we have hit, a 24-bit mask over our points; its count at our point q
is `oppc[q]` unless that point was hit. A position's key is two int64: `k1`
holds the mover's counts at 1..15 as nibbles, `k2` its counts at 16..25 as
nibbles (bits 0-39) and the hit mask (bit 40 + q - 1 for our point q); the
borne-off count follows from the other 25. Keys go into an open-addressing
table that is never cleared: each call takes a fresh stamp, and a slot with an
older stamp is empty.

Workspace. What the kernel reuses between calls lives in two arrays made once
per thread by `new_workspace`, so that a call allocates only its outputs:

- `w8` (int8, rows x 48): rows 0-4 the state at each depth of the walk (26
  counts), row `PATH` the steps of the current path (src/dst/hit/die), row
  `OPPC` the opponent's counts at our points, row `CNT` one frame of 8 cells
  per depth (the enumeration of that state's single steps: next source,
  bounds, the step found), rows `ENT0`.. the plays found (26 counts, depth,
  number of steps, 4 steps of src/dst/hit/die, kept flag);
- `w64` (int64, rows x 3): rows 0..cap-1 the hash table (stamp * 8 + tag,
  k1, k2), rows `cap + r` the key of the state in `w8` row r, and the last
  row the stamp counter.

The states are never expanded into lists of successors: a state's single
steps are enumerated lazily, in the pure generator's order, and a successor
is copied only when it is new at its depth.

A call that needs more table room than a small start retries with a larger
table (same work, new stamp); one that needs more than the whole workspace
returns no rows (a real result has at least one: the pass) and the caller
retries with a workspace twice the size. The first happens on about one double
in a hundred in random games, the second was never seen in one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from jacquetd import kernel_cache

kernel_cache.check()  # before anything here compiles or loads a cache

# variant flags (bits of `flags`)
F_HITTING = 1  # J3/J4 (else B3)
F_COURIER = 2  # J6/B4
F_START_LIMIT = 4  # J7
F_MID_LIMIT = 8  # J8
F_CLOSURES = 16  # B5
F_REARMOST = 32  # J9 (else B7)
F_MOST_OFF = 64  # J10
F_SAME_DIRECTION = 128  # G3 (else G4)
F_HEAD = 256  # N5
F_BLOCK = 512  # N6

PATH = 5
OPPC = PATH + 1
CNT = OPPC + 1
ENT0 = CNT + 1
W8_COLS = 48
E_DEPTH = 26
E_NSTEPS = 27
E_STEPS = 28
E_KEEP = 44
FRAME = 8  # columns of row CNT per depth
FR_CURSOR = 0  # the next source to try
FR_LO = 1  # the lowest source (24 when only the first courier may move)
FR_HOME = 2  # all checkers in the finishing table or off
FR_HIGHEST = 3  # the highest occupied point then
FR_HAS = 4  # the step in the frame is found but not yet walked
FR_SRC = 5
FR_DST = 6
FR_HIT = 7

HEAD_FLOOR = 0  # cells of row OPPC that hold no point
LOWEST = 25

HIT_SHIFT = 40
HIT_FLAG = 1 << 62
"""Set in a play's step code when the play hits (its opponent changed)."""

START_CAP_SINGLE = 1024  # two different dice: at most 2 x 15 x 15 plays
START_CAP_DOUBLE = 2048  # doubles: 99% of game positions put fewer than 1024 keys

# A constant passed to a compiled function (or a variable that starts as one)
# is typed as a literal, and numba compiles a specialization of the callee per
# literal value; rows 0 and 1 are therefore passed down as run-time values
# (`r0`, `r1`) and these two arguments as typed scalars, so that each helper
# is compiled once.
NO_POINT = np.int64(0)
NOT_EMPTY = np.bool_(False)

_UPPER_HALF = ((1 << 24) - 1) & ~((1 << 12) - 1)  # B5 (a): points 24-13
_TRAY = ((1 << 6) - 1) | (((1 << 6) - 1) << 18)  # B5 (b): points 6-1 and 24-19
_MUL1 = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed int64
_MUL2 = -4658895280553007687  # 0xBF58476D1CE4E5B9 as a signed int64


def new_workspace(entries: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Workspace for at most `entries` plays (and a table of 4 x `entries` slots)."""
    entries = max(entries, 16)
    cap = 1
    while cap < 4 * entries:
        cap *= 2
    w8 = np.zeros((ENT0 + entries, W8_COLS), dtype=np.int8)
    w64 = np.zeros((cap + ENT0 + entries + 1, 3), dtype=np.int64)
    w64[:cap, 0] = -1  # every slot older than the first stamp
    w64[-1, 0] = 1  # the stamp counter
    return w8, w64


@njit(cache=True)
def _popcount(m: int) -> int:
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit(cache=True)
def _run_mask(w8: np.ndarray, row: int, q: int) -> int:
    """geometry._run_through as a bit mask: the run of occupied points (G5) through q."""
    m = 1 << (q - 1)
    p = q
    for _ in range(23):
        p = p + 1 if p < 24 else 1
        if w8[row, p] == 0 or p == q:
            break
        m |= 1 << (p - 1)
    p = q
    for _ in range(23):
        p = p - 1 if p > 1 else 24
        if w8[row, p] == 0 or (m >> (p - 1)) & 1:
            break
        m |= 1 << (p - 1)
    return m


@njit(cache=True)
def _forbidden(m: int) -> bool:
    """B5: a run of six or more points that is not a permitted closure."""
    if _popcount(m) < 6:
        return False
    if m & ~_UPPER_HALF == 0:
        return False
    return not (m & ~_TRAY == 0 and m & 3 == 3)


@njit(cache=True)
def _closure_breach(w8: np.ndarray, row: int, src: int, dst: int, dst_was_empty: bool) -> bool:
    """geometry.closure_breach on the state of w8 row `row`: only the runs the step touched."""
    if dst > 0 and dst_was_empty and _forbidden(_run_mask(w8, row, dst)):
        return True
    if src <= 24 and w8[row, src] == 0:
        nb = src + 1 if src < 24 else 1
        if w8[row, nb] and _forbidden(_run_mask(w8, row, nb)):
            return True
        nb = src - 1 if src > 1 else 24
        if w8[row, nb] and _forbidden(_run_mask(w8, row, nb)):
            return True
    return False


@njit(cache=True)
def _block_len(w8: np.ndarray, row: int, p: int) -> int:
    """geometry._block_through's length: the run of occupied points through p along the
    opponent's route (our 12 down to 1, then 24 down to 13; no step from 13 to 12)."""
    n = 1
    q = p
    while q != 12:
        q = q + 1 if q < 24 else 1
        if w8[row, q] == 0:
            break
        n += 1
    q = p
    while q != 13:
        q = q - 1 if q > 1 else 24
        if w8[row, q] == 0:
            break
        n += 1
    return n


@njit(cache=True, inline="always")
def _closed_start(w8: np.ndarray, row: int) -> int:
    """J7: how many of points 24-19 hold two or more checkers in the state of row `row`."""
    n = 0
    for q in range(19, 25):
        if w8[row, q] >= 2:
            n += 1
    return n


@njit(cache=True, inline="always")
def _prepare(w8: np.ndarray, row: int, flags: int) -> None:
    """Start the enumeration of the single steps of the state in w8 row `row` (frame `row`).

    The sources are the bar alone when a checker is on it (J5); else the
    points from 24 down to 1, or only the courier (J6/B4).
    """
    fc = FRAME * row
    w8[CNT, fc + FR_HAS] = 0
    if w8[row, 25]:
        w8[CNT, fc + FR_CURSOR] = 25
        w8[CNT, fc + FR_LO] = 25
        return
    lo = 1
    hi = 24
    if flags & F_COURIER and w8[row, 24] >= 14 and w8[row, 0] == 0 and not (
            w8[row, 1] or w8[row, 2] or w8[row, 3] or w8[row, 4] or w8[row, 5]
            or w8[row, 6]):
        if w8[row, 24] == 15:
            lo = 24  # all on the talon: the first checker moved becomes the courier
        else:
            hi = 23
    all_home = 1
    for q in range(7, 26):
        if w8[row, q]:
            all_home = 0
            break
    highest = 0
    if all_home:
        for q in range(6, 0, -1):
            if w8[row, q]:
                highest = q
                break
    w8[CNT, fc + FR_CURSOR] = hi
    w8[CNT, fc + FR_LO] = lo
    w8[CNT, fc + FR_HOME] = all_home
    w8[CNT, fc + FR_HIGHEST] = highest


@njit(cache=True)
def _advance(w8: np.ndarray, w64: np.ndarray, kbase: int, row: int, d: int,
             flags: int) -> bool:
    """The next legal single step by die d from the state in row `row` (movegen._single_steps).

    Sources are tried in the pure generator's order; the step found is left
    in the frame (src, dst, hit). False when there is none left.
    """
    fc = FRAME * row
    hit = (w64[kbase + row, 2] >> HIT_SHIFT) & 0xFFFFFF
    hitting = flags & F_HITTING != 0
    cursor = np.int64(w8[CNT, fc + FR_CURSOR])
    if w8[row, 25]:
        # J5: entering comes before anything else
        if cursor != 25:
            return False
        w8[CNT, fc + FR_CURSOR] = 0
        dst = 25 - d
        n = 0 if (hit >> (dst - 1)) & 1 else w8[OPPC, dst]
        if n and (n >= 2 or not hitting):
            return False
        if flags & F_START_LIMIT and w8[row, dst] == 1 and _closed_start(w8, row) >= 2:
            return False  # J7
        w8[CNT, fc + FR_SRC] = 25
        w8[CNT, fc + FR_DST] = dst
        w8[CNT, fc + FR_HIT] = 1 if n else 0
        return True
    lo = np.int64(w8[CNT, fc + FR_LO])
    all_home = w8[CNT, fc + FR_HOME] != 0
    highest = np.int64(w8[CNT, fc + FR_HIGHEST])
    rearmost = flags & F_REARMOST != 0
    closures = flags & F_CLOSURES != 0
    block = flags & F_BLOCK != 0
    head_closed = flags & F_HEAD != 0 and w8[row, 24] <= w8[OPPC, HEAD_FLOOR]  # N5
    src = cursor
    while src >= lo:
        s = src
        src -= 1
        if w8[row, s] == 0:
            continue
        if s == 24 and head_closed:
            continue
        dst = s - d
        if dst <= 0:
            if not all_home:
                continue
            # J9: only the rearmost checker, with a die at least its point;
            # B7: a larger die bears off from the highest point only
            if (dst < 0 or rearmost) and s != highest:
                continue
            if closures and w8[row, s] == 1:
                w8[row, s] = 0
                breach = _closure_breach(w8, row, s, NO_POINT, NOT_EMPTY)
                w8[row, s] = 1
                if breach:
                    continue  # B5
            w8[CNT, fc + FR_CURSOR] = src
            w8[CNT, fc + FR_SRC] = s
            w8[CNT, fc + FR_DST] = 0
            w8[CNT, fc + FR_HIT] = 0
            return True
        n = 0 if (hit >> (dst - 1)) & 1 else w8[OPPC, dst]
        if n and (n >= 2 or not hitting):
            continue  # J3 / B3
        if flags & F_MID_LIMIT and dst == 13 and w8[row, 13] >= 2:
            continue  # J8
        if flags & F_START_LIMIT and dst >= 19 and w8[row, dst] == 1:
            closed = _closed_start(w8, row)
            if s >= 19 and w8[row, s] == 2:
                closed -= 1
            if closed >= 2:
                continue  # J7
        if closures and (w8[row, dst] == 0 or w8[row, s] == 1):
            was_empty = w8[row, dst] == 0
            w8[row, s] -= 1
            w8[row, dst] += 1
            breach = _closure_breach(w8, row, s, dst, was_empty)
            w8[row, s] += 1
            w8[row, dst] -= 1
            if breach:
                continue  # B5
        if block and w8[row, dst] == 0 and (
                dst + 12 if dst <= 12 else dst - 12) < w8[OPPC, LOWEST]:
            w8[row, s] -= 1
            w8[row, dst] += 1
            length = _block_len(w8, row, dst)
            w8[row, s] += 1
            w8[row, dst] -= 1
            if length >= 6:
                continue  # N6
        w8[CNT, fc + FR_CURSOR] = src
        w8[CNT, fc + FR_SRC] = s
        w8[CNT, fc + FR_DST] = dst
        w8[CNT, fc + FR_HIT] = 1 if n else 0
        return True
    w8[CNT, fc + FR_CURSOR] = src
    return False


@njit(cache=True, inline="always")
def _child_key(w64: np.ndarray, kbase: int, row: int, src: int, dst: int,
               hitflag: int) -> tuple[int, int]:
    """The key of the state of row `row` after the step src -> dst."""
    k1 = w64[kbase + row, 1]
    k2 = w64[kbase + row, 2]
    if src <= 15:
        k1 -= 1 << (4 * (src - 1))
    else:
        k2 -= 1 << (4 * (src - 16))
    if dst > 0:
        if dst <= 15:
            k1 += 1 << (4 * (dst - 1))
        else:
            k2 += 1 << (4 * (dst - 16))
    if hitflag:
        k2 |= 1 << (HIT_SHIFT + dst - 1)
    return k1, k2


@njit(cache=True, inline="always")
def _apply(w8: np.ndarray, w64: np.ndarray, kbase: int, row: int, crow: int, src: int,
           dst: int, k1: int, k2: int) -> None:
    """Row `crow` := the state of row `row` after the step src -> dst, with its key."""
    for i in range(26):
        w8[crow, i] = w8[row, i]
    w8[crow, src] -= 1
    w8[crow, dst] += 1
    w64[kbase + crow, 1] = k1
    w64[kbase + crow, 2] = k2


@njit(cache=True, inline="always")
def _insert(w64: np.ndarray, cap: int, want: int, k1: int, k2: int) -> bool:
    """Add a key with stamp+tag `want` to the table; False when it was there already."""
    h = k1 * _MUL1 + k2 * _MUL2 + want
    h ^= h >> 29
    mask = cap - 1
    i = h & mask
    base = want & ~7
    while True:
        s = w64[i, 0]
        if s < base:
            w64[i, 0] = want
            w64[i, 1] = k1
            w64[i, 2] = k2
            return True
        if s == want and w64[i, 1] == k1 and w64[i, 2] == k2:
            return False
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def _record(w8: np.ndarray, row: int, e: int, depth: int, nsteps: int, src: int,
            dst: int) -> None:
    """Entry e := the state of row `row` (after the step src -> dst when src > 0),
    the first `nsteps` steps of the path, and the depth G7 compares."""
    r = ENT0 + e
    for i in range(26):
        w8[r, i] = w8[row, i]
    if src:
        w8[r, src] -= 1
        w8[r, dst] += 1
    w8[r, E_DEPTH] = depth
    w8[r, E_NSTEPS] = nsteps
    for i in range(4 * nsteps):
        w8[r, E_STEPS + i] = w8[PATH, i]


@njit(cache=True, inline="always")
def _set_path(w8: np.ndarray, j: int, src: int, dst: int, hitflag: int, die: int) -> None:
    w8[PATH, 4 * j] = src
    w8[PATH, 4 * j + 1] = dst
    w8[PATH, 4 * j + 2] = hitflag
    w8[PATH, 4 * j + 3] = die


@njit(cache=True)
def _walk_doubles(w8: np.ndarray, w64: np.ndarray, cap: int, base: int, kbase: int,
                  d: int, flags: int, limit: int, r0: int) -> int:
    """generate_raw's depth-first walk of a double, iterative; returns the entries, -1 if full.

    Row L holds the state at depth L; its frame enumerates its single steps
    lazily (the state does not change while its children are walked, so the
    order is the pure generator's). Tag L of the table is the set of states
    met at depth L, tag 0 the resulting positions.
    """
    n_ent_cap = w8.shape[0] - ENT0
    if w8[0, 0] == 15:
        _record(w8, 0, 0, 4, 0, 0, 0)
        return 1
    _prepare(w8, r0, flags)
    if not _advance(w8, w64, kbase, r0, d, flags):
        _record(w8, 0, 0, 0, 0, 0, 0)
        return 1
    w8[CNT, FR_HAS] = 1
    n_ent = 0
    inserts = 0
    level = r0
    while level >= 0:
        fc = FRAME * level
        if w8[CNT, fc + FR_HAS]:
            w8[CNT, fc + FR_HAS] = 0
        elif not _advance(w8, w64, kbase, level, d, flags):
            level -= 1
            continue
        src = np.int64(w8[CNT, fc + FR_SRC])
        dst = np.int64(w8[CNT, fc + FR_DST])
        hf = np.int64(w8[CNT, fc + FR_HIT])
        k1, k2 = _child_key(w64, kbase, level, src, dst, hf)
        if inserts >= limit or n_ent >= n_ent_cap:
            return -1  # each pass below adds at most two keys to the table
        child = level + 1
        if not _insert(w64, cap, base + child, k1, k2):
            continue
        inserts += 1
        _set_path(w8, level, src, dst, hf, d)
        if child == 4 or (dst == 0 and w8[level, 0] == 14):
            if _insert(w64, cap, base, k1, k2):
                _record(w8, level, n_ent, child, child, src, dst)
                n_ent += 1
                inserts += 1
            continue
        _apply(w8, w64, kbase, level, child, src, dst, k1, k2)
        _prepare(w8, child, flags)
        if not _advance(w8, w64, kbase, child, d, flags):
            if _insert(w64, cap, base, k1, k2):
                _record(w8, child, n_ent, child, child, 0, 0)
                n_ent += 1
                inserts += 1
            continue
        w8[CNT, FRAME * child + FR_HAS] = 1
        level = child
    return n_ent


@njit(cache=True)
def _walk_two(w8: np.ndarray, w64: np.ndarray, cap: int, base: int, kbase: int,
              d1: int, d2: int, flags: int, limit: int, r0: int) -> int:
    """generate_raw for two different dice: higher first, then lower first.

    Returns the entries, -1 if the table or the entries are full.
    """
    n_ent_cap = w8.shape[0] - ENT0
    hi = d1 if d1 > d2 else d2
    lo = d2 if d1 > d2 else d1
    r1 = r0 + 1
    n_ent = 0
    for order in range(2):
        first = hi if order == 0 else lo
        second = lo if order == 0 else hi
        _prepare(w8, r0, flags)
        while _advance(w8, w64, kbase, r0, first, flags):
            src = np.int64(w8[CNT, FR_SRC])
            dst = np.int64(w8[CNT, FR_DST])
            hf = np.int64(w8[CNT, FR_HIT])
            _set_path(w8, 0, src, dst, hf, first)
            k1, k2 = _child_key(w64, kbase, 0, src, dst, hf)
            if n_ent >= limit or n_ent >= n_ent_cap:
                return -1  # the table holds the entries only
            if dst == 0 and w8[0, 0] == 14:  # won with one die: the other is not played
                if _insert(w64, cap, base, k1, k2):
                    _record(w8, 0, n_ent, 1, 1, src, dst)
                    n_ent += 1
                continue
            _apply(w8, w64, kbase, 0, 1, src, dst, k1, k2)
            _prepare(w8, r1, flags)
            if not _advance(w8, w64, kbase, r1, second, flags):
                if _insert(w64, cap, base, k1, k2):
                    _record(w8, 1, n_ent, 1, 1, 0, 0)
                    n_ent += 1
                continue
            while True:
                s2 = np.int64(w8[CNT, FRAME + FR_SRC])
                t2 = np.int64(w8[CNT, FRAME + FR_DST])
                h2 = np.int64(w8[CNT, FRAME + FR_HIT])
                c1, c2 = _child_key(w64, kbase, 1, s2, t2, h2)
                if n_ent >= limit or n_ent >= n_ent_cap:
                    return -1
                if _insert(w64, cap, base, c1, c2):
                    _set_path(w8, 1, s2, t2, h2, second)
                    _record(w8, 1, n_ent, 2, 2, s2, t2)
                    n_ent += 1
                if not _advance(w8, w64, kbase, r1, second, flags):
                    break
    if n_ent == 0:
        _record(w8, 0, 0, 0, 0, 0, 0)
        n_ent = 1
    return n_ent


@njit(cache=True)
def _walk(me: bytes, opp: bytes, d1: int, d2: int, flags: int, w8: np.ndarray,
          w64: np.ndarray) -> int:
    """Find the legal plays; returns how many entries were found, 0 if the workspace is full.

    The plays to return are the entries with `E_KEEP` set, in order.
    """
    n_ent_cap = w8.shape[0] - ENT0
    cap_max = w64.shape[0] - ENT0 - n_ent_cap - 1
    kbase = cap_max
    r0 = kbase - cap_max  # row 0, as a run-time value (see NO_POINT)

    # opponent counts at our points (G3/G4)
    if flags & F_SAME_DIRECTION:
        for q in range(1, 13):
            w8[OPPC, q] = opp[q + 12]
            w8[OPPC, q + 12] = opp[q]
    else:
        for q in range(1, 25):
            w8[OPPC, q] = opp[25 - q]
    if flags & F_HEAD:  # N5: geometry.head_floor
        head = np.int64(me[24])
        w8[OPPC, HEAD_FLOOR] = head - (
            2 if head == 15 and d1 == d2 and (d1 == 3 or d1 == 4 or d1 == 6) else 1)
    if flags & F_BLOCK:  # N6: geometry.lowest_opposing
        lowest = 0
        if opp[0] == 0:
            for q in range(1, 25):
                if opp[q]:
                    lowest = q
                    break
        w8[OPPC, LOWEST] = lowest

    # the start at depth 0
    k1 = 0
    k2 = 0
    for i in range(26):
        w8[0, i] = me[i]
    for i in range(1, 16):
        k1 += np.int64(me[i]) << (4 * (i - 1))
    for i in range(16, 26):
        k2 += np.int64(me[i]) << (4 * (i - 16))
    w64[kbase, 1] = k1
    w64[kbase, 2] = k2

    cap = START_CAP_DOUBLE if d1 == d2 else START_CAP_SINGLE  # load at most 1/2
    if cap > cap_max:
        cap = cap_max
    while True:
        stamp = w64[-1, 0]
        w64[-1, 0] = stamp + 1
        base = stamp * 8
        if d1 == d2:
            n_ent = _walk_doubles(w8, w64, cap, base, kbase, d1, flags, cap // 2, r0)
        else:
            n_ent = _walk_two(w8, w64, cap, base, kbase, d1, d2, flags, cap // 2, r0)
        if n_ent >= 0:
            break
        if cap >= cap_max:
            return 0
        cap = min(cap * 4, cap_max)

    # G7: as many dice as possible (a game won mid-turn counts the dice it played), else
    # the higher die
    most = 0
    for e in range(n_ent):
        dep = np.int64(w8[ENT0 + e, E_DEPTH])
        if dep > most:
            most = dep
    for e in range(n_ent):
        w8[ENT0 + e, E_KEEP] = 1 if w8[ENT0 + e, E_DEPTH] == most else 0
    if most == 1 and d1 != d2:
        hidie = d1 if d1 > d2 else d2
        any_high = False
        for e in range(n_ent):
            if w8[ENT0 + e, E_KEEP] and w8[ENT0 + e, E_STEPS + 3] == hidie:
                any_high = True
                break
        if any_high:
            for e in range(n_ent):
                if w8[ENT0 + e, E_STEPS + 3] != hidie:
                    w8[ENT0 + e, E_KEEP] = 0
    if flags & F_MOST_OFF:
        n = 0
        off = 0
        for e in range(n_ent):
            if w8[ENT0 + e, E_KEEP]:
                n += 1
                if w8[ENT0 + e, 0] > off:
                    off = np.int64(w8[ENT0 + e, 0])
        if n > 1:  # J10
            for e in range(n_ent):
                if w8[ENT0 + e, 0] != off:
                    w8[ENT0 + e, E_KEEP] = 0
    return n_ent


@njit(cache=True, inline="always")
def _count_kept(w8: np.ndarray, n_ent: int) -> int:
    n = 0
    for e in range(n_ent):
        if w8[ENT0 + e, E_KEEP]:
            n += 1
    return n


@njit(cache=True, inline="always")
def _write_position(w8: np.ndarray, e: int, opp: bytes, flags: int, out: np.ndarray,
                    k: int) -> int:
    """Row k of `out` := the mover's counts of entry e and the opponent's after its hits.

    Returns the number of hits.
    """
    r = ENT0 + e
    for i in range(26):
        out[k, i] = w8[r, i]
        out[k, 26 + i] = opp[i]
    nhit = 0
    for j in range(w8[r, E_NSTEPS]):
        if w8[r, E_STEPS + 4 * j + 2]:
            q = np.int64(w8[r, E_STEPS + 4 * j + 1])
            oq = (q + 12 if q <= 12 else q - 12) if flags & F_SAME_DIRECTION else 25 - q
            out[k, 26 + oq] = 0
            nhit += 1
    out[k, 51] += nhit
    return nhit


@njit(cache=True)
def arrays_kernel(me: bytes, opp: bytes, d1: int, d2: int, flags: int, w8: np.ndarray,
                  w64: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct legal play (G8): positions n x 52, steps n x 4 x 3 (src, dst, hit).

    No rows when the workspace is too small (retry with a larger one).
    """
    n_ent = _walk(me, opp, d1, d2, flags, w8, w64)
    n = _count_kept(w8, n_ent)
    positions = np.empty((n, 52), dtype=np.int8)
    steps = np.full((n, 4, 3), -1, dtype=np.int8)
    k = 0
    for e in range(n_ent):
        r = ENT0 + e
        if not w8[r, E_KEEP]:
            continue
        _write_position(w8, e, opp, flags, positions, k)
        for j in range(w8[r, E_NSTEPS]):
            steps[k, j, 0] = w8[r, E_STEPS + 4 * j]
            steps[k, j, 1] = w8[r, E_STEPS + 4 * j + 1]
            steps[k, j, 2] = w8[r, E_STEPS + 4 * j + 2]
        k += 1
    return positions, steps


@njit(cache=True)
def plays_kernel(me: bytes, opp: bytes, d1: int, d2: int, flags: int, w8: np.ndarray,
                 w64: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct legal play (G8): positions n x 52 and a step code per play.

    The step code packs step j in bits 15j..15j+14: bit 14 set, then
    ((src * 32 + dst) * 8 + die) * 2 + hit; `HIT_FLAG` is set when the play
    hits. No rows when the workspace is too small (retry with a larger one).
    """
    n_ent = _walk(me, opp, d1, d2, flags, w8, w64)
    n = _count_kept(w8, n_ent)
    positions = np.empty((n, 52), dtype=np.int8)
    codes = np.empty(n, dtype=np.int64)
    k = 0
    for e in range(n_ent):
        r = ENT0 + e
        if not w8[r, E_KEEP]:
            continue
        nhit = _write_position(w8, e, opp, flags, positions, k)
        code = HIT_FLAG if nhit else 0
        for j in range(w8[r, E_NSTEPS]):
            src = np.int64(w8[r, E_STEPS + 4 * j])
            dst = np.int64(w8[r, E_STEPS + 4 * j + 1])
            hf = np.int64(w8[r, E_STEPS + 4 * j + 2])
            die = np.int64(w8[r, E_STEPS + 4 * j + 3])
            code |= ((1 << 14) | (((src * 32 + dst) * 8 + die) * 2 + hf)) << (15 * j)
        codes[k] = code
        k += 1
    return positions, codes


@njit(cache=True)
def rolls_kernel(me: bytes, opp: bytes, flags: int, w8: np.ndarray, w64: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """`arrays_kernel`'s positions for each of the 21 rolls (1-1, 1-2, .., 6-6, the
    lower die first), one after the other, and the 22 bounds of each roll's rows.

    No rows when the workspace is too small for one of the rolls (retry with a
    larger one).
    """
    bounds = np.zeros(22, dtype=np.int64)
    positions = np.empty((512, 52), dtype=np.int8)
    total = 0
    r = 0
    for a in range(1, 7):
        for b in range(a, 7):
            n_ent = _walk(me, opp, a, b, flags, w8, w64)
            n = _count_kept(w8, n_ent)
            if n == 0:
                return positions[:0], bounds
            if total + n > positions.shape[0]:
                grown = np.empty((2 * (total + n), 52), dtype=np.int8)
                grown[:total] = positions[:total]
                positions = grown
            for e in range(n_ent):
                if w8[ENT0 + e, E_KEEP]:
                    _write_position(w8, e, opp, flags, positions, total)
                    total += 1
            r += 1
            bounds[r] = total
    return positions[:total], bounds
