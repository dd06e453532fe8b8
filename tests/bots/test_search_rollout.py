"""`SearchRollout`: rollouts whose player searches, the stronger judge of the truth sets.

At 0 plies it is `TruncatedRollout`, trial for trial. At 1 ply its choice for a roll is
the play `Searcher.best` chooses at 1 ply, worth the equity `Searcher.rank` gives it. A
trial stopped at its first turn is worth that play's 1-ply equity less the roll's 0-ply
luck.
"""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.fastrollout import ROLL_INDEX, SearchRollout, TruncatedRollout
from jacquetd.bots.net import equity
from jacquetd.bots.players import state_of
from jacquetd.bots.search import ROLLS, Searcher, State, after
from jacquetd.rules import find_variant, generate_raw

from .conftest import random_position

VARIANTS = ("jacquet", "jacquet-be", "backgammon", "long-nardy")


def _states(variant: str) -> list[State]:
    return [state_of(random_position(variant, seed, moves))
            for seed, moves in ((3, 6), (8, 20), (13, 45))]


@pytest.mark.parametrize("variant", VARIANTS)
def test_at_zero_plies_it_is_the_truncated_rollout(variant: str) -> None:
    ev = neural_evaluator(variant)
    s = _states(variant)[1]
    a = TruncatedRollout(ev).run(s, trials=12, seed=[5, 1], horizon=3)
    b = SearchRollout(ev, plies=0).run(s, trials=12, seed=[5, 1], horizon=3)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.raw, b.raw)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_one_ply_turn_plays_the_searchers_choice(variant: str) -> None:
    v = find_variant(variant)
    ev = neural_evaluator(variant)
    roller = SearchRollout(ev, plies=1)
    searcher = Searcher(ev)
    checked = 0
    for s in _states(variant):
        for a, b, _w in ROLLS[::4]:
            raws = generate_raw(v, s.me, s.opp, (a, b))
            luck, value, nxt = roller.turn(s, ROLL_INDEX[(a, b)])
            e = roller.expand(s)
            assert luck == e.best[ROLL_INDEX[(a, b)]] - e.mean
            k = searcher.best(s, raws, 1)
            *_, ranking = searcher.rank(s, raws, 1)
            assert value == pytest.approx(float(equity(ranking[0][1])), abs=1e-12)
            assert nxt == (None if raws[k].me[0] == 15 else after(s, raws[k], v.tracks_primes))
            checked += 1
    assert checked == 18


def test_one_ply_trials_are_seeded_and_stop_at_the_horizon() -> None:
    ev = neural_evaluator("jacquet")
    s = _states("jacquet")[1]
    one = SearchRollout(ev, plies=1)
    a = one.run(s, trials=36, seed=[9, 2], horizon=1)
    b = SearchRollout(ev, plies=1).run(s, trials=36, seed=[9, 2], horizon=1)
    np.testing.assert_array_equal(a.values, b.values)
    # one turn: each stratified first roll once; the value is the 1-ply choice's equity
    # less its 0-ply luck, whose mean over the 36 rolls is zero
    e = one.expand(s)
    firsts = [one.turn(s, ROLL_INDEX[(k // 6 + 1, k % 6 + 1)]) for k in range(36)]
    assert sorted(a.raw) == pytest.approx(sorted(v for _l, v, _n in firsts))
    assert float(np.mean([lk for lk, _v, _n in firsts])) == pytest.approx(0.0, abs=1e-12)
    assert e.mean == pytest.approx(float(np.mean([e.best[ROLL_INDEX[(k // 6 + 1, k % 6 + 1)]]
                                                  for k in range(36)])))
    with pytest.raises(ValueError, match="plies"):
        SearchRollout(ev, plies=-1)
