"""The typed engine interface: one place maps a level name to a bot, one cube and
resignation policy serves every caller."""

from __future__ import annotations

from pathlib import Path

import pytest

from jacquetd.bots import BOT_LEVELS, DEFAULT_LEVEL
from jacquetd.bots.interface import ENGINE, RANDOM_LEVEL, UnknownLevel
from jacquetd.bots.players import LEVELS, RandomBot
from jacquetd.rules import Position


def test_levels_map_each_name_to_its_bot() -> None:
    assert tuple(LEVELS) == BOT_LEVELS == ENGINE.levels
    assert ENGINE.default_level == DEFAULT_LEVEL in LEVELS
    for level in BOT_LEVELS:
        assert ENGINE.bot(level, "jacquet", seed=1).name == level
    assert ENGINE.searches("neural-1") and not ENGINE.searches("heuristic")


def test_an_unknown_level_names_the_field() -> None:
    with pytest.raises(UnknownLevel) as info:
        ENGINE.bot("grandmaster", "jacquet")
    assert isinstance(info.value, ValueError) and info.value.field == "level"
    assert "grandmaster" in str(info.value)


def test_the_one_random_bot_is_the_seeded_uniform_choice() -> None:
    pos = Position.initial("backgammon").with_dice((6, 5))
    assert (ENGINE.choose(pos, RANDOM_LEVEL, seed=7).move
            == RandomBot("backgammon", 7).choose(pos).move)


def test_random_level_policy() -> None:
    pos = Position.initial("backgammon")
    assert not ENGINE.doubles(pos, RANDOM_LEVEL)
    assert ENGINE.takes(pos, RANDOM_LEVEL)
    # nobody has borne off: bearing off now would be a backgammon (3)
    assert not ENGINE.accepts_resignation(pos, RANDOM_LEVEL, 1)
    assert ENGINE.accepts_resignation(pos, RANDOM_LEVEL, 3)


def test_evaluator_policy_follows_the_equity() -> None:
    pos = Position.initial("backgammon")
    equity = ENGINE.evaluate(pos).equity
    assert abs(equity) < 1.0
    # a single game offered is more than the small opening edge: accepted either side
    assert ENGINE.accepts_resignation(pos, "neural", 1)
    assert ENGINE.accepts_resignation(pos, "neural", 1, on_roll=False)
    assert not ENGINE.doubles(pos, "neural")  # nobody doubles at the start
    assert ENGINE.takes(pos, "neural")


# Two `jacquet` decisions of the cube truth set (benchmarks/truth/jacquet.cube.j2h-g19.jsonl,
# lines 147 and 13) on which the 0-ply and the 2-ply cube analyses part, the 2-ply one
# with the cubeful rollout: a double the rollout calls double/pass, and a double/take.
TOO_GOOD_AT_0_DOUBLE_AT_2 = "AQAAACIwAAAAAAAQBAAwAAAAAAAwADAAAUAAQAAEAAA"
DROP_AT_0_TAKE_AT_2 = "AQAAACAAAAABEAEDAABwAAAAAAAAAgAAEBMQcAAEAAA"


def test_a_bot_decides_its_cube_at_its_own_depth() -> None:
    """A searching bot's cube actions are the cube analysis at the plies its plays
    search, not the 0-ply one: here the two depths part, and each level follows its
    own."""
    assert [ENGINE.cube_depth(level) for level in ("random", "heuristic", "neural",
                                                    "neural-1", "neural-2")] == [0, 0, 0, 1, 2]
    double = Position.from_id(TOO_GOOD_AT_0_DOUBLE_AT_2)
    assert ENGINE.cube(double, plies=0).action == "too_good"
    assert ENGINE.cube(double, plies=2).action == "double"
    assert not ENGINE.doubles(double, "neural")
    assert ENGINE.doubles(double, "neural-2")
    take = Position.from_id(DROP_AT_0_TAKE_AT_2)
    assert ENGINE.cube(take, plies=0).take == "drop"
    assert ENGINE.cube(take, plies=2).take == "take"
    assert not ENGINE.takes(take, "neural")
    assert ENGINE.takes(take, "neural-2")
    assert ENGINE.takes(take, RANDOM_LEVEL)


def test_a_variant_without_its_network_file_is_refused_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant whose weights file is absent (an install without it) is refused as an
    argument error naming the variant; the levels that need no network still play it."""
    from jacquetd.bots import evaluator, get_bot
    from jacquetd.engine_errors import Unsupported

    def clear() -> None:
        for cached in (evaluator.load_net, evaluator.load_race_net, evaluator.load_crashed_net,
                       evaluator.neural_evaluator):
            cached.cache_clear()

    monkeypatch.setattr(evaluator, "WEIGHTS_DIR", tmp_path)
    clear()
    try:
        with pytest.raises(Unsupported) as err:
            evaluator.neural_evaluator("long-nardy")
        assert err.value.field == "position" and "long-nardy" in str(err.value)
        pos = Position.initial("long-nardy").with_dice((6, 5))
        assert get_bot("heuristic", "long-nardy").choose(pos) is not None
    finally:
        monkeypatch.undo()
        clear()


def test_a_bot_seat_out_of_time_decides_its_cube_at_0_plies() -> None:
    """A hosted bot seat's cube answer searches at its level's depth within its time,
    and falls back to the 0-ply decision when that search would outrun it."""
    from jacquetd.matches.players import default_bot_cube

    double = Position.from_id(TOO_GOOD_AT_0_DOUBLE_AT_2)
    assert default_bot_cube(double, "neural-2", 5.0, "double") == "double"
    assert default_bot_cube(double, "neural-2", 0.0, "double") == "roll"
    take = Position.from_id(DROP_AT_0_TAKE_AT_2)
    assert default_bot_cube(take, "neural-2", 5.0, "take") == "take"
    assert default_bot_cube(take, "neural-2", 0.0, "take") == "drop"
    stopped = [False]
    assert ENGINE.doubles(double, "neural-2", should_stop=lambda: stopped[0])
    stopped[0] = True
    assert not ENGINE.doubles(double, "neural-2", should_stop=lambda: stopped[0])
