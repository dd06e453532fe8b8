"""A one-roll cubeful search for money cube decisions, as GNU Backgammon's n-ply cubeful.

Janowski's formula (`cube.py`) turns cubeless probabilities into a cubeful
equity in one step, with a fixed cube efficiency. The search looks one roll
further: for each of the 21 rolls the side on roll makes its best play
(cubeless, 0 plies) and the opponent, then on roll, takes its own best cube
action at the leaf (double when doubling gains and we answer optimally,
else play on), valued by Janowski from the leaf's probabilities at
`plies - 1` plies. The average over the rolls is the no-double equity; the
same with the cube turned to 2 and owned by the opponent gives the
double/take equity. Played-out games count their exact result. Money play
works in equities per unit of the cube in play; match play (`match_decision`)
the same way in match-winning chances, the leaves valued by Janowski's
formula on the match model (`cube.match_decision`) and a finished game by
the score it leaves.

`money_cubeful_deep` and `match_cubeful_deep` look two rolls ahead, as GNU
Backgammon's 2-ply cubeful evaluation does: each roll's best play, then the
opponent's own cube action and rolls by the one-roll search, whose leaves (the
side on roll again) Janowski's formula judges. In a short bear-off, where the
leaves are exact, they give the exact figures (tested).

A short bear-off is known exactly: in money play at the root
(`exact_money_decision`) and at the leaves the two-sided table
(`bearoff_cube.py`) replaces the estimate; in match play (`exact_match_decision`,
and the leaves) a solve at the position's score (`bearoff_match.py`) does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from jacquetd.rules import Position
from jacquetd.rules.geometry import pip_count
from jacquetd.rules.position import CubeOwner

from . import bearoff_cube, bearoff_match, features, met
from . import cube as cubemod
from .net import equity, flip
from .players import state_of
from .search import ROLLS, Searcher, State, StopFn, Stopped

DEEP_PLIES = 2
"""From this depth `analysis.cube_decision` searches two rolls deep (`money_decision_deep`,
`match_decision_deep`): the depth from which the two-roll search agrees with GNU
Backgammon's 2-ply cubeful decisions more often, and loses less equity per decision, than
the one-roll search, money and match play (chosen by `python benchmarks/bench_cube.py
--method deep`; its figures are in the README)."""

ExactLeaves = Callable[[list[tuple[np.ndarray, np.ndarray]]],
                      "list[tuple[float, float] | None]"]
"""The exact (no double, double/take) values of leaves, each given as its two sides (the
side on roll first), or None where they are not known; all leaves of a roll at once, so
that one solve can serve them all (`bearoff_match`)."""

MEASURED_VARIANTS: frozenset[str] = frozenset({"backgammon"})
"""Where `analysis.cube_decision` uses the search (money and match play) at 1 ply and more:
where it measured better than Janowski's formula against GNU Backgammon's 2-ply
cubeful analysis (benchmarks/bench_cube.py; README). In the Jacquet variants,
against cubeful rollouts (benchmarks/bench_cube_rollout.py --cubeful 1 2), the
search did no better than Janowski's formula at the same depth (worse at 1 ply,
level at 2), so Janowski's formula stays there."""


def side_efficiency(variant: object, me: np.ndarray, opp: np.ndarray, x_contact: float
                    ) -> float:
    """The cube efficiency of a position given as two sides (`me` on roll): `x_contact`
    while the sides are in contact, else the race value for their pip counts."""
    if features.contact(variant, me[None, :], opp[None, :])[0]:  # type: ignore[arg-type]
        return x_contact
    return cubemod.race_efficiency((pip_count(tuple(me)) + pip_count(tuple(opp))) / 2)


def side_efficiencies(variant: object, me: np.ndarray, opp: np.ndarray, x_contact: float
                      ) -> list[float]:
    """`side_efficiency` of each row of `me` and `opp` (N, ...), contact found at once."""
    if len(me) == 0:
        return []
    contact = features.contact(variant, me, opp)  # type: ignore[arg-type]
    return [x_contact if c else
            cubemod.race_efficiency((pip_count(tuple(a)) + pip_count(tuple(b))) / 2)
            for c, a, b in zip(contact.tolist(), me, opp, strict=True)]


def leaf_value(probs: np.ndarray, owner: str, x: float) -> float:
    """Cubeful money equity of the side on roll at a leaf, taking its best cube action."""
    p = tuple(float(v) for v in probs)
    nd = cubemod.money_equity(p, owner, x)
    if owner == "opponent":
        return nd
    dt = 2.0 * cubemod.money_equity(p, "opponent", x)
    return max(nd, min(dt, 1.0))


class _Replies:
    """For each of the 21 rolls of `state`, the best play (cubeless, 0 plies, among those
    the searcher's pruning keeps) and the leaf it leaves, the opponent on roll. The
    leaves' probabilities are evaluated once, when
    first asked (`leaf_probs`), so that one roll's search serves every cube owner."""

    def __init__(self, searcher: Searcher, state: State,
                 replies: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
        self.searcher = searcher
        self.state = state
        if replies is None:
            me, opp, p = searcher.replies_of([state])
            replies = (me[0], opp[0], p[0])
        self.after_me, self.after_opp, self.p = replies
        self.eq = equity(self.p)
        self.ks = list(range(len(ROLLS)))  # row r is roll r's best play
        self.live = [r for r, k in enumerate(self.ks) if self.after_me[k, 0] < 15]
        """The rolls whose best play does not end the game."""
        self._probs: dict[tuple[int, int], np.ndarray] = {}

    def leaf_state(self, r: int) -> State:
        """The position roll r's best play leaves (the opponent on roll)."""
        k = self.ks[r]
        flag = self.state.me_flag
        if self.searcher.variant.tracks_primes and not flag:
            flag = bool(features.has_prime(self.after_me[k:k + 1])[0])
        return State(tuple(int(c) for c in self.after_opp[k]),
                     tuple(int(c) for c in self.after_me[k]), self.state.opp_flag, flag)

    def leaf_replies(self, should_stop: StopFn | None = None) -> dict[int, _Replies]:
        """The `_Replies` of the leaf of every live roll, searched at once."""
        states = [self.leaf_state(r) for r in self.live]
        if not states:
            return {}
        me, opp, p = self.searcher.replies_of(states, should_stop)
        return {r: _Replies(self.searcher, s, (me[k], opp[k], p[k]))
                for k, (r, s) in enumerate(zip(self.live, states, strict=True))}

    def leaf_probs(self, rolls: list[int], plies: int) -> dict[int, np.ndarray]:
        """The probabilities of the leaves of `rolls`, seen by the opponent on roll, at
        `plies - 1` plies (those asked before are not evaluated again)."""
        missing = [r for r in rolls if (r, plies) not in self._probs]
        if missing and plies <= 1:
            for r in missing:
                self._probs[r, plies] = flip(self.p[self.ks[r]])
        elif missing:
            deeper = self.searcher.evaluate_states([self.leaf_state(r) for r in missing],
                                                   plies - 1)
            for r, row in zip(missing, deeper, strict=True):
                self._probs[r, plies] = row
        return {r: self._probs[r, plies] for r in rolls}


def _one_roll(replies: _Replies, plies: int, exact: ExactLeaves | None
              ) -> tuple[dict[int, np.ndarray], dict[int, tuple[float, float]]]:
    """What each live leaf is worth: (leaf probabilities seen by the opponent on roll at
    `plies - 1` plies, exact leaf values by `exact`). A leaf `exact` knows is not
    evaluated."""
    live = replies.live
    known: dict[int, tuple[float, float]] = {}
    if exact is not None and live:
        ks = replies.ks
        values = exact([(replies.after_opp[ks[r]], replies.after_me[ks[r]]) for r in live])
        known = {r: value for r, value in zip(live, values, strict=True) if value is not None}
    return replies.leaf_probs([r for r in live if r not in known], plies), known


def _over_rolls(replies: _Replies, plies: int, x_contact: float | None,
                finished: Callable[[float], tuple[float, float]],
                leaf: Callable[[np.ndarray, float], tuple[float, float]],
                exact: ExactLeaves | None = None) -> tuple[float, float]:
    """The average over the 21 rolls of (no double, double/take) values: `finished` of the
    cubeless result when the best play ends the game, else `exact` of the leaf's two
    sides (the opponent, on roll, first) where it knows the leaf, else `leaf` of the
    leaf's probabilities (seen by the opponent, on roll) and its cube efficiency."""
    v = replies.searcher.variant
    xc = cubemod.contact_efficiency(v.name) if x_contact is None else x_contact
    after_me, after_opp, eq, ks = replies.after_me, replies.after_opp, replies.eq, replies.ks
    leaf_probs, known = _one_roll(replies, plies, exact)
    rows = [ks[r] for r in leaf_probs]
    xs = dict(zip(leaf_probs, side_efficiencies(v, after_opp[rows], after_me[rows], xc),
                  strict=True))
    nd = 0.0
    dt = 0.0
    for r, (_a, _b, w) in enumerate(ROLLS):
        k = ks[r]
        if r in known:
            a, b = known[r]
        elif r in leaf_probs:
            a, b = leaf(leaf_probs[r], xs[r])
        else:
            a, b = finished(float(eq[k]))
        nd += w * a
        dt += w * b
    return nd, dt


def money_cubeful(searcher: Searcher, state: State, owner: str, plies: int = 1,
                  x_contact: float | None = None, replies: _Replies | None = None
                  ) -> tuple[float, float]:
    """(no double, double/take) equities of `state` (side on roll, before its roll).

    `owner` is 'centre' or 'me' (the side on roll may double), or 'opponent' (only the
    no-double figure then means anything). Leaves are evaluated at `plies - 1` plies; a
    leaf that is a short bear-off takes its exact cubeful equity from the two-sided
    table (`bearoff_cube`). `replies`: `state`'s, when the caller has them already.
    """
    opp_owner_nd = {"centre": "centre", "me": "opponent", "opponent": "me"}[owner]
    rule = searcher.variant.bear_off

    def exact_leaf(on_roll: np.ndarray, other: np.ndarray) -> tuple[float, float] | None:
        sides = bearoff_cube.homes(on_roll, other)
        t = None if sides is None else bearoff_cube.usable_table(rule)
        if sides is None or t is None:
            return None
        return (-t.leaf_equity(*sides, opp_owner_nd), -t.leaf_equity(*sides, "me"))

    def exact(leaves: list[tuple[np.ndarray, np.ndarray]]
              ) -> list[tuple[float, float] | None]:
        return [exact_leaf(on_roll, other) for on_roll, other in leaves]

    nd, dt = _over_rolls(
        replies or _Replies(searcher, state), plies, x_contact,
        lambda result: (result, result),  # the game is over: its exact value at this cube
        lambda probs, x: (-leaf_value(probs, opp_owner_nd, x), -leaf_value(probs, "me", x)),
        exact)
    return nd, 2.0 * dt


def money_cubeful_deep(searcher: Searcher, state: State, owner: str, plies: int = 2,
                       should_stop: StopFn | None = None) -> tuple[float, float]:
    """(no double, double/take) equities of `state` searched two rolls deep: for each
    roll, the best play (cubeless, 0 plies), then the opponent's own cube action and
    rolls by `money_cubeful` at `plies - 1` (its leaves, the side on roll again, judged
    by Janowski's formula at `plies - 2` plies), as GNU Backgammon's 2-ply cubeful
    evaluation plays the opponent's roll before judging. `owner`: 'centre' or 'me'.
    `should_stop` is polled before each roll: Stopped when it turns true."""
    root = _Replies(searcher, state)
    leaves = root.leaf_replies(should_stop)  # every roll's leaf searched at once
    deeper = max(plies - 1, 1)
    nd = 0.0
    dt = 0.0
    for r, (_a, _b, w) in enumerate(ROLLS):
        if should_stop is not None and should_stop():
            raise Stopped
        if r not in leaves:  # the play ends the game: its result at this cube
            nd += w * float(root.eq[root.ks[r]])
            dt += w * float(root.eq[root.ks[r]])
            continue
        replies = leaves[r]  # one search for both cube owners
        leaf = replies.state
        if owner == "centre":  # the opponent, on roll, may double
            o_nd, o_dt = money_cubeful(searcher, leaf, "centre", deeper, replies=replies)
            nd -= w * max(o_nd, min(o_dt, 1.0))
        else:  # we own the cube: the opponent plays on
            o_nd, _ = money_cubeful(searcher, leaf, "opponent", deeper, replies=replies)
            nd -= w * o_nd
        t_nd, t_dt = money_cubeful(searcher, leaf, "me", deeper, replies=replies)  # it took
        dt -= w * max(t_nd, min(t_dt, 1.0))
    return nd, 2.0 * dt


def money_decision_deep(searcher: Searcher, pos: Position, plies: int = 2,
                        should_stop: StopFn | None = None) -> cubemod.CubeDecision:
    """The money cube decision of `pos` by `money_cubeful_deep` (exact in a short
    bear-off, as `money_decision` is not)."""
    exact = exact_money_decision(pos)
    if exact is not None:
        return exact
    base = pos.without_dice() if pos.dice else pos
    nd, dt = money_cubeful_deep(searcher, state_of(base), _money_owner(pos), plies,
                                should_stop)
    return _money_decided(pos, nd, dt, cubemod.efficiency(pos))


def exact_money_decision(pos: Position) -> cubemod.CubeDecision | None:
    """The money cube decision of a short bear-off, exact (`bearoff_cube`), else None
    (also while a daemon's worker waits for the daemon to build the table).

    Any variant and any depth: the table's figures are those of perfect play. An
    opponent's cube gives 'no_double' (with the figures of a centred cube), as in
    `money_decision`.
    """
    if pos.match is not None:
        return None
    sides = bearoff_cube.homes(pos.me, pos.opp)
    t = None if sides is None else bearoff_cube.usable_table(pos.rules.bear_off)
    if sides is None or t is None:
        return None
    figures = t.money(*sides, _money_owner(pos))
    return _money_decided(pos, figures.no_double, figures.double_take,
                          cubemod.efficiency(pos))


def money_decision(searcher: Searcher, pos: Position, plies: int = 1,
                   x_contact: float | None = None) -> cubemod.CubeDecision:
    """The money cube decision of `pos` by the one-roll cubeful search.

    An opponent's cube gives 'no_double' (with the figures of a centred cube).
    """
    base = pos.without_dice() if pos.dice else pos
    nd, dt = money_cubeful(searcher, state_of(base), _money_owner(pos), plies, x_contact)
    return _money_decided(pos, nd, dt, cubemod.efficiency(pos, x_contact))


def _money_owner(pos: Position) -> str:
    """'me' when the side on roll owns the cube, else 'centre' (the opponent's cube is
    valued as a centred one, then the double refused by `_money_decided`)."""
    c = pos.cube
    return "me" if c is not None and c.owner == CubeOwner.ON_ROLL else "centre"


def _money_decided(pos: Position, nd: float, dt: float, x: float) -> cubemod.CubeDecision:
    d = cubemod.decide(nd, dt, 1.0, x, "money")
    c = pos.cube
    return d.without_double() if c is not None and c.owner == CubeOwner.OPPONENT else d


def match_leaf_value(probs: np.ndarray, need: int, need_other: int, cube: int, owner: str,
                     crawford: bool, x: float, model: met.MatchModel) -> float:
    """Match-winning chance of the side on roll at a leaf, taking its best cube action:
    `owner` 'centre', 'me' or 'opponent' relative to that side; needs from its view."""
    nd, dt, dp = cubemod.match_figures(probs.tolist(), need, need_other, cube, owner,
                                       crawford, x, model)
    if owner == "opponent" or crawford or cube >= need:
        return nd
    return max(nd, min(dt, dp))


def match_cubeful(searcher: Searcher, state: State, need_me: int, need_opp: int, cube: int,
                  owner: str, crawford: bool, m: met.MatchModel, plies: int = 1,
                  x_contact: float | None = None, replies: _Replies | None = None
                  ) -> tuple[float, float, float]:
    """(no double, double/take, double/pass) match-winning chances of `state` (side on
    roll, before its roll) at needs (`need_me`, `need_opp`) with the cube at `cube`,
    `owner` 'centre' or 'me' (or 'opponent': only the no-double figure then means
    anything), on the match-equity model `m`. Leaves are evaluated at `plies - 1`
    plies."""
    post = not crawford and (need_me == 1 or need_opp == 1)
    leaf_owner_nd = {"centre": "centre", "me": "opponent", "opponent": "me"}[owner]

    def finished(result: float) -> tuple[float, float]:  # the score the game leaves
        points = round(result)
        return (m.mwc(need_me - points * cube, need_opp, post or crawford),
                m.mwc(need_me - points * 2 * cube, need_opp, post or crawford))

    def leaf(probs: np.ndarray, x: float) -> tuple[float, float]:
        return (1.0 - match_leaf_value(probs, need_opp, need_me, cube, leaf_owner_nd,
                                       crawford, x, m),
                1.0 - match_leaf_value(probs, need_opp, need_me, 2 * cube, "me",
                                       crawford, x, m))

    rule = searcher.variant.bear_off

    def exact(leaves: list[tuple[np.ndarray, np.ndarray]]
              ) -> list[tuple[float, float] | None]:
        """Short bear-offs solved at this score (`bearoff_match`): one solve for all the
        leaves, whose side on roll (the opponent) has not moved."""
        found = [bearoff_cube.homes(on_roll, other) for on_roll, other in leaves]
        t = bearoff_cube.usable_table(rule) if any(found) else None
        if t is None:
            return [None] * len(leaves)
        ours = tuple(t.rank(f[1]) or 0 for f in found if f)
        out: list[tuple[float, float] | None] = []
        for f in found:
            values = None
            if f is not None:
                theirs, mine = t.rank(f[0]) or 0, t.rank(f[1]) or 0
                nd = bearoff_match.match_figures(t, theirs, mine, need_opp, need_me, cube,
                                                 leaf_owner_nd, crawford, m, ours)
                dt = bearoff_match.match_figures(t, theirs, mine, need_opp, need_me,
                                                 2 * cube, "me", crawford, m, ours)
                if nd is not None and dt is not None:
                    values = (1.0 - _best(nd, need_opp, cube, leaf_owner_nd, crawford),
                              1.0 - _best(dt, need_opp, 2 * cube, "me", crawford))
            out.append(values)
        return out

    nd, dt = _over_rolls(replies or _Replies(searcher, state), plies, x_contact, finished,
                         leaf, exact)
    dp = m.mwc(need_me - cube, need_opp, post or crawford)
    return nd, dt, dp


def match_cubeful_deep(searcher: Searcher, state: State, need_me: int, need_opp: int,
                       cube: int, owner: str, crawford: bool, m: met.MatchModel,
                       plies: int = 2, should_stop: StopFn | None = None
                       ) -> tuple[float, float, float]:
    """`match_cubeful` two rolls deep, as `money_cubeful_deep`: for each roll the best
    play, then the opponent's own cube action and rolls by `match_cubeful` at
    `plies - 1`. (no double, double/take, double/pass) match-winning chances.
    `should_stop` is polled before each roll: Stopped when it turns true."""
    post = not crawford and (need_me == 1 or need_opp == 1)
    deeper = max(plies - 1, 1)

    def theirs(leaf: State, replies: _Replies, c: int, o: str) -> float:
        """The opponent's chance on roll at `leaf` with the cube at `c`, `o` from its side,
        taking its best cube action."""
        nd, dt, dp = match_cubeful(searcher, leaf, need_opp, need_me, c, o, crawford, m,
                                   deeper, replies=replies)
        if not bearoff_match.may_double(need_opp, c, o, crawford):
            return nd
        return max(nd, min(dt, dp))

    root = _Replies(searcher, state)
    leaves = root.leaf_replies(should_stop)  # every roll's leaf searched at once
    leaf_owner = {"centre": "centre", "me": "opponent"}[owner]
    nd = 0.0
    dt = 0.0
    for r, (_a, _b, w) in enumerate(ROLLS):
        if should_stop is not None and should_stop():
            raise Stopped
        if r not in leaves:  # the play ends the game: the score it leaves
            points = round(float(root.eq[root.ks[r]]))
            nd += w * m.mwc(need_me - points * cube, need_opp, post or crawford)
            dt += w * m.mwc(need_me - points * 2 * cube, need_opp, post or crawford)
            continue
        replies = leaves[r]  # one search for both cube levels
        leaf = replies.state
        nd += w * (1.0 - theirs(leaf, replies, cube, leaf_owner))
        dt += w * (1.0 - theirs(leaf, replies, 2 * cube, "me"))
    return nd, dt, m.mwc(need_me - cube, need_opp, post or crawford)


def match_decision_deep(searcher: Searcher, pos: Position, model: met.MatchModel,
                        plies: int = 2, should_stop: StopFn | None = None
                        ) -> cubemod.CubeDecision:
    """The match cube decision of `pos` by `match_cubeful_deep` (exact in a short
    bear-off); the limits of `match_decision`."""
    exact = exact_match_decision(pos, model)
    if exact is not None:
        return exact
    return _match_decided(
        pos, lambda state, need_me, need_opp, cube, owner, crawford: match_cubeful_deep(
            searcher, state, need_me, need_opp, cube, owner, crawford, model, plies,
            should_stop),
        cubemod.efficiency(pos), "match_decision_deep")


def _best(f: bearoff_match.MatchCube, need: int, cube: int, owner: str, crawford: bool
          ) -> float:
    """The side on roll's chance taking its best cube action."""
    if not bearoff_match.may_double(need, cube, owner, crawford):
        return f.no_double
    return max(f.no_double, min(f.double_take, f.double_pass))


def exact_match_decision(pos: Position, model: met.MatchModel) -> cubemod.CubeDecision | None:
    """The match cube decision of a short bear-off, exact at its score (`bearoff_match`),
    else None (no match, not a short bear-off, the table not built yet, or too many
    pairs to solve). Any variant and any depth, as `exact_money_decision`."""
    if pos.match is None:
        return None
    sides = bearoff_cube.homes(pos.me, pos.opp)
    t = None if sides is None else bearoff_cube.usable_table(pos.rules.bear_off)
    if sides is None or t is None:
        return None
    ms = pos.match
    c = pos.cube
    value = c.value if c is not None else 1
    owner = "centre"
    if c is not None and c.owner == CubeOwner.ON_ROLL:
        owner = "me"
    elif c is not None and c.owner == CubeOwner.OPPONENT:
        owner = "opponent"
    need_me, need_opp = ms.length - ms.score[0], ms.length - ms.score[1]
    f = bearoff_match.match_figures(t, t.rank(sides[0]) or 0, t.rank(sides[1]) or 0, need_me,
                                    need_opp, value, owner, ms.crawford, model)
    if f is None:
        return None
    d = cubemod.decide(f.no_double, f.double_take, f.double_pass, cubemod.efficiency(pos),
                       "match")
    if not bearoff_match.may_double(need_me, value, owner, ms.crawford):
        d = d.without_double()
    return d


def match_decision(searcher: Searcher, pos: Position, model: met.MatchModel,
                   plies: int = 1, x_contact: float | None = None) -> cubemod.CubeDecision:
    """The match cube decision of `pos` (which has a match) by the one-roll cubeful search.

    An opponent's cube, the Crawford game or a cube that already wins the match gives
    'no_double' (with the figures of the side's own cube options).
    """
    return _match_decided(
        pos, lambda state, need_me, need_opp, cube, owner, crawford: match_cubeful(
            searcher, state, need_me, need_opp, cube, owner, crawford, model, plies,
            x_contact),
        cubemod.efficiency(pos, x_contact), "match_decision")


MatchSearch = Callable[[State, int, int, int, str, bool], "tuple[float, float, float]"]
"""A match search given the root (state, needs, cube, owner, Crawford): (no double,
double/take, double/pass)."""


def _match_decided(pos: Position, search: MatchSearch, x: float, name: str
                   ) -> cubemod.CubeDecision:
    """The decision `search` gives for `pos`, with the rules' limits on doubling."""
    if pos.match is None:
        raise ValueError(f"{name} needs a position with a match")
    c = pos.cube
    owner = "me" if c is not None and c.owner == CubeOwner.ON_ROLL else "centre"
    value = c.value if c is not None else 1
    ms = pos.match
    need_me, need_opp = ms.length - ms.score[0], ms.length - ms.score[1]
    base = pos.without_dice() if pos.dice else pos
    nd, dt, dp = search(state_of(base), need_me, need_opp, value, owner, ms.crawford)
    d = cubemod.decide(nd, dt, dp, x, "match")
    if (ms.crawford or value >= need_me
            or (c is not None and c.owner == CubeOwner.OPPONENT)):
        d = d.without_double()
    return d
