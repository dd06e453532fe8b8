"""The compact position id: one URL-safe token carrying a whole Position.

Layout of the bytes before base64url (no padding):

    0      format version (1)
    1      variant index (0 jacquet, 1 jacquet-be, 2 backgammon, 3 long-nardy)
    2-14   the side on roll's 26 counts, two 4-bit counts a byte (high nibble first)
    15-27  the opponent's 26 counts, likewise
    28     dice: first die in the high nibble, second in the low (0 = not rolled)
    29     flags: 1 primed (on roll), 2 primed (opponent), 4 cube on, 8 cube pending,
           16 match play, 32 Crawford game
    then, with the cube on:   log2 of the cube value, cube owner (0 centre, 1 on roll, 2 opponent)
    then, in match play:      match length, score of the side on roll, score of the opponent

The token uses only letters, digits, '-' and '_', so it is safe inside a
protocol text line. This module reads and writes the bytes only, in plain values
(`IdFields`), so that it needs nothing of `position.py`: `Position.to_id` and
`Position.from_id` build on it, and `from_id` validates the position like any other
input.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import NamedTuple

from .errors import PositionError
from .variants import variant_by_index

FORMAT_VERSION = 1


_PACKED: dict[tuple[int, ...], bytes] = {}
_PACKED_MAX = 1 << 16


def _pack_side(side: tuple[int, ...]) -> bytes:
    """26 counts as 13 bytes; cached, since ids are built for every legal play."""
    packed = _PACKED.get(side)
    if packed is None:
        if len(_PACKED) >= _PACKED_MAX:
            _PACKED.clear()
        packed = bytes((side[i] << 4) | side[i + 1] for i in range(0, 26, 2))
        _PACKED[side] = packed
    return packed


def _unpack_side(data: bytes) -> list[int]:
    out: list[int] = []
    for b in data:
        out.append(b >> 4)
        out.append(b & 15)
    return out


#: A cube as the id carries it: log2 of its value, its owner (0 centre, 1 the side on
#: roll, 2 the opponent), whether a double is pending.
IdCube = tuple[int, int, bool]
#: A match state as the id carries it: length, both scores (side on roll first), Crawford.
IdMatch = tuple[int, int, int, bool]


class IdFields(NamedTuple):
    """What a position id carries, as plain values (not validated)."""

    variant: str
    me: list[int]
    opp: list[int]
    dice: tuple[int, ...]
    primed: tuple[bool, bool]
    cube: IdCube | None
    match: IdMatch | None


def encode_position_id(variant_index: int, me: tuple[int, ...], opp: tuple[int, ...],
                       dice: Sequence[int], primed: Sequence[bool], cube: IdCube | None,
                       match: IdMatch | None) -> str:
    """The compact id of a position given by its parts (the inverse of
    `decode_position_id`)."""
    flags = (primed[0] * 1) | (primed[1] * 2)
    tail = bytearray()
    if cube is not None:
        flags |= 4 | (8 if cube[2] else 0)
        tail += bytes((cube[0], cube[1]))
    if match is not None:
        flags |= 16 | (32 if match[3] else 0)
        tail += bytes(match[:3])
    packed_dice = (dice[0] << 4 | dice[1]) if dice else 0
    raw = (bytes((FORMAT_VERSION, variant_index)) + _pack_side(me) + _pack_side(opp)
           + bytes((packed_dice, flags)) + bytes(tail))
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_position_id(text: str) -> IdFields:
    """The parts of a compact id; raise PositionError saying what is wrong with the token
    (whether the position it carries obeys the rules is `Position.from_id`'s to check)."""
    if not isinstance(text, str) or not text or len(text) > 64:
        raise PositionError("a position id is a non-empty token of at most 64 characters")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise PositionError(f"position id {text!r} is not base64url") from None
    if len(raw) < 30:
        raise PositionError(f"position id {text!r} is too short")
    if raw[0] != FORMAT_VERSION:
        raise PositionError(f"position id format {raw[0]} is not supported (expected "
                            f"{FORMAT_VERSION})")
    try:
        variant = variant_by_index(raw[1])
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    me = _unpack_side(raw[2:15])
    opp = _unpack_side(raw[15:28])
    dice_byte, flags = raw[28], raw[29]
    dice = () if dice_byte == 0 else (dice_byte >> 4, dice_byte & 15)
    rest = raw[30:]
    cube: IdCube | None = None
    match: IdMatch | None = None
    if flags & ~63:
        raise PositionError("position id has unknown flags")
    if flags & 4:
        if len(rest) < 2:
            raise PositionError("position id is truncated (cube)")
        if rest[1] > 2 or rest[0] > 12:
            raise PositionError("position id has a bad cube")
        cube = (rest[0], rest[1], bool(flags & 8))
        rest = rest[2:]
    elif flags & 8:
        raise PositionError("position id has a pending double without a cube")
    if flags & 16:
        if len(rest) < 3:
            raise PositionError("position id is truncated (match)")
        match = (rest[0], rest[1], rest[2], bool(flags & 32))
        rest = rest[3:]
    elif flags & 32:
        raise PositionError("position id has a Crawford flag outside match play")
    if rest:
        raise PositionError("position id has trailing bytes")
    return IdFields(variant.name, me, opp, dice, (bool(flags & 1), bool(flags & 2)), cube,
                    match)
