"""The search's shared work: candidates searched in one batch, a position met twice in a
batch evaluated once, and the memo of best replies a review keeps across decisions.
Each gives the figures of the plain, one-at-a-time search."""

from __future__ import annotations

import random

import numpy as np
import pytest

from jacquetd.bots import analysis, cubeful, search
from jacquetd.bots.evaluator import neural_evaluator
from jacquetd.bots.players import state_of
from jacquetd.bots.search import ReplyMemo, Searcher, State, best_replies_of
from jacquetd.rules import Position, legal_plays
from jacquetd.rules.position import Cube, MatchState

#: Batches of different make-up may round a network's float32 products differently.
TOL = 1e-6


def _positions(variant: str, count: int, seed: int) -> list[Position]:
    """Positions with dice, several plays each, from seeded random games."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.initial(variant)
        for _ in range(rng.randint(2, 30)):
            plays = legal_plays(pos.with_dice((rng.randint(1, 6), rng.randint(1, 6))))
            pos = rng.choice(plays).after
            if pos.game_over():
                break
        if pos.game_over():
            continue
        rolled = pos.with_dice((rng.randint(1, 6), rng.randint(1, 6)))
        if len(legal_plays(rolled)) >= 3:
            out.append(rolled)
    return out


@pytest.mark.parametrize("variant", ["backgammon", "jacquet"])
@pytest.mark.parametrize("plies", [1, 2])
def test_candidates_searched_together_give_each_ones_figures(variant, plies):
    s = Searcher(neural_evaluator(variant))
    for pos in _positions(variant, 2 if plies == 2 else 4, 7):
        raws = [p.raw for p in legal_plays(pos)][:5]
        together = s.evaluate_plays(state_of(pos), raws, plies)
        alone = np.array([s.evaluate_plays(state_of(pos), [r], plies)[0] for r in raws])
        assert np.abs(together - alone).max() < TOL


def test_a_repeated_position_is_evaluated_once_with_the_same_figures():
    ev = neural_evaluator("backgammon")
    states = [state_of(p.without_dice()) for p in _positions("backgammon", 3, 11)]
    me, opp, _bounds = search.roll_plays(ev.variant, states[0])
    me = np.concatenate([me, me[:40], me])
    opp = np.concatenate([opp, opp[:40], opp])
    flags = np.zeros(len(me), dtype=bool)
    found = search._distinct_rows(me, opp, flags, flags)
    assert found is not None
    first, inverse = found
    assert len(first) == len(np.unique(np.concatenate([me, opp], axis=1), axis=0))
    assert np.array_equal(me[first][inverse], me) and np.array_equal(opp[first][inverse], opp)
    calls: list[int] = []
    probs = ev.probs

    def counting(a, b, c, d):
        calls.append(len(a))
        return probs(a, b, c, d)

    ev_counting = neural_evaluator("backgammon")
    try:
        ev_counting.probs = counting  # type: ignore[method-assign]
        shared = search._probs_of_plays(ev_counting, me, opp, flags, flags)
    finally:
        del ev_counting.probs
    assert calls == [len(first)]
    plain = search.flip(ev.probs(opp, me, flags, flags))
    assert np.abs(shared - plain).max() < TOL


def test_rows_are_kept_apart_when_the_flags_differ_or_the_batch_is_small():
    me = np.zeros((80, 26), dtype=np.int16)
    opp = np.zeros((80, 26), dtype=np.int16)
    me[:, 1] = 15
    opp[:, 1] = 15
    flags = np.arange(80) % 2 == 0
    assert search._distinct_rows(me, opp, flags, ~flags) is None  # two distinct rows only
    assert search._distinct_rows(me[:10], opp[:10], flags[:10], flags[:10]) is None
    me[:, 2] = np.arange(80) // 2  # forty distinct positions, each twice
    me[:, 1] = 15 - me[:, 2]
    first, inverse = search._distinct_rows(me, opp, flags & False, flags & False)  # type: ignore[misc]
    assert len(first) == 40 and np.array_equal(me[first][inverse], me)
    assert search._distinct_rows(me, opp, flags, flags) is None  # the flags tell them apart


def test_the_memo_answers_a_state_again_with_its_first_figures():
    ev = neural_evaluator("backgammon")
    states = [state_of(p.without_dice()) for p in _positions("backgammon", 4, 5)]
    memo = ReplyMemo(size=2)
    first = best_replies_of(ev, states[:2], None, None, memo)
    assert len(memo) == 2
    again = best_replies_of(ev, states[1::-1], None, None, memo)
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a[::-1], b)
    best_replies_of(ev, states[2:], None, None, memo)  # the newer generation fills
    assert len(memo) == 4 and memo.get(states[0]) is not None
    best_replies_of(ev, [states[1]], None, None, memo)
    plain = best_replies_of(ev, states, None)
    held = best_replies_of(ev, states, None, None, memo)
    for a, b in zip(plain, held, strict=True):
        assert np.abs(a - b).max() < TOL


def test_remembering_is_scoped_and_nested_blocks_share_one_memo():
    s = analysis._searcher("backgammon")
    assert s.memo is None
    with s.remembering() as outer:
        with s.remembering() as inner:
            assert inner is outer is s.memo
        assert s.memo is outer
    assert s.memo is None


def _match_position(pos: Position) -> Position:
    return Position(pos.variant, pos.me, pos.opp, (), pos.primed, Cube(),
                    MatchState(7, (2, 3), False))


def test_reviews_with_and_without_the_memo_agree():
    """Plays ranked at 2 plies and cube decisions two rolls deep, in a row of decisions
    as a review makes them: the same figures with the memo as without."""
    positions = _positions("backgammon", 3, 23)

    def run() -> list[float]:
        out: list[float] = []
        for pos in positions:
            ranking = list(analysis.analyze(pos, plies=2))[-1]
            out.extend(r.equity for r in ranking)
            d = analysis.cube_decision(_match_position(pos.without_dice()), plies=2)
            out.extend([d.no_double, d.double_take, d.double_drop])
        return out

    plain = run()
    with analysis.remembering("backgammon"):
        first = run()
        again = run()  # every state answered from the memo
        assert len(analysis._searcher("backgammon").memo or ()) > 0
    assert np.abs(np.array(plain) - np.array(first)).max() < TOL
    assert np.abs(np.array(first) - np.array(again)).max() < 1e-12


def test_the_deep_cube_search_with_its_leaves_searched_at_once():
    """The two-roll cube search reads each leaf's replies from one batched search: the
    figures of the leaves searched one by one."""
    s = Searcher(neural_evaluator("backgammon"))
    model = analysis.match_model("backgammon")
    for pos in _positions("backgammon", 2, 31):
        state = state_of(pos.without_dice())
        got = cubeful.match_cubeful_deep(s, state, 5, 4, 1, "centre", False, model, 2)
        root = cubeful._Replies(s, state)
        leaves = root.leaf_replies()
        for r, replies in leaves.items():
            alone = cubeful._Replies(s, root.leaf_state(r))
            assert replies.state == alone.state
            assert np.abs(replies.p - alone.p).max() < TOL
        assert all(np.isfinite(got))
        assert isinstance(state, State)
