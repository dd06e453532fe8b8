"""Analysis is consistent with the bots; evaluations are probabilities; rollouts are seeded."""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots import analysis, get_bot
from jacquetd.bots.features import as_batch, contact
from jacquetd.rules import Position, find_variant

from .conftest import VARIANT_NAMES, random_position


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_top_of_analyze_is_best_move(variant, seed):
    pos = random_position(variant, seed, 8 + 5 * seed)
    for plies, level in ((0, "neural"), (1, "neural-1")):
        rankings = list(analysis.analyze(pos, plies=plies))
        assert len(rankings) >= 1
        final = rankings[-1]
        assert final[0].play == get_bot(level, variant).choose(pos)
        assert final[0].play == analysis.best_move(pos, plies=plies)
        eqs = [r.equity for r in final if r.plies == final[0].plies]
        assert eqs == sorted(eqs, reverse=True)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_evaluation_is_consistent(variant):
    pos = random_position(variant, 5, 20).without_dice()
    e = analysis.evaluate(pos)
    assert 0 <= e.win <= 1
    assert 0 <= e.win_backgammon <= e.win_gammon <= e.win
    assert 0 <= e.lose_backgammon <= e.lose_gammon <= 1 - e.win
    eq = 2 * e.win - 1 + e.win_gammon - e.lose_gammon + e.win_backgammon - e.lose_backgammon
    assert e.equity == pytest.approx(eq)
    assert set(e.to_dict()) == {"win", "win_gammon", "win_backgammon", "lose_gammon",
                                "lose_backgammon", "equity"}
    if variant == "jacquet-be":
        assert e.win_backgammon == e.lose_backgammon == 0


def test_evaluation_with_dice_is_the_best_play():
    pos = random_position("backgammon", 9, 10)
    top = list(analysis.analyze(pos, plies=0))[-1][0]
    assert analysis.evaluate(pos).equity == pytest.approx(top.equity)


def test_analyze_streams_each_depth_and_stops():
    pos = random_position("jacquet-be", 4, 20)
    depths = [r[0].plies for r in analysis.analyze(pos, plies=1)]
    if len(depths) > 1:
        assert depths == [0, 1]
    stopped = list(analysis.analyze(pos, plies=2, should_stop=lambda: True))
    assert len(stopped) == 1  # the 0-ply ranking is always given


def test_rollout_is_seeded_and_converges_reports():
    pos = random_position("jacquet-be", 3, 60).without_dice()
    a = list(analysis.rollout(pos, trials=6, seed=7, report_every=3))
    b = list(analysis.rollout(pos, trials=6, seed=7, report_every=3))
    assert [x.to_dict() for x in a] == [x.to_dict() for x in b]
    assert [x.trials_done for x in a] == [3, 6]
    assert a[-1].done
    assert a[-1].std_error >= 0


def test_contact_same_direction():
    v = find_variant("jacquet")
    start = Position.initial("jacquet")
    assert contact(v, as_batch([start.me]), as_batch([start.opp]))[0]
    me = [0] * 26
    opp = [0] * 26
    me[12], me[3], me[0] = 5, 5, 5      # all on points 1-12
    opp[11], opp[1], opp[0] = 5, 5, 5
    assert not contact(v, as_batch([me]), as_batch([opp]))[0]
    me[12], me[13] = 4, 1               # one checker still on point 14: it must pass
    assert contact(v, as_batch([me]), as_batch([opp]))[0]


def test_contact_opposite_direction():
    v = find_variant("backgammon")
    me = [0] * 26
    opp = [0] * 26
    me[13], me[0] = 5, 10
    opp[13], opp[0] = 5, 10  # rearmost 13 and 13: 26 > 25, they still face each other
    assert contact(v, as_batch([me]), as_batch([opp]))[0]
    opp[13], opp[12] = 0, 5  # 13 + 12 = 25: passed
    assert not contact(v, as_batch([me]), as_batch([opp]))[0]


def test_final_position_evaluation():
    me = [0] * 26
    opp = [0] * 26
    me[1], me[0] = 15, 0
    opp[0] = 15
    pos = Position("backgammon", tuple(me), tuple(opp))
    e = analysis.evaluate(pos)
    assert e.win == 0 and e.lose_gammon == 1 and e.equity == pytest.approx(-2.0)
    assert np.isfinite(e.equity)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_compiled_and_pure_replies_agree(variant, monkeypatch):
    """The search's fast path (compiled generator) gives exactly the pure path's values."""
    from jacquetd import fastgen
    from jacquetd.bots.evaluator import neural_evaluator
    from jacquetd.bots.search import Searcher, State

    if not fastgen.available():
        pytest.skip(fastgen.unavailable_reason() or "fastgen unavailable")
    searcher = Searcher(neural_evaluator(variant))
    states = [State(p.me, p.opp, p.primed[0], p.primed[1])
              for p in (random_position(variant, seed, 10 + 7 * seed) for seed in range(4))]
    fast = searcher.evaluate_states(states, 1)
    monkeypatch.setattr(fastgen, "available", lambda: False)
    pure = searcher.evaluate_states(states, 1)
    np.testing.assert_array_equal(fast, pure)


def test_opening_gammon_chances_are_alive():
    """The shipped networks see gammons at the opening (GNU Backgammon: about 15% a side).

    The first networks, trained with squared error, had their gammon outputs
    saturated near zero; this guards against shipping such a network again.
    """
    import gnubg

    e = analysis.evaluate(Position.initial("backgammon"))
    ec = gnubg.evalcontext(0, 0, 1, 0, 0)
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    side = [0] * 25
    side[5], side[7], side[12], side[23] = 5, 3, 5, 2
    ref = gnubg.evaluate((side, side), ci, ec)
    assert abs(e.win - ref[0]) < 0.04
    assert abs(e.win_gammon - ref[1]) < 0.06 and abs(e.lose_gammon - ref[3]) < 0.06
    for variant in ("jacquet", "jacquet-be"):
        o = analysis.evaluate(Position.initial(variant))
        assert 0.02 < o.win_gammon < 0.6 and 0.02 < o.lose_gammon < 0.6, (variant, o)
