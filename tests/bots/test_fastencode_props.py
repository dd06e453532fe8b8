"""The compiled encoder (`fastencode`) against the plain references, on positions drawn
by hypothesis: reachable positions of every variant, and backgammon boards with
checkers on the bar and blots everywhere (the shot and entering rules of
`gnubg_inputs`).

GNU Backgammon's inputs (feature version 5) must equal the plain-Python
`gnubg_inputs.side_inputs` bit for bit; the whole row must equal
`features.encode_numpy` within float32 rounding, as the other encoder tests ask.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacquetd.bots import fastencode, features, gnubg_inputs
from jacquetd.rules import find_variant
from jacquetd.rules.variants import opponent_point_map

from .conftest import random_position

pytestmark = pytest.mark.skipif(not fastencode.available(), reason="numba not available")

_ALL_VARIANTS = ("jacquet", "jacquet-be", "backgammon", "long-nardy")
# where a side's 32 inputs of gnubg's start: after its version-4 block in version 5,
# after its bar and tray in version 6
_GNUBG_COL = {5: 24 * 4 + 2 + 34, 6: 24 * 4 + 2}


def _check(variant: str, me: np.ndarray, opp: np.ndarray, me_flag: np.ndarray,
           opp_flag: np.ndarray) -> None:
    v = find_variant(variant)
    for version in fastencode.SUPPORTED:
        fast = features.encode(v, me, opp, me_flag, opp_flag, version=version)
        ref = features.encode_numpy(v, me, opp, me_flag, opp_flag, version=version)
        np.testing.assert_allclose(fast, ref, rtol=1e-6, atol=1e-6)
        if version in _GNUBG_COL and v.hitting and not v.same_direction:
            width = fastencode.side_width(version)
            at = _GNUBG_COL[version]
            for r in range(me.shape[0]):
                for a, b, col in ((me[r], opp[r], at), (opp[r], me[r], width + at)):
                    want = np.zeros(gnubg_inputs.PER_SIDE, dtype=np.float32)
                    gnubg_inputs.side_inputs(a, b, want, 0)
                    got = fast[r, col:col + gnubg_inputs.PER_SIDE]
                    assert got.tobytes() == want.tobytes(), (a.tolist(), b.tolist())


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(_ALL_VARIANTS), seed=st.integers(0, 2**31),
       moves=st.integers(0, 120), flags=st.tuples(st.booleans(), st.booleans()))
def test_reachable_positions_encode_as_the_references(variant, seed, moves, flags):
    pos = random_position(variant, seed, moves)
    me = features.as_batch([pos.me, pos.opp])
    opp = features.as_batch([pos.opp, pos.me])
    me_flag = np.array(flags, dtype=bool)
    _check(variant, me, opp, me_flag, me_flag[::-1].copy())


def _sides(rng: np.random.Generator, table: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Two backgammon sides of 15 checkers each: on the bar, the tray and the points,
    many blots, never both sides on one point."""
    me = np.zeros(26, dtype=np.int16)
    opp = np.zeros(26, dtype=np.int16)
    spread = int(rng.integers(4, 16))
    for side, other in ((me, opp), (opp, me)):
        left = 15
        while left:
            where = int(rng.choice([0, 25, 25, *range(1, 25)]))
            if 1 <= where <= 24 and other[table[where]] > 0:
                continue
            if 1 <= where <= 24 and side[where] == 0 and rng.random() * 15 > spread:
                continue
            side[where] += 1
            left -= 1
    return me, opp


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_backgammon_boards_with_bars_and_blots_encode_as_the_references(seed):
    rng = np.random.default_rng(seed)
    table = opponent_point_map(find_variant("backgammon"))
    rows = [_sides(rng, table) for _ in range(8)]
    me = np.stack([a for a, _ in rows])
    opp = np.stack([b for _, b in rows])
    flags = np.zeros(len(rows), dtype=bool)
    _check("backgammon", me, opp, flags, flags)
