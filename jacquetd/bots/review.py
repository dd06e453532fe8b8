"""Match review: checker and cube decisions judged at a depth, the marks and a player's
summary.

Units. In money play a decision's figures are money equity per unit of the cube. In
match play every figure is first a match-winning chance (MWC) at the score, the Crawford
and post-Crawford games included (`met.py` through `interface.match_winning_chance` and
the cube search), and is then converted to normalised equity (EMG, GNU Backgammon's "MWC
converted to equity"):
``EMG = (2 MWC - (W + L)) / (W - L)``, W and L the mover's MWC if it wins or loses a single
game at the cube's value; an MWC difference d costs ``2 d / (W - L)``.

Checker play. A play's value is cubeful where the cube is in the game, as GNU
Backgammon's is: the opponent, on roll after the play, makes the right cube decision on
the play's cubeless chances at the depth (Janowski's model, `on_roll_cube_value`), and
the play is worth what that decision leaves the mover (a pass it must give is worth the
cube it would lose); a cube the mover owns stays the mover's: the opponent plays on
with no cube to turn, and the mover's redouble counts. Without a cube the value is
cubeless. A decision's *loss* is the
best play's value minus the played one's, both at the same depth, never below 0: the
played move, when the move filter left it shallower than the best play, is evaluated
again at the best play's depth, and when it then comes out best it is the best play. A
forced move (one legal play) and the best play lose nothing.

Cube decisions (wherever the side on turn may double, C2/C5). With ND the equity of no
double, DT of double/take and DP of double/pass (the doubler's view), doubling is worth
``min(DT, DP)``: doubling costs ``max(0, ND - min(DT, DP))``, not doubling
``max(0, min(DT, DP) - ND)``; taking costs the taker ``max(0, DT - DP)``, passing
``max(0, DP - DT)``.

Marks. A loss is marked against the thresholds (GNU Backgammon's defaults, in normalised
equity): `doubtful` from 0.04, `error` from 0.08, `blunder` from 0.16. A player's error
rate is the mean loss per decision (non-forced checker decisions and counted cube
decisions: those acted on, those lost, and the close ones, whose double and no double lie
within the `blunder` threshold of each other); the performance rating (PR, on eXtreme
Gammon's scale) is 500 times it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from jacquetd.rules import Play, Position

from . import analysis
from .analysis import Evaluation, StopFn

#: The default thresholds of the marks, lowest first (equity lost by the decision).
THRESHOLDS: dict[str, float] = {"doubtful": 0.04, "error": 0.08, "blunder": 0.16}
MARKS = tuple(THRESHOLDS)
PR_SCALE = 500.0

_SURE_WIN = Evaluation.from_probs(np.array([1.0, 0.0, 0.0, 0.0, 0.0]))
_SURE_LOSS = Evaluation.from_probs(np.array([0.0, 0.0, 0.0, 0.0, 0.0]))


def match_scale(pos: Position) -> tuple[float, float] | None:
    """(W, L): the MWC of the side on roll of `pos` if it wins, or loses, a single game at
    the cube's value; None in money play."""
    if pos.match is None:
        return None
    from .interface import ENGINE

    return (ENGINE.match_winning_chance(pos, _SURE_WIN),
            ENGINE.match_winning_chance(pos, _SURE_LOSS))


def units(pos: Position) -> str:
    """`money` or `match` (normalised equity from match-winning chances)."""
    return "money" if pos.match is None else "match"


def _value_of(pos: Position) -> Callable[[Evaluation], float]:
    scale = match_scale(pos)
    if scale is None:
        return lambda e: float(e.equity)
    from .interface import ENGINE

    w, lose = scale
    span = w - lose
    if span <= 1e-12:  # nothing at stake at this score: money figures rank the plays
        return lambda e: float(e.equity)
    return lambda e: (2.0 * ENGINE.match_winning_chance(pos, e) - (w + lose)) / span


@dataclass(frozen=True)
class PlayJudgement:
    """A checker decision judged: the best play and the values (mover's view)."""

    best: Play
    best_equity: float
    equity: float
    choices: int
    plies: int
    units: str

    @property
    def loss(self) -> float:
        return max(0.0, self.best_equity - self.equity)

    @property
    def forced(self) -> bool:
        return self.choices <= 1


def on_roll_cube_value(pos: Position, probs: tuple[float, ...], model: Any) -> float:
    """What cubeless `probs` are worth to the side on roll of `pos` (before its roll)
    with the cube where it is, by Janowski's model: its best cube action where it may
    double (no double, or double and the right take or pass), else its no-double
    figure; a cube its opponent owns is valued as owned by the opponent (the opponent's
    recube vig counts against it), not as a centred cube. Money equity per unit of the
    cube, or the match-winning chance (`model`: `analysis.match_model`)."""
    from jacquetd.rules.position import CubeOwner

    from . import cube as cubemod

    c = pos.cube
    if c is None or c.owner != CubeOwner.OPPONENT:
        d = cubemod.position_decision(pos, probs, model)
        return float(d.no_double if d.action != "double"
                     else min(d.double_take, d.double_drop))
    x = cubemod.efficiency(pos)
    if pos.match is None:
        return float(cubemod.money_equity(probs, "opponent", x))
    m = pos.match
    return float(cubemod.match_decision(probs, m.length - m.score[0], m.length - m.score[1],
                                        c.value, "opponent", m.crawford, x, model).no_double)


def _cubeful_value_of(pos: Position) -> Callable[[Play, Evaluation], float] | None:
    """With the cube in the game, a play's cubeful value: the opponent, on roll after the
    play, makes its cube decision (no double, or double and the right take or pass) on the
    play's cubeless chances (`on_roll_cube_value`), and the play is worth what that
    leaves the mover, in the units of `pos` (module docstring). None where the cube plays
    no part: no cube in the game, or nothing at stake at this match score."""
    if pos.cube is None:
        return None
    scale = match_scale(pos)
    if scale is not None and scale[0] - scale[1] <= 1e-12:
        return None
    from .net import flip

    model = analysis.match_model(pos.variant)
    cubeless = _value_of(pos)

    def value(play: Play, e: Evaluation) -> float:
        after = play.after
        if after.game_over():
            return cubeless(e)
        theirs = tuple(float(x) for x in flip(np.array(e.probs())))
        right = on_roll_cube_value(after, theirs, model)
        if scale is None:
            return -float(right)  # money: the opponent's equity per unit of the cube
        w, lose = scale
        return (2.0 * (1.0 - float(right)) - (w + lose)) / (w - lose)

    return value


def judge_play(pos: Position, chosen: Play, *, plies: int,
               should_stop: StopFn | None = None) -> PlayJudgement:
    """Judge `chosen` (a legal play of `pos`, which has dice) against the best play at
    `plies` (or the deepest depth finished before `should_stop` turned true), in the
    units of `pos` (see the module)."""
    ranking = list(analysis.analyze(pos, plies=plies, max_plays=None,
                                    should_stop=should_stop))[-1]
    cubeless = _value_of(pos)
    cubeful = _cubeful_value_of(pos)

    def value(play: Play, e: Evaluation) -> float:
        return cubeless(e) if cubeful is None else cubeful(play, e)

    depth = ranking[0].plies
    top = [r for r in ranking if r.plies == depth]
    best = max(top, key=lambda r: value(r.play, r.evaluation))
    mine = next(r for r in ranking if r.play == chosen)
    evaluation = mine.evaluation
    if mine.plies < depth:
        evaluation = analysis.play_evaluation(pos, chosen, plies=depth,
                                              should_stop=should_stop)
    mine_value, best_value = value(chosen, evaluation), value(best.play, best.evaluation)
    kind = units(pos)
    if mine is best or mine_value >= best_value:
        return PlayJudgement(chosen, mine_value, mine_value, len(ranking), depth, kind)
    return PlayJudgement(best.play, best_value, mine_value, len(ranking), depth, kind)


@dataclass(frozen=True)
class CubeJudgement:
    """The doubler's cube decision before its roll, in normalised units (see the module):
    no double, double/take, double/pass, and the right actions."""

    no_double: float
    double_take: float
    double_pass: float
    action: str
    take: str
    units: str
    plies: int

    @property
    def double_value(self) -> float:
        return min(self.double_take, self.double_pass)

    def loss(self, act: str) -> float:
        """What `act` (`double`, `no_double`, `take` or `pass`) costs, ≥ 0."""
        if act == "double":
            return max(0.0, self.no_double - self.double_value)
        if act == "no_double":
            return max(0.0, self.double_value - self.no_double)
        if act == "take":
            return max(0.0, self.double_take - self.double_pass)
        return max(0.0, self.double_pass - self.double_take)

    def close(self, limit: float) -> bool:
        """Whether doubling and not doubling lie within `limit` of each other."""
        return abs(self.no_double - self.double_value) < limit


def judge_cube(pos: Position, *, plies: int,
               should_stop: StopFn | None = None) -> CubeJudgement:
    """The cube decision of the side on roll of `pos` (no dice) at `plies`; `search.Stopped`
    when `should_stop` turns true during the search."""
    from .interface import ENGINE

    base = pos.without_dice() if pos.dice else pos
    d = ENGINE.cube(base, plies=plies, should_stop=should_stop)
    scale = match_scale(base) if d.mode == "match" else None
    if scale is None or scale[0] - scale[1] <= 1e-12:
        def conv(x: float) -> float:
            return float(x)
    else:
        w, lose = scale

        def conv(x: float) -> float:
            return (2.0 * float(x) - (w + lose)) / (w - lose)
    return CubeJudgement(conv(d.no_double), conv(d.double_take), conv(d.double_drop),
                         "double" if d.action == "double" else "no_double",
                         "take" if d.take == "take" else "pass", units(base), plies)


def mark(loss: float, thresholds: dict[str, float] | None = None) -> str | None:
    """The mark of a decision losing `loss`: the highest threshold reached, or None."""
    limits = thresholds or THRESHOLDS
    out = None
    for name in MARKS:
        if loss >= limits[name] - 1e-12:
            out = name
    return out


def summary(moves: list[dict[str, Any]], cube: list[dict[str, Any]], games: int,
            side: int) -> dict[str, Any]:
    """One player's summary over the analysed `moves` (maps with `side`, `loss`, `forced`,
    `mark` and, when judged, `luck`) and cube decisions (maps with `side`, `loss`, `mark`,
    `counted`) of `games` games: checker decisions and forced moves counted, their marks
    and total loss; the counted cube decisions, their marks and total loss; the error rate
    (mean loss per decision, checker and cube), the PR (500 times it), and the luck in
    total and per game."""
    mine = [m for m in moves if m["side"] == side]
    chosen = [m for m in mine if not m["forced"]]
    cubes = [c for c in cube if c["side"] == side and c["counted"]]
    loss = sum(m["loss"] for m in chosen)
    cube_loss = sum(c["loss"] for c in cubes)
    decisions = len(chosen) + len(cubes)
    rate = (loss + cube_loss) / decisions if decisions else 0.0
    lucky = [m["luck"] for m in mine if "luck" in m]
    luck = sum(lucky) if lucky else None
    return {
        "side": side, "decisions": len(chosen), "forced": len(mine) - len(chosen),
        "marks": {name: sum(1 for m in chosen if m["mark"] == name) for name in MARKS},
        "loss": round(loss, 6),
        "cube_decisions": len(cubes),
        "cube_marks": {name: sum(1 for c in cubes if c["mark"] == name) for name in MARKS},
        "cube_loss": round(cube_loss, 6),
        "error_rate": round(rate, 6), "pr": round(PR_SCALE * rate, 2),
        "luck": None if luck is None else round(luck, 6),
        "luck_per_game": None if luck is None else round(luck / games, 6) if games else 0.0,
    }
