"""The cube comparison with GNU Backgammon reads gnubg's real analysis correctly."""

from __future__ import annotations

import pytest

from benchmarks.bench_cube import Gnubg, cost, our_class
from jacquetd.bots import analysis
from jacquetd.rules import Cube, CubeOwner, MatchState

from .conftest import race

pytest.importorskip("gnubg", reason="the PyPI package gnubg is not importable")


@pytest.fixture(scope="module")
def gnubg_cube(tmp_path_factory: pytest.TempPathFactory) -> Gnubg:
    return Gnubg(2)


def test_clear_race_positions_agree_with_gnubg(gnubg_cube: Gnubg) -> None:
    # 66 pips against 76, on roll: a pass; 85 against 85: no double
    cases = [
        (race({6: 4, 5: 4, 4: 3, 3: 2, 2: 2}, {6: 5, 5: 4, 4: 3, 3: 2, 8: 1}), "double/pass"),
        (race({6: 4, 5: 4, 4: 3, 3: 1, 8: 1, 9: 2}, {6: 5, 5: 4, 4: 3, 3: 1, 10: 2}),
         "no double"),
    ]
    for pos, expected in cases:
        g = gnubg_cube.analyse(pos)
        assert g.action == expected, g
        assert g.dp == pytest.approx(1.0)
        ours = our_class(analysis.cube_decision(pos))
        assert ours == expected
        assert cost(ours, g) == 0.0


def test_owned_cube_and_match_score_reach_gnubg(gnubg_cube: Gnubg) -> None:
    pos = race({6: 4, 5: 4, 4: 3, 3: 2, 2: 2}, {6: 5, 5: 4, 4: 3, 3: 2, 8: 1},
               cube=Cube(2, CubeOwner.ON_ROLL))
    g = gnubg_cube.analyse(pos)
    assert g.action in ("double/pass", "too good", "double/take")
    match = race({6: 4, 5: 4, 4: 3, 3: 2, 2: 2}, {6: 5, 5: 4, 4: 3, 3: 2, 8: 1},
                 match=MatchState(7, (0, 0)))
    gm = gnubg_cube.analyse(match)
    # in a match the pass is worth the match equity of the score after it, not 1.0 point
    assert gm.dp != pytest.approx(g.dp) or gm.nd != pytest.approx(g.nd)


def test_cost_counts_the_doubler_and_the_taker() -> None:
    from benchmarks.bench_cube import GnubgCube

    g = GnubgCube("double/take", nd=0.60, dt=0.70, dp=1.0)
    assert cost("double/take", g) == 0.0
    assert cost("no double", g) == pytest.approx(0.10)
    # doubling is right, but the pass answer gives away 0.30
    assert cost("double/pass", g) == pytest.approx(0.30)


def test_cubeful_search_is_exact_when_every_roll_wins() -> None:
    # two checkers on the 1-point: every roll bears both off, a single game won
    pos = race({1: 2}, {6: 3, 5: 3})
    d = analysis.cube_decision(pos, plies=1)
    assert d.no_double == pytest.approx(1.0)
    assert d.double_take == pytest.approx(2.0)
    assert (d.action, d.take) == ("double", "drop")
