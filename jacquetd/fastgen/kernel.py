"""The compiled legal-play generator: `jacquetd.rules.movegen.generate_raw` in numba.

This module imports numba at the top; `jacquetd.fastgen` imports it only when
numba is importable. The kernel follows the pure generator step for step, so
that it finds the same plays in the same order with the same first-found
spellings (G8):

- `_single_steps` is `movegen._single_steps`: every legal move of one checker
  by one die, every rule checked after the die (G6, J3-J9, B3-B7);
- two different dice are tried higher first, then lower first; doubles are
  walked depth first with a set of the positions already expanded at each
  depth (`generate_raw`);
- plays are deduplicated by the position they produce (G8), filtered by G7
  (most dice, a game won mid-turn counting as all of them, else the higher
  die) and, where the variant has it, by J10 (most borne off).

State. The side to move is 26 counts in its own numbering (0 off, 1..24,
25 bar). The opponent never moves during the turn, so its state is the set of
its blots we have hit, a 24-bit mask over our points; its counts at our point
q are `oppc[q]` unless bit q-1 of the mask is set. A position's key is two
int64: the mover's counts at 1..15 as nibbles (`k1`), and its counts at
16..25 as nibbles with the hit mask above them (`k2`); the borne-off count
follows from the other 25. Keys go into an open-addressing table that is never
cleared: each call takes a fresh stamp, and a slot with an older stamp is
empty.

Workspace. Everything the kernel reuses between calls lives in two arrays made
once per thread by `new_workspace` (so the call allocates only its outputs):

- `w8` (int8, rows x 44): rows `0..4` the state at each depth of the walk,
  rows `SUCC0..` the successors found at each depth, row `PATH` the steps of
  the current path, rows `ENT0..` the plays found (26 counts, depth, number of
  steps, 4 steps of src/dst/hit/die);
- `w64` (int64, 6 x width): rows 0-2 the hash table (stamp+tag, k1, k2), with
  the stamp counter in row 0 column `cap`; rows 3-5 the hit mask, k1 and k2 of
  each `w8` row.

When a call needs more room than the workspace has (never seen in games, but
not excluded), the kernel returns status 1 and the caller retries with a
workspace twice the size.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# variant flags (bits of `flags`)
F_HITTING = 1  # J3/J4 (else B3)
F_COURIER = 2  # J6/B4
F_START_LIMIT = 4  # J7
F_MID_LIMIT = 8  # J8
F_CLOSURES = 16  # B5
F_REARMOST = 32  # J9 (else B7)
F_MOST_OFF = 64  # J10
F_SAME_DIRECTION = 128  # G3 (else G4)

NSUCC = 16  # successors of one state: one per occupied point (at most 15) or one entry
SUCC0 = 5
PATH = SUCC0 + 4 * NSUCC
ENT0 = PATH + 1
W8_COLS = 44
R_HIT = 3
R_K1 = 4
R_K2 = 5

_UPPER_HALF = ((1 << 24) - 1) & ~((1 << 12) - 1)  # B5 (a): points 24-13
_TRAY = ((1 << 6) - 1) | (((1 << 6) - 1) << 18)  # B5 (b): points 6-1 and 24-19
_MUL1 = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed int64
_MUL2 = -4658895280553007687  # 0xBF58476D1CE4E5B9 as a signed int64


def new_workspace(entries: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Workspace for at most `entries` plays and `2 * entries` table slots."""
    cap = 1
    while cap < 4 * entries:
        cap *= 2
    w8 = np.zeros((ENT0 + entries, W8_COLS), dtype=np.int8)
    w64 = np.zeros((6, max(cap + 1, ENT0 + entries)), dtype=np.int64)
    w64[0, :cap] = -1
    w64[0, cap] = 1  # the stamp counter; every slot starts older than stamp 1
    return w8, w64


@njit(cache=True)
def _popcount(m: int) -> int:
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit(cache=True)
def _run_mask(side: np.ndarray, q: int) -> int:
    """geometry._run_through as a bit mask: the run of occupied points (G5) through q."""
    m = 1 << (q - 1)
    p = q
    for _ in range(23):
        p = p + 1 if p < 24 else 1
        if side[p] == 0 or p == q:
            break
        m |= 1 << (p - 1)
    p = q
    for _ in range(23):
        p = p - 1 if p > 1 else 24
        if side[p] == 0 or (m >> (p - 1)) & 1:
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
def _closure_breach(after: np.ndarray, src: int, dst: int, dst_was_empty: bool) -> bool:
    """geometry.closure_breach: only the runs the step touched."""
    if dst > 0 and dst_was_empty:
        if _forbidden(_run_mask(after, dst)):
            return True
    if src <= 24 and after[src] == 0:
        nb = src + 1 if src < 24 else 1
        if after[nb] and _forbidden(_run_mask(after, nb)):
            return True
        nb = src - 1 if src > 1 else 24
        if after[nb] and _forbidden(_run_mask(after, nb)):
            return True
    return False


@njit(cache=True)
def _nibble(idx: int) -> tuple[int, int]:
    """The (k1, k2) increments of one checker more on index idx (1..25)."""
    if idx <= 15:
        return 1 << (4 * (idx - 1)), 0
    return 0, 1 << (4 * (idx - 16))


@njit(cache=True)
def _closed_start(me: np.ndarray) -> int:
    n = 0
    for q in range(19, 25):
        if me[q] >= 2:
            n += 1
    return n


@njit(cache=True)
def _emit(w8: np.ndarray, w64: np.ndarray, me: np.ndarray, row: int, hit: int, k1: int,
          k2: int, src: int, dst: int, hitflag: int, oq_point: int) -> None:
    """Write the successor `me` with one checker moved src -> dst into w8 row `row`."""
    out = w8[row]
    for i in range(26):
        out[i] = me[i]
    out[src] -= 1
    out[dst] += 1
    a1, a2 = _nibble(src)
    k1 -= a1
    k2 -= a2
    if dst > 0:
        b1, b2 = _nibble(dst)
        k1 += b1
        k2 += b2
    if hitflag:
        hit |= 1 << (oq_point - 1)
    out[26] = src
    out[27] = dst
    out[28] = hitflag
    w64[R_HIT, row] = hit
    w64[R_K1, row] = k1
    w64[R_K2, row] = k2


@njit(cache=True)
def _single_steps(w8: np.ndarray, w64: np.ndarray, srow: int, d: int, flags: int,
                  oppc: np.ndarray, orow: int) -> int:
    """movegen._single_steps: successors of the state in w8 row `srow` by die d.

    They are written to rows orow, orow+1, ...; returns how many.
    """
    me = w8[srow]
    hit = w64[R_HIT, srow]
    k1 = w64[R_K1, srow]
    k2 = w64[R_K2, srow]
    hitting = flags & F_HITTING != 0
    n_out = 0
    if me[25]:
        # J5: entering comes before anything else
        dst = 25 - d
        n = 0 if (hit >> (dst - 1)) & 1 else oppc[dst]
        if n and (n >= 2 or not hitting):
            return 0
        if flags & F_START_LIMIT and me[dst] == 1 and _closed_start(me) >= 2:
            return 0  # J7
        _emit(w8, w64, me, orow, hit, k1, k2, 25, dst, 1 if n else 0, dst)
        return 1

    # J6/B4: in the courier phase only the courier moves
    lo_src = 1
    hi_src = 24
    if flags & F_COURIER and me[24] >= 14 and me[0] == 0 and not (
            me[1] or me[2] or me[3] or me[4] or me[5] or me[6]):
        if me[24] == 15:
            lo_src = 24
        else:
            hi_src = 23

    all_home = True
    for q in range(7, 26):
        if me[q]:
            all_home = False
            break
    highest = 0
    if all_home:
        for q in range(6, 0, -1):
            if me[q]:
                highest = q
                break
    rearmost = flags & F_REARMOST != 0
    closures = flags & F_CLOSURES != 0

    for src in range(hi_src, lo_src - 1, -1):
        if me[src] == 0:
            continue
        dst = src - d
        if dst <= 0:
            if not all_home:
                continue
            # J9: only the rearmost checker, with a die at least its point;
            # B7: a larger die bears off from the highest point only
            if (dst < 0 or rearmost) and src != highest:
                continue
            row = orow + n_out
            _emit(w8, w64, me, row, hit, k1, k2, src, 0, 0, 0)
            if closures and w8[row, src] == 0 and _closure_breach(w8[row], src, 0, False):
                continue
            n_out += 1
            continue
        n = 0 if (hit >> (dst - 1)) & 1 else oppc[dst]
        if n and (n >= 2 or not hitting):
            continue  # J3 / B3
        if flags & F_MID_LIMIT and dst == 13 and me[13] >= 2:
            continue  # J8
        if flags & F_START_LIMIT and dst >= 19 and me[dst] == 1:
            closed = _closed_start(me)
            if src >= 19 and me[src] == 2:
                closed -= 1
            if closed >= 2:
                continue  # J7
        row = orow + n_out
        _emit(w8, w64, me, row, hit, k1, k2, src, dst, 1 if n else 0, dst)
        if closures and (me[dst] == 0 or w8[row, src] == 0) and _closure_breach(
                w8[row], src, dst, me[dst] == 0):
            continue  # B5
        n_out += 1
    return n_out


@njit(cache=True)
def _insert(w64: np.ndarray, cap: int, base: int, tag: int, k1: int, k2: int) -> bool:
    """Add (tag, k1, k2) to the table; False when it was there already."""
    h = k1 * _MUL1 + k2 * _MUL2 + tag
    h ^= h >> 31
    mask = cap - 1
    i = h & mask
    want = base + tag
    while True:
        s = w64[0, i]
        if s < base:
            w64[0, i] = want
            w64[1, i] = k1
            w64[2, i] = k2
            return True
        if s == want and w64[1, i] == k1 and w64[2, i] == k2:
            return False
        i = (i + 1) & mask


@njit(cache=True)
def _record(w8: np.ndarray, w64: np.ndarray, row: int, e: int, depth: int, nsteps: int) -> None:
    """Copy the state of w8 row `row` and the first `nsteps` steps of the path into entry e."""
    out = w8[ENT0 + e]
    src = w8[row]
    for i in range(26):
        out[i] = src[i]
    out[26] = depth
    out[27] = nsteps
    path = w8[PATH]
    for i in range(4 * nsteps):
        out[28 + i] = path[i]
    w64[R_HIT, ENT0 + e] = w64[R_HIT, row]


@njit(cache=True)
def _set_path(w8: np.ndarray, j: int, row: int, die: int) -> None:
    path = w8[PATH]
    path[4 * j] = w8[row, 26]
    path[4 * j + 1] = w8[row, 27]
    path[4 * j + 2] = w8[row, 28]
    path[4 * j + 3] = die


@njit(cache=True)
def generate_kernel(state: np.ndarray, d1: int, d2: int, flags: int, w8: np.ndarray,
                    w64: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Every distinct legal play of the side `state[:26]` against `state[26:]` with d1-d2.

    Returns (status, positions n x 52, steps n x 4 x 3 (src, dst, hit; -1
    padding), extra n x 2 int64 (step code, hit mask)); status 1 means the
    workspace was too small (retry with a larger one) and the arrays are empty.
    The step code packs each step as 15 bits, step j at bit 15*j:
    bit 14 set, then ((src * 32 + dst) * 8 + die) * 2 + hit.
    """
    n_ent_cap = w8.shape[0] - ENT0
    width = w64.shape[1]
    cap = 1
    while cap * 2 < width:
        cap *= 2
    stamp = w64[0, cap]
    w64[0, cap] = stamp + 1
    base = stamp * 8
    limit = cap // 2

    # opponent counts at our points (G3/G4)
    oppc = np.zeros(25, dtype=np.int8)
    same = flags & F_SAME_DIRECTION != 0
    for q in range(1, 25):
        oq = (q + 12 if q <= 12 else q - 12) if same else 25 - q
        oppc[q] = state[26 + oq]

    # the start at depth 0
    k1 = 0
    k2 = 0
    root = w8[0]
    for i in range(26):
        root[i] = state[i]
        if i >= 1:
            a1, a2 = _nibble(i)
            k1 += a1 * state[i]
            k2 += a2 * state[i]
    w64[R_HIT, 0] = 0
    w64[R_K1, 0] = k1
    w64[R_K2, 0] = k2

    n_ent = 0
    inserts = 0
    overflow = False
    if d1 == d2:
        d = d1
        # iterative form of generate_raw's depth-first walk; the state at depth
        # L+1 is the successor of depth L being expanded, copied to row L+1
        counts = np.zeros(5, dtype=np.int64)
        nexts = np.zeros(5, dtype=np.int64)
        level = 0
        # visit the root
        if state[0] == 15:
            if _insert(w64, cap, base, 0, k1, k2):
                _record(w8, w64, 0, n_ent, 4, 0)
                n_ent += 1
            level = -1
        else:
            counts[0] = _single_steps(w8, w64, 0, d, flags, oppc, SUCC0)
            nexts[0] = 0
            if counts[0] == 0:
                _insert(w64, cap, base, 0, k1, k2)
                _record(w8, w64, 0, n_ent, 0, 0)
                n_ent += 1
                level = -1
        while level >= 0:
            if nexts[level] >= counts[level]:
                level -= 1
                continue
            i = nexts[level]
            nexts[level] = i + 1
            srow = SUCC0 + level * NSUCC + i
            ck1 = w64[R_K1, srow]
            ck2 = w64[R_K2, srow] | (w64[R_HIT, srow] << 40)
            inserts += 1
            if inserts > limit or n_ent >= n_ent_cap:
                overflow = True
                break
            if not _insert(w64, cap, base, level + 1, ck1, ck2):
                continue
            _set_path(w8, level, srow, d)
            child = level + 1
            crow = w8[child]
            for j in range(29):
                crow[j] = w8[srow, j]
            w64[R_HIT, child] = w64[R_HIT, srow]
            w64[R_K1, child] = w64[R_K1, srow]
            w64[R_K2, child] = w64[R_K2, srow]
            if child == 4 or crow[0] == 15:
                inserts += 1
                if _insert(w64, cap, base, 0, ck1, ck2):
                    _record(w8, w64, child, n_ent, 4, child)
                    n_ent += 1
                continue
            nc = _single_steps(w8, w64, child, d, flags, oppc, SUCC0 + child * NSUCC)
            if nc == 0:
                inserts += 1
                if _insert(w64, cap, base, 0, ck1, ck2):
                    _record(w8, w64, child, n_ent, child, child)
                    n_ent += 1
                continue
            counts[child] = nc
            nexts[child] = 0
            level = child
    else:
        hi = d1 if d1 > d2 else d2
        lo = d2 if d1 > d2 else d1
        for order in range(2):
            first = hi if order == 0 else lo
            second = lo if order == 0 else hi
            n1 = _single_steps(w8, w64, 0, first, flags, oppc, SUCC0)
            for i in range(n1):
                r1 = SUCC0 + i
                _set_path(w8, 0, r1, first)
                if w8[r1, 0] == 15:
                    if _insert(w64, cap, base, 0, w64[R_K1, r1],
                               w64[R_K2, r1] | (w64[R_HIT, r1] << 40)):
                        _record(w8, w64, r1, n_ent, 2, 1)
                        n_ent += 1
                    continue
                n2 = _single_steps(w8, w64, r1, second, flags, oppc, SUCC0 + NSUCC)
                if n2 == 0:
                    if _insert(w64, cap, base, 0, w64[R_K1, r1],
                               w64[R_K2, r1] | (w64[R_HIT, r1] << 40)):
                        _record(w8, w64, r1, n_ent, 1, 1)
                        n_ent += 1
                    continue
                for j in range(n2):
                    r2 = SUCC0 + NSUCC + j
                    if _insert(w64, cap, base, 0, w64[R_K1, r2],
                               w64[R_K2, r2] | (w64[R_HIT, r2] << 40)):
                        _set_path(w8, 1, r2, second)
                        _record(w8, w64, r2, n_ent, 2, 2)
                        n_ent += 1
        if n_ent == 0:
            _record(w8, w64, 0, 0, 0, 0)
            n_ent = 1

    if overflow:
        return (1, np.empty((0, 52), dtype=np.int8), np.empty((0, 4, 3), dtype=np.int8),
                np.empty((0, 2), dtype=np.int64))

    # G7: as many dice as possible (a game won mid-turn counts as all), else the higher die
    most = 0
    for e in range(n_ent):
        dep = w8[ENT0 + e, 26]
        if dep > most:
            most = dep
    keep = np.zeros(n_ent, dtype=np.bool_)
    for e in range(n_ent):
        keep[e] = w8[ENT0 + e, 26] == most
    if most == 1 and d1 != d2:
        hidie = d1 if d1 > d2 else d2
        any_high = False
        for e in range(n_ent):
            if keep[e] and w8[ENT0 + e, 31] == hidie:
                any_high = True
                break
        if any_high:
            for e in range(n_ent):
                if keep[e] and w8[ENT0 + e, 31] != hidie:
                    keep[e] = False
    n = 0
    for e in range(n_ent):
        if keep[e]:
            n += 1
    if flags & F_MOST_OFF and n > 1:
        off = 0
        for e in range(n_ent):
            if keep[e] and w8[ENT0 + e, 0] > off:
                off = w8[ENT0 + e, 0]
        for e in range(n_ent):
            if keep[e] and w8[ENT0 + e, 0] != off:
                keep[e] = False
                n -= 1

    positions = np.empty((n, 52), dtype=np.int8)
    steps = np.full((n, 4, 3), -1, dtype=np.int8)
    extra = np.empty((n, 2), dtype=np.int64)
    k = 0
    for e in range(n_ent):
        if not keep[e]:
            continue
        ent = w8[ENT0 + e]
        hit = w64[R_HIT, ENT0 + e]
        for i in range(26):
            positions[k, i] = ent[i]
            positions[k, 26 + i] = state[26 + i]
        nhit = 0
        q = 1
        m = hit
        while m:
            if m & 1:
                oq = (q + 12 if q <= 12 else q - 12) if same else 25 - q
                positions[k, 26 + oq] = 0
                nhit += 1
            m >>= 1
            q += 1
        positions[k, 51] += nhit
        code = 0
        for j in range(ent[27]):
            src = ent[28 + 4 * j]
            dst = ent[29 + 4 * j]
            hf = ent[30 + 4 * j]
            die = ent[31 + 4 * j]
            steps[k, j, 0] = src
            steps[k, j, 1] = dst
            steps[k, j, 2] = hf
            code |= ((1 << 14) | (((src * 32 + dst) * 8 + die) * 2 + hf)) << (15 * j)
        extra[k, 0] = code
        extra[k, 1] = hit
        k += 1
    return 0, positions, steps, extra
