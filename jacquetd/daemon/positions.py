"""The daemon's one position reader, and the position fields of replies.

`resolve_position` is the one function every position argument goes through, once per
request: it turns what the codec handed on (a checked map, the map of a board literal,
or a string the codec did not read: `start[:VARIANT]`, a position id, a gnubg id / XGID /
FIBS board, optionally after `VARIANT:`) into a validated rules-core `Position`.
`position_fields` is what a reply says about a position: its id, its structured form,
and for backgammon the ids it is known by in gnubg and XG (`gnubg_id`, `xgid`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.positions import START, foreign_position, parse_board, start_variant

from jacquetd.errors import to_protocol_error
from jacquetd.rules import VARIANTS, Cube, MatchState, Position, PositionError
from jacquetd.rules.idwriter import IdWriter, id_writer
from jacquetd.rules.interchange import parse_foreign, why_not_variant
from jacquetd.rules.variants import find_variant


def _bad(message: str, rule: str | None = None) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_POSITION, message, field="position", rule=rule)


def _variant(name: str) -> str:
    if name not in VARIANTS:
        raise _bad(f"no variant {name!r} (variants: {', '.join(VARIANTS)})")
    return name


def _foreign(variant: str | None, text: str) -> Position:
    name = "backgammon"
    if variant is not None:
        try:
            name = find_variant(variant).name
        except ValueError:
            raise _bad(f"no variant {variant!r} (variants: {', '.join(VARIANTS)})") from None
    if name != "backgammon":
        raise _bad(why_not_variant(name))
    return parse_foreign(text, name)


def _read_text(text: str) -> Position:
    """A position word, by its form (the codec's classification: `start` first, then the
    backgammon notations, then board literals, then position ids)."""
    if text == START or text.startswith(START + ":"):
        variant = start_variant(text)
        if variant is None:
            raise _bad(f"{text!r}: expected 'start' or 'start:VARIANT'")
        return Position.initial(_variant(variant))
    foreign = foreign_position(text)
    if foreign is not None:
        return _foreign(foreign[0], foreign[2])
    if "/" in text:  # the codec hands a board literal on read; other callers give the word
        return Position.from_dict(parse_board(text))
    return Position.from_id(text)


def resolve_position(value: Any, dice: Any = None) -> Position:
    """A validated position from a ``position`` argument (a map, ``start[:VARIANT]``, a
    board literal, a position id, or a backgammon notation); ``dice``, when given,
    replaces the position's own. Raises ProtocolError (``bad_position``)."""
    try:
        if isinstance(value, str):
            pos = _read_text(value)
        elif isinstance(value, Mapping):
            pos = Position.from_dict(value)
        else:
            raise _bad("a position is a map or a string")
    except PositionError as exc:
        raise to_protocol_error(exc) from None
    if dice:
        pos = pos.with_dice(tuple(dice))
    return pos


def position_fields(pos: Position) -> dict[str, Any]:
    """`position_id`, `position` and, for backgammon, `gnubg_id` and `xgid`: what
    ``{"position_id": pos.to_id(), "position": pos.to_dict(), **foreign_ids(pos)}`` gives,
    written by the frame's `IdWriter` (jacquetd/rules/idwriter.py)."""
    return fields_of(id_writer(pos.variant, pos.dice, pos.cube, pos.match),
                     pos.me, pos.opp, pos.primed)


def fields_of(writer: IdWriter, me: tuple[int, ...], opp: tuple[int, ...],
              primed: tuple[bool, bool]) -> dict[str, Any]:
    """`position_fields` of the position of `writer`'s frame with these sides and flags."""
    pid, gnubg, xgid = writer.ids(me, opp, primed)
    d: dict[str, Any] = {"position_id": pid, "position": writer.structured(me, opp, primed)}
    if writer.backgammon:
        d["gnubg_id"] = gnubg
        d["xgid"] = xgid
    return d


@functools.lru_cache(maxsize=8192)
def _side_literal(side: tuple[int, ...]) -> str:
    """One side of a board literal (`index:count` pairs, highest index first, or `-`).
    Cached: the plays of one roll share most of their sides."""
    return ",".join(f"{i}:{side[i]}" for i in range(len(side) - 1, -1, -1) if side[i]) or "-"


@functools.lru_cache(maxsize=1024)
def literal_frame(variant: str, dice: tuple[int, ...], cube: Cube | None,
                   match: MatchState | None) -> tuple[str, str, str]:
    """The parts of a board literal shared by the positions of one frame: the variant,
    the dice, and the cube and match parts after the primed flags."""
    end = ""
    if cube is not None:
        end += f"/cube:{cube.value}:{cube.owner.wire}" + (":pending" if cube.pending else "")
    if match is not None:
        end += (f"/match:{match.length}:{match.score[0]}:{match.score[1]}"
                + (":crawford" if match.crawford else ""))
    return variant + "/", "/" + ("".join(map(str, dice)) or "-") + "/", end


def board_literal_of(frame: tuple[str, str, str], me: tuple[int, ...], opp: tuple[int, ...],
                     primed: tuple[bool, bool]) -> str:
    """The board literal of the position of `frame` (`literal_frame`) with these sides
    and flags."""
    return (frame[0] + _side_literal(me) + "/" + _side_literal(opp) + frame[1]
            + ("1" if primed[0] else "0") + ("1" if primed[1] else "0") + frame[2])
