"""The evaluator's input encodings: both versions, hand-checked values, and their use."""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots import features
from jacquetd.bots.evaluator import NeuralEvaluator, load_net
from jacquetd.bots.net import Net
from jacquetd.bots.selfplay import start_side
from jacquetd.rules import find_variant

from .conftest import VARIANT_NAMES, random_position

# the five version-2 extras sit at the end of each side's block
_SIDE = 98 + 16


def _start(variant: str) -> tuple[np.ndarray, np.ndarray]:
    side = features.as_batch([start_side(find_variant(variant))])
    return side, side.copy()


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_width_matches_the_version(variant, version):
    me, opp = _start(variant)
    x = features.encode(find_variant(variant), me, opp, version=version)
    assert x.shape == (1, features.n_inputs(version))
    assert np.isfinite(x).all()


def test_unknown_version_is_refused():
    with pytest.raises(ValueError, match="feature version 9"):
        features.n_inputs(9)


def test_backgammon_start_blocking_features_by_hand():
    # my checkers outside home: 2 on 24, 5 on 13, 3 on 8; the opponent holds my
    # points 1, 12, 17 and 19: the 24s see 19 among 18-23, the 13s see 12 among
    # 7-12, the 8s see nothing among 2-7
    me, opp = _start("backgammon")
    x = features.encode(find_variant("backgammon"), me, opp, version=2)[0]
    blocked, trapped, power, outside, pips_home = x[_SIDE - 5:_SIDE]
    assert blocked == pytest.approx((2 / 6 + 5 / 6) / 10)
    assert trapped == 0.0
    # my held points 6, 8, 13, 24 are the opponent's 19, 17, 12, 1: 2 + 2 + 7 + 15 pass them
    assert power == pytest.approx(26 / 90)
    assert outside == pytest.approx(10 / 15)
    assert pips_home == pytest.approx((2 * 18 + 5 * 7 + 3 * 2) / 100)


def test_jacquet_be_holds_a_point_with_one_checker():
    # B3: in jacquet-be a single checker holds a point, so runs count single checkers
    v = find_variant("jacquet-be")
    me = np.zeros((1, 26), dtype=np.int16)
    me[0, 24], me[0, 20], me[0, 19], me[0, 18] = 12, 1, 1, 1
    opp = np.zeros((1, 26), dtype=np.int16)
    opp[0, 24] = 15
    longest = 98 + 5  # the sixth extra: the longest run of held points, over 6
    v2 = features.encode(v, me, opp, version=2)[0]
    v1 = features.encode(v, me, opp, version=1)[0]
    assert v2[longest] == pytest.approx(3 / 6)
    assert v1[longest] == pytest.approx(1 / 6)  # version 1 counted two or more only


def test_trapped_checkers_face_four_held_points():
    v = find_variant("backgammon")
    me = np.zeros((1, 26), dtype=np.int16)
    me[0, 24], me[0, 6] = 1, 14
    opp = np.zeros((1, 26), dtype=np.int16)
    # the opponent holds its points 2-6 = my 23..19, five of the six ahead of my 24
    for j in range(2, 7):
        opp[0, j] = 2
    opp[0, 1] = 5
    x = features.encode(v, me, opp, version=2)[0]
    blocked, trapped = x[_SIDE - 5], x[_SIDE - 4]
    assert blocked == pytest.approx(5 / 6)
    assert trapped == pytest.approx(1 / 15)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_shipped_network_reads_its_own_version(variant):
    net = load_net(variant)
    ev = NeuralEvaluator(find_variant(variant), net)
    assert ev.feature_version == int(net.meta.get("feature_version", 1))
    pos = random_position(variant, 4, 12)
    me = features.as_batch([pos.me])
    opp = features.as_batch([pos.opp])
    flags = np.zeros(1, dtype=bool)
    p = ev.probs(me, opp, flags, flags)
    assert p.shape == (1, 5) and (p >= 0).all() and (p <= 1).all()


def test_network_and_version_must_agree():
    net = Net(features.n_inputs(1), 4, meta={"feature_version": 2})
    with pytest.raises(ValueError, match="feature version 2"):
        NeuralEvaluator(find_variant("jacquet"), net)


@pytest.mark.parametrize("version", [2, 3, 4, 5])
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_compiled_encoder_equals_the_numpy_reference(variant, version):
    from jacquetd.bots import fastencode

    if not fastencode.available():
        pytest.skip("numba unavailable")
    v = find_variant(variant)
    positions = [random_position(variant, seed, seed % 90) for seed in range(300)]
    me = features.as_batch([p.me for p in positions])
    opp = features.as_batch([p.opp for p in positions])
    rng = np.random.default_rng(1)
    me_flag = rng.random(len(positions)) < 0.3
    opp_flag = rng.random(len(positions)) < 0.3
    fast = features.encode(v, me, opp, me_flag, opp_flag, version=version)
    ref = features.encode_numpy(v, me, opp, me_flag, opp_flag, version=version)
    assert fast.dtype == ref.dtype == np.float32
    np.testing.assert_allclose(fast, ref, rtol=1e-6, atol=1e-6)


def test_compiled_encoder_reuses_its_working_space_whatever_it_holds():
    from jacquetd.bots import fastencode

    if not fastencode.available():
        pytest.skip("numba unavailable")
    v = find_variant("backgammon")
    positions = [random_position("backgammon", seed, 10 + seed % 60) for seed in range(40)]
    me = features.as_batch([p.me for p in positions])
    opp = features.as_batch([p.opp for p in positions])
    flags = np.zeros(len(positions), dtype=bool)
    want = fastencode.encode(v, me, opp, flags, flags, 5)
    table = np.array(fastencode.opponent_point_map(v), dtype=np.int64)
    width = fastencode.side_width(5)
    # leftovers of other positions, or a space too small (then replaced)
    for scratch in (np.full(fastencode.SCRATCH, 7, dtype=np.int64), np.zeros(3, dtype=np.int64)):
        got = np.zeros_like(want)
        for r in range(len(positions)):  # row by row, as the single-position path does
            fastencode._encode_rows(me[r:r + 1], opp[r:r + 1], flags[:1], flags[:1], table,
                                    fastencode.variant_flags(v), 5, width, fastencode.ESCAPES,
                                    got[r:r + 1], scratch)
        np.testing.assert_array_equal(got, want)


# the six version-3 extras close each side's block: shots, pips lost, dance,
# back escapes, mobility, containment
_SIDE3 = 98 + 22


def _extras(me: np.ndarray, opp: np.ndarray, variant: str) -> np.ndarray:
    """The side on roll's six version-3 extras, the compiled encoder checked against numpy."""
    x = features.encode(find_variant(variant), me, opp, version=3)[0]
    ref = features.encode_numpy(find_variant(variant), me, opp, version=3)[0]
    np.testing.assert_allclose(x, ref, rtol=1e-6, atol=1e-6)
    return x[_SIDE3 - 6:_SIDE3]


def _shot_features(me: np.ndarray, opp: np.ndarray, variant: str = "backgammon") -> np.ndarray:
    return _extras(me, opp, variant)[:3]


def _blocking_features(me: np.ndarray, opp: np.ndarray, variant: str = "backgammon"
                       ) -> np.ndarray:
    return _extras(me, opp, variant)[3:]


def _sides() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((1, 26), dtype=np.int16), np.zeros((1, 26), dtype=np.int16)


def test_entering_hits_cost_the_most_pips():
    # my blot on my 1 point is the opponent's 24, where its checker on the bar enters with a 1
    me, opp = _sides()
    me[0, 1], me[0, 0] = 1, 14
    opp[0, 25], opp[0, 0] = 1, 14
    shots, lost, dance = _shot_features(me, opp)
    assert shots == pytest.approx(11 / 36)
    assert lost == pytest.approx(11 * 24 / (36 * 12))  # a hit on my 1 point costs 24 pips
    assert dance == 0.0


@pytest.mark.parametrize(("distance", "rolls"), [(1, 11), (2, 12), (3, 14), (4, 15),
                                                 (5, 15), (6, 17), (7, 6), (8, 6),
                                                 (9, 5), (10, 3), (11, 2), (12, 3),
                                                 (15, 1), (16, 1), (18, 1), (20, 1),
                                                 (23, 0)])
def test_shots_from_the_board_are_the_textbook_counts(distance, rolls):
    # my blot on my 24 point (the opponent's 1); an opposing checker on the opponent's 1 + distance
    me, opp = _sides()
    me[0, 24], me[0, 0] = 1, 14
    opp[0, 1 + distance], opp[0, 0] = 1, 14
    shots, lost, _ = _shot_features(me, opp)
    assert shots == pytest.approx(rolls / 36)
    assert lost == pytest.approx(rolls * 1 / (36 * 12))


def test_held_points_block_the_combined_shots():
    # 6 away: 17 rolls; holding both the 3 and the 2 (and 4) steps on the way leaves
    # the direct sixes (11), 5-1 by the 5 then the 1 (open) and not 4-2, 3-3 or 2-2
    me, opp = _sides()
    me[0, 24] = 1                     # the opponent's 1 point
    for mine in (22, 21, 20):         # the opponent's 3, 4 and 5 points
        me[0, mine] = 2
    me[0, 0] = 15 - me[0].sum()
    opp[0, 7], opp[0, 0] = 1, 14      # six pips from the blot
    shots, _, _ = _shot_features(me, opp)
    # sixes 11; 5-1: 7 -> 6 (open) -> 1 or 7 -> 2 (open) -> 1: 2 more; 4-2 needs 5 or 3: both closed
    assert shots == pytest.approx(13 / 36)


def test_a_checker_on_the_bar_enters_before_it_hits():
    # the opponent has one checker on the bar and one on its 7 point, 6 pips from my blot
    # on its 1: it must enter first, so only the other die can move the 7 point checker
    me, opp = _sides()
    me[0, 24], me[0, 0] = 1, 14
    opp[0, 25], opp[0, 7], opp[0, 0] = 1, 1, 13
    shots, _, _ = _shot_features(me, opp)
    # a 6 with any other die enters with that die and hits with the 6 (10 rolls); 6-6 enters
    # and moves on 6 then 6 ... from the 19, never reaching the 1 in three steps, but the 7
    # point checker hits with the second 6: 1 roll; combinations are gone; 3-3: enter on 22,
    # then 7 -> 4 -> 1 with two of the three steps left: 1; 2-2: 7 -> 5 -> 3 -> 1 in three: 1
    assert shots == pytest.approx(13 / 36)


def test_dance_counts_the_closed_entry_points():
    me, opp = _sides()
    me[0, 25], me[0, 0] = 1, 14
    for own in (1, 2, 3, 4):  # the opponent holds four of my entry points (its 1-4)
        opp[0, own] = 2
    opp[0, 0] = 15 - opp[0].sum()
    _, _, dance = _shot_features(me, opp)
    assert dance == pytest.approx((4 / 6) ** 2)


def test_no_shots_without_hitting():
    me, opp = _sides()
    me[0, 24], me[0, 12], me[0, 0] = 1, 1, 13
    opp[0, 24], opp[0, 0] = 15, 0
    assert (_shot_features(me, opp, "jacquet-be") == 0).all()


def test_escapes_mobility_and_containment_by_hand():
    # my last checker on my 24 point; the opponent holds its 7 point (my 18, six ahead)
    me, opp = _sides()
    me[0, 24], me[0, 0] = 1, 14
    opp[0, 7], opp[0, 0] = 2, 13
    back, mobility, contain = _blocking_features(me, opp)
    # all but the rolls of sum six (5-1, 4-2, 3-3) and 6-6, both of whose dice land there
    assert back == pytest.approx(30 / 36)
    assert mobility == pytest.approx(30 * 18 / 3600)
    # my one checker holds nothing, so nothing contains the opponent
    assert contain == 0.0


def test_a_full_prime_contains_completely():
    # I hold my points 4-9, six in a row; the opponent has two checkers on its 24 (my 1)
    me, opp = _sides()
    for q in range(4, 10):
        me[0, q] = 2
    me[0, 0] = 3
    opp[0, 24], opp[0, 0] = 2, 13
    back, mobility, contain = _blocking_features(me, opp)
    assert contain == 1.0  # from its 22 (my 3) the prime stands directly ahead: no roll passes
    # my rearmost is on 9, the opponent's anchor 8 pips ahead: 6-2, 5-3, 4-4 stop it
    assert back == pytest.approx(31 / 36)
    # my 7s meet the anchor at 6 (30 rolls), the 8s at 7 (30), the 9s at 8 (31)
    assert mobility == pytest.approx(2 * (30 * 1 + 30 * 2 + 31 * 3) / 3600)
    opp_back, _, _ = _blocking_features(opp, me)
    assert opp_back == pytest.approx(1 / 36)  # its 24s behind the prime 3-8 ahead: only 1-1


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_blocking_features_in_every_variant(variant):
    me, opp = _start(variant)
    back, mobility, contain = _blocking_features(me, opp, variant)
    assert 0.0 <= back <= 1.0 and mobility >= 0.0 and 0.0 <= contain <= 1.0


# the twelve version-4 extras close each side's block
_SIDE4 = 98 + 34


def _v4(me: np.ndarray, opp: np.ndarray, variant: str = "backgammon") -> np.ndarray:
    """The side on roll's twelve version-4 extras, the compiled encoder checked against numpy."""
    x = features.encode(find_variant(variant), me, opp, version=4)[0]
    ref = features.encode_numpy(find_variant(variant), me, opp, version=4)[0]
    np.testing.assert_allclose(x, ref, rtol=1e-6, atol=1e-6)
    return x[_SIDE4 - 12:_SIDE4]


def test_version_4_features_of_the_backgammon_start_by_hand():
    me, opp = _start("backgammon")
    (back, back_anchor, forward, doubles, enter, timing, brk, free, moment, backbone,
     backg, backg1) = _v4(me, opp)
    assert back == pytest.approx(23 / 24) and back_anchor == pytest.approx(23 / 24)
    assert forward == pytest.approx(1 / 6)  # the anchor on the opponent's 1-point
    assert doubles == 0.0 and enter == 0.0
    # spares: three on 13, all three on 8, three on 6 (24 + 21 + 15 = 60 pips... less
    # the pips of the four home points they fill: 5, 4, 3 and 2 take two each)
    assert timing == pytest.approx((36 + 21 + 15 - 8 - 6 - 4 - 2) / 100)
    # every checker must pass the opponent's rearmost (on our 1-point): 167 pips
    assert brk == pytest.approx(1.0) and free == 0.0
    # mean point 167/15 rounded up is 12; beyond it 5 on 13 and 2 on 24
    assert moment == pytest.approx(42 / 400)  # (5 * 1 + 2 * 144) / 7 rounded up
    # held points 24, 13, 8, 6: 24 -> 13 is 11 pips (2), then 5 and 2 pips (11)
    assert backbone == pytest.approx(1 - (2 * 2 + 11 * 5 + 11 * 3) / (11 * 10))
    assert backg == 0.0 and backg1 == pytest.approx(2 / 8)


@pytest.mark.parametrize("on_bar, lost", [(1, 4 + 6 + 8), (2, 4 + 6 + 8 + 8 + 16)])
def test_version_4_pips_lost_on_the_bar(on_bar, lost):
    # the opponent holds its 1 and 2 points: 1-1 and 2-2 lose four moves, 2-1 both
    # dice; with two on the bar a roll of one held die loses that die's pips too
    me = np.zeros((1, 26), dtype=np.int16)
    me[0, 25], me[0, 6] = on_bar, 15 - on_bar
    opp = np.zeros((1, 26), dtype=np.int16)
    opp[0, 1], opp[0, 2], opp[0, 13] = 2, 2, 11
    assert _v4(me, opp)[4] == pytest.approx(lost / (36 * 49 / 6))


def test_version_4_counts_the_rolls_that_could_hit_two_blots():
    # blots on our 10 and 11 points are the opponent's 15 and 14, five and six pips
    # in front of its checker on its 20; our 6-point (its 19) is the only held point
    # on the way, and every combined 5 or 6 has another route: a roll counts when
    # it reaches both distances
    me = np.zeros((1, 26), dtype=np.int16)
    me[0, 10], me[0, 11], me[0, 6] = 1, 1, 13
    opp = np.zeros((1, 26), dtype=np.int16)
    opp[0, 20], opp[0, 6] = 1, 14
    both = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            reach = {d1, d2, d1 + d2} if d1 != d2 else {d1 * k for k in range(1, 5)}
            both += {5, 6} <= reach
    assert both == 4  # 6-5 and 5-1 (5 direct, then 5 + 1 reaches 6), in both orders
    assert _v4(me, opp)[3] == pytest.approx(both / 36)


def _side(points: dict[int, int]) -> np.ndarray:
    side = np.zeros(26, dtype=np.int16)
    for point, n in points.items():
        side[point] = n
    side[0] = 15 - sum(points.values())
    return side


@pytest.mark.parametrize("points, want", [
    ({6: 5, 8: 3, 13: 5, 24: 2}, False),          # the start
    ({1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}, True),  # six left in play
    ({1: 4, 3: 2, 4: 2, 5: 2}, True),              # a held 1-point does not count
    ({1: 4, 3: 2, 4: 2, 5: 2, 6: 1}, False),
    ({1: 3, 2: 3, 3: 2, 4: 2, 5: 1}, True),        # held 1- and 2-points count as one
    ({1: 3, 2: 3, 3: 2, 4: 2, 5: 2}, False),
    ({2: 4, 3: 2, 4: 2, 5: 1}, True),              # a 2-point beyond its first checker
    ({2: 4, 3: 2, 4: 2, 5: 2}, False),
    ({2: 4, 3: 2, 4: 2, 5: 2, 6: 2, 24: 1}, False),
])
def test_a_crashed_board_by_hand(points, want):
    me, opp = _side(points)[None, :], _side({6: 5, 8: 3, 13: 5, 24: 2})[None, :]
    assert bool(features.crashed(me, opp)[0]) is want
    assert bool(features.crashed(opp, me)[0]) is want  # either side
    assert bool(features.crashed(me.astype(np.uint8), opp.astype(np.uint8))[0]) is want


def test_crashed_is_gnubgs_own_class():
    """On positions of seeded backgammon games, race / crashed / contact as gnubg sorts them."""
    gnubg = pytest.importorskip("gnubg")
    from jacquetd.bots import supervised

    v = find_variant("backgammon")
    pos = supervised.collect(v, 40, seed=7, per_turn=8)
    me, opp = pos.me.astype(np.int16), pos.opp.astype(np.int16)
    contact = features.contact(v, me, opp)
    ours = np.where(~contact, 8, np.where(features.crashed(me, opp), 9, 10))
    theirs = np.array([gnubg.classify((list(map(int, opp[i, 1:26])), list(map(int, me[i, 1:26]))))
                       for i in range(len(pos))])
    kept = theirs >= 8  # the classes gnubg evaluates with a network
    assert (ours[kept] == 9).sum() > 50 and (ours[kept] == 10).sum() > 500
    np.testing.assert_array_equal(ours[kept], theirs[kept])
