"""The plays a reply shows: the legal plays of a position and each one as a result map.

`legal_moves` is the daemon's hottest command: the plays come from the compiled
generator (same plays, order and spellings as the rules core;
tests/daemon/test_units.py compares them). The parts shared by all plays of a roll
(the frame of the positions they lead to, the sides a play leaves unchanged) are
written once (rules/idwriter.py), and no `Play` or `Position` is built per play.
"""

from __future__ import annotations

import logging
from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.daemon.positions import board_literal_of, fields_of, literal_frame
from jacquetd.rules import Play, Position, generate
from jacquetd.rules.idwriter import IdWriter, id_writer
from jacquetd.rules.movegen import format_steps, primed_after
from jacquetd.rules.position import CHECKERS
from jacquetd.rules.scoring import game_result, result_name

log = logging.getLogger(__name__)

try:  # process-wide; None (the rules core generates) if absent or wrong at warm-up
    from jacquetd import fastgen as _fastgen_module

    _fastgen: Any = _fastgen_module if _fastgen_module.available() else None
except ImportError:  # pragma: no cover - numpy missing
    _fastgen = None


def compiled_generator() -> Any:
    """The compiled move generator module, or None when it is not used."""
    return _fastgen


def warm_up_generator() -> float | None:
    """Compile (or load) the compiled generator and check it against the rules core; the
    seconds it took, or None when it is not used (absent, or disagreeing with the rules
    core: then it is turned off, and the rules core's generator serves from now on)."""
    global _fastgen
    if _fastgen is None:
        return None
    try:
        return float(_fastgen.warm_up())
    except Exception:  # a kernel that disagrees with the rules core is not used
        log.exception("event=fastgen_disabled")
        _fastgen = None
        return None


def with_dice(pos: Position) -> Position:
    """`pos`, which must have dice (bad_argument naming `dice` otherwise)."""
    if not pos.dice:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT,
                            "dice: the position has no dice; give `dice`", field="dice")
    return pos


def result_of(before: Position, mover: tuple[int, ...], other: tuple[int, ...]
            ) -> dict[str, Any] | None:
    """The result of the game when the play of `before` that leaves the mover with `mover`
    and its opponent with `other` (each in its own numbering) ends it (the mover bore off
    its last checker): the mover (``on_roll`` of `before`) wins ``points`` (J12, B8, C4,
    times the cube by C3); None otherwise."""
    if mover[0] < CHECKERS:
        return None
    variant = before.rules
    primed = primed_after(before, mover)
    points = game_result(variant, mover, other, primed[1])
    cube = before.cube.value if before.cube is not None else 1
    return {"winner": "on_roll", "points": points * cube,
            "name": result_name(variant, points)}


Spelled = tuple[str, tuple[int, ...], tuple[int, ...]]
"""A legal play as a reply shows it: its spelling, the mover's side and the opponent's
side after it (each in its own numbering, as in a `RawPlay`)."""


def spelled_plays_of(pos: Position) -> list[Spelled]:
    """Every legal play of `pos` as (move, me, opp), in generation order: by the compiled
    generator when it is available (no `Play`, `RawPlay` or steps built)."""
    if _fastgen is not None and pos.dice and not pos.game_over():
        result: list[Spelled] = _fastgen.spelled(pos)
        return result
    return [(format_steps(raw.steps), raw.me, raw.opp) for raw in generate(pos)]


def after_frame(before: Position) -> tuple[IdWriter, tuple[str, str, str]]:
    """The id writer and the board literal frame of the positions `before`'s plays lead
    to: same variant, no dice, the cube and match state seen by the other side."""
    cube = before.cube.swapped() if before.cube is not None else None
    match = before.match.swapped() if before.match is not None else None
    return (id_writer(before.variant, (), cube, match),
            literal_frame(before.variant, (), cube, match))


def primed_of(before: Position) -> tuple[bool, bool] | None:
    """The primed flags of every position `before`'s plays lead to, or None when they
    depend on the play (jacquet, the mover not yet primed: J12)."""
    if before.rules.tracks_primes and not before.primed[0]:
        return None
    return (before.primed[1], before.primed[0])


def _record(before: Position, play: Spelled, writer: IdWriter,
            primed: tuple[bool, bool] | None) -> dict[str, Any]:
    move, mover, other = play
    # the position after: the turn passes, so the opponent is the side on roll
    if primed is None:
        primed = primed_after(before, mover)
    d: dict[str, Any] = {"move": move, **fields_of(writer, other, mover, primed)}
    d["hits"] = move.count("*")  # the spelling marks each hit with '*'
    d["borne_off"] = mover[0] - before.me[0]
    if mover[0] == CHECKERS:
        d["result"] = result_of(before, mover, other)
    return d


def _compact_record(before: Position, play: Spelled, frame: tuple[str, str, str],
                    writer: IdWriter, primed: tuple[bool, bool] | None) -> dict[str, Any]:
    move, mover, other = play
    if primed is None:
        primed = primed_after(before, mover)
    d: dict[str, Any] = {"move": move,
                         "position_id": writer.position_id(other, mover, primed),
                         "board": board_literal_of(frame, other, mover, primed)}
    if mover[0] == CHECKERS:
        d["result"] = result_of(before, mover, other)
    return d


def play_dict(play: Play) -> dict[str, Any]:
    """The play record of a reply: move, the position after it (`position_fields`), hits,
    checkers borne off, and the game's result when the play ends it."""
    before = play.before
    raw = play.raw
    return _record(before, (play.move, raw.me, raw.opp), after_frame(before)[0],
                   primed_of(before))


def play_records(pos: Position, compact: bool = False) -> list[dict[str, Any]]:
    """The record of every legal play of `pos` (`play_dict`, or with `compact` the move,
    id and board literal), in generation order: the frame's parts are written once."""
    writer, frame = after_frame(pos)
    primed = primed_of(pos)
    plays = spelled_plays_of(pos)
    if compact:
        return [_compact_record(pos, play, frame, writer, primed) for play in plays]
    return [_record(pos, play, writer, primed) for play in plays]
