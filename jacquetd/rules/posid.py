"""The compact position id: one URL-safe token carrying a whole Position.

Layout of the bytes before base64url (no padding):

    0      format version (1)
    1      variant index (0 jacquet, 1 jacquet-be, 2 backgammon)
    2-14   the side on roll's 26 counts, two 4-bit counts a byte (high nibble first)
    15-27  the opponent's 26 counts, likewise
    28     dice: first die in the high nibble, second in the low (0 = not rolled)
    29     flags: 1 primed (on roll), 2 primed (opponent), 4 cube on, 8 cube pending,
           16 match play, 32 Crawford game
    then, with the cube on:   log2 of the cube value, cube owner (0 centre, 1 on roll, 2 opponent)
    then, in match play:      match length, score of the side on roll, score of the opponent

The token uses only letters, digits, '-' and '_', so it is safe inside a
protocol text line. Decoding validates the position like any other input.
"""

from __future__ import annotations

import base64
import binascii

from .errors import PositionError
from .position import Cube, CubeOwner, MatchState, Position
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


def encode_position_id(pos: Position) -> str:
    """Encode `pos` as its compact id (the inverse of `decode_position_id`)."""
    flags = (pos.primed[0] * 1) | (pos.primed[1] * 2)
    tail = bytearray()
    if pos.cube is not None:
        flags |= 4 | (8 if pos.cube.pending else 0)
        tail += bytes((pos.cube.value.bit_length() - 1, int(pos.cube.owner)))
    if pos.match is not None:
        flags |= 16 | (32 if pos.match.crawford else 0)
        tail += bytes((pos.match.length, pos.match.score[0], pos.match.score[1]))
    dice = (pos.dice[0] << 4 | pos.dice[1]) if pos.dice else 0
    raw = (bytes((FORMAT_VERSION, pos.rules.index)) + _pack_side(pos.me) + _pack_side(pos.opp)
           + bytes((dice, flags)) + bytes(tail))
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_position_id(text: str) -> Position:
    """Decode a compact id; raise PositionError saying what is wrong with it."""
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
    cube = None
    match = None
    if flags & ~63:
        raise PositionError("position id has unknown flags")
    if flags & 4:
        if len(rest) < 2:
            raise PositionError("position id is truncated (cube)")
        if rest[1] > 2 or rest[0] > 12:
            raise PositionError("position id has a bad cube")
        cube = Cube(1 << rest[0], CubeOwner(rest[1]), bool(flags & 8))
        rest = rest[2:]
    elif flags & 8:
        raise PositionError("position id has a pending double without a cube")
    if flags & 16:
        if len(rest) < 3:
            raise PositionError("position id is truncated (match)")
        match = MatchState(rest[0], (rest[1], rest[2]), bool(flags & 32))
        rest = rest[3:]
    elif flags & 32:
        raise PositionError("position id has a Crawford flag outside match play")
    if rest:
        raise PositionError("position id has trailing bytes")
    return Position.validated(variant.name, me, opp, dice, (bool(flags & 1), bool(flags & 2)),
                              cube, match)
