"""The default deciders of bot seats.

The service asks two callables what a bot seat does:

* `bot_move(position, level, time_s) -> str`: the move text for `position` (the
  bot on roll, dice set), within `time_s` seconds;
* `bot_cube(position, level, time_s, question, points) -> str`: `question`
  `"double"` (the bot on roll, before rolling; answer `"double"` or `"roll"`),
  `"take"` (`position` is seen by the doubling side, cube pending; the bot's answer
  `"take"` or `"drop"`) or `"resign"` (the opponent offers `points` 1-3 times the
  cube; `position` seen by the bot; answer `"accept"` or `"reject"`).

The daemon passes its own (run in its worker processes). The defaults here use
`jacquetd.bots` when it provides the level, and otherwise the built-in
`random` level: a uniform choice among the legal plays, from an RNG seeded by
the position and the level (so a replay chooses the same), that never doubles,
always takes, and accepts a resignation when it offers at least what the bot
would score by bearing off at once.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import random
from collections.abc import Callable
from typing import Any

from jacquetd.rules import Position, legal_plays
from jacquetd.rules.scoring import game_result

log = logging.getLogger(__name__)

RANDOM_LEVEL = "random"

BotMove = Callable[[Position, str, float], str]
BotCube = Callable[[Position, str, float, str, int], str]

QUESTIONS = {"double": ("double", "roll"), "take": ("take", "drop"),
             "resign": ("accept", "reject")}


def _bots() -> Any | None:
    try:
        return importlib.import_module("jacquetd.bots")
    except ImportError as exc:
        if exc.name is not None and "jacquetd.bots".startswith(exc.name):
            return None
        raise


def available_levels() -> tuple[str, ...]:
    """Bot levels a seat may name: `jacquetd.bots.BOT_LEVELS` (when it has `get_bot`)
    and `random`."""
    bots = _bots()
    found: tuple[str, ...] = ()
    if bots is not None and hasattr(bots, "get_bot"):
        found = tuple(getattr(bots, "BOT_LEVELS", ()))
    return found if RANDOM_LEVEL in found else (RANDOM_LEVEL, *found)


def default_level() -> str:
    """`jacquetd.bots.DEFAULT_LEVEL` when the bots offer it, else `random`."""
    bots = _bots()
    level = getattr(bots, "DEFAULT_LEVEL", None) if bots is not None else None
    return str(level) if level and level in available_levels() else RANDOM_LEVEL


def position_seed(position: Position, level: str) -> int:
    """A seed that depends on the position and the level only."""
    digest = hashlib.sha256(f"{level}:{position.to_id()}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def random_move(position: Position, level: str = RANDOM_LEVEL, time_s: float = 0.0) -> str:
    """The `random` level: a uniform choice among the legal plays."""
    plays = legal_plays(position)
    rng = random.Random(position_seed(position, level))
    return plays[rng.randrange(len(plays))].move


def simple_cube(position: Position, level: str, time_s: float, question: str,
                points: int = 0) -> str:
    """The `random` level's cube and resignation answers (see the module docstring)."""
    if question == "double":
        return "roll"
    if question == "take":
        return "take"
    if question == "resign":
        now = game_result(position.rules, position.me, position.opp, position.primed[0])
        return "accept" if points >= now else "reject"
    raise ValueError(f"unknown question {question!r}")


def default_bot_move(position: Position, level: str, time_s: float) -> str:
    """`jacquetd.bots.get_bot(level, ...)` when it offers `level`, else `random_move`."""
    bots = _bots()
    if level != RANDOM_LEVEL and bots is not None and hasattr(bots, "get_bot"):
        bot = bots.get_bot(level, position.variant, seed=position_seed(position, level))
        play = bot.choose(position, movetime_ms=max(1, int(time_s * 1000)))
        return str(play.move)
    return random_move(position, level, time_s)


def default_bot_cube(position: Position, level: str, time_s: float, question: str,
                     points: int = 0) -> str:
    """`jacquetd.bots.analysis.cube_decision` for doubles and takes when it exists,
    else `simple_cube`."""
    if question in ("double", "take") and level != RANDOM_LEVEL:
        try:
            analysis = importlib.import_module("jacquetd.bots.analysis")
        except ImportError:
            analysis = None
        decide = getattr(analysis, "cube_decision", None)
        if decide is not None:
            d = decide(position)
            if question == "double":
                return "double" if d.action == "double" else "roll"
            return "take" if d.take == "take" else "drop"
    return simple_cube(position, level, time_s, question, points)
