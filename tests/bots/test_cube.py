"""Cube decisions in textbook races, and the match equity table."""

from __future__ import annotations

import itertools

import pytest

from jacquetd.bots import analysis, cube, met
from jacquetd.rules import Cube, CubeOwner, MatchState

from .conftest import race


def test_money_long_race_textbook_numbers():
    # no gammons in a long race: double from about 69%, take up to about 78%
    x = cube.race_efficiency(100)
    assert x == pytest.approx(0.68)
    for p, action, take in ((0.60, "no_double", "take"), (0.74, "double", "take"),
                            (0.90, "double", "drop")):
        d = cube.money_decision((p, 0.0, 0.0, 0.0, 0.0), "centre", x)
        assert (d.action, d.take) == (action, take), p


def test_too_good_with_gammons():
    d = cube.money_decision((0.92, 0.6, 0.0, 0.0, 0.0), "centre", 0.68)
    assert d.action == "too_good" and d.take == "drop"


def test_last_roll_positions_are_exact():
    # on roll with two checkers on the 6-point, the opponent off next roll:
    # wins only with 3-3 or more (4/36): no double
    pos = race({6: 2}, {1: 1})
    d = analysis.cube_decision(pos)
    assert d.action == "no_double"
    # two checkers on the 1-point each: the side on roll wins for sure: double, drop
    pos = race({1: 2}, {1: 2})
    d = analysis.cube_decision(pos)
    assert (d.action, d.take) == ("double", "drop")


def test_bearoff_races_exact():
    """Fifteen checkers home each side, exact database probabilities, money play."""
    full = {6: 3, 5: 3, 4: 3, 3: 3, 2: 3}  # 60 pips, on roll
    # 60 vs 64 pips (a 6-7% lead and the roll): double, take
    d = analysis.cube_decision(race(full, {6: 4, 5: 3, 4: 3, 3: 3, 2: 2}))
    assert (d.action, d.take) == ("double", "take")
    # 75 vs 77: not yet
    d = analysis.cube_decision(race({6: 5, 5: 5, 4: 5}, {6: 6, 5: 5, 4: 4}))
    assert (d.action, d.take) == ("no_double", "take")
    # 60 vs 77: far ahead, double and the opponent must pass
    d = analysis.cube_decision(race(full, {6: 6, 5: 5, 4: 4}))
    assert (d.action, d.take) == ("double", "drop")
    assert d.double_take > d.double_drop == 1.0


def test_opponent_owns_cube_no_double():
    pos = race({1: 2}, {1: 2}, cube=Cube(2, CubeOwner.OPPONENT))
    assert analysis.cube_decision(pos).action == "no_double"


def test_match_table_properties():
    m = met.MatchModel(0.25)
    t = m.table(7)
    for a in range(7):
        assert t[a, a] == pytest.approx(0.5, abs=1e-9)
        for b in range(7):
            assert t[a, b] + t[b, a] == pytest.approx(1.0, abs=1e-9)
            if b + 1 < 7:
                assert t[a, b + 1] >= t[a, b] - 1e-12  # further from winning is worse
    assert 0.66 < m.mwc(1, 2) < 0.71  # Crawford 1-away 2-away, as in published tables
    # gammonless and cubeless in the Crawford game then post-Crawford
    assert met.MatchModel(0.0).mwc(1, 2) == pytest.approx(0.75)


def test_match_decision_uses_match_chances():
    pos = race({1: 2}, {1: 2}, match=MatchState(5, (1, 2)))
    d = analysis.cube_decision(pos)
    assert d.mode == "match" and d.take == "drop"
    assert d.double_drop == pytest.approx(analysis.match_model("backgammon").mwc(3, 3),
                                          abs=1e-9)


def test_match_live_line_follows_the_cube_segment_inside_the_window():
    m = met.model(0.25)
    seg = m.segment(5, 5, 1, met.CENTRE, False, False)
    lose, win = 0.2, 0.8
    assert 0.0 < seg.lo < seg.hi < 1.0
    for p in (seg.lo, (seg.lo + seg.hi) / 2, seg.hi):
        assert cube.live_match(seg, p, lose, win) == pytest.approx(seg.at(p))
    # past the cash points the line goes on to the position's own ends
    assert cube.live_match(seg, 0.0, lose, win) == pytest.approx(lose)
    assert cube.live_match(seg, 1.0, lose, win) == pytest.approx(win)
    above = [cube.live_match(seg, seg.hi + k * (1 - seg.hi) / 10, lose, win) for k in range(11)]
    assert all(b > a for a, b in itertools.pairwise(above))


def test_match_segment_with_the_games_own_gammons():
    m = met.model(0.25)
    # the model's own rate given as shares: the model's segment, at every score and cube
    same = met.GammonShares(0.25, 0.0, 0.25, 0.0)
    for a, b, c, who in itertools.product((2, 3, 5, 7), (2, 4, 7), (1, 2), (met.CENTRE, met.MINE)):
        assert m.segment(a, b, c, who, False, False, same) == m.segment(a, b, c, who, False,
                                                                          False)
    # cube theory: the more of the doubler's wins are gammons, the worse a take is (the
    # taker's gammon losses come at twice the cube), so the doubler cashes sooner
    plain = m.segment(5, 5, 1, met.CENTRE, False, False, met.GammonShares(0.0, 0.0, 0.0, 0.0))
    gammons = m.segment(5, 5, 1, met.CENTRE, False, False,
                        met.GammonShares(0.5, 0.0, 0.0, 0.0))
    assert gammons.hi < plain.hi
    # and the more of the doubler's losses are gammons, the sooner the opponent cashes
    losses = m.segment(5, 5, 1, met.CENTRE, False, False, met.GammonShares(0.0, 0.0, 0.5, 0.0))
    assert losses.lo > plain.lo


def test_match_too_good_with_gammons():
    # 5-away/5-away, cube centred: an 85% position with 30% of its wins gammons is worth
    # more played on than cashed (a gammon wins 2 of the 5 points), as in money play;
    # the live cube stopped at the cash value used to call it a double and a pass
    probs = (0.85, 0.255, 0.0, 0.0, 0.0)
    d = cube.match_decision(probs, 5, 5, 1, "centre", False, 0.68, met.model(0.25))
    assert d.action == "too_good" and d.take == "drop"
    # the same chances without gammons: a double and a pass
    d = cube.match_decision((0.85, 0.0, 0.0, 0.0, 0.0), 5, 5, 1, "centre", False, 0.68,
                            met.model(0.25))
    assert (d.action, d.take) == ("double", "drop")
