"""The cached match-play cube figures (`cube.match_figures`) against the reference
`cube.match_decision`, on many leaves and scores, and the cubeful search with them
against the search with the reference."""

import numpy as np
import pytest

from jacquetd.bots import analysis, cube, cubeful, met
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.search import Searcher
from jacquetd.rules import Position
from jacquetd.rules.position import Cube, CubeOwner, MatchState


def _probs(rng: np.random.Generator) -> list[float]:
    w = float(rng.choice([0.0, 1.0, rng.uniform(), rng.uniform(0.9, 1.0),
                          rng.uniform(0.0, 0.1)]))
    wg = w * rng.uniform(0.0, 0.6)
    wbg = wg * rng.uniform(0.0, 0.3)
    lg = (1.0 - w) * rng.uniform(0.0, 0.6)
    lbg = lg * rng.uniform(0.0, 0.3)
    return [w, wg, wbg, lg, lbg]


@pytest.mark.slow
@pytest.mark.parametrize("table", [None, "Kazaross-XG2"])
def test_match_figures_equal_match_decision(table: str | None) -> None:
    m = met.MatchModel(0.25, None if table is None else met.published(table))
    rng = np.random.default_rng(7)
    needs = [*range(1, 8), 11, 25, 70, 130]
    n = 0
    for a in needs:
        for b in needs:
            for cube_value in (1, 2, 4, 8, 64):
                for owner in ("centre", "me", "opponent"):
                    for crawford in (False, True):
                        if crawford and 1 not in (a, b):
                            continue
                        for _ in range(3):
                            p = _probs(rng)
                            x = float(rng.choice([0.0, 0.68, 1.0, rng.uniform()]))
                            ref = cube.match_decision(p, a, b, cube_value, owner, crawford,
                                                      x, m)
                            got = cube.match_figures(p, a, b, cube_value, owner, crawford,
                                                     x, m)
                            want = (ref.no_double, ref.double_take, ref.double_drop)
                            assert got == pytest.approx(want, abs=1e-12, rel=0), (
                                a, b, cube_value, owner, crawford, p, x)
                            n += 1
    assert n > 3000


def _reference_leaf_value(probs, need, need_other, cube_value, owner, crawford, x, model):
    """The leaf value as computed before `match_figures`: from `match_decision`."""
    p = tuple(float(v) for v in probs)
    d = cube.match_decision(p, need, need_other, cube_value, owner, crawford, x, model)
    if owner == "opponent" or crawford or cube_value >= need:
        return d.no_double
    return max(d.no_double, min(d.double_take, d.double_drop))


def _reference_efficiencies(variant, me, opp, x_contact):
    return [cubeful.side_efficiency(variant, a, b, x_contact)
            for a, b in zip(me, opp, strict=True)]


@pytest.fixture(scope="module")
def searcher() -> Searcher:
    return Searcher(neural_evaluator("backgammon"))


@pytest.mark.parametrize("score,crawford,cube_value,owner", [
    ((0, 0), False, 1, CubeOwner.CENTRE),
    ((2, 4), False, 2, CubeOwner.ON_ROLL),
    ((6, 3), True, 1, CubeOwner.CENTRE),
    ((6, 5), False, 1, CubeOwner.CENTRE),
    ((3, 6), False, 2, CubeOwner.ON_ROLL),
])
def test_the_search_gives_the_reference_figures(searcher, monkeypatch, score, crawford,
                                                cube_value, owner):
    pos = Position.validated("backgammon", Position.initial("backgammon").me,
                             Position.initial("backgammon").opp,
                             cube=Cube(cube_value, owner),
                             match=MatchState(7, score, crawford))
    model = analysis.match_model("backgammon")
    got = [cubeful.match_decision(searcher, pos, model, plies) for plies in (1, 2)]
    monkeypatch.setattr(cubeful, "match_leaf_value", _reference_leaf_value)
    monkeypatch.setattr(cubeful, "side_efficiencies", _reference_efficiencies)
    for plies, d in zip((1, 2), got, strict=True):
        ref = cubeful.match_decision(searcher, pos, model, plies)
        assert (d.no_double, d.double_take, d.double_drop) == pytest.approx(
            (ref.no_double, ref.double_take, ref.double_drop), abs=1e-9, rel=0)
        assert (d.action, d.take) == (ref.action, ref.take)
