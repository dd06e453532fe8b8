"""Exact cubeful money equities of short bear-offs, for both sides at once.

A two-sided table holds, for every pair of bear-off positions with at most
`CHECKERS` checkers on each side's six home points, the money equity of the
side on roll under perfect play, checker play and cube alike, before it
decides whether to double:

- ``centred``: the cube in the middle (the side on roll may double);
- ``owned``: the side on roll owns the cube (it may redouble);
- ``unavailable``: the opponent owns it (the side on roll may not double).

Equities are per unit of the cube in play. A double is taken or passed as
the opponent's equity says; a passed double is worth 1. The tables are
solved backwards over the sum of both pip counts, as GNU Backgammon's
two-sided bear-off database is, and need no network: Janowski's formula and
the one-roll cubeful search (`cubeful.py`) guess a short bear-off's cube
efficiency; this table has it. Playing on without doubling is solved again
for one roll when asked (`TwoSided.money`), from the plays stored with the
tables.

Neither side can be gammoned here: with at most `CHECKERS` of its 15
checkers left, each side has borne some off. The same holds for Jacquet's
marcia (J12): the tables serve every variant, one per bearing-off rule
(`bearoff_store.RULES`), since a side's plays in a bear-off do not depend on the
other side. They are cached beside the one-sided databases
(`bearoff_store.cache_dir`; 20 MB a rule), built ahead by ``python -m
jacquetd.bots.bearoff`` and by the daemon at start, in about five seconds
each.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from jacquetd import kernel_cache

from . import bearoff_kernel, bearoff_store

kernel_cache.check()  # before anything here compiles or loads a cache

log = logging.getLogger(__name__)

CHECKERS = 7
"""Checkers per side (1,716 positions a side, 2.9 million pairs). GNU Backgammon's
default two-sided database holds 6; 7 measured closer to its 2-ply cube decisions
(benchmarks/bench_cube.py, README)."""

DB_VERSION = 1

_SCALE = 32767.5
"""Equities are kept as 16-bit integers, (equity + 1) x `_SCALE` (a step of 0.00003), as
GNU Backgammon keeps its own: 6 MB a table instead of 12 in memory and on disk."""


def _quantize(equities: np.ndarray) -> np.ndarray:
    return np.round((equities.astype(np.float64) + 1.0) * _SCALE).astype(np.uint16)


def _equity(stored: np.integer | int) -> float:
    return float(stored) / _SCALE - 1.0


_ROLL_WEIGHTS = np.array([w for _a, _b, w in bearoff_store.ROLLS])


@dataclass(frozen=True)
class MoneyCube:
    """Exact money figures of a bear-off for the side on roll, per unit of the cube."""

    no_double: float
    """Playing on without doubling, with the cube where it is."""
    double_take: float
    """After doubling and a take (the opponent then owns the cube at twice the value)."""
    double_pass: float
    """1: the opponent passes."""


class TwoSided:
    """One bearing-off rule's two-sided tables (see the module's docstring)."""

    def __init__(self, rule: str, checkers: int, centred: np.ndarray, owned: np.ndarray,
                 unavailable: np.ndarray, moves: np.ndarray, counts: np.ndarray,
                 cubeless: np.ndarray | None = None) -> None:
        self.rule = rule
        self.checkers = checkers
        self.centred = centred
        """centred[a, b]: equity of the side on roll with home `a` against home `b`
        (ranks of `bearoff_store.rank`), the cube centred, stored (`_SCALE`); `owned` and
        `unavailable` alike. `equities` gives them as numbers."""
        self.owned = owned
        self.unavailable = unavailable
        self.moves = moves
        """moves[a, r, :counts[a, r]]: the ranks the plays of roll r (`bearoff_store.ROLLS`)
        reach from rank a; rank 0 is all borne off."""
        self.counts = counts
        self.cubeless = cubeless
        """The cubeless equities (2 x winning chance - 1), kept only when asked
        (`build(..., cubeless=True)`)."""

    @property
    def size(self) -> int:
        """Positions a side: the ranks below it are those with at most `checkers`."""
        return comb(self.checkers + bearoff_store.POINTS, bearoff_store.POINTS)

    def rank(self, home: tuple[int, ...] | list[int]) -> int | None:
        """The rank of a side's home (counts on points 1-6), or None when it has more
        checkers than the table holds or none at all (the game is over)."""
        total = sum(home)
        if total == 0 or total > self.checkers:
            return None
        return bearoff_store.rank(home)

    def _ranks(self, me_home: tuple[int, ...] | list[int],
               opp_home: tuple[int, ...] | list[int]) -> tuple[int, int]:
        a = self.rank(me_home)
        b = self.rank(opp_home)
        if a is None or b is None:
            raise ValueError("the position is not in the two-sided bear-off table")
        return a, b

    def money(self, me_home: tuple[int, ...] | list[int],
              opp_home: tuple[int, ...] | list[int], owner: str) -> MoneyCube:
        """The figures of the side on roll (`me_home`) for a cube `owner` 'centre', 'me'
        or 'opponent'. With the opponent's cube, `double_take` is what a double would be
        worth if it were allowed (it is not): the caller answers 'no_double'."""
        a, b = self._ranks(me_home, opp_home)
        after = {"centre": self.centred, "me": self.unavailable,
                 "opponent": self.owned}[owner]  # the opponent's cube, on roll next
        total = 0.0
        for r, w in enumerate(_ROLL_WEIGHTS):
            reached = self.moves[a, r, :self.counts[a, r]]
            total += w * max(1.0 if a2 == 0 else -_equity(after[b, a2]) for a2 in reached)
        return MoneyCube(float(total), 2.0 * _equity(self.unavailable[a, b]), 1.0)

    def leaf_equity(self, me_home: tuple[int, ...] | list[int],
                    opp_home: tuple[int, ...] | list[int], owner: str) -> float:
        """The cubeful equity of the side on roll taking its best cube action: what a
        search's leaf is worth."""
        a, b = self._ranks(me_home, opp_home)
        table = {"centre": self.centred, "me": self.owned, "opponent": self.unavailable}
        return _equity(table[owner][a, b])

    def equities(self, name: str) -> np.ndarray:
        """The table `name` ('centred', 'owned' or 'unavailable') as equities."""
        stored: np.ndarray = getattr(self, name)
        return stored.astype(np.float64) / _SCALE - 1.0


def _successors(rule: str, checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """(moves, counts): moves[a, r, :counts[a, r]] are the ranks every legal play of roll
    r (in `bearoff_store.ROLLS` order) reaches from rank a; rank 0 is all borne off."""
    positions = bearoff_store.by_rank(checkers)
    size = positions.counts.shape[0]
    work = bearoff_kernel.Workspace(size)
    out = np.zeros(size, dtype=np.int64)
    found: list[list[np.ndarray]] = [[out[:0]] * len(bearoff_store.ROLLS) for _ in range(size)]
    for a in range(1, size):
        for r, (d1, d2, _w) in enumerate(bearoff_store.ROLLS):
            n = bearoff_kernel.plays_into(positions, work, a, d1, d2, rule, out)
            found[a][r] = out[:n].copy()
    width = max(len(m) for row in found for m in row)
    moves = np.zeros((size, len(bearoff_store.ROLLS), width), dtype=np.int16)
    counts = np.zeros((size, len(bearoff_store.ROLLS)), dtype=np.int16)
    for a, row in enumerate(found):
        for r, m in enumerate(row):
            moves[a, r, :len(m)] = m
            counts[a, r] = len(m)
    return moves, counts


@njit(cache=True)
def _solve(order_a: np.ndarray, order_b: np.ndarray, moves: np.ndarray, counts: np.ndarray,
           weights: np.ndarray, cl: np.ndarray, ec: np.ndarray, eo: np.ndarray,
           ex: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fill the four tables (cubeless, centred, owned, unavailable) pair by pair, in order
    of the pips left on both sides: every pair a roll leads to (the opponent then on
    roll) comes earlier in that order."""
    for i in range(order_a.shape[0]):
        a = order_a[i]
        b = order_b[i]
        s_cl = 0.0
        s_c = 0.0
        s_o = 0.0
        s_x = 0.0
        for r in range(weights.shape[0]):
            best_cl = -2.0
            best_c = -2.0
            best_o = -2.0
            best_x = -2.0
            for m in range(counts[a, r]):
                a2 = moves[a, r, m]
                if a2 == 0:  # all off: the side on roll wins the cube's value
                    v_cl = 1.0
                    v_c = 1.0
                    v_o = 1.0
                    v_x = 1.0
                else:  # the opponent on roll, from its side of the cube
                    v_cl = -cl[b, a2]
                    v_c = -ec[b, a2]
                    v_o = -ex[b, a2]  # we own it: the opponent may not double
                    v_x = -eo[b, a2]  # it owns it: it may redouble
                best_cl = max(best_cl, v_cl)
                best_c = max(best_c, v_c)
                best_o = max(best_o, v_o)
                best_x = max(best_x, v_x)
            w = weights[r]
            s_cl += w * best_cl
            s_c += w * best_c
            s_o += w * best_o
            s_x += w * best_x
        double = min(2.0 * s_x, 1.0)  # doubled: the opponent owns the cube, or passes
        cl[a, b] = s_cl
        ec[a, b] = max(s_c, double)
        eo[a, b] = max(s_o, double)
        ex[a, b] = s_x


def build(rule: str, checkers: int = CHECKERS, cubeless: bool = False) -> TwoSided:
    """Solve the two-sided tables of `rule` for up to `checkers` checkers a side (and keep
    the cubeless one with `cubeless`)."""
    if rule not in bearoff_store.RULES:
        raise ValueError(f"unknown bear-off rule {rule!r}")
    moves, counts = _successors(rule, checkers)
    size = moves.shape[0]
    pips = np.zeros(size, dtype=np.int64)
    for pos in bearoff_store.all_positions(checkers):
        pips[bearoff_store.rank(pos)] = sum((q + 1) * c for q, c in enumerate(pos))
    grid_a, grid_b = np.meshgrid(np.arange(1, size), np.arange(1, size), indexing="ij")
    a_idx = grid_a.ravel()
    b_idx = grid_b.ravel()
    order = np.argsort(pips[a_idx] + pips[b_idx], kind="stable")
    cl, ec, eo, ex = (np.zeros((size, size), dtype=np.float32) for _ in range(4))
    _solve(a_idx[order], b_idx[order], moves, counts, _ROLL_WEIGHTS, cl, ec, eo, ex)
    return TwoSided(rule, checkers, _quantize(ec), _quantize(eo), _quantize(ex), moves, counts,
                    cl if cubeless else None)


def cache_path(rule: str) -> Path:
    return bearoff_store.cache_dir() / f"bearoff-cube-{rule}-{CHECKERS}-v{DB_VERSION}.npz"


_LOADED: dict[str, TwoSided] = {}


def _save(t: TwoSided, path: Path) -> None:
    np.savez(path, centred=t.centred, owned=t.owned, unavailable=t.unavailable,
             moves=t.moves, counts=t.counts)


def ready_table(rule: str) -> TwoSided | None:
    """The table of `rule` if it is built (in this process or cached), else None."""
    t = _LOADED.get(rule)
    if t is None:
        try:
            with np.load(cache_path(rule)) as data:
                t = TwoSided(rule, CHECKERS, data["centred"], data["owned"],
                             data["unavailable"], data["moves"], data["counts"])
            if any(getattr(t, name).shape != (t.size, t.size)
                   for name in ("centred", "owned", "unavailable")):
                raise ValueError("the tables do not have the size of their name")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, EOFError):
            log.warning("ignoring unreadable bear-off cache %s", cache_path(rule))
            return None
        _LOADED[rule] = t
    return t


def table(rule: str) -> TwoSided:
    """The table of `rule`, from the cache or built (and cached) now."""
    t = ready_table(rule)
    if t is None:
        t = bearoff_store.locked_build(cache_path(rule), lambda: ready_table(rule),
                                 lambda: build(rule, CHECKERS), _save,
                                 f"bearoff_cube_build rule={rule} checkers={CHECKERS}")
        _LOADED[rule] = t
    return t


def usable_table(rule: str) -> TwoSided | None:
    """The table where it may be used now: built on demand in tools, in the daemon's
    workers only once the daemon has built it (`bearoff_store.never_build`)."""
    return table(rule) if bearoff_store.builds_on_demand() else ready_table(rule)


def homes(me: tuple[int, ...] | np.ndarray, opp: tuple[int, ...] | np.ndarray,
          checkers: int = CHECKERS) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The two sides' homes (counts on points 1-6) when both sides of a position (26
    counts a side: borne off, points 1-24, the bar) are short bear-offs of at most
    `checkers` checkers with at least one left, else None. Cheap: the table is not
    needed to tell."""
    out = []
    for side in (me, opp):
        if any(int(c) for c in side[7:26]):
            return None
        home = tuple(int(c) for c in side[1:7])
        if not 0 < sum(home) <= checkers:
            return None
        out.append(home)
    return out[0], out[1]
