"""Cubeful rollouts (`jacquetd.bots.cuberollout`): with a one-turn horizon and the 36
stratified first rolls they are the one-roll cubeful search (to the float32 rounding of
the evaluations: BLAS may round a row differently in a batch of another size, and the
two batch the same plays differently); the two lines share their dice; bad arguments
are refused."""

from __future__ import annotations

import pytest

from jacquetd.bots.cubeful import money_cubeful
from jacquetd.bots.cuberollout import CubefulRollout
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.players import state_of
from jacquetd.bots.search import Searcher
from jacquetd.rules import Position


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be", "backgammon"])
def test_one_turn_is_the_one_roll_cubeful_search(variant: str) -> None:
    searcher = Searcher(neural_evaluator(variant))
    state = state_of(Position.initial(variant))
    for owner in ("centre", "me"):
        result = CubefulRollout(searcher).run(state, trials=36, seed=5, horizon=1, owner=owner)
        nd, dt = money_cubeful(searcher, state, owner, plies=1)
        assert result.nd == pytest.approx(nd, abs=1e-6)
        assert result.dt == pytest.approx(dt, abs=1e-6)


def test_lines_share_the_dice_and_the_seed_repeats() -> None:
    searcher = Searcher(neural_evaluator("jacquet"))
    state = state_of(Position.initial("jacquet"))
    roller = CubefulRollout(searcher)
    a = roller.run(state, trials=72, seed=3, horizon=4)
    b = CubefulRollout(searcher).run(state, trials=72, seed=3, horizon=4)
    assert (a.no_double == b.no_double).all() and (a.double_take == b.double_take).all()
    # common random numbers: the difference varies much less than either line
    assert a.difference_se < max(a.nd_se, a.dt_se)
    assert a.decision(0.68).action in ("no_double", "double", "too_good")


def test_bad_arguments() -> None:
    roller = CubefulRollout(Searcher(neural_evaluator("jacquet")))
    state = state_of(Position.initial("jacquet"))
    with pytest.raises(ValueError, match="trials"):
        roller.run(state, trials=0, seed=1, horizon=1)
    with pytest.raises(ValueError, match="horizon"):
        roller.run(state, trials=1, seed=1, horizon=0)
    with pytest.raises(ValueError, match="access"):
        roller.run(state, trials=1, seed=1, horizon=1, owner="opponent")


def _cube_positions(count: int) -> list[Position]:
    """Positions of the `jacquet` cube truth set: in the doubling window, so that the
    later turns double, take and pass."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks/truth/jacquet.cube.j2.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:count + 1]]
    return [Position.from_id(r["position_id"]) for r in rows]


@pytest.mark.parametrize("horizons", [(2, 3), (1, 4, 6)])
def test_several_horizons_are_the_mean_of_each_on_the_same_dice(horizons) -> None:
    """Each trial's value is the mean of the values the same trial has cut after each
    horizon (games that end or are passed before a horizon included)."""
    searcher = Searcher(neural_evaluator("jacquet"))
    for pos in [*_cube_positions(3), Position.initial("jacquet")]:
        state = state_of(pos)
        joined = CubefulRollout(searcher).run(state, trials=36, seed=7, horizon=horizons)
        alone = [CubefulRollout(searcher).run(state, trials=36, seed=7, horizon=h)
                 for h in horizons]
        for line in ("no_double", "double_take"):
            mean = sum(getattr(r, line) for r in alone) / len(alone)
            assert getattr(joined, line) == pytest.approx(mean, abs=1e-12)
    with pytest.raises(ValueError, match="horizons"):
        CubefulRollout(searcher).run(state, trials=1, seed=1, horizon=(3, 0))
