"""The two-sided cubeful bear-off table: hand-solved cases, cube theory's orderings,
agreement with the one-sided race figures and with GNU Backgammon's own table."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from jacquetd.bots import analysis, bearoff, bearoff_cube, bearoff_store, cubeful
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
    two = bearoff_cube.build("standard", 1, cubeless=True)
    assert two.cubeless is not None
    six = bearoff.rank(SIX)
    assert two.cubeless[six, six] == pytest.approx(0.75 + 0.25 * 0.25 - 0.25 * 0.75)
    # playing on: a miss lets the opponent double us out at exactly our take point
    assert f.no_double == pytest.approx(0.75 - 0.25, abs=1e-4)
    # doubled: the opponent owns the cube and redoubles after a miss (we pass or take
    # at 2 x 0.25 - 0.75 = -0.5 of 2: the same)
    assert f.double_take == pytest.approx(2 * (0.75 - 0.25), abs=1e-4)
    d = analysis.cube_decision(position("backgammon", SIX, SIX, cube=Cube()))
    assert (d.action, d.take) == ("double", "take")  # a take and a pass are worth the same


def test_a_sure_win_cashes(standard: bearoff_cube.TwoSided) -> None:
    f = standard.money((2, 0, 0, 0, 0, 0), SIX, "centre")
    assert (f.no_double, f.double_take) == pytest.approx((1.0, 2.0))


def test_cube_theory_orders_the_tables(standard: bearoff_cube.TwoSided) -> None:
    t = standard
    inner = (slice(1, None), slice(1, None))  # rank 0 is a side with nothing left
    centred, owned, unavailable = (t.equities(name)[inner]
                                   for name in ("centred", "owned", "unavailable"))
    assert (owned >= centred - 1e-4).all()  # our cube is worth most
    assert (centred >= unavailable - 1e-4).all()  # theirs least
    for table in (centred, owned, unavailable):
        assert np.abs(table).max() <= 1.0 + 1e-4
    rng = random.Random(3)
    for _ in range(200):
        me, opp = random_short_bear_off(rng)
        for owner in ("centre", "me", "opponent"):
            best = t.leaf_equity(me, opp, owner)
            f = t.money(me, opp, owner)
            assert f.no_double <= best + 1e-4  # playing on is one of the options
            if owner != "opponent":
                assert best == pytest.approx(max(f.no_double, min(f.double_take, 1.0)),
                                             abs=1e-4)
            else:
                assert best == pytest.approx(f.no_double, abs=1e-4)


def test_cubeless_figures_match_the_one_sided_race() -> None:
    """The one-sided tables play each side to bear off in the fewest rolls on average,
    the two-sided one to win: the winning chances differ little, never much."""
    checkers = 5
    two = bearoff_cube.build("standard", checkers, cubeless=True)
    assert two.cubeless is not None
    db = bearoff.database("standard")
    homes = np.array(bearoff.all_positions(checkers))
    homes = homes[homes.sum(axis=1) > 0]
    a = np.repeat(homes, len(homes), axis=0)
    b = np.tile(homes, (len(homes), 1))
    off = np.full(len(a), 15 - checkers)
    one_sided = 2 * bearoff.race_probabilities(db, a, b, off, off)[:, 0] - 1
    diff = np.abs(two.cubeless[bearoff.rank_batch(a), bearoff.rank_batch(b)] - one_sided)
    assert diff.mean() < 0.005
    assert diff.max() < 0.05


def test_the_table_is_cached_and_read_back(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JACQUETD_CACHE", str(tmp_path))
    monkeypatch.setattr(bearoff_cube, "CHECKERS", 3)
    monkeypatch.setattr(bearoff_cube, "_LOADED", {})
    assert bearoff_cube.ready_table("rearmost") is None
    built = bearoff_cube.table("rearmost")
    assert bearoff_cube.cache_path("rearmost").exists()
    monkeypatch.setattr(bearoff_cube, "_LOADED", {})
    read = bearoff_cube.ready_table("rearmost")
    assert read is not None and read is not built
    for name in ("centred", "owned", "unavailable", "moves", "counts"):
        assert np.array_equal(getattr(read, name), getattr(built, name))
    # a cache file that is not a table is ignored (and built again by `table`)
    monkeypatch.setattr(bearoff_cube, "_LOADED", {})
    bearoff_cube.cache_path("rearmost").write_bytes(b"not a table")
    assert bearoff_cube.ready_table("rearmost") is None
    read = bearoff_cube.table("rearmost")
    assert np.array_equal(read.centred, built.centred)
    # a daemon's worker (no building on demand) uses a built table, never builds one
    monkeypatch.setattr(bearoff_store, "_builds_on_demand", False)
    assert bearoff_cube.usable_table("rearmost") is read
    assert bearoff_cube.usable_table("standard") is None


def test_homes_know_a_short_bear_off() -> None:
    assert bearoff_cube.homes(side(SIX), side((1, 1, 1, 1, 1, 1))) == (SIX, (1,) * 6)
    assert bearoff_cube.homes(side(SIX), side((3, 1, 1, 1, 1, 1))) is None  # 8 checkers
    assert bearoff_cube.homes(side(SIX), side((3, 1, 1, 1, 1, 1)), checkers=8) is not None
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
                (exact.no_double, exact.double_take), abs=1e-4)
    owned = position("backgammon", me, opp, cube=Cube(2, CubeOwner.ON_ROLL))
    d = analysis.cube_decision(owned, plies=1)
    assert d.no_double == pytest.approx(
        bearoff_cube.table("standard").money(me, opp, "me").no_double, abs=1e-4)
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
    assert not np.array_equal(rearmost.centred, standard.centred)


def random_short_bear_off(rng: random.Random, checkers: int = bearoff_cube.CHECKERS
                          ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    def one() -> tuple[int, ...]:
        counts = [0] * 6
        for _ in range(rng.randint(1, checkers)):
            counts[rng.randrange(6)] += 1
        return tuple(counts)

    return one(), one()


def test_figures_are_gnu_backgammons_own() -> None:
    """GNU Backgammon answers a money cube decision in a short bear-off of up to six
    checkers a side from its own two-sided table: our figures are the same to its three
    decimals. (With seven, its network answers: it may differ there.)"""
    pytest.importorskip("gnubg", reason="the PyPI package gnubg is not importable")
    from benchmarks.bench_cube import Gnubg

    gnubg = Gnubg(0)
    rng = random.Random(11)
    checked = 0
    while checked < 12:
        me, opp = random_short_bear_off(rng, 6)
        pos = position("backgammon", me, opp, cube=Cube())
        g = gnubg.analyse(pos)
        d = analysis.cube_decision(pos)
        assert d.no_double == pytest.approx(g.nd, abs=0.0015), (me, opp, g)
        assert min(d.double_take, 1.0) == pytest.approx(min(g.dt, 1.0), abs=0.0015), (me, opp)
        checked += 1
