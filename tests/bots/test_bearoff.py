"""The one-sided bear-off databases agree with brute force, and with the move generator."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from jacquetd.bots import bearoff, bearoff_kernel
from jacquetd.rules import find_variant, generate_raw

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]


def _sides(home, variant):
    me = [15 - sum(home), *home] + [0] * 19
    opp = [0] * 26
    # the opponent far out of the way: on its own 6-point (G4) or its talon (G3)
    opp[6 if variant == "backgammon" else 24] = 15
    return me, opp


@pytest.mark.parametrize("variant,rule", [("jacquet", "rearmost"), ("backgammon", "standard")])
def test_brute_force_expected_rolls(variant, rule):
    """Expectimax over all 36 rolls with the real move generator, on up to 3 checkers."""
    v = find_variant(variant)
    db = bearoff.build(rule, checkers=3)

    @cache
    def expected(home):
        if not any(home):
            return 0.0
        me, opp = _sides(home, variant)
        total = 1.0
        for dice in ROLLS:
            results = {tuple(r.me[1:7]) for r in generate_raw(v, me, opp, dice)}
            total += min(expected(h) for h in results) / 36.0
        return total

    for pos in bearoff.all_positions(3):
        r = bearoff.rank(pos)
        assert db.expected[r] == pytest.approx(expected(pos), abs=1e-9), pos
        d = db.dist[r].astype(float)
        assert d.sum() == pytest.approx(1.0, abs=1e-6)
        assert (np.arange(len(d)) * d).sum() == pytest.approx(expected(pos), abs=1e-5)


@pytest.mark.parametrize("variant,rule", [("jacquet", "rearmost"), ("jacquet-be", "standard")])
def test_plays_match_move_generator(variant, rule):
    v = find_variant(variant)
    rng = random.Random(4)
    for _ in range(300):
        home = [0] * 6
        for _ in range(rng.randint(1, 15)):
            home[rng.randrange(6)] += 1
        me, opp = _sides(home, variant)
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        expected = {tuple(r.me[1:7]) for r in generate_raw(v, me, opp, (a, b))}
        assert bearoff.plays(tuple(home), a, b, rule) == expected


def test_rank_is_a_bijection():
    positions = bearoff.all_positions(15)
    assert len(positions) == bearoff.n_positions(15) == 54264
    ranks = bearoff.rank_batch(np.array(positions))
    assert sorted(ranks.tolist()) == list(range(54264))
    assert all(bearoff.rank(p) == r for p, r in zip(positions[:500], ranks[:500], strict=True))


def test_race_probabilities_small():
    db = bearoff.build("standard", checkers=2)
    one = np.array([[1, 0, 0, 0, 0, 0]])
    # one checker on the 1-point: the side on roll always wins
    p = bearoff.race_probabilities(db, one, one, np.array([14]), np.array([14]))
    assert p[0, 0] == pytest.approx(1.0)
    # on roll with two checkers on the 6-point against one on the 1-point:
    # wins only with a double of 3 or more (4/36)
    six = np.array([[0, 0, 0, 0, 0, 2]])
    p = bearoff.race_probabilities(db, six, one, np.array([13]), np.array([14]))
    assert p[0, 0] == pytest.approx(4 / 36)


@pytest.mark.parametrize("rule", bearoff.RULES)
def test_compiled_plays_equal_the_reference(rule):
    """The kernel that builds the tables reaches exactly the positions `plays` (checked
    against the rules core's generator above) does: every position of up to 6 checkers
    and 400 random ones of up to 15, every roll."""
    positions = bearoff.by_rank(15)
    work = bearoff_kernel.Workspace(positions.counts.shape[0])
    out = np.zeros(positions.counts.shape[0], dtype=np.int64)
    rng = random.Random(7)
    sample = bearoff.all_positions(6) + [
        tuple(int(c) for c in positions.counts[rng.randrange(1, len(positions.counts))])
        for _ in range(400)]
    for pos in sample:
        a = bearoff.rank(pos)
        for d1, d2, _w in bearoff.ROLLS:
            n = bearoff_kernel.plays_into(positions, work, a, d1, d2, rule, out)
            got = {tuple(int(c) for c in positions.counts[q]) for q in out[:n]}
            assert got == bearoff.plays(pos, d1, d2, rule), (pos, d1, d2)
            assert list(out[:n]) == sorted(out[:n])
