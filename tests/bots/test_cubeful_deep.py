"""The cubeful search two rolls deep (money and match play, C1-C5): in short bear-offs,
where its leaves are exact, it must reproduce the exact figures, which checks how it
turns the cube, hands it to the opponent and values the opponent's actions."""

from __future__ import annotations

import pytest

from jacquetd.bots import analysis, bearoff_cube, bearoff_match, cubeful
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.players import state_of
from jacquetd.bots.search import Searcher
from jacquetd.rules import Position
from jacquetd.rules.position import Cube, CubeOwner, MatchState

from .conftest import bear_off_position

MODEL = analysis.match_model("backgammon")
HOMES = [((0, 1, 0, 0, 1, 1), (2, 1, 1, 0, 0, 0)), ((0, 0, 2, 1, 1, 0), (1, 1, 1, 1, 0, 1))]


@pytest.fixture(scope="module")
def searcher() -> Searcher:
    return Searcher(neural_evaluator("backgammon"))


@pytest.fixture(scope="module")
def table() -> bearoff_cube.TwoSided:
    return bearoff_cube.table("standard")


@pytest.mark.parametrize(("me", "opp"), HOMES)
@pytest.mark.parametrize("owner", ["centre", "me"])
def test_money_figures_are_the_exact_ones_in_a_short_bear_off(searcher, table, me, opp,
                                                              owner):
    nd, dt = cubeful.money_cubeful_deep(searcher, state_of(bear_off_position(me, opp)), owner, 2)
    exact = table.money(me, opp, owner)
    assert nd == pytest.approx(exact.no_double, abs=1e-3)
    assert dt == pytest.approx(exact.double_take, abs=1e-3)


@pytest.mark.parametrize(("me", "opp"), HOMES)
@pytest.mark.parametrize("score", [(2, 0), (4, 5), (5, 3)])
def test_match_figures_are_the_exact_ones_in_a_short_bear_off(searcher, table, me, opp,
                                                              score):
    need_me, need_opp = 7 - score[0], 7 - score[1]
    pos = bear_off_position(me, opp, MatchState(7, score))
    found = cubeful.match_cubeful_deep(searcher, state_of(pos), need_me, need_opp, 1,
                                       "centre", False, MODEL, 2)
    exact = bearoff_match.match_figures(table, table.rank(me), table.rank(opp), need_me,
                                        need_opp, 1, "centre", False, MODEL)
    assert exact is not None
    assert found == pytest.approx((exact.no_double, exact.double_take, exact.double_pass),
                                  abs=1e-3)


def test_decisions_respect_the_rules_limits(searcher):
    start = Position.initial("backgammon")
    assert cubeful.money_decision_deep(searcher, start).action == "no_double"
    theirs = Position.validated("backgammon", start.me, start.opp,
                                cube=Cube(2, CubeOwner.OPPONENT))
    assert cubeful.money_decision_deep(searcher, theirs).action == "no_double"
    crawford = Position.validated("backgammon", start.me, start.opp,
                                  match=MatchState(7, (6, 2), crawford=True))
    assert cubeful.match_decision_deep(searcher, crawford, MODEL).action == "no_double"
    with pytest.raises(ValueError, match="needs a position with a match"):
        cubeful.match_decision_deep(searcher, start, MODEL)


@pytest.mark.parametrize("position_id", [
    "AQIAABMiMAACAAAAIAAAABIgICQAAAAAAAAgAAAEAAA",  # money, contact
    "AQIAIzAgMAACAAAAAAAAAAAjIBABAgAAICAAAAAUAAAHAQI",  # 6-away/5-away, contact
])
def test_cube_decision_searches_two_rolls_deep_from_two_plies(searcher, position_id):
    pos = Position.from_id(position_id)
    shipped = analysis.cube_decision(pos, plies=2)
    deep = (cubeful.money_decision_deep(searcher, pos, 2) if pos.match is None
            else cubeful.match_decision_deep(searcher, pos, MODEL, 2))
    assert (shipped.no_double, shipped.double_take) == pytest.approx(
        (deep.no_double, deep.double_take))
    one_roll = analysis.cube_decision(pos, plies=1)
    assert one_roll.no_double != pytest.approx(deep.no_double, abs=1e-6)
