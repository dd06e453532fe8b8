"""The cached match-play cube figures (`cube.match_figures`) against the reference
`cube.match_decision`, on many leaves and scores."""

import numpy as np
import pytest

from jacquetd.bots import cube, met


def _probs(rng: np.random.Generator) -> list[float]:
    w = float(rng.choice([0.0, 1.0, rng.uniform(), rng.uniform(0.9, 1.0),
                          rng.uniform(0.0, 0.1)]))
    wg = w * rng.uniform(0.0, 0.6)
    wbg = wg * rng.uniform(0.0, 0.3)
    lg = (1.0 - w) * rng.uniform(0.0, 0.6)
    lbg = lg * rng.uniform(0.0, 0.3)
    return [w, wg, wbg, lg, lbg]


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
