"""Exact match-play cube figures of short bear-offs (C1-C5 at a match score): the compiled
solve against a plain recursive one written from the rules, and the decisions
`analysis.cube_decision` gives from it."""

from __future__ import annotations

from functools import cache

import pytest

from jacquetd.bots import analysis, bearoff, bearoff_cube, bearoff_match, cubeful
from jacquetd.rules import Cube, CubeOwner, MatchState, Position

from .conftest import bear_off_position

MODEL = analysis.match_model("backgammon")


@pytest.fixture(scope="module")
def table() -> bearoff_cube.TwoSided:
    return bearoff_cube.table("standard")


def brute(me: tuple[int, ...], opp: tuple[int, ...], need_me: int, need_opp: int,
          cube: int, owner: str, crawford: bool, rule: str = "standard"
          ) -> tuple[float, float, float]:
    """(no double, double/take, double/pass) of the side on roll, by plain recursion from
    its own side: each roll's best play, the cube doubled when that gains and taken
    when a take is worth more to the taker. `owner`: 'centre', 'me' or 'opponent'."""
    nxt = crawford or need_me == 1 or need_opp == 1

    def flip(o: str) -> str:
        return {"centre": "centre", "me": "opponent", "opponent": "me"}[o]

    @cache
    def play_on(me: tuple[int, ...], opp: tuple[int, ...], nm: int, no: int, c: int,
                o: str) -> float:
        total = 0.0
        for d1, d2, w in bearoff.ROLLS:
            best = -1.0
            for after in bearoff.plays(me, d1, d2, rule):
                value = (MODEL.mwc(nm - c, no, nxt) if sum(after) == 0
                         else 1.0 - best_action(opp, after, no, nm, c, flip(o)))
                best = max(best, value)
            total += w * best
        return total

    @cache
    def best_action(me: tuple[int, ...], opp: tuple[int, ...], nm: int, no: int, c: int,
                    o: str) -> float:
        value = play_on(me, opp, nm, no, c, o)
        if not crawford and o != "opponent" and c < nm:
            value = max(value, min(play_on(me, opp, nm, no, 2 * c, "opponent"),
                                   MODEL.mwc(nm - c, no, nxt)))
        return value

    return (play_on(me, opp, need_me, need_opp, cube, owner),
            play_on(me, opp, need_me, need_opp, 2 * cube, "opponent"),
            MODEL.mwc(need_me - cube, need_opp, nxt))


CASES = [
    # me, opp, needs, cube, owner, Crawford
    ((1, 1, 0, 1, 0, 0), (0, 2, 1, 0, 0, 0), (5, 7), 1, "centre", False),
    ((2, 0, 1, 0, 0, 0), (1, 1, 0, 0, 1, 0), (2, 4), 1, "centre", False),
    ((0, 1, 0, 0, 1, 1), (2, 1, 1, 0, 0, 0), (3, 2), 2, "me", False),
    ((1, 0, 0, 2, 0, 0), (1, 2, 0, 0, 0, 0), (1, 3), 1, "centre", False),  # post-Crawford
    ((1, 0, 0, 2, 0, 0), (1, 2, 0, 0, 0, 0), (3, 1), 1, "centre", False),
    ((0, 2, 0, 0, 0, 1), (1, 0, 1, 0, 1, 0), (1, 4), 1, "centre", True),  # Crawford
    ((3, 0, 0, 0, 0, 0), (0, 0, 1, 1, 0, 0), (4, 4), 2, "opponent", False),
    ((0, 0, 1, 0, 1, 0), (0, 1, 0, 0, 1, 0), (11, 9), 1, "centre", False),
]


@pytest.mark.parametrize(("me", "opp", "needs", "cube", "owner", "crawford"), CASES)
def test_the_solve_agrees_with_plain_recursion(table, me, opp, needs, cube, owner, crawford):
    a, b = table.rank(me), table.rank(opp)
    solved = bearoff_match.solve(table, [a], [b], *needs, cube, crawford, MODEL)
    assert solved is not None
    f = solved.figures(table, a, b, *needs, cube, owner, crawford, MODEL)
    want = brute(me, opp, *needs, cube, owner, crawford)
    assert (f.no_double, f.double_take, f.double_pass) == pytest.approx(want, abs=1e-9)
    # the other side on roll, read from the same solve
    flipped = {"centre": "centre", "me": "opponent", "opponent": "me"}[owner]
    theirs = solved.figures(table, b, a, needs[1], needs[0], cube, flipped, crawford, MODEL)
    want = brute(opp, me, needs[1], needs[0], cube, flipped, crawford)
    assert (theirs.no_double, theirs.double_take, theirs.double_pass) == pytest.approx(
        want, abs=1e-9)
    # and a later turn of the same game: the cube turned, a roll played
    if not crawford and owner != "opponent" and cube < needs[0]:
        later = table.moves[a, 20, 0]  # 6-6 played
        if later:
            f = solved.figures(table, b, later, needs[1], needs[0], 2 * cube, "me", crawford,
                               MODEL)
            want = brute(opp, tuple(bearoff.by_rank(7).counts[later]), needs[1], needs[0],
                         2 * cube, "me", crawford)
            assert (f.no_double, f.double_take, f.double_pass) == pytest.approx(want,
                                                                                abs=1e-9)
    # what the solve does not cover, it does not answer
    assert solved.figures(table, a, b, needs[0] + 1, needs[1], cube, owner, crawford,
                          MODEL) is None


def test_recent_solves_serve_a_games_later_turns(table):
    me, opp = (1, 1, 0, 1, 0, 1), (0, 2, 1, 0, 1, 0)
    a, b = table.rank(me), table.rank(opp)
    bearoff_match._RECENT.clear()
    first = bearoff_match.match_figures(table, a, b, 4, 6, 1, "centre", False, MODEL)
    assert len(bearoff_match._RECENT) == 1
    later = table.moves[b, 0, 0]  # the opponent played 1-1
    again = bearoff_match.match_figures(table, a, later, 4, 6, 1, "centre", False, MODEL)
    assert len(bearoff_match._RECENT) == 1 and first is not None and again is not None
    want = brute(me, tuple(bearoff.by_rank(7).counts[later]), 4, 6, 1, "centre", False)
    assert (again.no_double, again.double_take, again.double_pass) == pytest.approx(want)


@pytest.mark.parametrize("plies", [0, 2])
def test_cube_decision_of_a_match_bear_off_is_the_exact_one(table, plies):
    me, opp = (0, 1, 0, 0, 1, 1), (2, 1, 1, 0, 0, 0)
    pos = bear_off_position(me, opp, MatchState(7, (2, 0)))
    d = analysis.cube_decision(pos, plies=plies)
    nd, dt, dp = brute(me, opp, 5, 7, 1, "centre", False)
    assert (d.no_double, d.double_take, d.double_drop) == pytest.approx((nd, dt, dp))
    want = "double" if min(dt, dp) > nd else "no_double"
    assert d.action == want and d.take == ("take" if dt <= dp else "drop")


def test_the_rules_limits_on_doubling_hold(table):
    me, opp = (0, 1, 0, 0, 1, 1), (2, 1, 1, 0, 0, 0)

    def decision(score: tuple[int, int], crawford: bool = False, cube: Cube | None = None):
        return analysis.cube_decision(bear_off_position(me, opp, MatchState(7, score, crawford),
                                                        cube))

    assert decision((6, 2), crawford=True).action == "no_double"
    theirs = decision((2, 0), cube=Cube(2, CubeOwner.OPPONENT))
    assert theirs.action == "no_double"
    # the opponent's cube: it may redouble, as the plain recursion says
    assert theirs.no_double == pytest.approx(brute(me, opp, 5, 7, 2, "opponent", False)[0])
    assert decision((5, 2), cube=Cube(2, CubeOwner.ON_ROLL)).action == "no_double"


def test_too_many_pairs_are_left_to_the_search(table):
    high = table.rank((0, 0, 0, 0, 0, 7))
    assert bearoff_match.solve(table, [high], [high], 7, 7, 1, False, MODEL) is None
    pos = bear_off_position((0, 0, 0, 0, 0, 7), (0, 0, 0, 0, 0, 7), MatchState(7, (0, 0)))
    assert cubeful.exact_match_decision(pos, MODEL) is None
    assert analysis.cube_decision(pos).mode == "match"  # decided the usual way


def test_money_positions_are_not_match_ones():
    pos = Position.validated("backgammon", [13, 1, 1] + [0] * 23, [13, 2] + [0] * 24)
    assert cubeful.exact_match_decision(pos, MODEL) is None
