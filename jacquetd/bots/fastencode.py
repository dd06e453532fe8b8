"""The version-2 to 6 input encodings of `features.py`, compiled with numba.

`features.encode` spends most of a 0-ply evaluation (and of a self-play
training game) in dozens of small numpy operations per batch; this kernel
computes the same matrix row by row in one pass. `features.py` stays the
reference: the tests compare the two on thousands of positions of every
variant (equal to float32 rounding). Without numba, or with the environment
variable JACQUETD_FASTGEN=0, `available()` is False and `features.encode`
uses numpy alone.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from jacquetd import kernel_cache
from jacquetd.rules import Variant
from jacquetd.rules.variants import opponent_point_map

from . import gnubg_inputs

kernel_cache.check()  # before anything here compiles or loads a cache

_njit: Any = None
if os.environ.get("JACQUETD_FASTGEN", "1").strip().lower() not in ("0", "off", "no", "false"):
    try:
        from numba import njit as _njit
    except ImportError:  # numba missing or broken: numpy only
        _njit = None

HITTING, COURIER, START_LIMIT, PRIMES, SAME_DIRECTION = 1, 2, 4, 8, 16
_EXTRAS = {2: 16, 3: 22, 4: 34, 5: 34 + gnubg_inputs.PER_SIDE, 6: gnubg_inputs.PER_SIDE}
SUPPORTED = tuple(_EXTRAS)
"""The feature versions this kernel computes."""


# the int64 working space of `_encode_rows`, in `_side`'s slices: (unused), the
# opposing checkers behind each point, the blots (`_shots`), then
# `gnubg_inputs.pair_inputs_into`'s own
_HELD, _BEHIND, _BLOTS, _GNUBG = 0, 26, 53, 85
SCRATCH = _GNUBG + gnubg_inputs.SCRATCH
_GNUBG_COL = 24 * 4 + 2 + _EXTRAS[4]  # a side's version-5 inputs follow its version-4 block
_GNUBG_COL_6 = 24 * 4 + 2  # version 6's follow the bar and the tray


def side_width(version: int) -> int:
    """Inputs per side: the unary code, bar and tray, and the version's extras."""
    return 24 * 4 + 2 + _EXTRAS[version]


def available() -> bool:
    """Whether the compiled encoder is in use."""
    return _njit is not None


def variant_flags(variant: Variant) -> int:
    return ((HITTING if variant.hitting else 0) | (COURIER if variant.courier else 0)
            | (START_LIMIT if variant.start_limit else 0)
            | (PRIMES if variant.tracks_primes else 0)
            | (SAME_DIRECTION if variant.same_direction else 0))


def _cyclic_run(made: int, cap: int) -> int:
    """Longest run of set bits among the 24 low bits of `made` read round the
    circuit (G5), capped at `cap`: after k steps a bit is left where a run of
    k + 1 starts."""
    run = 0
    while made and run < cap:
        run += 1
        made &= ((made >> 1) | (made << 23)) & 0xFFFFFF
    return run


_TOPS = gnubg_inputs._TOPS


def _highest(bits: int) -> int:
    """The highest set bit of 0 < bits < 2**25."""
    high = _TOPS[bits >> 12]
    return int(high + 12 if high >= 0 else _TOPS[bits & 0xFFF])


def _shots(me: np.ndarray, opp: np.ndarray, table: np.ndarray, hold: int,
           blot_list: np.ndarray) -> tuple[int, int, int]:
    """(rolls, pips, doubles): of the 36 rolls of `opp`, how many hit a blot of `me`,
    the sum over the rolls of the most pips a hit with that roll costs `me`
    (version 3), and how many could hit either of two different blots (version 4).

    The bar is entered first (two or more checkers there: the entering hits only;
    one: it enters with either die, then the other die moves any checker); a
    combined move needs an open point on the way; points `me` holds are closed.
    Points are bits in the opponent's numbering (bit k: point k, bit 25: the bar),
    so a die moves every checker at once by a right shift. `blot_list` (32 entries)
    receives the blots' bits from my point 1 up (the order of the pips a hit costs,
    25 - q on my point q, most first), and from entry 16 their points.
    """
    blots = 0
    closed = 0
    n_blots = 0
    mirrored = True  # every blot on the opponent's point 25 - q: the cost is the point
    for q in range(1, 25):
        m = table[q]
        if me[q] == 1:
            blot_list[n_blots] = 1 << m
            blot_list[16 + n_blots] = q
            n_blots += 1
            blots |= 1 << m
            if m != 25 - q:
                mirrored = False
        if me[q] >= hold:
            closed |= 1 << m
    if blots == 0:
        return 0, 0, 0
    open_ = ((1 << 25) - 2) & ~closed  # points 1-24 a checker may land on
    board = 0
    for k in range(1, 25):
        if opp[k] > 0:
            board |= 1 << k
    bar = opp[25]
    if bar == 0 and board >> 1 < (blots & -blots):
        return 0, 0, 0  # every blot is behind every opposing checker
    entry = 1 << 25
    rolls = 0
    pips = 0
    doubles = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            hit = 0
            if d1 != d2:
                if bar >= 2:
                    hit = ((entry >> d1) | (entry >> d2)) & open_
                elif bar == 1:
                    for da, db in ((d1, d2), (d2, d1)):
                        e = (entry >> da) & open_
                        if e:
                            hit |= e | (((board | e) >> db) & open_)
                else:
                    hit = (((board >> d1) | (board >> d2)) & open_
                           | ((((board >> d1) & open_) >> d2) & open_)
                           | ((((board >> d2) & open_) >> d1) & open_))
            else:
                d = d1
                steps = 4
                movers = board
                if bar > 0:
                    e = (entry >> d) & open_
                    steps = 4 - min(bar, 4) if e else 0
                    hit = e
                    movers = board | e if e else 0
                for _ in range(steps):
                    movers = (movers >> d) & open_
                    hit |= movers
            hit &= blots
            if hit:
                w = 1 if d1 == d2 else 2
                rolls += w
                if mirrored:  # the hit blot that costs the most: the farthest
                    pips += w * _highest(hit)
                else:  # the first hit in the list
                    k = 0
                    while not hit & blot_list[k]:
                        k += 1
                    pips += w * (25 - blot_list[16 + k])
                if hit & (hit - 1):
                    doubles += w
    return rolls, pips, doubles


def _escape_table() -> np.ndarray:
    """Escaping rolls by the blocked points ahead: entry m has bit 12 - k set when the
    point k pips ahead (k = 1..12) is blocked; the count is of the 36 rolls whose sum's
    point is open and one of whose dice's points is open (doubles: two steps)."""
    table = np.zeros(1 << 12, dtype=np.int64)
    for m in range(1 << 12):
        def blocked(k: int, m: int = m) -> bool:
            return bool(m >> (12 - k) & 1)
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                if blocked(d1 + d2) or (blocked(d1) and blocked(d2)):
                    continue
                table[m] += 1 if d1 == d2 else 2
    return table


ESCAPES = _escape_table()
_POP6 = np.array([bin(m).count("1") for m in range(64)], dtype=np.int64)
"""The set bits of 6-bit numbers."""


def _escapes(bits: int, p: int, escapes: np.ndarray) -> int:
    """The rolls (of 36) that carry a checker on `p` its whole roll past the blocked
    points, `bits` having bit q set for a blocked point q (its own numbering); below
    point 1 nothing blocks (version 3)."""
    ahead = bits >> (p - 12) if p >= 12 else bits << (12 - p)
    return int(escapes[ahead & 0xFFF])


def _unary(me: np.ndarray, out: np.ndarray, col: int) -> None:
    """A side's unary code of its points, its bar and its tray into out[col:col + 98]:
    the start of every version's block."""
    for q in range(1, 25):
        c = me[q]
        base = col + 4 * (q - 1)
        out[base] = 1.0 if c >= 1 else 0.0
        out[base + 1] = 1.0 if c >= 2 else 0.0
        out[base + 2] = 1.0 if c >= 3 else 0.0
        out[base + 3] = (c - 3) * 0.5 if c > 3 else 0.0
    out[col + 96] = me[25] * 0.5
    out[col + 97] = me[0] / 15.0


def _side(me: np.ndarray, opp: np.ndarray, flag: bool, table: np.ndarray, vflags: int,
          version: int, escapes: np.ndarray, out: np.ndarray, col: int,
          scratch: np.ndarray) -> None:
    hold = 2 if vflags & HITTING else 1
    _unary(me, out, col)
    col += 98
    pips = 0
    for i in range(1, 26):
        pips += i * me[i]
    made = 0  # bit q - 1: I hold my point q
    made2 = 0  # bit q - 1: two or more of mine on q
    blots = 0
    for q in range(1, 25):
        if me[q] >= hold:
            made |= 1 << (q - 1)
        if me[q] >= 2:
            made2 |= 1 << (q - 1)
        if me[q] == 1:
            blots += 1
    out[col] = pips / 100.0
    if vflags & COURIER:
        home_any = False
        for q in range(1, 7):
            if me[q] > 0:
                home_any = True
        out[col + 1] = 1.0 if (me[24] >= 14 and me[0] == 0 and not home_any) else 0.0
    if vflags & START_LIMIT:
        s = 0
        for q in range(19, 25):
            if made >> (q - 1) & 1:
                s += 1
        out[col + 2] = s / 2.0
    if vflags & PRIMES:
        out[col + 3] = 1.0 if flag else 0.0
        out[col + 4] = 1.0 if _cyclic_run(made2, 6) >= 6 else 0.0
    out[col + 5] = _cyclic_run(made, 7) / 6.0
    home_made = 0
    for q in range(1, 7):
        if made >> (q - 1) & 1:
            home_made += 1
    out[col + 6] = home_made / 6.0
    if vflags & HITTING:
        # a blot on my point q sits on the opponent's point table[q]; an opposing
        # checker 1-6 (direct) or 7-11 (indirect) pips behind it in the opponent's
        # numbering can hit it; a hit costs about 25 - q pips
        direct = 0.0
        indirect = 0.0
        occupied = 0  # bit k: the opponent has checkers on its point k (1-25)
        for k in range(1, 26):
            if opp[k] > 0:
                occupied |= 1 << k
        for q in range(1, 25):
            if me[q] != 1:
                continue
            j = table[q]
            near = (occupied >> (j + 1)) & 0x3F != 0  # 1-6 pips behind
            far = (occupied >> (j + 7)) & 0x1F != 0  # 7-11 pips behind
            cost = np.float32((25 - q) / 24.0 + 0.1)
            if near:
                direct += cost
            elif far:
                indirect += cost
        out[col + 7] = direct
        out[col + 8] = indirect
    out[col + 9] = blots / 5.0
    out[col + 10] = 1.0 if me[0] == 0 else 0.0
    # blocking (version 2)
    opp_bits = 0  # bit q: the opponent holds my point q
    for q in range(1, 25):
        opp_bits |= (1 if opp[table[q]] >= hold else 0) << q
    ahead_sum = 0.0
    trapped = 0
    outside = 0
    pips_home = 0
    for p in range(7, 26):
        c = me[p]
        if c == 0:
            continue
        ahead = _POP6[(opp_bits >> (p - 6)) & 0x3F]  # held points 1-6 pips ahead
        ahead_sum += c * ahead
        if ahead >= 4:
            trapped += c
        outside += c
        pips_home += c * (p - 6)
    out[col + 11] = ahead_sum / (6.0 * max(outside, 1))
    out[col + 12] = trapped / 15.0
    behind = scratch[_BEHIND:_BLOTS]  # behind[j] = opposing checkers on j..25
    behind[26] = 0
    for j in range(25, -1, -1):
        behind[j] = behind[j + 1] + opp[j]
    power = 0
    for q in range(1, 25):
        if me[q] >= hold:
            power += behind[min(table[q] + 1, 25)]
    out[col + 13] = power / 90.0
    out[col + 14] = outside / 15.0
    out[col + 15] = pips_home / 100.0
    doubles = 0  # version 4's double shots, from the same count as version 3's shots
    if version >= 3 and vflags & HITTING:
        rolls, lost, doubles = _shots(me, opp, table, hold, scratch[_BLOTS:_GNUBG])
        out[col + 16] = rolls / 36.0
        out[col + 17] = lost / (36.0 * 12.0)
        if me[25] > 0:
            closed = 0
            for d in range(1, 7):
                if opp[table[25 - d]] >= hold:
                    closed += 1
            out[col + 18] = (closed / 6.0) ** 2
    rear = 0
    for p in range(25, 0, -1):
        if me[p] > 0:
            rear = p
            break
    if version >= 3:
        my_bits = 0  # bit m: I hold the opponent's point m
        for q in range(1, 25):
            my_bits |= (1 if me[q] >= hold else 0) << table[q]
        out[col + 19] = _escapes(opp_bits, rear, escapes) / 36.0 if rear > 0 else 0.0
        mobility = 0
        for p in range(7, 26):
            if me[p] > 0:
                mobility += me[p] * _escapes(opp_bits, p, escapes) * (p - 6)
        out[col + 20] = mobility / 3600.0
        least = 36
        for m in range(13, 25):
            e = _escapes(my_bits, m, escapes)
            if e < least:
                least = e
        out[col + 21] = 1.0 - least / 36.0
    if version >= 4:
        _side_v4(me, opp, table, vflags, hold, rear, doubles, made, out, col + 22)


def _side_v4(me: np.ndarray, opp: np.ndarray, table: np.ndarray, vflags: int, hold: int,
             rear: int, doubles: int, made: int, out: np.ndarray, col: int) -> None:
    """The twelve version-4 features (`features._v4_extras` defines them); `rear` is
    the rearmost point with a checker, `doubles` the double shots `_shots` counted,
    `made` has bit q - 1 set for a point q that I hold."""
    out[col] = (rear - 1) / 24.0 if rear > 0 else 0.0
    anchor = _highest(made) + 1 if made else 0
    out[col + 1] = (anchor - 1) / 24.0 if anchor > 0 else 0.0
    forward = 2.0
    for k in range(6, 0, -1):
        if me[table[k]] >= hold:
            forward = k / 6.0
            break
    if forward == 2.0:
        for k in range(7, 13):
            if me[table[k]] >= hold:
                forward = k / 6.0
                break
    out[col + 2] = forward
    if vflags & HITTING:
        out[col + 3] = doubles / 36.0
        if me[25] > 0:
            two = me[25] >= 2
            loss = 0
            for d1 in range(1, 7):
                h1 = opp[table[25 - d1]] >= hold
                if h1:
                    loss += 4 * d1
                for d2 in range(d1 + 1, 7):
                    h2 = opp[table[25 - d2]] >= hold
                    if h1 and h2:
                        loss += 2 * (d1 + d2)
                    elif two and h1:
                        loss += 2 * d1
                    elif two and h2:
                        loss += 2 * d2
            out[col + 4] = loss / (36.0 * 49.0 / 6.0)
    # the opponent's rearmost checker as an index of my points (point - 1)
    back = -1
    if not vflags & SAME_DIRECTION:
        r = 0
        for p in range(25, 0, -1):
            if opp[p] > 0:
                r = p
                break
        back = 24 - r
    m = back if back > 11 else 11
    t = 24 * me[25]
    spare = me[25]
    for i in range(23, 5, -1):
        c = me[i + 1]
        if i > m:
            if c > 2:
                add = c - 2
            elif c > 0 and c != 2:
                add = 1
            else:
                add = 0
        else:
            add = c
        t += i * add
        spare += add
    for i in range(5, -1, -1):
        c = me[i + 1]
        if c > 2:
            t += i * (c - 2)
            spare += c - 2
        elif c < 2:
            need = 2 - c
            if spare >= need:
                t -= i * need
                spare -= need
    out[col + 5] = max(t, 0) / 100.0
    if not vflags & SAME_DIRECTION:
        brk = 0
        free = 0
        for i in range(25):
            c = me[i + 1]
            if i > back:
                brk += (i + 1 - back) * c
            elif i < back:
                free += (i + 1) * c
        out[col + 6] = brk / 167.0
        out[col + 7] = free / 100.0
    total = 0
    moment = 0
    for p in range(1, 26):
        total += me[p]
        moment += p * me[p]
    mean = (moment + total - 1) // total if total > 0 else 0
    k = 0
    j = 0
    for p in range(mean + 1, 26):  # an empty point adds nothing (no branch)
        j += me[p]
        k += me[p] * (p - mean) * (p - mean)
    out[col + 8] = ((k + j - 1) // j if j > 0 else 0) / 400.0
    prev = 0
    w = 0
    tot = 0
    for q in range(24, 0, -1):
        if me[q] >= hold:
            if prev > 0:
                d = prev - q
                c = 11 if d <= 6 else (13 - d if d <= 11 else 0)
                w += c * me[prev]
                tot += me[prev]
            prev = q
    out[col + 9] = 1.0 - w / (11.0 * tot) if tot > 0 else 0.0
    anchors = 0
    there = me[25]
    for k in range(1, 7):
        there += me[table[k]]
        if me[table[k]] >= hold:
            anchors += 1
    if anchors >= 2:
        out[col + 10] = (there - 3) / 4.0
    elif anchors == 1:
        out[col + 11] = there / 8.0


def _encode_rows(me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray, opp_flag: np.ndarray,
                 table: np.ndarray, vflags: int, version: int, width: int,
                 escapes: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
    """Encode the rows of `me` and `opp` into `out` (zeros), with `scratch` (SCRATCH
    int64 entries, any contents) as working space."""
    if scratch.shape[0] < SCRATCH:
        # a caller compiled against another layout (numba's cache of a caller is
        # keyed by its own file alone): never write past the end
        scratch = np.empty(SCRATCH, dtype=np.int64)
    for r in range(me.shape[0]):
        a = me[r]
        b = opp[r]
        row = out[r]
        if version == 6:
            _unary(a, row, 0)
            _unary(b, row, width)
        else:
            _side(a, b, me_flag[r], table, vflags, version, escapes, row, 0, scratch)
            _side(b, a, opp_flag[r], table, vflags, version, escapes, row, width, scratch)
        col = 2 * width
        pa = 0
        pb = 0
        for i in range(1, 26):
            pa += i * a[i]
            pb += i * b[i]
        if vflags & SAME_DIRECTION:
            back_a = False
            back_b = False
            for i in range(13, 26):
                if a[i] > 0:
                    back_a = True
                if b[i] > 0:
                    back_b = True
            contact = back_a or back_b
        else:
            rear_a = 0
            rear_b = 0
            for i in range(1, 26):
                if a[i] > 0:
                    rear_a = i
                if b[i] > 0:
                    rear_b = i
            contact = rear_a + rear_b > 25 and rear_a > 0 and rear_b > 0
        row[col] = 1.0 if contact else 0.0
        lead = (pb - pa) / 40.0
        row[col + 1] = min(max(lead, -2.0), 2.0)
        row[col + 2] = 1.0
    if version >= 5 and vflags & HITTING and not vflags & SAME_DIRECTION:
        gnubg = scratch[_GNUBG:]
        at = _GNUBG_COL if version == 5 else _GNUBG_COL_6
        for r in range(me.shape[0]):  # a loop of its own: its code stays in the cache
            _gnubg_pair(me[r], opp[r], out[r], at, width + at, gnubg)


_gnubg_pair = gnubg_inputs.pair_inputs_into

if _njit is not None:
    _gnubg_pair = gnubg_inputs.compiled(_njit)[1]
    _cyclic_run = _njit(cache=True)(_cyclic_run)
    _highest = _njit(cache=True)(_highest)
    _unary = _njit(cache=True)(_unary)
    _shots = _njit(cache=True)(_shots)
    _escapes = _njit(cache=True)(_escapes)
    _side_v4 = _njit(cache=True)(_side_v4)
    _side = _njit(cache=True)(_side)
    _encode_rows = _njit(cache=True)(_encode_rows)

_TABLES: dict[str, np.ndarray] = {}


def encode(variant: Variant, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
           opp_flag: np.ndarray, version: int) -> np.ndarray:
    """The input matrix of a version in `SUPPORTED`, as `features.encode_numpy` computes it."""
    table = _TABLES.get(variant.name)
    if table is None:
        table = _TABLES[variant.name] = np.array(opponent_point_map(variant), dtype=np.int64)
    n = me.shape[0]
    width = side_width(version)
    out = np.zeros((n, 2 * width + 3), dtype=np.float32)
    _encode_rows(np.ascontiguousarray(me, dtype=np.int16),
                 np.ascontiguousarray(opp, dtype=np.int16),
                 np.ascontiguousarray(me_flag, dtype=np.bool_),
                 np.ascontiguousarray(opp_flag, dtype=np.bool_),
                 table, variant_flags(variant), version, width, ESCAPES, out,
                 np.empty(SCRATCH, dtype=np.int64))
    return out
