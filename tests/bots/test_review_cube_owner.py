"""The review's cubeful checker value keeps the cube where it is: after a play by the
cube's owner, the opponent on roll may not double, and its figure is that of a cube its
opponent owns, not of a centred one."""

from __future__ import annotations

import pytest

from jacquetd.bots import analysis, review
from jacquetd.bots import cube as cubemod
from jacquetd.rules import Position, legal_plays
from jacquetd.rules.position import Cube, CubeOwner, MatchState

PROBS = (0.62, 0.18, 0.01, 0.10, 0.005)


def _after_an_opening(match: MatchState | None, cube: Cube) -> Position:
    start = Position.initial("backgammon")
    pos = legal_plays(start.with_dice((3, 1)))[0].after
    return Position(pos.variant, pos.me, pos.opp, (), pos.primed, cube, match)


@pytest.mark.parametrize("match", [None, MatchState(7, (0, 0), False),
                                   MatchState(7, (2, 4), False)])
def test_a_cube_the_opponent_owns_is_valued_as_its_own(match):
    model = analysis.match_model("backgammon")
    owned = _after_an_opening(match, Cube(2, CubeOwner.OPPONENT))
    centred = _after_an_opening(match, Cube(2, CubeOwner.CENTRE))
    value = review.on_roll_cube_value(owned, PROBS, model)
    x = cubemod.efficiency(owned)
    if match is None:
        assert value == pytest.approx(cubemod.money_equity(PROBS, "opponent", x), abs=1e-12)
    else:
        need = (match.length - match.score[0], match.length - match.score[1])
        expected = cubemod.match_decision(PROBS, *need, 2, "opponent", False, x, model)
        assert value == pytest.approx(expected.no_double, abs=1e-12)
    # the side on roll without access to the cube is worth less than with a centred one
    d = cubemod.position_decision(centred, PROBS, model)
    assert value < d.no_double
    # `position_decision` values a cube the side on roll cannot turn as centred; the
    # review must not take its figures for such a cube
    assert cubemod.position_decision(owned, PROBS, model).no_double == pytest.approx(
        d.no_double, abs=1e-12)


@pytest.mark.parametrize("owner", [CubeOwner.CENTRE, CubeOwner.ON_ROLL])
def test_where_the_side_on_roll_may_double_it_takes_its_best_action(owner):
    model = analysis.match_model("backgammon")
    pos = _after_an_opening(MatchState(7, (1, 1), False), Cube(1 if owner == CubeOwner.CENTRE
                                                                  else 2, owner))
    d = cubemod.position_decision(pos, PROBS, model)
    best = d.no_double if d.action != "double" else min(d.double_take, d.double_drop)
    assert review.on_roll_cube_value(pos, PROBS, model) == pytest.approx(best, abs=1e-12)
