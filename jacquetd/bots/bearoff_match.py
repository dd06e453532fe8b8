"""Exact match-play cube figures of short bear-offs, solved for one score at a time.

The two-sided tables (`bearoff_cube.py`) hold money equities: per unit of the
cube, the same at every score. In a match the cube's worth depends on the
score (a redouble to 4 at 2-away/5-away wins the match for one side and not
the other), so there is no table to build ahead: `solve` takes the score, the
cube and the two sides' homes and solves, by the same backward induction
over the pips left, every pair of homes the game can still reach, in
match-winning chances, at every cube level the game can still see:

- the side on roll plays each roll to its best (its match-winning chance),
  bearing off its last checker wins the cube's value, valued by the match
  equity table at the score that leaves (`met.MatchModel.mwc`);
- before it rolls, it doubles when that gains (not in the Crawford game, not
  with the opponent's cube, not when the cube already wins it the match), and
  the opponent takes or passes, whichever is worth more to it.

Neither side can be gammoned here (each has borne off a checker), so a game
ends at the cube's value. The pairs come from the table's one-sided plays
(`TwoSided.moves`): at most seven checkers a side. A solve is small where the
homes are low (a few hundred pairs) and is refused above `MAX_PAIRS`; it covers
every later turn of its game at that score, either side on roll and the cube
at any level, so `match_figures` answers those from the recent solves it keeps.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

from jacquetd import kernel_cache

from . import bearoff, met
from .bearoff_cube import TwoSided

kernel_cache.check()  # before anything here compiles or loads a cache

MAX_PAIRS = 40_000
"""The most pairs of homes one solve takes (about a tenth of a second compiled); homes of
six or seven checkers spread over the board reach more, and are left to the search."""

_ROLL_WEIGHTS = np.array([w for _a, _b, w in bearoff.ROLLS])
CENTRE, A_OWNS, B_OWNS = 0, 1, 2


@dataclass(frozen=True)
class MatchCube:
    """Exact figures of the side on roll, in its match-winning chances."""

    no_double: float
    double_take: float
    double_pass: float


def closure(t: TwoSided, starts: list[int]) -> np.ndarray:
    """The ranks reachable from `starts` by the plays of any rolls (rank 0, all off,
    excluded), sorted."""
    seen = np.zeros(t.moves.shape[0], dtype=np.bool_)
    _reach(t.moves, t.counts, np.array([s for s in starts if s > 0], dtype=np.int64), seen)
    return np.flatnonzero(seen)


@njit(cache=True)
def _reach(moves: np.ndarray, counts: np.ndarray, starts: np.ndarray, seen: np.ndarray
           ) -> None:  # pragma: no cover - compiled
    stack = np.empty(seen.shape[0], dtype=np.int64)
    top = 0
    for s in starts:
        if not seen[s]:
            seen[s] = True
            stack[top] = s
            top += 1
    while top:
        top -= 1
        a = stack[top]
        for r in range(moves.shape[1]):
            for m in range(counts[a, r]):
                a2 = moves[a, r, m]
                if a2 > 0 and not seen[a2]:
                    seen[a2] = True
                    stack[top] = a2
                    top += 1


class Solved:
    """One score's solution over the pairs of homes a game can reach: side A (on roll at
    the root) needing `need_a`, side B needing `need_b`, the cube at `cube` and every
    level above it.

    `figures` reads the figures of any position the solve covers, either side on roll,
    at any of its cube levels: a game's later turns at the same score are read from the
    solve made at its first (`match_figures` keeps the recent ones)."""

    def __init__(self, t: TwoSided, a_ranks: np.ndarray, b_ranks: np.ndarray,
                 need_a: int, need_b: int, cube: int, crawford: bool,
                 model: met.MatchModel) -> None:
        self.table = t
        self.model = model
        self.need_a, self.need_b = need_a, need_b
        self.crawford = crawford
        post = not crawford and (need_a == 1 or need_b == 1)
        nxt = post or crawford
        levels = [cube]
        while levels[-1] < max(need_a, need_b):
            levels.append(2 * levels[-1])
        self.levels = levels
        n_levels = len(levels)
        self.win_a = np.array([model.mwc(need_a - v, need_b, nxt) for v in levels])
        self.win_b = np.array([model.mwc(need_a, need_b - v, nxt) for v in levels])
        can_a = np.array([not crawford and v < need_a and k + 1 < n_levels
                          for k, v in enumerate(levels)])
        can_b = np.array([not crawford and v < need_b and k + 1 < n_levels
                          for k, v in enumerate(levels)])
        size = t.moves.shape[0]
        self.a_index = np.full(size, -1, dtype=np.int64)
        self.b_index = np.full(size, -1, dtype=np.int64)
        self.a_index[a_ranks] = np.arange(len(a_ranks))
        self.b_index[b_ranks] = np.arange(len(b_ranks))
        pips = _pips(t.checkers)
        ga, gb = np.meshgrid(a_ranks, b_ranks, indexing="ij")
        ga, gb = ga.ravel(), gb.ravel()
        order = np.argsort(pips[ga] + pips[gb], kind="stable")
        self.va = np.zeros((len(a_ranks), len(b_ranks), n_levels, 3))
        """va[i, j, k, owner]: A's chance, A on roll before its cube action, taking its
        best one (homes a_ranks[i] and b_ranks[j], the cube at levels[k])."""
        self.vb = np.zeros((len(b_ranks), len(a_ranks), n_levels, 3))
        """vb[j, i, k, owner]: A's chance, B on roll, B taking its best cube action."""
        _solve(ga[order], gb[order], self.a_index, self.b_index, t.moves, t.counts,
               _ROLL_WEIGHTS, self.win_a, self.win_b, can_a, can_b, self.va, self.vb)

    def figures(self, t: TwoSided, me: int, opp: int, need_me: int, need_opp: int,
                cube: int, owner: str, crawford: bool, model: met.MatchModel
                ) -> MatchCube | None:
        """The figures of the side on roll (home rank `me`, the opponent's `opp`) needing
        `need_me`, with the cube at `cube`, `owner` 'centre', 'me' or 'opponent' (from the
        side on roll), or None when this solve does not cover it."""
        if (t is not self.table or model is not self.model or crawford != self.crawford
                or cube not in self.levels
                or (owner == "centre" and cube != self.levels[0])):
            return None
        k = self.levels.index(cube)
        # at equal needs both orientations may answer (the same game, the same figures)
        if (need_me, need_opp) == (self.need_a, self.need_b) and min(
                self.a_index[me], self.b_index[opp]) >= 0:
            i, j = self.a_index[me], self.b_index[opp]
            code = {"centre": CENTRE, "me": A_OWNS, "opponent": B_OWNS}[owner]
            nd = _play_on(t, me, self.a_index, self.vb[j, :, k, code], float(self.win_a[k]),
                          1.0)
            dt = float(self.va[i, j, min(k + 1, len(self.levels) - 1), B_OWNS])
            return MatchCube(nd, dt, float(self.win_a[k]))
        if (need_me, need_opp) == (self.need_b, self.need_a) and min(
                self.b_index[me], self.a_index[opp]) >= 0:
            j, i = self.b_index[me], self.a_index[opp]
            code = {"centre": CENTRE, "me": B_OWNS, "opponent": A_OWNS}[owner]
            nd = _play_on(t, me, self.b_index, self.va[i, :, k, code], float(self.win_b[k]),
                          -1.0)
            dt = float(self.vb[j, i, min(k + 1, len(self.levels) - 1), A_OWNS])
            return MatchCube(1.0 - nd, 1.0 - dt, 1.0 - float(self.win_b[k]))
        return None


def _play_on(t: TwoSided, me: int, index: np.ndarray, after: np.ndarray, win: float,
             sign: float) -> float:
    """A's chance when the side on roll (home rank `me`; A when `sign` is 1, B when -1)
    plays each roll to its best without doubling: `after[index[rank]]` is A's chance
    once it has played to `rank`, `win` A's chance when it bears off its last checker."""
    total = 0.0
    for r, w in enumerate(_ROLL_WEIGHTS):
        total += w * sign * max(
            sign * (win if a2 == 0 else float(after[index[a2]]))
            for a2 in t.moves[me, r, :t.counts[me, r]])
    return total


_RECENT: deque[Solved] = deque(maxlen=8)
"""The latest solves of this process: the turns after a game's first short bear-off
decision at a score are read from its solve."""


def may_double(need_me: int, cube: int, owner: str, crawford: bool) -> bool:
    """Whether the side on roll may usefully double (C5: not in the Crawford game; not with
    the opponent's cube; not when the cube already wins it the match)."""
    return not crawford and owner != "opponent" and cube < need_me


def match_figures(t: TwoSided, me: int, opp: int, need_me: int, need_opp: int, cube: int,
                  owner: str, crawford: bool, model: met.MatchModel,
                  more_opp: tuple[int, ...] = ()) -> MatchCube | None:
    """The exact figures of the side on roll (home ranks `me` and `opp` of `t`), from a
    recent solve that covers them or a new one (which also covers the opponent's homes
    `more_opp`, for a search's other leaves); None past `MAX_PAIRS`."""
    for solved in tuple(_RECENT):  # a copy: bots may decide in several threads
        found = solved.figures(t, me, opp, need_me, need_opp, cube, owner, crawford, model)
        if found is not None:
            return found
    solved_now = solve(t, [me], [opp, *more_opp], need_me, need_opp, cube, crawford, model)
    if solved_now is None:
        return None
    _RECENT.append(solved_now)
    return solved_now.figures(t, me, opp, need_me, need_opp, cube, owner, crawford, model)


@lru_cache(maxsize=4)
def _pips(checkers: int) -> np.ndarray:
    """Pips of every rank of a table of `checkers` checkers a side."""
    pips = np.zeros(bearoff.n_positions(checkers), dtype=np.int64)
    for pos in bearoff.all_positions(checkers):
        pips[bearoff.rank(pos)] = sum((q + 1) * c for q, c in enumerate(pos))
    return pips


@njit(cache=True)
def _solve(order_a: np.ndarray, order_b: np.ndarray, a_index: np.ndarray,
           b_index: np.ndarray, moves: np.ndarray, counts: np.ndarray, weights: np.ndarray,
           win_a: np.ndarray, win_b: np.ndarray, can_a: np.ndarray, can_b: np.ndarray,
           va: np.ndarray, vb: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fill va (A on roll) and vb (B on roll), A's chances, highest cube level first (a
    double leads one level up), pairs in order of the pips left on both sides (a roll
    leads to a pair earlier in that order)."""
    n_levels = win_a.shape[0]
    work = np.empty((2, 3))
    for k in range(n_levels - 1, -1, -1):
        o_first = 0 if k == 0 else 1  # the cube is centred only as it was
        for n in range(order_a.shape[0]):
            a = order_a[n]
            b = order_b[n]
            i = a_index[a]
            j = b_index[b]
            # A on roll maximises A's chance; B on roll minimises it
            up = va[i, j, k + 1, B_OWNS] if can_a[k] else 0.0
            _turn(a, a_index, vb[j, :, k, :], win_a[k], up, can_a[k], B_OWNS, 1.0, moves,
                  counts, weights, o_first, va[i, j, k, :], work)
            up = vb[j, i, k + 1, A_OWNS] if can_b[k] else 0.0
            _turn(b, b_index, va[i, :, k, :], win_b[k], up, can_b[k], A_OWNS, -1.0, moves,
                  counts, weights, o_first, vb[j, i, k, :], work)


@njit(cache=True)
def _turn(rank: int, index: np.ndarray, after: np.ndarray, win: float, doubled: float,
          can: bool, theirs: int, sign: float, moves: np.ndarray, counts: np.ndarray,
          weights: np.ndarray, o_first: int, out: np.ndarray, work: np.ndarray
          ) -> None:  # pragma: no cover - compiled
    """One side's turn for every cube owner at once: each roll's best play (`after[index[
    rank]]` is A's chance once played there, `win` when it bears off its last checker),
    then its double to `doubled` (A's chance after a take) or a pass at `win`, where it
    may double and does not face the opponent's (`theirs`) cube. `sign` is 1 for A, -1
    for B (which minimises A's chance); `out[o]` gets A's chance. `work`: scratch space."""
    total = work[0]
    best = work[1]
    total[:] = 0.0
    for r in range(weights.shape[0]):
        best[:] = -2.0
        for m in range(counts[rank, r]):
            r2 = moves[rank, r, m]
            for o in range(o_first, 3):
                v = sign * (win if r2 == 0 else after[index[r2], o])
                if v > best[o]:
                    best[o] = v
        for o in range(o_first, 3):
            total[o] += weights[r] * best[o]
    for o in range(o_first, 3):
        value = total[o]
        if can and o != theirs:
            value = max(value, min(sign * doubled, sign * win))
        out[o] = sign * value


def solve(t: TwoSided, a_starts: list[int], b_starts: list[int], need_a: int, need_b: int,
          cube: int, crawford: bool, model: met.MatchModel) -> Solved | None:
    """The solution covering every pair reachable from `a_starts` x `b_starts` (ranks of
    `t`), or None when there are more than `MAX_PAIRS` such pairs."""
    a_ranks = closure(t, a_starts)
    b_ranks = closure(t, b_starts)
    if len(a_ranks) * len(b_ranks) > MAX_PAIRS or not len(a_ranks) or not len(b_ranks):
        return None
    return Solved(t, a_ranks, b_ranks, need_a, need_b, cube, crawford, model)
