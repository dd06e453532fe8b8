"""The default deciders of bot seats.

The service asks two callables what a bot seat does:

* `bot_move(position, level, time_s) -> str`: the move text for `position` (the
  bot on roll, dice set), within `time_s` seconds;
* `bot_cube(position, level, time_s, question, points) -> str`: `question`
  `"double"` (the bot on roll, before rolling; answer `"double"` or `"roll"`),
  `"take"` (`position` is seen by the doubling side, cube pending; the bot's answer
  `"take"` or `"drop"`) or `"resign"` (the opponent offers `points` 1-3 times the
  cube; `position` seen by the bot; answer `"accept"` or `"reject"`).

The daemon passes its own (run in its worker processes). The defaults here ask the
bots' engine (`jacquetd.bots.interface.ENGINE`): the level's bot chooses the move,
seeded by the position and the level (so a replay chooses the same), and the
engine's one cube and resignation policy answers the questions.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from jacquetd.bots.interface import ENGINE, RANDOM_LEVEL
from jacquetd.rules import Position

BotMove = Callable[[Position, str, float], str]
BotCube = Callable[[Position, str, float, str, int], str]

QUESTIONS = {"double": ("double", "roll"), "take": ("take", "drop"),
             "resign": ("accept", "reject")}


def available_levels() -> tuple[str, ...]:
    """Bot levels a seat may name (the engine's)."""
    return ENGINE.levels


def default_level() -> str:
    """The engine's default level."""
    return ENGINE.default_level


def position_seed(position: Position, level: str) -> int:
    """A seed that depends on the position and the level only."""
    digest = hashlib.sha256(f"{level}:{position.to_id()}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def random_move(position: Position, level: str = RANDOM_LEVEL, time_s: float = 0.0) -> str:
    """The `random` level's move: a uniform choice among the legal plays, seeded by the
    position and `level`."""
    return ENGINE.choose(position, RANDOM_LEVEL, seed=position_seed(position, level)).move


def default_bot_move(position: Position, level: str, time_s: float) -> str:
    """The move of the engine's bot of `level` within `time_s` seconds."""
    play = ENGINE.choose(position, level, seed=position_seed(position, level),
                         movetime_ms=max(1, int(time_s * 1000)))
    return play.move


def default_bot_cube(position: Position, level: str, time_s: float, question: str,
                     points: int = 0) -> str:
    """The engine's answer to `question` (see the module docstring) for a bot of `level`:
    a cube action at the level's depth, or at 0 plies when that search would outrun
    most of `time_s`."""
    deadline = time.monotonic() + 0.8 * time_s

    def out_of_time() -> bool:
        return time.monotonic() >= deadline

    if question == "double":
        return "double" if ENGINE.doubles(position, level, should_stop=out_of_time) else "roll"
    if question == "take":
        return "take" if ENGINE.takes(position, level, should_stop=out_of_time) else "drop"
    if question == "resign":
        return "accept" if ENGINE.accepts_resignation(position, level, points) else "reject"
    raise ValueError(f"unknown question {question!r}")


__all__ = ["QUESTIONS", "RANDOM_LEVEL", "BotCube", "BotMove", "available_levels",
           "default_bot_cube", "default_bot_move", "default_level", "position_seed",
           "random_move"]
