"""The compiled expansion of many positions (`replykernel.expand`) gives the rows of
generating and pruning each position in turn (`search._expand_each`): the same plays,
in the same order, in the same groups, with and without pruning, in every variant, and
when its workspace or its outputs must grow."""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots import prune, replykernel, search
from jacquetd.bots.players import state_of
from jacquetd.bots.search import State
from jacquetd.rules import Position, find_variant

from .conftest import random_position

pytestmark = pytest.mark.skipif(not replykernel.available(),
                                reason="the compiled expansion needs numba")

VARIANTS = ("jacquet", "jacquet-be", "backgammon", "long-nardy")


def _states(variant: str) -> list[State]:
    """The start, then positions of seeded random games, both sides on roll in turn;
    a state repeated, as a search level meets them."""
    states = [state_of(Position.initial(variant))]
    for seed in range(14):
        pos = random_position(variant, seed, 4 + 5 * seed)
        if not pos.game_over():
            s = state_of(pos)
            states += [s, State(s.opp, s.me, s.opp_flag, s.me_flag)]
    return states + states[:2]


def _same(variant: str, states: list[State], pruner: prune.PruneNet | None) -> None:
    v = find_variant(variant)
    me, opp, group = replykernel.expand(v, np.array([s.me for s in states]),
                                        np.array([s.opp for s in states]), pruner)
    want_me, want_opp, _mf, _of, want_group = search._expand_each(v, states, pruner, None)
    assert me.dtype == want_me.dtype == np.int16
    np.testing.assert_array_equal(group, want_group)
    np.testing.assert_array_equal(me, want_me)
    np.testing.assert_array_equal(opp, want_opp)


@pytest.mark.parametrize("variant", VARIANTS)
def test_expansion_is_each_position_generated_and_pruned_in_turn(variant: str) -> None:
    states = _states(variant)
    _same(variant, states, prune.shipped(variant))
    _same(variant, states, None)


def test_workspace_and_outputs_grow() -> None:
    space = replykernel._space
    entries, rows = space.entries, space.rows
    try:
        space.entries, space.rows = 16, 8
        space.w8, space.w64 = replykernel._gk.new_workspace(16)
        _same("jacquet", _states("jacquet")[:6], prune.shipped("jacquet"))
        assert space.entries > 16 and space.rows > 8
    finally:
        space.entries, space.rows = entries, rows
        space.w8, space.w64 = replykernel._gk.new_workspace(entries)


def test_searches_give_the_same_replies_with_and_without_it(monkeypatch) -> None:
    """Best replies (and so every search) are the same through either expansion."""
    from jacquetd.bots.evaluator import neural_evaluator

    ev = neural_evaluator("backgammon")
    states = _states("backgammon")[:9]
    pruner = prune.shipped("backgammon")
    got = search.best_replies_of(ev, states, pruner)
    monkeypatch.setattr(replykernel, "available", lambda: False)
    want = search.best_replies_of(ev, states, pruner)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_stop_is_polled_between_chunks(monkeypatch) -> None:
    monkeypatch.setattr(search, "EXPAND_CHUNK", 2)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(search.Stopped):
        search._expand_compiled(find_variant("jacquet"), _states("jacquet")[:8],
                                prune.shipped("jacquet"), stop)
    assert len(calls) == 3
