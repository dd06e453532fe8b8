"""Exact cubeful money equities of short bear-offs, for both sides at once.

A two-sided table holds, for every pair of bear-off positions with at most
`checkers` checkers on each side's six home points, the money equity of the
side on roll under perfect play, checker play and cube alike:

- ``cubeless``: the cube ignored (2 x winning chance - 1);
- ``centred``: the cube in the middle (the side on roll may double);
- ``owned``: the side on roll owns the cube (it may redouble);
- ``unavailable``: the opponent owns it (the side on roll may not double);
- ``play_on_centred`` and ``play_on_owned``: not doubling, from the first two.

Equities are per unit of the cube in play, before the side on roll decides
whether to double. A double is taken or passed as the opponent's equity
says; a passed double is worth 1. The tables are solved backwards over the
sum of both pip counts, as GNU Backgammon's two-sided bear-off database is,
and need no network: Janowski's formula and the one-roll cubeful search
(`cubeful.py`) guess a short bear-off's cube efficiency; this table has it.

Neither side can be gammoned here: with at most `checkers` (default 6) of
its 15 checkers left, each side has borne some off. The same holds for
Jacquet's marcia (J12): the tables serve every variant, one per bearing-off
rule (`bearoff.RULES`), since a side's plays in a bear-off do not depend on
the other side.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np
from numba import njit

from . import bearoff

log = logging.getLogger(__name__)

CHECKERS = 6
"""Checkers per side of the shipped tables (924 positions a side, 853,776 pairs), as
GNU Backgammon's default two-sided database: built in about two seconds."""

_ROLL_WEIGHTS = np.array([w for _a, _b, w in bearoff.ROLLS])


@dataclass(frozen=True)
class MoneyCube:
    """Exact money figures of a bear-off for the side on roll, per unit of the cube."""

    no_double: float
    """Playing on without doubling, with the cube where it is."""
    double_take: float
    """After doubling and a take (the opponent then owns the cube at twice the value)."""
    double_pass: float
    """1: the opponent passes."""
    cubeless: float


class TwoSided:
    """One bearing-off rule's two-sided table (see the module's docstring)."""

    def __init__(self, rule: str, checkers: int, cubeless: np.ndarray, centred: np.ndarray,
                 owned: np.ndarray, unavailable: np.ndarray, play_on_centred: np.ndarray,
                 play_on_owned: np.ndarray) -> None:
        self.rule = rule
        self.checkers = checkers
        self.cubeless = cubeless
        """cubeless[a, b]: equity of the side on roll with home `a` against home `b`
        (ranks of `bearoff.rank_batch`)."""
        self.centred = centred
        self.owned = owned
        self.unavailable = unavailable
        self.play_on_centred = play_on_centred
        """The no-double equity with the cube centred (`centred` is the best of it and
        doubling); `play_on_owned` the same with the side's own cube."""
        self.play_on_owned = play_on_owned

    @property
    def size(self) -> int:
        """Positions a side: the ranks below it are those with at most `checkers`."""
        return comb(self.checkers + bearoff.POINTS, bearoff.POINTS)

    def rank(self, home: tuple[int, ...] | list[int]) -> int | None:
        """The rank of a side's home (counts on points 1-6), or None when it has more
        checkers than the table holds or none at all (the game is over)."""
        total = sum(home)
        if total == 0 or total > self.checkers:
            return None
        return bearoff.rank(home)

    def covers(self, me_home: tuple[int, ...] | list[int],
               opp_home: tuple[int, ...] | list[int]) -> bool:
        """Whether both sides are in the table."""
        return self.rank(me_home) is not None and self.rank(opp_home) is not None

    def money(self, me_home: tuple[int, ...] | list[int],
              opp_home: tuple[int, ...] | list[int], owner: str) -> MoneyCube:
        """The figures of the side on roll (`me_home`) for a cube `owner` 'centre', 'me'
        or 'opponent'. With the opponent's cube, `double_take` is what a double would be
        worth if it were allowed (it is not): the caller answers 'no_double'."""
        a = self.rank(me_home)
        b = self.rank(opp_home)
        if a is None or b is None:
            raise ValueError("the position is not in the two-sided bear-off table")
        dt = 2.0 * float(self.unavailable[a, b])
        nd = {"centre": self.play_on_centred, "me": self.play_on_owned,
              "opponent": self.unavailable}[owner][a, b]
        return MoneyCube(float(nd), dt, 1.0, float(self.cubeless[a, b]))

    def leaf_equity(self, me_home: tuple[int, ...] | list[int],
                    opp_home: tuple[int, ...] | list[int], owner: str) -> float:
        """The cubeful equity of the side on roll taking its best cube action: what a
        search's leaf is worth."""
        a = self.rank(me_home)
        b = self.rank(opp_home)
        if a is None or b is None:
            raise ValueError("the position is not in the two-sided bear-off table")
        table = {"centre": self.centred, "me": self.owned, "opponent": self.unavailable}
        return float(table[owner][a, b])


@cache
def _successors(rule: str, checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """(moves, counts): moves[a, r, :counts[a, r]] are the ranks every legal play of roll
    r (in `bearoff.ROLLS` order) reaches from rank a; rank 0 is all borne off."""
    positions = bearoff.all_positions(checkers)
    size = comb(checkers + bearoff.POINTS, bearoff.POINTS)
    found: list[list[list[int]]] = [[[] for _ in bearoff.ROLLS] for _ in range(size)]
    for pos in positions:
        if not any(pos):
            continue
        a = bearoff.rank(pos)
        for r, (d1, d2, _w) in enumerate(bearoff.ROLLS):
            found[a][r] = sorted(bearoff.rank(p) for p in bearoff.plays(pos, d1, d2, rule))
    width = max(len(m) for row in found for m in row)
    moves = np.zeros((size, len(bearoff.ROLLS), width), dtype=np.int32)
    counts = np.zeros((size, len(bearoff.ROLLS)), dtype=np.int32)
    for a, row in enumerate(found):
        for r, m in enumerate(row):
            moves[a, r, :len(m)] = m
            counts[a, r] = len(m)
    return moves, counts


@njit(cache=True)
def _solve(order_a: np.ndarray, order_b: np.ndarray, moves: np.ndarray, counts: np.ndarray,
           weights: np.ndarray, cl: np.ndarray, ec: np.ndarray, eo: np.ndarray,
           ex: np.ndarray, nd_c: np.ndarray, nd_o: np.ndarray
           ) -> None:  # pragma: no cover - compiled
    """Fill the six tables pair by pair, in order of the pips left on both sides: every
    pair a roll leads to (the opponent then on roll) comes earlier in that order."""
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
        nd_c[a, b] = s_c
        nd_o[a, b] = s_o


def build(rule: str, checkers: int = CHECKERS) -> TwoSided:
    """Solve the two-sided table of `rule` for up to `checkers` checkers a side."""
    if rule not in bearoff.RULES:
        raise ValueError(f"unknown bear-off rule {rule!r}")
    moves, counts = _successors(rule, checkers)
    size = moves.shape[0]
    positions = bearoff.all_positions(checkers)
    pips = np.zeros(size, dtype=np.int64)
    for pos in positions:
        pips[bearoff.rank(pos)] = sum((q + 1) * c for q, c in enumerate(pos))
    grid_a, grid_b = np.meshgrid(np.arange(1, size), np.arange(1, size), indexing="ij")
    a_idx = grid_a.ravel()
    b_idx = grid_b.ravel()
    order = np.argsort(pips[a_idx] + pips[b_idx], kind="stable")
    tables = [np.zeros((size, size)) for _ in range(6)]
    _solve(a_idx[order], b_idx[order], moves, counts, _ROLL_WEIGHTS, *tables)
    return TwoSided(rule, checkers, *(t.astype(np.float32) for t in tables))


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


@cache
def table(rule: str) -> TwoSided:
    """The shipped-size table of `rule`, solved on first use in this process (about two
    seconds, the first time also the compile of its kernel)."""
    log.info("event=bearoff_cube_build rule=%s checkers=%d", rule, CHECKERS)
    return build(rule, CHECKERS)
