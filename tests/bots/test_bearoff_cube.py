"""The two-sided cubeful bear-off table: hand-solved cases, cube theory's orderings,
agreement with the one-sided race figures and with GNU Backgammon's own table."""

from __future__ import annotations

import random

import numpy as np
import pytest

from jacquetd.bots import analysis, bearoff, bearoff_cube, cubeful
from jacquetd.rules import Cube, CubeOwner, MatchState, Position

SIX = (0, 0, 0, 0, 0, 1)  # one checker on the 6-point


def side(home: tuple[int, ...]) -> list[int]:
    counts = [0] * 26
    counts[1:7] = home
    counts[0] = 15 - sum(home)
    return counts


def position(variant: str, me: tuple[int, ...], opp: tuple[int, ...], **kw: object) -> Position:
    return Position.validated(variant, side(me), side(opp), **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def standard() -> bearoff_cube.TwoSided:
    return bearoff_cube.table("standard")


def test_one_checker_on_the_six_point_each(standard: bearoff_cube.TwoSided) -> None:
    # 27 rolls of 36 bear a checker off the 6-point (all but 11, 21, 31, 41, 32); a
    # miss leaves the opponent the same 75% shot, then ours comes off from lower down
    f = standard.money(SIX, SIX, "centre")
    assert f.cubeless == pytest.approx(0.75 + 0.25 * 0.25 * 1.0 - 0.25 * 0.75, abs=1e-6)
    # playing on: a miss lets the opponent double us out at exactly our take point
    assert f.no_double == pytest.approx(0.75 - 0.25, abs=1e-6)
    # doubled: the opponent owns the cube and redoubles after a miss (we pass or take
    # at 2 x 0.25 - 0.75 = -0.5 of 2: the same)
    assert f.double_take == pytest.approx(2 * (0.75 - 0.25), abs=1e-6)
    d = analysis.cube_decision(position("backgammon", SIX, SIX, cube=Cube()))
    assert (d.action, d.take) == ("double", "take")  # a take and a pass are worth the same


def test_a_sure_win_cashes(standard: bearoff_cube.TwoSided) -> None:
    f = standard.money((2, 0, 0, 0, 0, 0), SIX, "centre")
    assert (f.no_double, f.double_take, f.cubeless) == pytest.approx((1.0, 2.0, 1.0))


def test_cube_theory_orders_the_tables(standard: bearoff_cube.TwoSided) -> None:
    t = standard
    inner = (slice(1, None), slice(1, None))  # rank 0 is a side with nothing left
    assert (t.owned[inner] >= t.centred[inner] - 1e-6).all()  # our cube is worth most
    assert (t.centred[inner] >= t.unavailable[inner] - 1e-6).all()  # theirs least
    assert (t.centred[inner] >= t.play_on_centred[inner] - 1e-6).all()
    assert (t.owned[inner] >= t.play_on_owned[inner] - 1e-6).all()
    for table in (t.cubeless, t.centred, t.owned, t.unavailable):
        assert np.abs(table[inner]).max() <= 1.0 + 1e-6


def test_cubeless_figures_match_the_one_sided_race(standard: bearoff_cube.TwoSided) -> None:
    """The one-sided tables play each side to bear off in the fewest rolls on average,
    the two-sided one to win: the winning chances differ little, never much."""
    db = bearoff.database("standard")
    rng = np.random.default_rng(5)
    homes = np.array(bearoff.all_positions(bearoff_cube.CHECKERS))
    homes = homes[homes.sum(axis=1) > 0]
    a = homes[rng.integers(0, len(homes), 4000)]
    b = homes[rng.integers(0, len(homes), 4000)]
    off = np.full(len(a), 15 - bearoff_cube.CHECKERS)
    one_sided = 2 * bearoff.race_probabilities(db, a, b, off, off)[:, 0] - 1
    two_sided = standard.cubeless[bearoff.rank_batch(a), bearoff.rank_batch(b)]
    diff = np.abs(two_sided - one_sided)
    assert diff.mean() < 0.005
    assert diff.max() < 0.05


def test_homes_know_a_short_bear_off() -> None:
    assert bearoff_cube.homes(side(SIX), side((1, 1, 1, 1, 1, 1))) == (SIX, (1,) * 6)
    assert bearoff_cube.homes(side(SIX), side((2, 1, 1, 1, 1, 1))) is None  # 7 checkers
    bar = side(SIX)
    bar[25] = 1
    assert bearoff_cube.homes(bar, side(SIX)) is None
    outside = side(SIX)
    outside[7] = 1
    assert bearoff_cube.homes(side(SIX), outside) is None


def test_every_variant_and_depth_uses_the_table_in_money_play() -> None:
    me, opp = (0, 1, 0, 1, 0, 2), (0, 0, 2, 1, 1, 0)
    for variant in ("backgammon", "jacquet", "jacquet-be"):
        pos = position(variant, me, opp, cube=Cube())
        exact = bearoff_cube.table(pos.rules.bear_off).money(me, opp, "centre")
        for plies in (0, 1, 2):
            d = analysis.cube_decision(pos, plies=plies)
            assert (d.no_double, d.double_take) == pytest.approx(
                (exact.no_double, exact.double_take), abs=1e-6)
    owned = position("backgammon", me, opp, cube=Cube(2, CubeOwner.ON_ROLL))
    d = analysis.cube_decision(owned, plies=1)
    assert d.no_double == pytest.approx(
        bearoff_cube.table("standard").money(me, opp, "me").no_double, abs=1e-6)
    theirs = position("backgammon", me, opp, cube=Cube(2, CubeOwner.OPPONENT))
    assert analysis.cube_decision(theirs).action == "no_double"
    # match play is not in the table: it keeps the search
    match = position("backgammon", me, opp, cube=Cube(), match=MatchState(7, (0, 0)))
    assert cubeful.exact_money_decision(match) is None
    assert analysis.cube_decision(match).mode == "match"


def test_the_rearmost_rule_solves_its_own_table() -> None:
    # rearmost (J9/J10): a 6-1 must bear off the checker on the 4-point, not play 4/3
    rearmost = bearoff_cube.table("rearmost")
    standard = bearoff_cube.table("standard")
    assert not np.allclose(rearmost.centred, standard.centred)


def random_short_bear_off(rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...]]:
    def one() -> tuple[int, ...]:
        counts = [0] * 6
        for _ in range(rng.randint(1, bearoff_cube.CHECKERS)):
            counts[rng.randrange(6)] += 1
        return tuple(counts)

    return one(), one()


def test_figures_are_gnu_backgammons_own() -> None:
    """GNU Backgammon answers a money cube decision in a short bear-off from its own
    two-sided table: our figures are the same to its three decimals."""
    pytest.importorskip("gnubg", reason="the PyPI package gnubg is not importable")
    from benchmarks.bench_cube import Gnubg

    gnubg = Gnubg(0)
    rng = random.Random(11)
    checked = 0
    while checked < 12:
        me, opp = random_short_bear_off(rng)
        pos = position("backgammon", me, opp, cube=Cube())
        g = gnubg.analyse(pos)
        d = analysis.cube_decision(pos)
        assert d.no_double == pytest.approx(g.nd, abs=0.0015), (me, opp, g)
        assert min(d.double_take, 1.0) == pytest.approx(min(g.dt, 1.0), abs=0.0015), (me, opp)
        checked += 1
