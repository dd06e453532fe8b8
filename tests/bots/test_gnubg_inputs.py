"""Feature version 5: GNU Backgammon's contact inputs, checked by hand on small boards."""

from __future__ import annotations

import numpy as np
import pytest

from jacquetd.bots import features, gnubg_inputs
from jacquetd.bots.selfplay import start_side
from jacquetd.rules import find_variant

# each side's block: the version-4 block, then the 32 version-5 inputs
_V4_SIDE = 98 + 34
_V5_SIDE = _V4_SIDE + gnubg_inputs.PER_SIDE
_HALF = ("break_contact", "back_chequer", "back_anchor", "forward_anchor", "piploss", "p1",
         "p2", "back_escapes", "acontain", "acontain2", "contain", "contain2", "mobility",
         "moment2", "enter", "enter2", "timing", "backbone", "backg", "backg1", "freepip",
         "back_rescapes")


def _inputs(me: np.ndarray, opp: np.ndarray, variant: str = "backgammon") -> np.ndarray:
    """The side on roll's 32 version-5 inputs; the compiled encoder and the plain
    reference must agree on them."""
    v = find_variant(variant)
    x = features.encode(v, me, opp, version=5)[0]
    ref = features.encode_numpy(v, me, opp, version=5)[0]
    np.testing.assert_allclose(x, ref, rtol=1e-6, atol=1e-6)
    return x[_V4_SIDE:_V5_SIDE]


def _half(me: np.ndarray, opp: np.ndarray) -> dict[str, float]:
    return dict(zip(_HALF, _inputs(me, opp)[10:].tolist(), strict=True))


def _sides() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((1, 26), dtype=np.int16), np.zeros((1, 26), dtype=np.int16)


def test_version_5_width():
    assert features.n_inputs(5) == 2 * _V5_SIDE + 3


def test_the_backgammon_start_by_hand():
    side = features.as_batch([start_side(find_variant("backgammon"))])
    x = _inputs(side, side.copy())
    assert x[:10].tolist() == [0.0] * 10  # nobody on the bar, nothing borne off
    h = _half(side, side.copy())
    assert h["break_contact"] == pytest.approx(1.0)  # 167 pips behind the opponent's rear
    assert h["back_chequer"] == pytest.approx(23 / 24)
    assert h["back_anchor"] == pytest.approx(23 / 24)
    assert h["forward_anchor"] == pytest.approx(1 / 6)
    assert h["p1"] == h["p2"] == h["piploss"] == 0.0  # no blots to hit
    # spares: 3 on the 13-point (36 pips), 3 on the 8 (21), 3 on the 6 (15), less the
    # four empty home points filled from them (4, 3, 2, 1 pips a checker, two each)
    assert h["timing"] == pytest.approx((36 + 21 + 15 - 8 - 6 - 4 - 2) / 100)
    # gnubg measures each later held point against the first (the 24-point):
    # only the 13-point is near enough (11 pips: 2 of 11)
    assert h["backbone"] == pytest.approx(1 - 2 * 2 / (3 * 2 * 11))
    assert h["backg"] == 0.0 and h["backg1"] == pytest.approx(2 / 8)
    assert h["enter"] == 0.0
    assert h["enter2"] == pytest.approx(11 / 36)  # one closed point: 1 - (5/6)^2
    assert h["moment2"] == pytest.approx(42 / 400)
    assert h["freepip"] == 0.0


@pytest.mark.parametrize(("distance", "rolls"), [(1, 11), (2, 12), (3, 14), (4, 15),
                                                 (5, 15), (6, 17), (7, 6), (8, 6),
                                                 (9, 5), (10, 3), (11, 2), (12, 3),
                                                 (15, 1), (16, 1), (18, 1), (20, 1)])
def test_shots_are_the_textbook_counts(distance, rolls):
    # my checker on my 24-point, an opposing blot `distance` pips in front of it
    me, opp = _sides()
    me[0, 24], me[0, 0] = 1, 14
    opp[0, 1 + distance], opp[0, 0] = 1, 14
    h = _half(me, opp)
    assert h["p1"] == pytest.approx(rolls / 36)
    assert h["p2"] == 0.0
    # a hit sends the blot from its (distance + 1)-point to the bar
    assert h["piploss"] == pytest.approx(rolls * (24 - distance) / (12 * 36))


def test_two_blots_in_one_direct_roll():
    # blots 1 and 2 pips in front of two of my checkers: 2-1 hits both
    me, opp = _sides()
    me[0, 24], me[0, 0] = 2, 13
    opp[0, 2], opp[0, 3], opp[0, 0] = 1, 1, 13
    h = _half(me, opp)
    assert h["p2"] > 0.0
    assert h["p1"] >= h["p2"]


def test_a_weak_board_does_not_hit_on_its_first_two_points():
    # my checker on my 7-point, an opposing blot on my 1-point: with two home points
    # or fewer gnubg does not count that hit; with three it does (17 rolls at 6 pips),
    # and it never breaks a home point of exactly two checkers to hit
    me, opp = _sides()
    me[0, 7], me[0, 0] = 1, 14
    opp[0, 24], opp[0, 0] = 1, 14
    assert _half(me, opp)["p1"] == 0.0
    me[0, 2], me[0, 3], me[0, 4], me[0, 0] = 2, 2, 2, 8
    assert _half(me, opp)["p1"] == pytest.approx(17 / 36)


def test_on_the_bar_against_a_closed_board_nothing_hits():
    me, opp = _sides()
    me[0, 25], me[0, 11], me[0, 0] = 1, 1, 13
    opp[0, 1:7] = 2
    opp[0, 15], opp[0, 0] = 1, 2
    h = _half(me, opp)
    assert h["p1"] == 0.0
    assert h["enter2"] == pytest.approx(1.0)  # six closed points
    # every roll of a held die loses its pips: 4 x (1+...+6) for the doubles and
    # 2 x (d1 + d2) for the others
    assert h["enter"] == pytest.approx(1.0)


def test_borne_off_in_both_codes():
    me, opp = _sides()
    me[0, 0], me[0, 6] = 7, 8
    opp[0, 24], opp[0, 0] = 1, 14
    x = _inputs(me, opp)
    assert x[4:7].tolist() == pytest.approx([1.0, 1.0, 1 / 3])  # thirds: 7 = 6 + 1
    assert x[7:10].tolist() == pytest.approx([1.0, 2 / 5, 0.0])  # fifths: 7 = 5 + 2


def test_the_bar_in_four_units():
    me, opp = _sides()
    me[0, 25], me[0, 6], me[0, 0] = 5, 2, 8
    opp[0, 24], opp[0, 0] = 1, 14
    assert _inputs(me, opp)[:4].tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0])


@pytest.mark.parametrize("variant", ["jacquet", "jacquet-be"])
def test_zero_outside_backgammon(variant):
    side = features.as_batch([start_side(find_variant(variant))])
    assert not _inputs(side, side.copy(), variant).any()


def test_escape_tables_at_their_ends():
    assert gnubg_inputs.ESCAPES0[0] == 36  # nothing blocks
    assert gnubg_inputs.ESCAPES1[0] == 0
    # a full prime right ahead: no die can land, so nothing passes
    assert gnubg_inputs.ESCAPES0[0b111111] == 0


def test_the_rolls_ways_in_dice_terms():
    # the compiled shots (`gnubg_inputs._shots`) read gnubg's tables of rolls and ways
    # as: two dice d0 < d1, each die's way, then both (d0 + d1 pips, either
    # intermediate point open); a double of d, one die, then 2, 3 and 4 of it (every
    # intermediate point d, 2d, ... short of the blot open)
    ways = gnubg_inputs._WAYS.tolist()
    rolls = [[w for w in row if w >= 0] for row in gnubg_inputs._ROLLS.tolist()]
    expected = []
    for d1 in range(1, 7):
        for d0 in range(1, d1 + 1):
            expected.append((d0, d1))
    assert len(rolls) == len(expected) == 21
    for row, (d0, d1) in zip(rolls, expected, strict=True):
        if d0 != d1:
            assert [ways[w] for w in row] == [[1, 0, 0, 0, 1, d0], [1, 0, 0, 0, 1, d1],
                                              [0, *sorted((d0, d1)), 0, 2, d0 + d1]]
        else:
            d = d0
            assert ways[row[0]] == [1, 0, 0, 0, 1, d]
            for n, w in zip((2, 3, 4), row[1:], strict=True):
                mids = [m * d for m in range(1, n)] + [0] * (4 - n)
                assert ways[w] == [1, *mids, n, n * d]
