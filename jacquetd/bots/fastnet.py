"""The 0-ply evaluation compiled: encoding, network routing, forward, tidy.

`NeuralEvaluator.probs_reference` runs, per batch, the compiled encoder
(`fastencode`), then in numpy the routing of each row to the contact, race
or crashed network, the matrix products and `evaluator.tidy`. `evaluate`
gives the same figures with less work around them:

- a batch of `BATCH_ROWS` rows or more is encoded, routed and tidied by
  compiled loops around the very matrix products of the reference (the
  contact network on every row, the race and crashed networks on theirs),
  so its figures are the reference's exactly;
- a smaller batch (one position: a `best_move` at 0 plies) runs in one
  compiled call, row by row: the row is encoded into a scratch vector,
  routed, and multiplied by the first layer skipping the inputs that are
  zero (most of the one-hot point inputs), as GNU Backgammon's evaluator
  does, accumulating in float64 from the float32 weights; its figures are
  within 1e-6 of the reference's (the reference itself rounds a row
  differently with other rows beside it, by as much).

Both return the rows whose sides are all home (None when there is none: a
position in play, the common case, costs no test of the mask), which the
caller replaces by the exact bear-off tables. The tests compare both paths
with the reference on seeded positions of every variant. Without numba (or with
JACQUETD_FASTGEN=0) `available()` is False and the evaluator uses the numpy
path alone.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from jacquetd.rules import Variant
from jacquetd.rules.variants import opponent_point_map

from . import fastencode

_njit: Any = fastencode._njit

TRACKS_PRIMES, NO_THIRD_LEVEL = 1, 2
"""`tidy_flags` bits: zero the third level by the prime flags (J12), or always (B8)."""

_CONTACT, _RACE, _CRASHED = 0, 1, 2
_FUSED = {"contract", "reassoc"}
"""The floating-point liberties of the vectorised loops: fused multiply-adds and sums
taken in any order (their rounding moves the figures by about 1e-16 a sum)."""
CRASHED_CHECKERS = 6  # features.CRASHED_CHECKERS
_ESCAPES = fastencode.ESCAPES
"""The encoder's escape table, a constant of the compiled row kernel (one argument less
to pass a call)."""


def available() -> bool:
    """Whether the compiled kernel is there (numba installed and not disabled)."""
    return _njit is not None


def tidy_flags(variant: Variant) -> int:
    """The `tidy` rules of a variant as `evaluate`'s flags."""
    if variant.tracks_primes:
        return TRACKS_PRIMES
    if variant.name != "backgammon":
        return NO_THIRD_LEVEL
    return 0


def _crashed_side(side: np.ndarray) -> bool:
    one = side[1]
    two = side[2]
    left = 15 - side[0]
    if one > 1:
        left -= one
    if two > 1:
        left -= two - 1
    return bool(left <= CRASHED_CHECKERS)


def _sigmoids(h: np.ndarray, n: int) -> None:
    """h[j] := 1 / (1 + exp(-h[j])) (its argument clipped to +-40, as the networks'
    sigmoid) for j < n, in a loop the compiler vectorises: exp(-x) is the Taylor
    polynomial of exp(-x / 64) raised to the 64th power (six squarings), within 2e-14
    of the library's exp relative to it, where the library's call stops vectorising."""
    for j in range(n):
        y = -min(max(h[j], -40.0), 40.0) * 0.015625
        e = 4.779477332387385e-14  # 1/16!
        e = 7.647163731819816e-13 + y * e  # 1/15!
        e = 1.1470745597729725e-11 + y * e  # 1/14!
        e = 1.6059043836821613e-10 + y * e  # 1/13!
        e = 2.08767569878681e-09 + y * e  # 1/12!
        e = 2.505210838544172e-08 + y * e  # 1/11!
        e = 2.755731922398589e-07 + y * e  # 1/10!
        e = 2.7557319223985893e-06 + y * e  # 1/9!
        e = 2.48015873015873e-05 + y * e  # 1/8!
        e = 0.0001984126984126984 + y * e  # 1/7!
        e = 0.001388888888888889 + y * e  # 1/6!
        e = 0.008333333333333333 + y * e  # 1/5!
        e = 0.041666666666666664 + y * e  # 1/4!
        e = 0.16666666666666666 + y * e  # 1/3!
        e = 0.5 + y * e  # 1/2!
        e = 1.0 + y * e  # 1/1!
        e = 1.0 + y * e  # 1/0!
        e = e * e
        e = e * e
        e = e * e
        e = e * e
        e = e * e
        e = e * e
        h[j] = 1.0 / (1.0 + e)


def _forward_row(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                 b2: np.ndarray, h: np.ndarray, nonzero: np.ndarray, out: np.ndarray) -> None:
    n_hidden = w1.shape[1]
    for j in range(n_hidden):
        h[j] = b1[j]
    m = 0  # the inputs that are not zero, in order, into `nonzero`
    for i in range(x.shape[0]):
        if x[i] != 0.0:
            nonzero[m] = i
            m += 1
    # four inputs a pass over the hidden units, each unit's sum still taken
    # input by input in order (the same additions as one input a pass; each
    # product is fused into its addition, one rounding fewer)
    t = 0
    while t + 4 <= m:
        a = nonzero[t]
        b = nonzero[t + 1]
        c = nonzero[t + 2]
        d = nonzero[t + 3]
        xa = np.float64(x[a])
        xb = np.float64(x[b])
        xc = np.float64(x[c])
        xd = np.float64(x[d])
        for j in range(n_hidden):
            h[j] = (((h[j] + xa * w1[a, j]) + xb * w1[b, j]) + xc * w1[c, j]) + xd * w1[d, j]
        t += 4
    while t < m:
        a = nonzero[t]
        xa = np.float64(x[a])
        for j in range(n_hidden):
            h[j] += xa * w1[a, j]
        t += 1
    _sigmoids(h, n_hidden)
    # the five sums side by side (each still added in the order of the hidden
    # units, as one sum at a time would): five independent chains of additions
    s0 = s1 = s2 = s3 = s4 = 0.0
    for j in range(n_hidden):
        hj = h[j]
        s0 += hj * w2[j, 0]
        s1 += hj * w2[j, 1]
        s2 += hj * w2[j, 2]
        s3 += hj * w2[j, 3]
        s4 += hj * w2[j, 4]
    sums = (s0, s1, s2, s3, s4)
    for k in range(5):
        s = sums[k] + b2[k]
        out[k] = 1.0 / (1.0 + math.exp(-min(max(s, -40.0), 40.0)))


def _evaluate(me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray, opp_flag: np.ndarray,
              table: np.ndarray, vflags: int, version: int, width: int,
              w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
              rw1: np.ndarray, rb1: np.ndarray, rw2: np.ndarray, rb2: np.ndarray,
              cw1: np.ndarray, cb1: np.ndarray, cw2: np.ndarray, cb2: np.ndarray,
              has_race: bool, has_crashed: bool, tflags: int,
              out: np.ndarray, home: np.ndarray) -> int:
    """The rows' probabilities into `out` and their all-home flags into `home`, each row
    alone (`evaluate`'s small batches); returns the count of rows all home."""
    n = me.shape[0]
    n_home = 0
    x = np.zeros((1, w1.shape[0]), dtype=np.float32)
    h = np.zeros(max(w1.shape[1], rw1.shape[1], cw1.shape[1]), dtype=np.float64)
    raw = np.zeros(5, dtype=np.float64)
    scratch = np.empty(fastencode.SCRATCH, dtype=np.int64)
    nonzero = np.empty(w1.shape[0], dtype=np.int64)
    for r in range(n):
        x[0, :] = 0.0
        fastencode._encode_rows(me[r:r + 1], opp[r:r + 1], me_flag[r:r + 1],
                                opp_flag[r:r + 1], table, vflags, version, width,
                                _ESCAPES, x, scratch)
        contact = x[0, 2 * width] != 0.0
        route = _CONTACT
        if not contact:
            if has_race:
                route = _RACE
        elif has_crashed and (_crashed_side(me[r]) or _crashed_side(opp[r])):
            route = _CRASHED
        if route == _RACE:
            _forward_row(x[0], rw1, rb1, rw2, rb2, h, nonzero, raw)
        elif route == _CRASHED:
            _forward_row(x[0], cw1, cb1, cw2, cb2, h, nonzero, raw)
        else:
            _forward_row(x[0], w1, b1, w2, b2, h, nonzero, raw)
        win = float(raw[0])
        win_g = min(float(raw[1]), win)
        win_bg = min(float(raw[2]), win_g)
        lose_g = min(float(raw[3]), 1.0 - win)
        lose_bg = min(float(raw[4]), lose_g)
        if tflags & TRACKS_PRIMES:
            if me_flag[r]:
                win_bg = 0.0
            if opp_flag[r]:
                lose_bg = 0.0
        elif tflags & NO_THIRD_LEVEL:
            win_bg = 0.0
            lose_bg = 0.0
        out[r, 0] = win
        out[r, 1] = win_g
        out[r, 2] = win_bg
        out[r, 3] = lose_g
        out[r, 4] = lose_bg
        at_home = True
        for i in range(7, 26):
            if me[r, i] != 0 or opp[r, i] != 0:
                at_home = False
                break
        home[r] = at_home
        n_home += at_home
    return n_home


def _absent(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stand-ins, of the dtypes of the arrays given, for a network an evaluator lacks
    (never read: its route is off)."""
    return (np.zeros((1, 1), dtype=w1.dtype), np.zeros(1, dtype=b1.dtype),
            np.zeros((1, 5), dtype=w2.dtype), np.zeros(5, dtype=b2.dtype))


def _evaluate_plain(me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
                    opp_flag: np.ndarray, table: np.ndarray, vflags: int, version: int,
                    width: int, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                    b2: np.ndarray, tflags: int, out: np.ndarray, home: np.ndarray) -> int:
    """`_evaluate` of an evaluator with the contact network alone: a call with a third of
    the arrays to pass (each costs the call's dispatch about 0.05-0.08 us)."""
    nw1, nb1, nw2, nb2 = _absent(w1, b1, w2, b2)
    return _evaluate(me, opp, me_flag, opp_flag, table, vflags, version, width,
                     w1, b1, w2, b2, nw1, nb1, nw2, nb2, nw1, nb1, nw2, nb2, False, False,
                     tflags, out, home)


def _evaluate_crashed(me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
                      opp_flag: np.ndarray, table: np.ndarray, vflags: int, version: int,
                      width: int, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                      b2: np.ndarray, cw1: np.ndarray, cb1: np.ndarray, cw2: np.ndarray,
                      cb2: np.ndarray, tflags: int, out: np.ndarray, home: np.ndarray) -> int:
    """`_evaluate` of an evaluator with contact and crashed networks and no race network
    (`backgammon`'s): four arrays fewer to pass than `_evaluate`."""
    nw1, nb1, nw2, nb2 = _absent(w1, b1, w2, b2)
    return _evaluate(me, opp, me_flag, opp_flag, table, vflags, version, width,
                     w1, b1, w2, b2, nw1, nb1, nw2, nb2, cw1, cb1, cw2, cb2, False, True,
                     tflags, out, home)


def _route(me: np.ndarray, opp: np.ndarray, x: np.ndarray, contact_col: int,
           has_race: bool, has_crashed: bool, route: np.ndarray) -> None:
    for r in range(me.shape[0]):
        if x[r, contact_col] == 0.0:
            route[r] = _RACE if has_race else _CONTACT
        elif has_crashed and (_crashed_side(me[r]) or _crashed_side(opp[r])):
            route[r] = _CRASHED
        else:
            route[r] = _CONTACT


def _tidy(raw: np.ndarray, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
          opp_flag: np.ndarray, tflags: int, out: np.ndarray, home: np.ndarray) -> None:
    for r in range(raw.shape[0]):
        win = float(raw[r, 0])
        win_g = min(float(raw[r, 1]), win)
        win_bg = min(float(raw[r, 2]), win_g)
        lose_g = min(float(raw[r, 3]), 1.0 - win)
        lose_bg = min(float(raw[r, 4]), lose_g)
        if tflags & TRACKS_PRIMES:
            if me_flag[r]:
                win_bg = 0.0
            if opp_flag[r]:
                lose_bg = 0.0
        elif tflags & NO_THIRD_LEVEL:
            win_bg = 0.0
            lose_bg = 0.0
        out[r, 0] = win
        out[r, 1] = win_g
        out[r, 2] = win_bg
        out[r, 3] = lose_g
        out[r, 4] = lose_bg
        at_home = True
        for i in range(7, 26):
            if me[r, i] != 0 or opp[r, i] != 0:
                at_home = False
                break
        home[r] = at_home


if _njit is not None:
    _crashed_side = _njit(cache=True)(_crashed_side)
    _sigmoids = _njit(cache=True, error_model="numpy", fastmath=_FUSED)(_sigmoids)
    _forward_row = _njit(cache=True, nogil=True, fastmath={"contract"})(_forward_row)
    _evaluate = _njit(cache=True, nogil=True)(_evaluate)
    _absent = _njit(cache=True)(_absent)
    _evaluate_plain = _njit(cache=True, nogil=True)(_evaluate_plain)
    _evaluate_crashed = _njit(cache=True, nogil=True)(_evaluate_crashed)
    _route = _njit(cache=True, nogil=True)(_route)
    _tidy = _njit(cache=True, nogil=True)(_tidy)

BATCH_ROWS = 16
"""From this many rows on, `evaluate` multiplies the first layer as one matrix product."""


class _Layers(Protocol):
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def forward(self, x: np.ndarray) -> np.ndarray: ...


def _f32(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


_NONE = (np.zeros((1, 1), np.float32), np.zeros(1, np.float32), np.zeros((1, 5), np.float32),
         np.zeros(5, np.float32))


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_I16 = np.dtype(np.int16)
_BOOL = np.dtype(np.bool_)


def _rows(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`a` itself when it is C-contiguous of `dtype` (the callers' usual rows: a test of
    about 0.1 us), else a converted copy."""
    if a.dtype is dtype and a.flags.c_contiguous:
        return a
    return np.ascontiguousarray(a, dtype=dtype)


def _layers(net: _Layers | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The network's arrays as they are now: themselves when they are float32, as the
    networks hold them (the kernel reads any layout; another dtype is converted, so the
    kernel is compiled for float32 weights alone)."""
    if net is None:
        return _NONE
    w1, b1, w2, b2 = net.w1, net.b1, net.w2, net.b2
    if w1.dtype is _F32 and b1.dtype is _F32 and w2.dtype is _F32 and b2.dtype is _F32:
        return w1, b1, w2, b2
    return _f32(w1), _f32(b1), _f32(w2), _f32(b2)


_Constants = tuple[np.ndarray, int, int, int]
_constants: dict[tuple[str, int], _Constants] = {}


def _variant_constants(variant: Variant, version: int) -> _Constants:
    """(opponent point map, `fastencode.variant_flags`, `fastencode.side_width`,
    `tidy_flags`) of a variant and version."""
    found = _constants.get((variant.name, version))
    if found is None:
        table = fastencode._TABLES.get(variant.name)
        if table is None:
            table = fastencode._TABLES[variant.name] = np.array(
                opponent_point_map(variant), dtype=np.int64)
        found = _constants[(variant.name, version)] = (
            table, fastencode.variant_flags(variant), fastencode.side_width(version),
            tidy_flags(variant))
    return found


def evaluate(variant: Variant, version: int, net: _Layers, race: _Layers | None,
             crashed: _Layers | None, me: np.ndarray, opp: np.ndarray,
             me_flag: np.ndarray, opp_flag: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(N, 5) float64 tidied probabilities and the (N,) mask of rows with both sides
    all home (whose figures the caller replaces by the bear-off tables), None when
    there is no such row.

    The networks are read as they are at the call (a network being trained
    is seen with its current weights).
    """
    n = me.shape[0]
    me = _rows(me, _I16)
    opp = _rows(opp, _I16)
    me_flag = _rows(me_flag, _BOOL)
    opp_flag = _rows(opp_flag, _BOOL)
    table, vflags, width, tflags = _variant_constants(variant, version)
    if n >= BATCH_ROWS or n == 0:
        out = np.empty((n, 5), dtype=_F64)
        home = np.empty(n, dtype=_BOOL)
        if n:
            _batched(variant, version, table, net, race, crashed, me, opp, me_flag,
                     opp_flag, out, home)
        return out, home if home.any() else None
    return _row_by_row(net, race, crashed, me, opp, me_flag, opp_flag, table, vflags,
                       version, width, tflags)


def _row_by_row(net: _Layers, race: _Layers | None, crashed: _Layers | None,
                me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray, opp_flag: np.ndarray,
                table: np.ndarray, vflags: int, version: int, width: int, tflags: int
                ) -> tuple[np.ndarray, np.ndarray | None]:
    """`evaluate` of a few rows of the kernels' types, each row alone, by the kernel
    that has the networks there are (fewer arguments to dispatch when a network is
    missing)."""
    n = me.shape[0]
    out = np.empty((n, 5), dtype=_F64)
    home = np.empty(n, dtype=_BOOL)
    # the networks' arrays as they are now (a network being trained is seen with its
    # current weights), passed as the networks hold them (float32: `Net` keeps no
    # other dtype; an array of another would compile a kernel of its own, not fail)
    if race is None:
        if crashed is None:
            n_home = _evaluate_plain(me, opp, me_flag, opp_flag, table, vflags, version,
                                     width, net.w1, net.b1, net.w2, net.b2, tflags, out, home)
        else:
            n_home = _evaluate_crashed(
                me, opp, me_flag, opp_flag, table, vflags, version, width, net.w1, net.b1,
                net.w2, net.b2, crashed.w1, crashed.b1, crashed.w2, crashed.b2, tflags, out,
                home)
    else:
        n_home = _evaluate(me, opp, me_flag, opp_flag, table, vflags, version, width,
                           *_layers(net), *_layers(race), *_layers(crashed), True,
                           crashed is not None, tflags, out, home)
    return out, home if n_home else None


class SmallBatches:
    """`evaluate` bound to one variant and feature version, for the calls of a few rows
    (a 0-ply best move's plays, one position), whose cost is mostly the call's own: the
    constants are looked up once, and rows of the usual types (C-contiguous int16
    counts and bool flags) go straight to the row kernel; any other call is
    `evaluate`'s. The same figures as `evaluate`, and the networks read as they are at
    each call."""

    __slots__ = ("table", "tflags", "variant", "version", "vflags", "width")

    def __init__(self, variant: Variant, version: int) -> None:
        self.variant = variant
        self.version = version
        self.table, self.vflags, self.width, self.tflags = _variant_constants(variant,
                                                                               version)

    def __call__(self, net: _Layers, race: _Layers | None, crashed: _Layers | None,
                 me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
                 opp_flag: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """`evaluate(variant, version, net, race, crashed, me, opp, me_flag, opp_flag)`."""
        n = me.shape[0]
        if not (0 < n < BATCH_ROWS and me.dtype is _I16 and opp.dtype is _I16
                and me_flag.dtype is _BOOL and opp_flag.dtype is _BOOL
                and me.flags.c_contiguous and opp.flags.c_contiguous
                and me_flag.flags.c_contiguous and opp_flag.flags.c_contiguous):
            return evaluate(self.variant, self.version, net, race, crashed, me, opp,
                            me_flag, opp_flag)
        return _row_by_row(net, race, crashed, me, opp, me_flag, opp_flag, self.table,
                           self.vflags, self.version, self.width, self.tflags)


def _batched(variant: Variant, version: int, table: np.ndarray, net: _Layers,
             race: _Layers | None, crashed: _Layers | None, me: np.ndarray, opp: np.ndarray,
             me_flag: np.ndarray, opp_flag: np.ndarray, out: np.ndarray,
             home: np.ndarray) -> None:
    """`evaluate` of a batch: the compiled encoder, the networks' own `forward`
    (matrix products), routing and tidying compiled."""
    n = me.shape[0]
    width = fastencode.side_width(version)
    x = np.zeros((n, 2 * width + 3), dtype=np.float32)
    fastencode._encode_rows(me, opp, me_flag, opp_flag, table,
                            fastencode.variant_flags(variant), version, width,
                            fastencode.ESCAPES, x,
                            np.empty(fastencode.SCRATCH, dtype=np.int64))
    route = np.empty(n, dtype=np.int8)
    _route(me, opp, x, 2 * width, race is not None, crashed is not None, route)
    # the contact network on every row, then the others on theirs, as
    # `NeuralEvaluator.forward` does (the same matrix products, the same figures)
    raw = net.forward(x)
    for which, layers in ((_RACE, race), (_CRASHED, crashed)):
        if layers is not None:
            rows = np.flatnonzero(route == which)
            if len(rows):
                raw[rows] = layers.forward(x[rows])
    _tidy(raw, me, opp, me_flag, opp_flag, tidy_flags(variant), out, home)


def routes(variant: Variant, version: int, me: np.ndarray, opp: np.ndarray
           ) -> dict[str, int]:
    """How many rows of a batch are contact (not crashed), crashed contact, contact
    over, and all home: the classes `evaluate` routes (for tests and benchmarks)."""
    me = np.ascontiguousarray(me, dtype=np.int16)
    opp = np.ascontiguousarray(opp, dtype=np.int16)
    n = me.shape[0]
    width = fastencode.side_width(version)
    x = fastencode.encode(variant, me, opp, np.zeros(n, np.bool_), np.zeros(n, np.bool_),
                          version)
    route = np.empty(n, dtype=np.int8)
    _route(me, opp, x, 2 * width, True, True, route)
    home = ~(me[:, 7:26].any(axis=1) | opp[:, 7:26].any(axis=1))
    return {"contact": int((route == _CONTACT).sum()), "crashed": int((route == _CRASHED).sum()),
            "race": int((route == _RACE).sum()), "home": int(home.sum())}
