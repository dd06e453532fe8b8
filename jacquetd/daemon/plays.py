"""The plays a reply shows: the legal plays of a position and each one as a result map.

`legal_moves` is the daemon's hottest command: the plays come from the compiled
generator (same plays, order and spellings as the rules core;
tests/daemon/test_units.py compares them). The parts shared by all plays of a roll
(the frame of the positions they lead to, the sides a play leaves unchanged) are
written once (rules/idwriter.py), and no `Play` or `Position` is built per play.
"""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.daemon.positions import board_literal_of, literal_frame
from jacquetd.rules import Play, Position, RawPlay, generate
from jacquetd.rules.idwriter import IdWriter, id_writer
from jacquetd.rules.movegen import format_steps, primed_after
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


def raw_plays_of(pos: Position) -> list[RawPlay]:
    """``generate(pos)``, by the compiled generator when it is available."""
    if _fastgen is not None and pos.dice and not pos.game_over():
        result: list[RawPlay] = _fastgen.generate(pos)
        return result
    return generate(pos)


def plays_of(pos: Position) -> list[Play]:
    """``legal_plays(pos)``, by the compiled generator when it is available."""
    return [Play(pos, raw) for raw in raw_plays_of(pos)]


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


def _after_frame(before: Position) -> tuple[IdWriter, tuple[str, str, str]]:
    """The id writer and the board literal frame of the positions `before`'s plays lead
    to: same variant, no dice, the cube and match state seen by the other side."""
    cube = before.cube.swapped() if before.cube is not None else None
    match = before.match.swapped() if before.match is not None else None
    return (id_writer(before.variant, (), cube, match),
            literal_frame(before.variant, (), cube, match))


def _record(before: Position, raw: RawPlay, writer: IdWriter) -> dict[str, Any]:
    # the position after: the turn passes, so the mover's sides swap places
    me = raw.opp
    opp = raw.me
    primed = primed_after(before, opp)
    pid, gnubg, xgid = writer.ids(me, opp, primed)
    d: dict[str, Any] = {"move": format_steps(raw.steps), "position_id": pid,
                         "position": writer.structured(me, opp, primed)}
    if writer.backgammon:
        d["gnubg_id"] = gnubg
        d["xgid"] = xgid
    d["hits"] = sum(s.hit for s in raw.steps)
    d["borne_off"] = opp[0] - before.me[0]
    if opp[0] == CHECKERS:
        d["result"] = game_result_of(Play(before, raw))
    return d


def _compact_record(before: Position, raw: RawPlay, frame: tuple[str, str, str],
                    writer: IdWriter) -> dict[str, Any]:
    me = raw.opp
    opp = raw.me
    primed = primed_after(before, opp)
    d: dict[str, Any] = {"move": format_steps(raw.steps),
                         "position_id": writer.position_id(me, opp, primed),
                         "board": board_literal_of(frame, me, opp, primed)}
    if opp[0] == CHECKERS:
        d["result"] = game_result_of(Play(before, raw))
    return d


def play_dict(play: Play) -> dict[str, Any]:
    """The play record of a reply: move, the position after it (`position_fields`), hits,
    checkers borne off, and the game's result when the play ends it."""
    return _record(play.before, play.raw, _after_frame(play.before)[0])


def compact_play_dict(play: Play) -> dict[str, Any]:
    """The compact play record (`legal_moves` with `compact`): move, id, board literal."""
    writer, frame = _after_frame(play.before)
    return _compact_record(play.before, play.raw, frame, writer)


def play_records(pos: Position, compact: bool = False) -> list[dict[str, Any]]:
    """The record of every legal play of `pos` (`play_dict`, or `compact_play_dict` with
    `compact`), in generation order: the frame's parts are written once for all."""
    writer, frame = _after_frame(pos)
    raws = raw_plays_of(pos)
    if compact:
        return [_compact_record(pos, raw, frame, writer) for raw in raws]
    return [_record(pos, raw, writer) for raw in raws]
