"""Every bot only ever returns a legal play (hypothesis over reachable positions)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacquetd.bots import BOT_LEVELS, DEFAULT_LEVEL, get_bot
from jacquetd.rules import legal_plays

from .conftest import VARIANT_NAMES, random_position

positions = st.builds(random_position, st.sampled_from(VARIANT_NAMES),
                      st.integers(0, 2**31), st.integers(0, 120))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions, level=st.sampled_from(["random", "heuristic", "neural"]))
def test_fast_bots_play_legal_moves(pos, level):
    play = get_bot(level, pos.variant, seed=3).choose(pos)
    assert play in legal_plays(pos)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions)
def test_searching_bot_plays_legal_moves(pos):
    play = get_bot("neural-1", pos.variant).choose(pos, movetime_ms=400)
    assert play in legal_plays(pos)


def test_levels_and_default():
    assert BOT_LEVELS[0] == "random"
    assert DEFAULT_LEVEL in BOT_LEVELS
    with pytest.raises(ValueError):
        get_bot("grandmaster", "jacquet")
    with pytest.raises(ValueError):
        get_bot("neural", "chess")


def test_stop_returns_best_so_far():
    pos = random_position("backgammon", 7, 6)
    plays = legal_plays(pos)
    bot = get_bot("neural-2", "backgammon")
    assert bot.choose(pos, should_stop=lambda: True) in plays


def test_deterministic():
    pos = random_position("jacquet", 11, 30)
    for level in BOT_LEVELS[:4]:
        a = get_bot(level, "jacquet", seed=5).choose(pos)
        b = get_bot(level, "jacquet", seed=5).choose(pos)
        assert a == b


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_every_level_hits_on_the_way_off_where_G7_requires_it(level):
    # the last checker on the 2-point, the opponent's blot on the 1-point, 4-1: 2/off
    # alone plays one die, 2/1* 1/off plays both (G7), and no search may prefer the win
    # with one die
    from jacquetd.rules.interchange import parse_foreign

    pos = parse_foreign("9zZBECACAAAAAA").with_dice((4, 1))
    play = get_bot(level, "backgammon", seed=1).choose(pos, movetime_ms=400)
    assert play.move == "2/1* 1/off"
