"""The plays of many positions, for every roll, pruned, in one compiled call.

A search level expands each of its positions (side on roll, before the roll) into
the plays of the 21 rolls, and, with a pruning network, keeps of each roll only the
plays that network ranks best (`prune.PruneNet.kept_rows`). `expand` does this for
a whole batch of positions in one compiled call: the compiled generator's walk
(`jacquetd.fastgen.kernel`), the pruning network's scores and selection
(`prune._keep_rows`), the rows gathered for the evaluator. It gives the same rows,
in the same order, as generating and pruning each position in turn (the tests
compare the two); what it saves is the work around each position.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from jacquetd import fastgen, kernel_cache
from jacquetd.rules import Variant

from . import prune
from .prune import PruneNet

kernel_cache.check()  # before anything here compiles or loads a cache

_njit: Any = prune._njit
N_ROLLS = 21


def available() -> bool:
    """Whether the compiled expansion is there (numba and the compiled generator)."""
    return _expand is not None


def _expand_py(mes: np.ndarray, opps: np.ndarray, gflags: int, w8: np.ndarray,
               w64: np.ndarray, pruning: bool, min_rows: int, pw1: np.ndarray,
               pb1: np.ndarray, pw2: np.ndarray, pb2: float, out_me: np.ndarray,
               out_opp: np.ndarray, out_group: np.ndarray) -> int:
    """Rows of every kept play of every roll of each position `s` (mover `mes[s]`,
    opponent `opps[s]`) into `out_me`, `out_opp` (the sides after the play) and
    `out_group` (`s * 21 + roll`). Returns the number of rows; -1 when a roll's plays
    outgrow the workspace, minus the rows needed (below -1) when the outputs are too
    small."""
    total = 0
    rows = np.empty((512, 52), dtype=np.int8)
    bounds = np.zeros(N_ROLLS + 1, dtype=np.int64)
    no_scores = np.empty(0, dtype=np.float32)
    cap = out_me.shape[0]
    short = False
    for s in range(mes.shape[0]):
        me = mes[s]
        opp = opps[s]
        n = 0
        r = 0
        for a in range(1, 7):
            for b in range(a, 7):
                n_ent = _walk(me, opp, a, b, gflags, w8, w64)
                if n_ent == 0:
                    return -1
                for e in range(n_ent):
                    if w8[_ENT0 + e, _E_KEEP]:
                        if n == rows.shape[0]:
                            grown = np.empty((2 * n, 52), dtype=np.int8)
                            grown[:n] = rows[:n]
                            rows = grown
                        _write_position(w8, e, opp, gflags, rows, n)
                        n += 1
                r += 1
                bounds[r] = n
        after_me = np.empty((n, 26), dtype=np.int16)
        after_opp = np.empty((n, 26), dtype=np.int16)
        for i in range(n):
            for j in range(26):
                after_me[i, j] = rows[i, j]
                after_opp[i, j] = rows[i, 26 + j]
        if pruning and n > min_rows:
            kept, kept_bounds = prune._keep_rows(after_me, after_opp, bounds, pw1, pb1, pw2,
                                                 pb2, no_scores)
        else:
            kept = np.arange(n)
            kept_bounds = bounds
        for roll in range(N_ROLLS):
            for k in range(kept_bounds[roll], kept_bounds[roll + 1]):
                if total < cap:
                    i = kept[k]
                    for j in range(26):
                        out_me[total, j] = after_me[i, j]
                        out_opp[total, j] = after_opp[i, j]
                    out_group[total] = s * N_ROLLS + roll
                else:
                    short = True
                total += 1
    return -total if short else total


_expand: Any = None
_walk: Any = None
_write_position: Any = None
_ENT0 = _E_KEEP = 0
if _njit is not None and prune.COMPILED and fastgen.available():
    from jacquetd.fastgen import kernel as _gk

    _walk = _gk._walk
    _write_position = _gk._write_position
    _ENT0, _E_KEEP = _gk.ENT0, _gk.E_KEEP
    _expand = _njit(cache=True, nogil=True)(_expand_py)


class _Workspace(threading.local):
    """Each thread's generator workspace and output size, grown as the plays need."""

    def __init__(self) -> None:
        self.entries = 4096
        self.rows = 4096
        self.w8: np.ndarray
        self.w64: np.ndarray
        if _expand is not None:
            self.w8, self.w64 = _gk.new_workspace(self.entries)


_space = _Workspace()
_NO_PRUNE = (np.zeros((prune.N_INPUTS, 1), np.float32), np.zeros(1, np.float32),
             np.zeros(1, np.float32), 0.0)


def expand(variant: Variant, mes: np.ndarray, opps: np.ndarray, pruner: PruneNet | None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kept plays of every roll of each position (mover `mes[s]`, opponent
    `opps[s]`, 26 counts each): the sides after each play ((M, 26) int16 each, mover
    then opponent) and each row's group, `s * 21 + roll` (rolls in `search.ROLLS`
    order), in the order of the positions, the rolls and the plays. A roll's plays are
    pruned by `pruner` when the position has more than 21 x `prune.MIN_KEEP` plays."""
    if _expand is None:
        raise RuntimeError("the compiled expansion needs numba and the compiled generator")
    mes = np.ascontiguousarray(mes, dtype=np.int16)
    opps = np.ascontiguousarray(opps, dtype=np.int16)
    sp = _space
    w1, b1, w2, b2 = _NO_PRUNE if pruner is None else (pruner.w1, pruner.b1, pruner.w2,
                                                         float(pruner.b2))
    while True:
        out_me = np.empty((sp.rows, 26), dtype=np.int16)
        out_opp = np.empty((sp.rows, 26), dtype=np.int16)
        group = np.empty(sp.rows, dtype=np.int64)
        n = _expand(mes, opps, fastgen.flags_of(variant), sp.w8, sp.w64, pruner is not None,
                    N_ROLLS * prune.MIN_KEEP, w1, b1, w2, b2, out_me, out_opp, group)
        if n >= 0:
            return out_me[:n], out_opp[:n], group[:n]
        if n == -1:  # a roll's plays outgrew the generator's workspace
            sp.entries *= 2
            sp.w8, sp.w64 = _gk.new_workspace(sp.entries)
        else:
            sp.rows = max(2 * sp.rows, -n)
