"""The plays a reply shows: the legal plays of a position and each one as a result map.

`legal_moves` is the daemon's hottest command: the plays come from the compiled
generator (same plays, order and spellings as the rules core;
tests/daemon/test_units.py compares them); the rules core caches the packed sides of
ids and the spellings of plays.
"""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.daemon.positions import board_literal, position_fields
from jacquetd.rules import Play, Position, legal_plays
from jacquetd.rules.position import CHECKERS
from jacquetd.rules.scoring import game_result, result_name

try:  # the compiled move generator (numba); the pure one otherwise
    from jacquetd import fastgen as _fastgen_module

    _fastgen: Any = _fastgen_module if _fastgen_module.available() else None
except ImportError:  # pragma: no cover - numpy missing
    _fastgen = None


def compiled_generator() -> Any:
    """The compiled move generator module, or None when it is not used."""
    return _fastgen


def disable_compiled_generator() -> None:
    """Use the rules core's generator from now on (the compiled one disagreed)."""
    global _fastgen
    _fastgen = None


def with_dice(pos: Position) -> Position:
    """`pos`, which must have dice (bad_argument naming `dice` otherwise)."""
    if not pos.dice:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT,
                            "dice: the position has no dice; give `dice`", field="dice")
    return pos


def position_id(pos: Position) -> str:
    """``pos.to_id()`` (kept as a name the handlers share)."""
    return pos.to_id()


def plays_of(pos: Position) -> list[Play]:
    """``legal_plays(pos)``, by the compiled generator when it is available."""
    if _fastgen is not None and pos.dice and not pos.game_over():
        return [Play(pos, raw) for raw in _fastgen.generate(pos)]
    return legal_plays(pos)


def game_result_of(play: Play) -> dict[str, Any] | None:
    """The result of the game when ``play`` ends it (the mover bore off its last checker):
    the mover (``on_roll`` of the position the play was made in) wins ``points`` (J12, B8,
    C4, times the cube by C3)."""
    raw = play.raw
    if raw.me[0] < CHECKERS:
        return None
    after = play.after
    variant = after.rules
    points = game_result(variant, raw.me, raw.opp, after.primed[1])
    cube = after.cube.value if after.cube is not None else 1
    return {"winner": "on_roll", "points": points * cube,
            "name": result_name(variant, points)}


def play_dict(play: Play) -> dict[str, Any]:
    after = play.after
    d = {
        "move": play.move,
        **position_fields(after),
        "hits": play.hits,
        "borne_off": play.borne_off,
    }
    if play.raw.me[0] == CHECKERS:
        d["result"] = game_result_of(play)
    return d


def compact_play_dict(play: Play) -> dict[str, Any]:
    """The compact play record (`legal_moves` with `compact`): move, id, board literal."""
    after = play.after
    d: dict[str, Any] = {"move": play.move, "position_id": after.to_id(),
                         "board": board_literal(after)}
    if play.raw.me[0] == CHECKERS:
        d["result"] = game_result_of(play)
    return d
