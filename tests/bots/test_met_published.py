"""The published match equity table that `backgammon` match play draws through (C5):
the shipped file's figures, the reader's errors, and the model built on it."""

from __future__ import annotations

import itertools

import pytest

from jacquetd.bots import analysis, met
from jacquetd.rules import MatchState, Position

XG2 = "Kazaross-XG2"


def test_the_shipped_table_reads_with_its_published_figures():
    t = met.published(XG2)
    assert t.length == 25
    assert t.mwc(1, 2, post=False) == pytest.approx(0.67736)  # Crawford, 1-away/2-away
    assert t.mwc(2, 5, post=False) == pytest.approx(0.74359)
    assert t.mwc(25, 25, post=False) == pytest.approx(0.5)
    # post-Crawford: the trailer needing 2 has the free drop, a little under a half
    assert t.mwc(2, 1, post=True) == pytest.approx(0.48803)
    assert t.mwc(1, 3, post=True) == pytest.approx(1 - 0.32264)
    assert t.mwc(26, 3, post=False) is None


def test_the_table_is_a_match_equity_table():
    t = met.published(XG2)
    n = t.length
    for a, b in itertools.product(range(1, n + 1), repeat=2):
        assert t.mwc(a, b, False) + t.mwc(b, a, False) == pytest.approx(1.0, abs=1e-9)
        if b < n:
            assert t.mwc(a, b + 1, False) >= t.mwc(a, b, False)  # the opponent further away
        if a < n:
            assert t.mwc(a + 1, b, False) <= t.mwc(a, b, False)  # further from winning
    post = [t.mwc(b, 1, True) for b in range(2, n + 1)]
    assert all(x > y for x, y in itertools.pairwise(post))


def test_the_model_takes_the_table_where_it_has_figures_and_computes_beyond():
    m = met.model(analysis.gammon_rate("backgammon"), XG2)
    t = met.published(XG2)
    for a, b in itertools.product((1, 2, 3, 7, 11, 25), repeat=2):
        for post in (False, True):
            if post and a != 1 and b != 1:
                continue
            assert m.mwc(a, b, post) == t.mwc(a, b, post)
    # beyond 25 the model goes on from the table's figures: a fair even score, a smooth
    # step at the border, and chances that fall with the need
    assert m.mwc(40, 40) == pytest.approx(0.5)
    assert abs(m.mwc(26, 25) - m.mwc(25, 24)) < 0.02
    beyond = [m.mwc(a, 25) for a in range(20, 40)]
    assert all(0.0 < y < x < 1.0 for x, y in itertools.pairwise(beyond))
    assert 0.0 < m.mwc(500, 470) < 0.5


def test_backgammon_match_play_uses_the_table_the_jacquet_variants_the_model():
    assert analysis.match_model("backgammon").published_table == met.published(XG2)
    for variant in ("jacquet", "jacquet-be"):
        assert analysis.match_model(variant).published_table is None
    # a passed double at 3-away/3-away leaves 2-away/3-away: the table's 0.59947
    me = [0] * 26
    opp = [0] * 26
    me[0], me[1] = 13, 2
    opp[0], opp[1] = 13, 2
    pos = Position.validated("backgammon", me, opp, match=MatchState(5, (2, 2)))
    assert analysis.cube_decision(pos).double_drop == pytest.approx(0.59947)


_GOOD_ROWS = """
<met>
  <pre-crawford-table type="explicit">
    <row><me>0.5</me><me>0.7</me></row>
    <row><me>0.3</me><me>0.5</me></row>
  </pre-crawford-table>
  <post-crawford-table type="explicit" player="both">
    <row><me>0.5</me><me>0.49</me></row>
  </post-crawford-table>
</met>
"""


def test_the_reader_reads_gnubgs_format_and_names_what_is_wrong():
    t = met.read_table(_GOOD_ROWS, "tiny")
    assert t.length == 2 and t.mwc(1, 2, False) == 0.7 and t.mwc(2, 1, True) == 0.49
    with pytest.raises(ValueError, match="tiny: no explicit <post-crawford-table>"):
        met.read_table(_GOOD_ROWS.replace("post-crawford", "other"), "tiny")
    with pytest.raises(ValueError, match="is not a number"):
        met.read_table(_GOOD_ROWS.replace("0.7", "seven"), "tiny")
    with pytest.raises(ValueError, match="not 2 x 2"):
        met.read_table(_GOOD_ROWS.replace("<me>0.3</me>", ""), "tiny")
    with pytest.raises(ValueError, match="tiny: not well-formed XML"):
        met.read_table(_GOOD_ROWS.replace("</met>", ""), "tiny")
    with pytest.raises(ValueError, match="outside 0-1"):
        met.read_table(_GOOD_ROWS.replace("0.7", "1.7"), "tiny")
