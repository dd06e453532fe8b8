"""Match equities computed by the project, by the standard recursive method.

The model is the continuous (Keeler-Spencer / Janowski) one: during a game
the leader's winning chance p moves like a martingale without jumps, a game
won ends as a gammon with a fixed probability `gammon_rate` (the rest are
single games), and the cube is handled optimally: a side doubles exactly at
its opponent's take point, the opponent takes below its drop point. Between
those points the match-winning chance is linear in p, so every cube state
of every score is a segment (p_low, value_low, p_high, value_high), computed
recursively from the scores a game can lead to; the Crawford rule (C5) and
dead cubes (a cube that already wins its owner the match) are respected.

`MatchModel(g).mwc(a, b)` is the chance that the side needing `a` points
beats the side needing `b` in a fresh game with the cube centred;
`table(n)` gives the usual n x n table. The table is filled iteratively, smallest
needs first (never by deep recursion), exactly up to `EXACT_NEEDS` points and by
scaling beyond. With gammon rate 0 and no cube it
reduces to the coin-flip table; the figures for backgammon's gammon rate
agree with published tables to about a percent (e.g. 2-away/2-away 50%,
Crawford 1-away/2-away about 68-70%).

A published table can stand in for the computed fresh-game values where it
has them (`PublishedTable`, `MatchModel(g, table)`): the take and cash points
of every cube level, the live cube and the dead cube are then drawn through
its figures, and the model computes only the scores beyond its length. In
`backgammon` the Kazaross XG2 table (rolled out by eXtreme Gammon to 9 points,
by GNU Backgammon to 15, projected to 25; shipped in `tables/` with its notice)
replaces the model's own: the model's figures differ from it by up to 1% of
match-winning chance at scores such as 2-away/5-away, and GNU Backgammon's 2-ply
match cube decisions, drawn through that table, disagreed with ours mostly
there (benchmarks/bench_cube.py, README). The Jacquet variants have no
published table: theirs is the model's.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

CENTRE, MINE, THEIRS = 0, 1, 2
EXACT_NEEDS = 64
"""Scores needing more points than this are read from the table at needs scaled down in
proportion (and the cube with them): a long match behaves like a shorter one at the same
relative score, and the exact table to 1000 points would take minutes to compute."""


def _scaled(need: int, scale: float) -> int:
    return max(1, min(EXACT_NEEDS, round(need / scale)))


SegmentFn = Callable[[float, float, float, float], tuple[float, float, float, float]]
"""A live segment as a function of a game's four gammon shares (`MatchModel.segment_fn`):
(win_g, win_bg, lose_g, lose_bg) to (lo, v_lo, hi, v_hi)."""


@dataclass(frozen=True, slots=True)
class Segment:
    """Match-winning chance, linear in p between (lo, v_lo) and (hi, v_hi), flat outside."""

    lo: float
    v_lo: float
    hi: float
    v_hi: float

    def at(self, p: float) -> float:
        if p <= self.lo:
            return self.v_lo
        if p >= self.hi:
            return self.v_hi
        return self.v_lo + (self.v_hi - self.v_lo) * (p - self.lo) / (self.hi - self.lo)

    def solve(self, value: float) -> float:
        """The p at which the segment reaches `value` (clamped to its ends)."""
        if value <= self.v_lo:
            return self.lo
        if value >= self.v_hi:
            return self.hi
        return _solve(self.lo, self.v_lo, self.hi, self.v_hi, value)


TABLES_DIR = Path(__file__).resolve().parent / "tables"

PUBLISHED: dict[str, str] = {"backgammon": "Kazaross-XG2"}
"""The published table each variant's match play uses (`tables/<name>.xml`); a variant
not named here uses the model's own figures."""


@dataclass(frozen=True)
class PublishedTable:
    """A published match equity table: fresh-game match-winning chances by score."""

    name: str
    pre_crawford: tuple[tuple[float, ...], ...]
    """pre_crawford[a - 1][b - 1]: the side needing `a` against the side needing `b`, the
    cube centred; a need of 1 is the Crawford game."""
    post_crawford: tuple[float, ...]
    """post_crawford[b - 1]: the side needing `b` against a side needing 1, after the
    Crawford game."""

    @property
    def length(self) -> int:
        """The longest need the table holds."""
        return min(len(self.pre_crawford), len(self.post_crawford))

    def mwc(self, a: int, b: int, post: bool) -> float | None:
        """The table's figure for needs (a, b), both at least 1, after the Crawford game
        when `post`; None beyond its length."""
        if a > self.length or b > self.length:
            return None
        if post and a == 1:
            return 1.0 - self.post_crawford[b - 1] if b > 1 else 0.5
        if post and b == 1:
            return self.post_crawford[a - 1] if a > 1 else 0.5
        return self.pre_crawford[a - 1][b - 1]


def read_table(text: str, name: str) -> PublishedTable:
    """A table from GNU Backgammon's match-equity XML format (explicit tables only).

    Raises ValueError naming what is missing or malformed.
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ValueError(f"{name}: not well-formed XML ({exc})") from exc

    def rows(tag: str) -> list[list[float]]:
        node = root.find(tag)
        if node is None or node.get("type") != "explicit":
            raise ValueError(f"{name}: no explicit <{tag}>")
        try:
            return [[float(me.text or "") for me in row.findall("me")]
                    for row in node.findall("row")]
        except ValueError as exc:
            raise ValueError(f"{name}: a figure of <{tag}> is not a number") from exc

    pre = rows("pre-crawford-table")
    post = rows("post-crawford-table")
    n = len(pre)
    if n == 0 or any(len(r) != n for r in pre) or len(post) != 1 or len(post[0]) < n:
        raise ValueError(f"{name}: the tables are not {n} x {n} and one row of {n}")
    if any(not 0.0 <= v <= 1.0 for r in pre + post for v in r):
        raise ValueError(f"{name}: a match-winning chance outside 0-1")
    return PublishedTable(name, tuple(tuple(r) for r in pre), tuple(post[0][:n]))


@cache
def published(name: str) -> PublishedTable:
    """The shipped table `tables/<name>.xml`."""
    return read_table((TABLES_DIR / f"{name}.xml").read_text(encoding="utf-8"), name)


class GammonShares(NamedTuple):
    """Of the games side a wins (loses): the shares that are gammons and backgammons
    (backgammons counted within the gammons)."""

    win_g: float
    win_bg: float
    lose_g: float
    lose_bg: float


class MatchModel:
    """Match equities for one gammon rate (the share of won games that are gammons)."""

    def __init__(self, gammon_rate: float = 0.25, table: PublishedTable | None = None
                 ) -> None:
        self.g = float(gammon_rate)
        self.published_table = table
        """Fresh-game figures that replace the model's own up to the table's length."""
        self._mwc = lru_cache(maxsize=None)(self._mwc_uncached)
        self._segment = lru_cache(maxsize=None)(self._segment_uncached)
        self._segment_fns = lru_cache(maxsize=None)(self._segment_fns_uncached)
        self._filled = (0, 0)  # every mwc(i, j) with i <= a, j <= b is cached
        self._filling = False

    def _fill(self, a: int, b: int) -> None:
        """Cache mwc for every pair of needs up to (a, b), smallest sums first.

        Each value then only asks for values already cached (smaller needs) and for
        segments of the same needs with a bigger cube (at most log2 of the needs deep),
        so the recursion stays shallow whatever the match length, and the result does
        not depend on what was cached before.
        """
        fa, fb = self._filled
        a, b = max(a, fa), max(b, fb)
        if (a, b) == (fa, fb) or self._filling:
            return
        self._filling = True
        try:
            self._fill_sums(a, b, fa, fb)
        finally:
            self._filling = False
        self._filled = (a, b)

    def _fill_sums(self, a: int, b: int, fa: int, fb: int) -> None:
        for total in range(2, a + b + 1):
            for i in range(max(1, total - b), min(a, total - 1) + 1):
                j = total - i
                if i <= fa and j <= fb:
                    continue
                self._mwc(i, j, False)
                self._mwc(i, j, True)

    def mwc(self, a: int, b: int, post_crawford: bool = False) -> float:
        """Chance that the side needing `a` wins against the side needing `b` (fresh game)."""
        if max(a, b) > EXACT_NEEDS and min(a, b) > 0:
            scale = max(a, b) / EXACT_NEEDS
            return self.mwc(_scaled(a, scale), _scaled(b, scale), post_crawford)
        if a > self._filled[0] or b > self._filled[1]:
            self._fill(a, b)
        return self._mwc(a, b, post_crawford)

    def _mwc_uncached(self, a: int, b: int, post: bool) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if self.published_table is not None:
            known = self.published_table.mwc(a, b, post)
            if known is not None:
                return known
        crawford = not post and (a == 1 or b == 1)
        seg = self._segment(a, b, 1, CENTRE, crawford, post or crawford)
        return seg.at(0.5)

    def win_value(self, a: int, b: int, cube: int, nxt_post: bool,
                  g: float | None = None, bg: float = 0.0) -> float:
        g = self.g if g is None else g
        return ((1.0 - g) * self.mwc(a - cube, b, nxt_post)
                + (g - bg) * self.mwc(a - 2 * cube, b, nxt_post)
                + bg * self.mwc(a - 3 * cube, b, nxt_post))

    def lose_value(self, a: int, b: int, cube: int, nxt_post: bool,
                   g: float | None = None, bg: float = 0.0) -> float:
        g = self.g if g is None else g
        return ((1.0 - g) * self.mwc(a, b - cube, nxt_post)
                + (g - bg) * self.mwc(a, b - 2 * cube, nxt_post)
                + bg * self.mwc(a, b - 3 * cube, nxt_post))

    def segment(self, a: int, b: int, cube: int, owner: int, crawford: bool,
                post: bool, shares: GammonShares | None = None) -> Segment:
        """The live-cube segment of a game at needs (a, b), `owner` relative to side a.

        The take and cash points at every cube level are computed with the model's
        average gammon rate, or with `shares`, this game's own gammon and backgammon
        shares, as GNU Backgammon's match-play cube formulas use a position's own
        gammon chances: a gammonish game moves the take and cash points.
        """
        a, b, cube = self._needs(a, b, cube)
        if shares is not None:
            return self._segment_of(a, b, cube, owner, crawford, post or crawford, shares)
        return self._segment(a, b, cube, owner, crawford, post or crawford)

    def _segment_uncached(self, a: int, b: int, cube: int, owner: int, crawford: bool,
                          nxt_post: bool) -> Segment:
        return self._segment_of(a, b, cube, owner, crawford, nxt_post, None)

    def _segment_of(self, a: int, b: int, cube: int, owner: int, crawford: bool,
                    nxt_post: bool, shares: GammonShares | None) -> Segment:
        """The segment, the game's gammons those of `shares` (None: the model's); the
        cube levels above are computed the same way (cached only for the model's)."""
        def deeper(c: int, who: int) -> Segment:
            if shares is None:
                return self._segment(a, b, c, who, False, nxt_post)
            return self._segment_of(a, b, c, who, False, nxt_post, shares)

        g_win, bg_win, g_lose, bg_lose = (None, 0.0, None, 0.0) if shares is None else shares
        i_double = not crawford and owner in (CENTRE, MINE) and cube < a
        they_double = not crawford and owner in (CENTRE, THEIRS) and cube < b
        if i_double:
            drop = self.mwc(a - cube, b, nxt_post)
            hi, v_hi = deeper(2 * cube, THEIRS).solve(drop), drop
        else:
            hi, v_hi = 1.0, self.win_value(a, b, cube, nxt_post, g_win, bg_win)
        if they_double:
            drop = self.mwc(a, b - cube, nxt_post)
            lo, v_lo = deeper(2 * cube, MINE).solve(drop), drop
        else:
            lo, v_lo = 0.0, self.lose_value(a, b, cube, nxt_post, g_lose, bg_lose)
        if hi <= lo:  # degenerate: both would cash at once; split the difference
            mid = (hi + lo) / 2
            return Segment(mid - 1e-9, v_lo, mid + 1e-9, v_hi)
        return Segment(lo, v_lo, hi, v_hi)

    def segment_fn(self, a: int, b: int, cube: int, owner: int, crawford: bool, post: bool
                   ) -> SegmentFn:
        """`segment(a, b, cube, owner, crawford, post, shares)` as a function of the four
        shares (win_g, win_bg, lose_g, lose_bg) returning (lo, v_lo, hi, v_hi): the same
        figures, the table lookups that do not depend on the shares made once per score
        and cube (cached), so that a search's many leaves at one score pay only for the
        arithmetic."""
        a, b, cube = self._needs(a, b, cube)
        return self._segment_fns(a, b, cube, owner, crawford, post or crawford)

    def _needs(self, a: int, b: int, cube: int) -> tuple[int, int, int]:
        """Needs and cube as the segments see them: scaled to the exact table past
        EXACT_NEEDS (the cube with them), the table filled that far."""
        if max(a, b) > EXACT_NEEDS:
            scale = max(a, b) / EXACT_NEEDS
            cube = max(1, 2 ** round(math.log2(max(1.0, cube / scale))))
            a, b = _scaled(a, scale), _scaled(b, scale)
        if a > self._filled[0] or b > self._filled[1]:
            self._fill(a, b)
        return a, b, cube

    def _segment_fns_uncached(self, a: int, b: int, cube: int, owner: int, crawford: bool,
                              nxt_post: bool) -> SegmentFn:
        """`_segment_of` with the shares as arguments (its arithmetic in the same order)."""
        i_double = not crawford and owner in (CENTRE, MINE) and cube < a
        they_double = not crawford and owner in (CENTRE, THEIRS) and cube < b
        w1 = w2 = w3 = l1 = l2 = l3 = drop_hi = drop_lo = 0.0
        up_hi = up_lo = None
        if i_double:
            drop_hi = self.mwc(a - cube, b, nxt_post)
            up_hi = self._segment_fns(a, b, 2 * cube, THEIRS, False, nxt_post)
        else:
            w1 = self.mwc(a - cube, b, nxt_post)
            w2 = self.mwc(a - 2 * cube, b, nxt_post)
            w3 = self.mwc(a - 3 * cube, b, nxt_post)
        if they_double:
            drop_lo = self.mwc(a, b - cube, nxt_post)
            up_lo = self._segment_fns(a, b, 2 * cube, MINE, False, nxt_post)
        else:
            l1 = self.mwc(a, b - cube, nxt_post)
            l2 = self.mwc(a, b - 2 * cube, nxt_post)
            l3 = self.mwc(a, b - 3 * cube, nxt_post)

        def fn(gw: float, bw: float, gl: float, bl: float
               ) -> tuple[float, float, float, float]:
            if up_hi is not None:
                s_lo, s_vlo, s_hi, s_vhi = up_hi(gw, bw, gl, bl)
                hi, v_hi = _solve(s_lo, s_vlo, s_hi, s_vhi, drop_hi), drop_hi
            else:
                hi, v_hi = 1.0, (1.0 - gw) * w1 + (gw - bw) * w2 + bw * w3
            if up_lo is not None:
                s_lo, s_vlo, s_hi, s_vhi = up_lo(gw, bw, gl, bl)
                lo, v_lo = _solve(s_lo, s_vlo, s_hi, s_vhi, drop_lo), drop_lo
            else:
                lo, v_lo = 0.0, (1.0 - gl) * l1 + (gl - bl) * l2 + bl * l3
            if hi <= lo:
                mid = (hi + lo) / 2
                return mid - 1e-9, v_lo, mid + 1e-9, v_hi
            return lo, v_lo, hi, v_hi

        return fn

    def table(self, n: int) -> np.ndarray:
        """(n, n) array: entry [a-1, b-1] is mwc(a, b) pre-Crawford."""
        return np.array([[self.mwc(a, b) for b in range(1, n + 1)] for a in range(1, n + 1)])


def _solve(lo: float, v_lo: float, hi: float, v_hi: float, value: float) -> float:
    """`Segment(lo, v_lo, hi, v_hi).solve(value)`."""
    if value <= v_lo:
        return lo
    if value >= v_hi:
        return hi
    return lo + (hi - lo) * (value - v_lo) / (v_hi - v_lo)


@lru_cache(maxsize=16)
def model(gammon_rate: float, table: str | None = None) -> MatchModel:
    """The shared model for a gammon rate, drawn through the published table `table`
    (a name of `tables/`) where it has figures."""
    return MatchModel(round(gammon_rate, 3), None if table is None else published(table))
