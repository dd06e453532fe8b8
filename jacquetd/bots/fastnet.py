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
  compiled call (each network passed as its one `Net.params` vector: each
  argument costs the call's dispatch about 0.07 us), row by row: the row
  is encoded into a scratch vector, routed, and multiplied by the first
  layer skipping the inputs that are zero (most of the one-hot point
  inputs), as GNU Backgammon's evaluator does, accumulating in float64
  from the float32 weights; its figures are within 1e-6 of the
  reference's (the reference itself rounds a row differently with other
  rows beside it, by as much).

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

from jacquetd import kernel_cache
from jacquetd.rules import Variant
from jacquetd.rules.variants import opponent_point_map

from . import fastencode

kernel_cache.check()  # before anything here compiles or loads a cache

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


def _tidy_row(raw: np.ndarray, me_flag: bool, opp_flag: bool, tflags: int,
              out: np.ndarray) -> None:
    """`evaluator.tidy` of one row: the raw outputs `raw` made consistent, and the third
    level zeroed where the rules exclude it, into `out` (5,)."""
    win = float(raw[0])
    win_g = min(float(raw[1]), win)
    win_bg = min(float(raw[2]), win_g)
    lose_g = min(float(raw[3]), 1.0 - win)
    lose_bg = min(float(raw[4]), lose_g)
    if tflags & TRACKS_PRIMES:
        if me_flag:
            win_bg = 0.0
        if opp_flag:
            lose_bg = 0.0
    elif tflags & NO_THIRD_LEVEL:
        win_bg = 0.0
        lose_bg = 0.0
    out[0] = win
    out[1] = win_g
    out[2] = win_bg
    out[3] = lose_g
    out[4] = lose_bg


def _both_home(me: np.ndarray, opp: np.ndarray) -> bool:
    """Whether every checker of both sides of a row is home or borne off."""
    for i in range(7, 26):  # noqa: SIM110 (a loop: numba compiles no generator here)
        if me[i] != 0 or opp[i] != 0:
            return False
    return True


def _unpacked(params: np.ndarray, n_inputs: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(w1, b1, w2, b2) of a network's `Net.params` vector (its hidden units from its
    length); an empty vector gives empty layers."""
    n_hidden = max(params.shape[0] - 5, 0) // (n_inputs + 6)
    a = n_inputs * n_hidden
    b = a + n_hidden
    c = b + 5 * n_hidden
    return (params[:a].reshape((n_inputs, n_hidden)), params[a:b],
            params[b:c].reshape((n_hidden, 5)), params[c:c + 5])


def _evaluate_rows(me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
                   opp_flag: np.ndarray, constants: np.ndarray, net: np.ndarray,
                   race: np.ndarray, crashed: np.ndarray, out: np.ndarray) -> int:
    """`evaluate` of a few rows, each alone: their probabilities into `out` (N, 5);
    returns the count of rows with both sides all home. `constants` is
    `_row_constants`'s vector, and each network comes as its `Net.params` vector (an
    empty one for a network the evaluator lacks): one argument each, where each costs
    the call's dispatch about 0.07 us."""
    vflags = constants[0]
    version = constants[1]
    width = constants[2]
    tflags = constants[3]
    table = constants[_CONSTANT_FLAGS:]
    n_inputs = 2 * width + 3
    w1, b1, w2, b2 = _unpacked(net, n_inputs)
    rw1, rb1, rw2, rb2 = _unpacked(race, n_inputs)
    cw1, cb1, cw2, cb2 = _unpacked(crashed, n_inputs)
    has_race = rw1.shape[1] != 0
    has_crashed = cw1.shape[1] != 0
    n = me.shape[0]
    n_home = 0
    x = np.zeros((1, n_inputs), dtype=np.float32)
    h = np.empty(max(w1.shape[1], rw1.shape[1], cw1.shape[1]), dtype=np.float64)
    raw = np.empty(5, dtype=np.float64)
    scratch = np.empty(fastencode.SCRATCH + n_inputs, dtype=np.int64)
    nonzero = scratch[fastencode.SCRATCH:]
    for r in range(n):
        if r:
            x[0, :] = 0.0
        fastencode._encode_rows(me[r:r + 1], opp[r:r + 1], me_flag[r:r + 1],
                                opp_flag[r:r + 1], table, vflags, version, width,
                                _ESCAPES, x, scratch[:fastencode.SCRATCH])
        if x[0, 2 * width] == 0.0:  # contact over
            if has_race:
                _forward_row(x[0], rw1, rb1, rw2, rb2, h, nonzero, raw)
            else:
                _forward_row(x[0], w1, b1, w2, b2, h, nonzero, raw)
        elif has_crashed and (_crashed_side(me[r]) or _crashed_side(opp[r])):
            _forward_row(x[0], cw1, cb1, cw2, cb2, h, nonzero, raw)
        else:
            _forward_row(x[0], w1, b1, w2, b2, h, nonzero, raw)
        _tidy_row(raw, me_flag[r], opp_flag[r], tflags, out[r])
        n_home += _both_home(me[r], opp[r])
    return n_home


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
        _tidy_row(raw[r], me_flag[r], opp_flag[r], tflags, out[r])
        home[r] = _both_home(me[r], opp[r])


_ROW_KERNEL_SOURCE = _evaluate_rows
"""`_evaluate_rows` before compiling (`_typed_row_kernel` compiles it once more)."""

if _njit is not None:
    _crashed_side = _njit(cache=True)(_crashed_side)
    _sigmoids = _njit(cache=True, error_model="numpy", fastmath=_FUSED)(_sigmoids)
    _forward_row = _njit(cache=True, nogil=True, fastmath={"contract"})(_forward_row)
    _tidy_row = _njit(cache=True)(_tidy_row)
    _both_home = _njit(cache=True)(_both_home)
    _unpacked = _njit(cache=True)(_unpacked)
    _evaluate_rows = _njit(cache=True, nogil=True)(_evaluate_rows)
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


_NO_NETWORK = np.zeros(0, np.float32)
"""The row kernel's stand-in for a network an evaluator lacks (its route is off)."""

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


_CONSTANT_FLAGS = 4
"""`_row_constants`: the flags before the opponent point map."""
_row_vectors: dict[tuple[str, int], np.ndarray] = {}


def _row_constants(variant: Variant, version: int) -> np.ndarray:
    """The row kernel's constants of a variant and version in one int64 vector:
    `fastencode.variant_flags`, the version, `fastencode.side_width`, `tidy_flags`,
    then the opponent point map."""
    found = _row_vectors.get((variant.name, version))
    if found is None:
        table, vflags, width, tflags = _variant_constants(variant, version)
        found = _row_vectors[(variant.name, version)] = np.concatenate(
            [np.array([vflags, version, width, tflags], dtype=np.int64), table])
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
    if n >= BATCH_ROWS or n == 0:
        out = np.empty((n, 5), dtype=_F64)
        home = np.empty(n, dtype=_BOOL)
        if n:
            _batched(variant, version, _variant_constants(variant, version)[0], net, race,
                     crashed, me, opp, me_flag, opp_flag, out, home)
        return out, home if home.any() else None
    return _row_by_row(net, race, crashed, me, opp, me_flag, opp_flag,
                       _row_constants(variant, version))


def _params(net: _Layers | None) -> np.ndarray:
    """A network as the row kernel reads it: its `Net.params` vector as it is now (a
    network being trained is seen with its current weights), or its four arrays joined
    into one for a network held otherwise; an empty vector for none."""
    if net is None:
        return _NO_NETWORK
    params = getattr(net, "params", None)
    if params is not None and params.dtype is _F32:
        return params  # type: ignore[no-any-return]
    return np.concatenate([np.ravel(a) for a in (net.w1, net.b1, net.w2, net.b2)]
                          ).astype(np.float32)


def _home_rows(me: np.ndarray, opp: np.ndarray, n_home: int) -> np.ndarray | None:
    """The mask of rows with both sides all home, None when `n_home` says none is."""
    if not n_home:
        return None
    return np.asarray(~(me[:, 7:26].any(axis=1) | opp[:, 7:26].any(axis=1)))


def _row_by_row(net: _Layers, race: _Layers | None, crashed: _Layers | None,
                me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray, opp_flag: np.ndarray,
                constants: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """`evaluate` of a few rows of the kernel's types, each row alone, in one call of the
    row kernel."""
    out = np.empty((me.shape[0], 5), dtype=_F64)
    n_home = _evaluate_rows(me, opp, me_flag, opp_flag, constants, _params(net),
                            _params(race), _params(crashed), out)
    return out, _home_rows(me, opp, n_home)


def _typed_row_kernel() -> Any:
    """`_evaluate_rows` compiled for the usual types alone (C-contiguous int16 counts,
    bool flags, float32 weights) and closed to others: a call of other types raises
    TypeError at dispatch instead of compiling, which spares the fast path any test of
    its own in Python. Built at the first `SmallBatches` call (numba's cache keeps it)."""
    global _typed
    if _typed is None:
        from numba import types

        i16, flags, params = types.int16[:, ::1], types.boolean[::1], types.float32[::1]
        signature = types.int64(i16, i16, flags, flags, types.int64[::1], params, params,
                                params, types.float64[:, ::1])
        _typed = _njit(signature, cache=True, nogil=True)(_ROW_KERNEL_SOURCE)
    return _typed


_typed: Any = None


class SmallBatches:
    """`evaluate` bound to one variant and feature version, for the calls of a few rows
    (a 0-ply best move's plays, one position), whose cost is mostly the call's own: the
    constants are looked up once, and rows and networks of the usual types
    (C-contiguous int16 counts, bool flags, float32 weights) go straight to the row
    kernel compiled for them alone; any other call is `evaluate`'s. The same figures as
    `evaluate`, and the networks read as they are at each call."""

    __slots__ = ("constants", "kernel", "variant", "version")

    def __init__(self, variant: Variant, version: int) -> None:
        self.variant = variant
        self.version = version
        self.constants = _row_constants(variant, version)
        self.kernel: Any = None

    def __call__(self, net: _Layers, race: _Layers | None, crashed: _Layers | None,
                 me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
                 opp_flag: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """`evaluate(variant, version, net, race, crashed, me, opp, me_flag, opp_flag)`."""
        n = me.shape[0]
        if 0 < n < BATCH_ROWS:
            held: Any = net, race, crashed  # `Net`s hold `params`; others are converted
            if self.kernel is None:
                self.kernel = _typed_row_kernel()
            out = np.empty((n, 5), dtype=_F64)
            try:
                n_home = self.kernel(
                    me, opp, me_flag, opp_flag, self.constants, held[0].params,
                    _NO_NETWORK if race is None else held[1].params,
                    _NO_NETWORK if crashed is None else held[2].params, out)
            except (TypeError, AttributeError):  # of other types: `evaluate` converts them
                pass
            else:
                return (out, None) if not n_home else (out, _home_rows(me, opp, n_home))
        return evaluate(self.variant, self.version, net, race, crashed, me, opp, me_flag,
                        opp_flag)


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
