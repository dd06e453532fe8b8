"""Match review: a checker decision judged at a depth, the marks and a player's summary.

A decision's *loss* is the best play's equity minus the played one's, both at the same
depth, never below 0: the played move, when the move filter left it shallower than the
best play, is evaluated again at the best play's depth, and when it then comes out best it
is the best play. A forced move (one legal play) and the best play lose nothing. A loss
is marked against the thresholds (GNU Backgammon's defaults, in equity units of the cube
at 1): `doubtful` from 0.04, `error` from 0.08, `blunder` from 0.16. A player's error
rate is the mean loss per non-forced decision, and the performance rating (PR, on
eXtreme Gammon's scale) is 500 times it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jacquetd.rules import Play, Position

from . import analysis
from .analysis import StopFn

#: The default thresholds of the marks, lowest first (equity lost by the decision).
THRESHOLDS: dict[str, float] = {"doubtful": 0.04, "error": 0.08, "blunder": 0.16}
MARKS = tuple(THRESHOLDS)
PR_SCALE = 500.0


@dataclass(frozen=True)
class PlayJudgement:
    """A checker decision judged: the best play and the equities (mover's view)."""

    best: Play
    best_equity: float
    equity: float
    choices: int
    plies: int

    @property
    def loss(self) -> float:
        return max(0.0, self.best_equity - self.equity)

    @property
    def forced(self) -> bool:
        return self.choices <= 1


def judge_play(pos: Position, chosen: Play, *, plies: int,
               should_stop: StopFn | None = None) -> PlayJudgement:
    """Judge `chosen` (a legal play of `pos`, which has dice) against the best play at
    `plies` (or the deepest depth finished before `should_stop` turned true)."""
    ranking = list(analysis.analyze(pos, plies=plies, max_plays=None,
                                    should_stop=should_stop))[-1]
    best = ranking[0]
    mine = next(r for r in ranking if r.play == chosen)
    depth = best.plies
    mine_equity = float(mine.equity)
    if mine.plies < depth:
        mine_equity = analysis.play_equity(pos, chosen, plies=depth, should_stop=should_stop)
    if mine is best or mine_equity >= float(best.equity):
        return PlayJudgement(chosen, mine_equity, mine_equity, len(ranking), depth)
    return PlayJudgement(best.play, float(best.equity), mine_equity, len(ranking), depth)


def mark(loss: float, thresholds: dict[str, float] | None = None) -> str | None:
    """The mark of a decision losing `loss`: the highest threshold reached, or None."""
    limits = thresholds or THRESHOLDS
    out = None
    for name in MARKS:
        if loss >= limits[name] - 1e-12:
            out = name
    return out


def summary(moves: list[dict[str, Any]], games: int, thresholds: dict[str, float],
            side: int) -> dict[str, Any]:
    """One player's summary over the analysed `moves` (maps with `side`, `loss`, `forced`,
    `mark` and, when judged, `luck`) of `games` games: decisions and forced moves counted,
    the marks counted, the total loss, the error rate (mean loss per non-forced
    decision), the PR (500 times the error rate), the luck in total and per game."""
    mine = [m for m in moves if m["side"] == side]
    chosen = [m for m in mine if not m["forced"]]
    loss = sum(m["loss"] for m in chosen)
    rate = loss / len(chosen) if chosen else 0.0
    lucky = [m["luck"] for m in mine if "luck" in m]
    luck = sum(lucky) if lucky else None
    return {
        "side": side, "decisions": len(chosen), "forced": len(mine) - len(chosen),
        "marks": {name: sum(1 for m in chosen if m["mark"] == name) for name in MARKS},
        "loss": round(loss, 6), "error_rate": round(rate, 6),
        "pr": round(PR_SCALE * rate, 2),
        "luck": None if luck is None else round(luck, 6),
        "luck_per_game": None if luck is None else round(luck / games, 6) if games else 0.0,
    }
