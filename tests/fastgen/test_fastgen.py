"""The compiled generator (`jacquetd.fastgen`) against the pure one (`jacquetd.rules`).

The pure generator is the reference: on every position the compiled one must
give the same plays (G8: the same resulting positions), and in fact the same
list, in the same order with the same first-found spellings. Checked on
thousands of seeded game positions per variant, the worked examples of
RULES.md, arbitrary valid positions drawn by hypothesis, and the suites the
benchmarks time. The kernel compiles once per machine (numba's cache), so the
run stays short.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jacquetd import fastgen
from jacquetd.rules import Position, PositionError, generate
from jacquetd.rules.geometry import has_prime
from jacquetd.rules.variants import VARIANTS, opponent_point_map
from tests.rules.helpers import last_checkers_with_a_blot, random_positions

needs_numba = pytest.mark.skipif(
    not fastgen.available(),
    reason=f"compiled generator unavailable ({fastgen.unavailable_reason()})")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = json.loads((ROOT / "tests" / "rules" / "data" / "rules-examples.json").read_text())
VARIANT_NAMES = sorted(VARIANTS)
POSITIONS_PER_VARIANT = 3000


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    fastgen.warm_up()  # compile, or load numba's cache, once


def same_as_pure(p: Position) -> None:
    """fastgen.generate and generate_arrays agree with the pure generator on `p`."""
    want = generate(p)
    got = fastgen.generate(p)
    assert got == want, p.to_id()
    positions, steps = fastgen.generate_arrays(p.variant, p.me, p.opp, p.dice)
    assert positions.dtype == np.int8 and steps.dtype == np.int8
    assert positions.shape == (len(want), 52) and steps.shape == (len(want), 4, 3)
    assert positions.tolist() == [list(r.me + r.opp) for r in want], p.to_id()
    expected_steps = np.full((len(want), 4, 3), -1, dtype=np.int8)
    for i, r in enumerate(want):
        for j, s in enumerate(r.steps):
            expected_steps[i, j] = (s.src, s.dst, int(s.hit))
    assert np.array_equal(steps, expected_steps), p.to_id()


@needs_numba
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_seeded_game_positions_give_the_same_plays(variant: str) -> None:
    n = 0
    sizes = []
    for p in random_positions(variant, 20_240_611, POSITIONS_PER_VARIANT):
        want = generate(p)
        got = fastgen.generate(p)
        # the same set of resulting positions (G8) ...
        assert {(r.me, r.opp) for r in got} == {(r.me, r.opp) for r in want}, p.to_id()
        # ... and the same list: order, steps, dice, hits (canonical spellings)
        assert got == want, p.to_id()
        sizes.append(len(want))
        n += 1
    assert n == POSITIONS_PER_VARIANT
    assert max(sizes) > 100  # the suite reaches positions with many plays


@needs_numba
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_arrays_match_on_game_positions(variant: str) -> None:
    for p in random_positions(variant, 7, 500):
        same_as_pure(p)


@needs_numba
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_all_rolls_at_once_match_each_roll(variant: str) -> None:
    """`generate_all_rolls` is `generate_arrays` of the 21 rolls, one after the other,
    also when a roll outgrows a small workspace on the way."""
    local = fastgen._local
    saved = (local.w8, local.w64, local.entries)
    local.w8, local.w64, local.entries = None, None, 16
    try:
        for p in random_positions(variant, 11, 60):
            positions, bounds = fastgen.generate_all_rolls(variant, p.me, p.opp)
            rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
            assert len(bounds) == 22 and bounds[0] == 0 and bounds[-1] == len(positions)
            for k, dice in enumerate(rolls):
                one, _ = fastgen.generate_arrays(variant, p.me, p.opp, dice)
                assert positions[bounds[k]:bounds[k + 1]].tolist() == one.tolist(), p.to_id()
    finally:
        local.w8, local.w64, local.entries = saved


@pytest.mark.parametrize("case", EXAMPLES["cases"],
                         ids=[f"{'-'.join(c['rules'])}:{c['case']}" for c in EXAMPLES["cases"]])
@needs_numba
def test_worked_examples(case: dict) -> None:
    p = Position.from_dict(case["position"])
    got = {(r.me, r.opp) for r in fastgen.generate(p)}
    expected = {(tuple(r["mover"]), tuple(r["opponent"])) for r in case["results"]}
    assert got == expected, f"{case['case']} ({', '.join(case['rules'])})"
    same_as_pure(p)


@needs_numba
def test_last_checkers_hitting_on_the_way_off() -> None:
    """G7 where a win with one die competes with a hit that plays both."""
    positions = list(last_checkers_with_a_blot())
    for p in positions:
        same_as_pure(p)
    hit_wins = [p for p in positions if p.dice == (4, 1) and p.me[2] == 1 and p.opp[24] == 1
                and p.me[0] == 14]
    assert hit_wins and all(
        [" ".join(map(str, r.steps)) for r in fastgen.generate(p)] == ["2/1* 1/off"]
        for p in hit_wins)


@needs_numba
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_every_roll_from_the_start(variant: str) -> None:
    start = Position.initial(variant)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            same_as_pure(start.with_dice((d1, d2)))


@st.composite
def arbitrary_positions(draw: st.DrawFn, only: str | None = None) -> Position:
    """A valid position with both sides' checkers placed at random (not from a game)."""
    variant = only or draw(st.sampled_from(VARIANT_NAMES))
    v = VARIANTS[variant]
    table = opponent_point_map(v)
    places = list(range(0, 26 if v.hitting else 25))
    me = [0] * 26
    for q in draw(st.lists(st.sampled_from(places), min_size=15, max_size=15)):
        me[q] += 1
    assume(me[0] < 15)
    free = [q for q in places if q in (0, 25) or not me[table[q]]]
    opp = [0] * 26
    for q in draw(st.lists(st.sampled_from(free), min_size=15, max_size=15)):
        opp[q] += 1
    assume(opp[0] < 15)
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    primed = (has_prime(me), has_prime(opp)) if v.tracks_primes else (False, False)
    try:
        return Position.validated(variant, me, opp, dice, primed)
    except PositionError:
        assume(False)
        raise


@needs_numba
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(arbitrary_positions())
def test_arbitrary_positions(p: Position) -> None:
    same_as_pure(p)


@needs_numba
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(arbitrary_positions("long-nardy"))
def test_arbitrary_long_nardy_positions(p: Position) -> None:
    """N5 and N6 on positions no seeded game reaches: checkers anywhere, blocks standing
    with a checker ahead, the head full or not."""
    same_as_pure(p)


@needs_numba
def test_long_nardy_head_and_block_positions() -> None:
    """Every roll on positions that put N5 and N6 to work: the first turn of either side,
    a later turn with checkers still on the head, and Ex9/Ex10's blocks (each side's
    `me` as {point: count}, the rest borne off)."""
    from tests.rules.helpers import side

    cases = [({24: 15}, {24: 15}), ({24: 15}, {24: 14, 4: 1}), ({24: 15}, {24: 13, 21: 1, 15: 1}),
             ({24: 13, 18: 2}, {24: 13, 18: 2}),
             ({9: 1, 6: 1, 5: 2, 4: 2, 2: 2, 1: 2}, {24: 12, 23: 1, 22: 1, 20: 1}),
             ({9: 1, 6: 1, 5: 2, 4: 2, 2: 2, 1: 2}, {24: 12, 23: 1, 22: 1, 12: 1}),
             ({24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 18: 1, 17: 1}, {24: 15})]
    for me, opp in cases:
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                same_as_pure(Position.validated("long-nardy", side(me), side(opp), (d1, d2)))


@needs_numba
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANT_NAMES), st.integers(0, 2**32 - 1))
def test_random_games(variant: str, seed: int) -> None:
    for p in random_positions(variant, seed, 60):
        same_as_pure(p)


@needs_numba
def test_a_small_workspace_grows() -> None:
    """A position with more plays than the workspace holds: the call retries, larger."""
    from jacquetd.fastgen import kernel

    big = max((p for p in random_positions("jacquet", 3, 1500) if p.dice[0] == p.dice[1]),
              key=lambda p: len(generate(p)))
    assert len(generate(big)) > 100
    w8, w64 = kernel.new_workspace(16)
    positions, codes = kernel.plays_kernel(bytes(big.me), bytes(big.opp), *big.dice,
                                           fastgen.flags_of(big.rules), w8, w64)
    assert len(positions) == 0 and len(codes) == 0  # too small: no rows
    local = fastgen._local
    saved = (local.w8, local.w64, local.entries)
    local.w8, local.w64 = w8, w64
    local.entries = 16
    try:
        same_as_pure(big)
        assert local.entries > 16
    finally:
        local.w8, local.w64, local.entries = saved


@needs_numba
def test_numpy_inputs() -> None:
    p = Position.initial("backgammon").with_dice((4, 2))
    for dtype in (np.int8, np.int16, np.int64, np.uint8):
        positions, _ = fastgen.generate_arrays(
            "backgammon", np.array(p.me, dtype=dtype), np.array(p.opp, dtype=dtype), (4, 2))
        assert positions.tolist() == [list(r.me + r.opp) for r in generate(p)]


@needs_numba
def test_bad_shapes_and_dice_are_refused() -> None:
    p = Position.initial("backgammon")
    for me, opp, dice in ((p.me[:25], p.opp, (3, 1)), (p.me, (*p.opp, 0), (3, 1)),
                          (p.me, p.opp, (0, 1)), (p.me, p.opp, (3, 7))):
        with pytest.raises(ValueError):
            fastgen.generate_arrays("backgammon", me, opp, dice)
    with pytest.raises(ValueError):
        fastgen.generate_arrays("chess", p.me, p.opp, (3, 1))


@needs_numba
def test_errors_are_the_pure_generators() -> None:
    from jacquetd.rules import GameStateError

    with pytest.raises(GameStateError):
        fastgen.generate(Position.initial("jacquet"))


def test_without_numba_everything_falls_back() -> None:
    """JACQUETD_FASTGEN=0 (as when numba is missing): the pure generator answers."""
    code = (
        "from jacquetd import fastgen\n"
        "from jacquetd.rules import Position, generate\n"
        "assert not fastgen.available() and fastgen.warm_up() == 0.0\n"
        "p = Position.initial('jacquet').with_dice((3, 3))\n"
        "assert fastgen.generate(p) == generate(p)\n"
        "pos, steps = fastgen.generate_arrays('jacquet', p.me, p.opp, p.dice)\n"
        "assert pos.tolist() == [list(r.me + r.opp) for r in generate(p)]\n"
        "import sys; assert 'numba' not in sys.modules\n"
    )
    env = dict(os.environ, JACQUETD_FASTGEN="0")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT, timeout=120)
