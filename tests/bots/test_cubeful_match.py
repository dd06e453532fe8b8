"""The one-roll cubeful search in match play (C5): exact at a last roll, the rules' limits
on doubling, and figures that are match-winning chances."""

from __future__ import annotations

import pytest

from jacquetd.bots import analysis, cubeful
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.search import Searcher
from jacquetd.rules import Position
from jacquetd.rules.position import Cube, CubeOwner, MatchState

MODEL = analysis.match_model("backgammon")


@pytest.fixture(scope="module")
def searcher() -> Searcher:
    return Searcher(neural_evaluator("backgammon"))


def _last_roll(score: tuple[int, int], crawford: bool = False,
               cube: Cube | None = None) -> Position:
    """The side on roll bears off its last checker with any roll; the opponent has
    borne off, so the game is a single one."""
    me = [0] * 26
    opp = [0] * 26
    me[0], me[1] = 14, 1
    opp[0], opp[6] = 14, 1
    return Position.validated("backgammon", me, opp, cube=cube,
                              match=MatchState(7, score, crawford))


def test_a_game_won_on_every_roll_is_valued_by_the_score_it_leaves(searcher):
    d = cubeful.match_decision(searcher, _last_roll((3, 2)), MODEL, plies=1)
    m = MODEL
    assert d.mode == "match"
    assert d.no_double == pytest.approx(m.mwc(3, 5))  # needs 4 and 5: a single game won
    assert d.double_take == pytest.approx(m.mwc(2, 5))
    assert d.double_drop == pytest.approx(m.mwc(3, 5))
    # the opponent must pass, and cashing is as good as playing on: double
    assert (d.action, d.take) == ("double", "drop")


@pytest.mark.parametrize("plies", [1, 2])
def test_no_double_where_the_rules_or_the_cube_forbid_it(searcher, plies):
    crawford = cubeful.match_decision(searcher, _last_roll((6, 2), crawford=True), MODEL, plies)
    assert crawford.action == "no_double"
    theirs = _last_roll((3, 2), cube=Cube(2, CubeOwner.OPPONENT))
    assert cubeful.match_decision(searcher, theirs, MODEL, plies).action == "no_double"
    # needing 2 with the cube on 2: any win already wins the match
    dead = _last_roll((5, 2), cube=Cube(2, CubeOwner.ON_ROLL))
    assert cubeful.match_decision(searcher, dead, MODEL, plies).action == "no_double"


@pytest.mark.parametrize("plies", [1, 2])
def test_figures_are_match_winning_chances(searcher, plies):
    pos = Position.validated("backgammon", Position.initial("backgammon").me,
                             Position.initial("backgammon").opp,
                             match=MatchState(7, (2, 4)))
    d = cubeful.match_decision(searcher, pos, MODEL, plies)
    assert 0.0 < d.no_double < 1.0 and 0.0 < d.double_take < 1.0
    assert d.double_drop == pytest.approx(MODEL.mwc(4, 3))
    assert d.action == "no_double"  # nobody doubles at the start


def test_money_positions_are_refused(searcher):
    with pytest.raises(ValueError, match="needs a position with a match"):
        cubeful.match_decision(searcher, Position.initial("backgammon"), MODEL)
