"""Cube decisions from outcome probabilities (C1-C5).

Money play uses Janowski's interpolation between the cubeless ("dead cube")
equity and the fully live cube equity, weighted by a cube efficiency x: with
contact, the variant's measured value (`CONTACT_EFFICIENCIES`) and, in a race,
a value rising with the length of the race from 0 (last roll) to 0.68 (50
pips and more). Match play uses the same interpolation on match-winning
chances, the live part coming from the project's own match model (`met.py`),
its take and cash points at every cube level computed with the position's own
gammon chances (`met.MatchModel.segment`, `live_match`).

Equities are normalised to the current cube (money: points per unit of the
cube in play; match: match-winning chances). `double_take` is the doubler's
equity after a double and a take, `double_drop` after a pass.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from itertools import pairwise

from jacquetd.rules import Position
from jacquetd.rules.geometry import pip_count
from jacquetd.rules.position import CubeOwner

from . import features, met
from .net import LOSE_BG, LOSE_G, WIN, WIN_BG, WIN_G

CONTACT_EFFICIENCY = 0.68
"""Backgammon's contact cube efficiency (GNU Backgammon's value; it measured best
against GNU Backgammon's cubeful analysis: benchmarks/bench_cube.py), and the top of
the race efficiency in every variant."""

CONTACT_EFFICIENCIES: dict[str, float] = {
    "backgammon": CONTACT_EFFICIENCY,
    "jacquet": 0.85,
    "jacquet-be": 0.85,
}
"""The contact cube efficiency of each variant. In the Jacquet variants (no outside
engine) it is the value that agrees best with cubeful rollouts whose own cube actions
use that same value (a fixed point; benchmarks/bench_cube_rollout.py, README): the
cube is more alive there than in backgammon (long contact games, more swings)."""


def contact_efficiency(variant: str) -> float:
    """The contact cube efficiency of `variant` (backgammon's for a variant not listed)."""
    return CONTACT_EFFICIENCIES.get(variant, CONTACT_EFFICIENCY)


def race_efficiency(pips: float) -> float:
    """Cube efficiency of a race with `pips` (the average of both sides' pip counts).

    A long race uses the cube as well as a backgammon contact game (0.68); the last
    rolls of a race leave no later chance to use it (0 at no pips left).
    """
    return CONTACT_EFFICIENCY * min(1.0, max(0.0, pips / 50.0))


@dataclass(frozen=True, slots=True)
class CubeDecision:
    action: str
    """'double', 'no_double' or 'too_good' (for the side on roll)."""
    take: str
    """'take' or 'drop' (the opponent's right answer to a double)."""
    no_double: float
    double_take: float
    double_drop: float
    cube_efficiency: float
    mode: str
    """'money' (equities in points per cube unit) or 'match' (match-winning chances)."""

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def without_double(self) -> CubeDecision:
        """The same figures where the side on roll may not double (the opponent's cube,
        the Crawford game) or would gain nothing by it (a cube that wins the match)."""
        return replace(self, action="no_double")


def _averages(p: list[float] | tuple[float, ...]) -> tuple[float, float]:
    w = p[WIN]
    avg_w = 1.0 + (p[WIN_G] + p[WIN_BG]) / w if w > 1e-7 else 1.0
    avg_l = 1.0 + (p[LOSE_G] + p[LOSE_BG]) / (1.0 - w) if w < 1.0 - 1e-7 else 1.0
    return avg_w, avg_l


def live_money(p: float, avg_w: float, avg_l: float, owner: str) -> float:
    """Janowski's live-cube equity; `owner` is 'centre', 'me' or 'opponent'."""
    take_pt = (avg_l - 0.5) / (avg_w + avg_l + 0.5)
    cash_pt = (avg_l + 1.0) / (avg_w + avg_l + 0.5)
    pts: list[tuple[float, float]] = [(0.0, -avg_l)]
    if owner in ("centre", "opponent"):
        pts.append((take_pt, -1.0))
    if owner in ("centre", "me"):
        pts.append((cash_pt, 1.0))
    pts.append((1.0, avg_w))
    return _polyline(pts, p)


def _polyline(pts: list[tuple[float, float]], p: float) -> float:
    """The value at `p` of the line through `pts` (x from 0 to 1, increasing)."""
    for (x0, y0), (x1, y1) in pairwise(pts):
        if p <= x1:
            return y0 + (y1 - y0) * (p - x0) / (x1 - x0) if x1 > x0 else y1
    return pts[-1][1]


def money_equity(probs: list[float] | tuple[float, ...], owner: str, x: float) -> float:
    avg_w, avg_l = _averages(probs)
    dead = probs[WIN] * avg_w - (1.0 - probs[WIN]) * avg_l
    return x * live_money(probs[WIN], avg_w, avg_l, owner) + (1.0 - x) * dead


def decide(nd: float, dt: float, dp: float, x: float, mode: str) -> CubeDecision:
    """The action and the answer from the three equities (the doubler's view)."""
    take = "take" if dt <= dp else "drop"
    best_double = min(dt, dp)
    eps = 1e-9
    if take == "drop" and nd > dp + eps:
        action = "too_good"  # playing on for the gammon beats cashing
    elif best_double >= nd - eps:
        action = "double"  # a tie with a pass doubles: cash the game
    else:
        action = "no_double"
    return CubeDecision(action, take, nd, dt, dp, x, mode)


def money_decision(probs: list[float] | tuple[float, ...], owner: str, x: float
                   ) -> CubeDecision:
    """Money play: `owner` of the cube is 'centre' or 'me' (the side on roll may double)."""
    nd = money_equity(probs, owner, x)
    dt = 2.0 * money_equity(probs, "opponent", x)
    return decide(nd, dt, 1.0, x, "money")


def live_match(seg: met.Segment, p: float, lose: float, win: float) -> float:
    """The live-cube match-winning chance at winning chance `p`, as Janowski's money
    line (`live_money`) is drawn: from the position's own loss value at p = 0 to the
    opponent's cash point, along the cube segment `seg` (take and cash points),
    then from the cash point to the position's own win value at p = 1.

    Past a cash point the model's segment is flat at the cash value; this line keeps
    climbing with the position's gammons instead, so that "too good" (playing on for
    a gammon that is worth more than the cash) can be seen in match play as in money
    play. Where a side cannot double, the segment's end at p = 0 or 1 is replaced by
    the position's own value (the same when `seg` was computed with its gammons).
    """
    pts = [(0.0, lose)]
    if seg.lo > 0.0:
        pts.append((seg.lo, seg.v_lo))
    if seg.hi < 1.0:
        pts.append((seg.hi, seg.v_hi))
    pts.append((1.0, win))
    return _polyline(pts, p)


def match_decision(probs: list[float] | tuple[float, ...], need_me: int, need_opp: int,
                   cube: int, owner: str, crawford: bool, x: float,
                   m: met.MatchModel) -> CubeDecision:
    """Match play: chances to win the match after no double / double-take / double-pass,
    on the match-equity model `m` (`analysis.match_model`)."""
    own = {"centre": met.CENTRE, "me": met.MINE, "opponent": met.THEIRS}[owner]
    post = not crawford and (need_me == 1 or need_opp == 1)
    w = probs[WIN]
    gw = probs[WIN_G] / w if w > 1e-7 else 0.0
    bw = probs[WIN_BG] / w if w > 1e-7 else 0.0
    gl = probs[LOSE_G] / (1 - w) if w < 1 - 1e-7 else 0.0
    bl = probs[LOSE_BG] / (1 - w) if w < 1 - 1e-7 else 0.0

    def ends(c: int) -> tuple[float, float]:
        """Match-winning chances when this game is lost / won at cube `c`, with the
        position's own gammon and backgammon shares."""
        return (m.lose_value(need_me, need_opp, c, post or crawford, gl, bl),
                m.win_value(need_me, need_opp, c, post or crawford, gw, bw))

    def dead(c: int) -> float:
        lose, win = ends(c)
        return w * win + (1 - w) * lose

    shares = met.GammonShares(gw, bw, gl, bl)

    def live(c: int, who: int) -> float:
        seg = m.segment(need_me, need_opp, c, who, crawford, post, shares)
        return live_match(seg, w, *ends(c))

    nd = x * live(cube, own) + (1 - x) * dead(cube)
    dt = x * live(2 * cube, met.THEIRS) + (1 - x) * dead(2 * cube)
    dp = m.mwc(need_me - cube, need_opp, post or crawford)
    decision = decide(nd, dt, dp, x, "match")
    if crawford or cube >= need_me:
        # no double possible (Crawford game, C5) or useless (the cube already wins the match)
        decision = decision.without_double()
    return decision


_Ends = tuple[float, float, float, float, float, float]


@lru_cache(maxsize=4096)
def _match_plan(m: met.MatchModel, need_me: int, need_opp: int, cube: int, own: int,
                crawford: bool) -> tuple[_Ends, met.SegmentFn, _Ends, met.SegmentFn, float]:
    """What `match_decision` reads from the match model at one score and cube, whatever
    the position's gammons: the table figures of its two ends (loss at 1, 2, 3 times the
    cube, then win) at the cube and at twice the cube, the two live segments as
    functions of the shares, and the double/pass figure."""
    post = not crawford and (need_me == 1 or need_opp == 1)
    nxt = post or crawford

    def ends(c: int) -> _Ends:
        return (m.mwc(need_me, need_opp - c, nxt), m.mwc(need_me, need_opp - 2 * c, nxt),
                m.mwc(need_me, need_opp - 3 * c, nxt), m.mwc(need_me - c, need_opp, nxt),
                m.mwc(need_me - 2 * c, need_opp, nxt), m.mwc(need_me - 3 * c, need_opp, nxt))

    return (ends(cube), m.segment_fn(need_me, need_opp, cube, own, crawford, post),
            ends(2 * cube), m.segment_fn(need_me, need_opp, 2 * cube, met.THEIRS, crawford,
                                         post),
            m.mwc(need_me - cube, need_opp, nxt))


def _live_dead(ends: _Ends, seg: met.SegmentFn, w: float, gw: float, bw: float, gl: float,
               bl: float, x: float) -> float:
    l1, l2, l3, w1, w2, w3 = ends
    lose = (1.0 - gl) * l1 + (gl - bl) * l2 + bl * l3
    win = (1.0 - gw) * w1 + (gw - bw) * w2 + bw * w3
    lo, v_lo, hi, v_hi = seg(gw, bw, gl, bl)
    pts = [(0.0, lose)]
    if lo > 0.0:
        pts.append((lo, v_lo))
    if hi < 1.0:
        pts.append((hi, v_hi))
    pts.append((1.0, win))
    return x * _polyline(pts, w) + (1 - x) * (w * win + (1 - w) * lose)


def match_figures(probs: list[float] | tuple[float, ...], need_me: int, need_opp: int,
                  cube: int, owner: str, crawford: bool, x: float, m: met.MatchModel
                  ) -> tuple[float, float, float]:
    """(no double, double/take, double/pass) of `match_decision`, the same figures with
    the model's share-independent work cached per score and cube (for the many leaves
    of a search)."""
    own = {"centre": met.CENTRE, "me": met.MINE, "opponent": met.THEIRS}[owner]
    ends_nd, seg_nd, ends_dt, seg_dt, dp = _match_plan(m, need_me, need_opp, cube, own,
                                                       crawford)
    w = probs[WIN]
    gw = probs[WIN_G] / w if w > 1e-7 else 0.0
    bw = probs[WIN_BG] / w if w > 1e-7 else 0.0
    gl = probs[LOSE_G] / (1 - w) if w < 1 - 1e-7 else 0.0
    bl = probs[LOSE_BG] / (1 - w) if w < 1 - 1e-7 else 0.0
    return (_live_dead(ends_nd, seg_nd, w, gw, bw, gl, bl, x),
            _live_dead(ends_dt, seg_dt, w, gw, bw, gl, bl, x), dp)


def efficiency(pos: Position, x_contact: float | None = None) -> float:
    """The cube efficiency used for `pos`: contact (the variant's, or `x_contact`), or
    the race value for its pip counts."""
    v = pos.rules
    me, opp = features.as_batch([pos.me]), features.as_batch([pos.opp])
    if features.contact(v, me, opp)[0]:
        return contact_efficiency(pos.variant) if x_contact is None else x_contact
    return race_efficiency((pip_count(pos.me) + pip_count(pos.opp)) / 2)


def position_decision(pos: Position, probs: tuple[float, ...], model: met.MatchModel,
                      x_contact: float | None = None) -> CubeDecision:
    """The cube decision of `pos` (side on roll, before its roll) from its cubeless
    probabilities: money without a match, match play otherwise (on the match-equity
    model `model`); an opponent's cube or the Crawford game gives 'no_double'.
    `x_contact` overrides the contact efficiency (to measure other values)."""
    x = efficiency(pos, x_contact)
    c = pos.cube
    owner = "centre"
    value = 1
    if c is not None:
        owner = {CubeOwner.CENTRE: "centre", CubeOwner.ON_ROLL: "me",
                 CubeOwner.OPPONENT: "opponent"}[c.owner]
        value = c.value
    if pos.match is not None:
        m = pos.match
        d = match_decision(probs, m.length - m.score[0], m.length - m.score[1], value,
                           owner if owner != "opponent" else "centre", m.crawford, x,
                           model)
    else:
        d = money_decision(probs, owner if owner != "opponent" else "centre", x)
    if owner == "opponent":
        d = d.without_double()
    return d
