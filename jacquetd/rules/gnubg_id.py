"""GNU Backgammon's Position ID and Match ID, written and read for `backgammon` positions.

Both are base64 (standard alphabet, padding left out) of a little-endian bit
string: bit k of the string is bit k % 8 of byte k // 8.

**Position ID** (80 bits, 14 characters): for the side *not* on roll, then the
side on roll, and for each of its points 1-24 then its bar, as many 1 bits as
it has checkers there followed by one 0 bit; zero bits pad to 80.

**Match ID** (66 bits + 1, 12 characters), fields least significant bit first:

    0-3   log2 of the cube value        4-5   cube owner: 0 player 0, 1 player 1, 3 centre
    6     player on roll (the dice)     7     Crawford game
    8-10  game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped double
    11    player to decide now          12    a double is offered
    13-14 resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
    15-17 first die, 18-20 second die (0: not rolled)
    21-35 match length (0: money play)  36-50 player 0's score, 51-65 player 1's
    66    the Jacoby bit: gnubg, under its default settings, sets it in match play and
          clears it in money play (it is the inverse of its `jacoby` cube setting)

The writer makes the side on roll gnubg's player 1 (gnubg's default human
seat, drawn at the bottom), writes the higher die first (as gnubg does) and
the Jacoby bit as gnubg's defaults do (the rules of this project have no
Jacoby rule). The reader accepts
either player on roll. A `Position` has no resignation and no end of game by
resignation or by a dropped double, so Match IDs that carry those are refused
with the reason; the Jacoby bit is read and ignored.
"""

from __future__ import annotations

import base64
import binascii
import re

from .errors import PositionError
from .position import CHECKERS, Cube, CubeOwner, MatchState, Position

POSITION_ID_LEN = 14
MATCH_ID_LEN = 12
_B64 = r"[A-Za-z0-9+/]"
POSITION_ID_RE = re.compile(rf"^{_B64}{{{POSITION_ID_LEN}}}$")
MATCH_ID_RE = re.compile(rf"^{_B64}{{{MATCH_ID_LEN}}}$")
#: `PositionID[:MatchID]`, optionally after gnubg's own label `GNUbgID`.
GNUBG_ID_RE = re.compile(rf"^(?:GNUbgID\s*[:=]?\s*)?({_B64}{{{POSITION_ID_LEN}}})"
                         rf"(?::({_B64}{{{MATCH_ID_LEN}}}))?$")

STATE_NONE, STATE_PLAYING, STATE_OVER, STATE_RESIGNED, STATE_DROPPED = range(5)
_OWNER_CENTRE = 3
_MAX_SCORE = (1 << 15) - 1


# -- bits ----------------------------------------------------------------------------------


def _to_b64(value: int, nbytes: int) -> str:
    return base64.b64encode(value.to_bytes(nbytes, "little")).decode("ascii").rstrip("=")


def _from_b64(text: str, nbytes: int, what: str) -> int:
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise PositionError(f"{what} {text!r} is not base64") from None
    if len(raw) != nbytes:
        raise PositionError(f"{what} {text!r} does not hold {nbytes} bytes")
    return int.from_bytes(raw, "little")


# -- Position ID ---------------------------------------------------------------------------


_SIDE_BITS: dict[tuple[int, ...], tuple[int, int]] = {}
_SIDE_BITS_MAX = 1 << 16


def _side_bits(side: tuple[int, ...]) -> tuple[int, int]:
    """(bits, how many) of one side's part of the key; cached, since replies give the id
    of every legal play's position."""
    got = _SIDE_BITS.get(side)
    if got is None:
        value = 0
        bit = 0
        for point in range(1, 26):
            n = side[point]
            value |= ((1 << n) - 1) << bit
            bit += n + 1
        if len(_SIDE_BITS) >= _SIDE_BITS_MAX:
            _SIDE_BITS.clear()
        got = _SIDE_BITS[side] = (value, bit)
    return got


def encode_key(not_on_roll: tuple[int, ...], on_roll: tuple[int, ...]) -> str:
    """The Position ID of two sides given in this project's numbering (26 counts: 0 off,
    1-24 points, 25 bar)."""
    first, width = _side_bits(tuple(not_on_roll))
    second, _ = _side_bits(tuple(on_roll))
    return _to_b64(first | second << width, 10)


def decode_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The two sides (not on roll, on roll) of a Position ID, each as 26 counts with the
    borne-off count at index 0; raise PositionError naming what is wrong."""
    if not POSITION_ID_RE.match(text):
        raise PositionError(f"a gnubg Position ID is {POSITION_ID_LEN} base64 characters, "
                            f"not {text!r}")
    value = _from_b64(text, 10, "Position ID")
    sides: list[tuple[int, ...]] = []
    for who in ("the side not on roll", "the side on roll"):
        side = [0] * 26
        for point in range(1, 26):
            n = 0
            while value & 1:
                n += 1
                value >>= 1
                if n > CHECKERS:
                    raise PositionError(f"Position ID {text!r}: {who} has more than "
                                        f"{CHECKERS} checkers", "J1")
            value >>= 1
            side[point] = n
        on_board = sum(side)
        if on_board > CHECKERS:
            raise PositionError(f"Position ID {text!r}: {who} has {on_board} checkers", "J1")
        side[0] = CHECKERS - on_board
        sides.append(tuple(side))
    if value:
        raise PositionError(f"Position ID {text!r} has bits set past its last checker")
    return sides[0], sides[1]


def position_id(pos: Position) -> str:
    """gnubg's Position ID of a backgammon position (the side on roll is the one to move,
    or the doubler while a double awaits its answer)."""
    _check_backgammon(pos)
    return encode_key(pos.opp, pos.me)


# -- Match ID ------------------------------------------------------------------------------


def _put(fields: list[tuple[int, int]]) -> int:
    value = 0
    bit = 0
    for width, field_value in fields:
        value |= (field_value & ((1 << width) - 1)) << bit
        bit += width
    return value


_LAYOUT = (("cube", 4), ("owner", 2), ("move", 1), ("crawford", 1), ("state", 3),
           ("turn", 1), ("doubled", 1), ("resigned", 2), ("die1", 3), ("die2", 3),
           ("length", 15), ("score0", 15), ("score1", 15), ("jacoby", 1))


def match_fields(text: str) -> dict[str, int]:
    """Every field of a Match ID by name (see the module docstring)."""
    if not MATCH_ID_RE.match(text):
        raise PositionError(f"a gnubg Match ID is {MATCH_ID_LEN} base64 characters, "
                            f"not {text!r}")
    value = _from_b64(text, 9, "Match ID")
    out: dict[str, int] = {}
    for name, width in _LAYOUT:
        out[name] = value & ((1 << width) - 1)
        value >>= width
    if value:
        raise PositionError(f"Match ID {text!r} has bits set past bit 66")
    return out


_MATCH_IDS: dict[tuple[object, ...], str] = {}


def match_id(pos: Position) -> str:
    """gnubg's Match ID of a backgammon position, the side on roll being player 1."""
    _check_backgammon(pos)
    key = (pos.cube, pos.match, pos.dice, pos.game_over())
    got = _MATCH_IDS.get(key)
    if got is None:
        if len(_MATCH_IDS) >= _SIDE_BITS_MAX:
            _MATCH_IDS.clear()
        got = _MATCH_IDS[key] = _match_id(pos)
    return got


def _match_id(pos: Position) -> str:
    return match_id_of(pos.cube, pos.match, pos.dice, pos.game_over())


def match_id_of(cube_or_none: Cube | None, m: MatchState | None, dice_rolled: tuple[int, ...],
                over: bool) -> str:
    """The Match ID of a backgammon position with this cube, match state and dice, the
    game over or not (the side on roll being player 1): what `match_id` writes, from the
    fields alone (`jacquetd.rules.idwriter` writes it once for many positions)."""
    cube = cube_or_none or Cube()
    owner = {CubeOwner.CENTRE: _OWNER_CENTRE, CubeOwner.ON_ROLL: 1,
             CubeOwner.OPPONENT: 0}[cube.owner]
    dice = sorted(dice_rolled, reverse=True) if dice_rolled else [0, 0]
    return _to_b64(_put([
        (4, cube.value.bit_length() - 1), (2, owner), (1, 1),
        (1, int(bool(m and m.crawford))), (3, STATE_OVER if over else STATE_PLAYING),
        (1, 0 if cube.pending else 1), (1, int(cube.pending)), (2, 0),
        (3, dice[0]), (3, dice[1]),
        (15, m.length if m else 0), (15, m.score[1] if m else 0), (15, m.score[0] if m else 0),
        (1, 1 if m else 0),
    ]), 9)


def gnubg_id(pos: Position) -> str:
    """`PositionID:MatchID`, as gnubg prints it after `GNUbgID:`."""
    return f"{position_id(pos)}:{match_id(pos)}"


def parse_gnubg_id(text: str) -> Position:
    """Read `PositionID` or `PositionID:MatchID` into a backgammon position.

    Without a Match ID the position is money play, cube centred at 1, the side
    on roll before its roll. Raise PositionError naming what is wrong.
    """
    m = GNUBG_ID_RE.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise PositionError("a gnubg id is a 14-character Position ID, optionally followed "
                            "by ':' and a 12-character Match ID (base64)")
    not_on_roll, on_roll = decode_key(m.group(1))
    if m.group(2) is None:
        return Position.validated("backgammon", on_roll, not_on_roll, (), (False, False),
                                  Cube(), None)
    f = match_fields(m.group(2))
    return _position_of(on_roll, not_on_roll, f, m.group(2))


def _position_of(me: tuple[int, ...], opp: tuple[int, ...], f: dict[str, int],
                 mid: str) -> Position:
    if f["state"] > STATE_DROPPED:
        raise PositionError(f"Match ID {mid!r}: game state {f['state']} is not 0-4")
    if f["state"] in (STATE_RESIGNED, STATE_DROPPED):
        how = "a resignation" if f["state"] == STATE_RESIGNED else "a dropped double"
        raise PositionError(f"Match ID {mid!r}: the game has ended by {how}; only the board "
                            "of a game in play or ended by bearing off is a position here")
    if f["resigned"]:
        raise PositionError(f"Match ID {mid!r}: a resignation is offered; positions here "
                            "carry no resignation offer (see match_resign)")
    move = f["move"]
    doubled = bool(f["doubled"])
    if doubled and f["turn"] == move:
        raise PositionError(f"Match ID {mid!r}: a double is offered but the player on roll "
                            "is also the one to answer it")
    if not doubled and f["turn"] != move and f["state"] == STATE_PLAYING:
        raise PositionError(f"Match ID {mid!r}: the player to decide is not the player on "
                            "roll, yet no double is offered")
    if f["cube"] > 12:
        raise PositionError(f"Match ID {mid!r}: cube 2^{f['cube']} is too large", "C2")
    owner_bits = f["owner"]
    if owner_bits == 2:
        raise PositionError(f"Match ID {mid!r}: cube owner 2 is not a player (0, 1) or the "
                            "centre (3)", "C2")
    if owner_bits == _OWNER_CENTRE:
        owner = CubeOwner.CENTRE
    else:
        owner = CubeOwner.ON_ROLL if owner_bits == move else CubeOwner.OPPONENT
    dice_raw = (f["die1"], f["die2"])
    if (0 in dice_raw) != (dice_raw == (0, 0)) or max(dice_raw) > 6:
        raise PositionError(f"Match ID {mid!r}: dice {dice_raw} are not two dice 1-6 or "
                            "none", "G6")
    dice = () if dice_raw == (0, 0) else dice_raw
    if doubled and dice:
        dice = ()  # gnubg keeps the last roll's dice in the id while a double is pending
    if f["state"] == STATE_OVER:
        dice = ()
    length = f["length"]
    match = None
    scores = (f["score1"], f["score0"]) if move == 1 else (f["score0"], f["score1"])
    if length:
        match = MatchState(length, scores, bool(f["crawford"]))
    elif any(scores) or f["crawford"]:
        raise PositionError(f"Match ID {mid!r}: money play (length 0) with a score or the "
                            "Crawford flag", "C5")
    cube = Cube(1 << f["cube"], owner, doubled)
    if f["state"] == STATE_OVER and me[0] == CHECKERS:
        me, opp = opp, me  # a finished game is given with the loser on roll
        cube = cube.swapped()
        match = match.swapped() if match else None
    return Position.validated("backgammon", me, opp, dice, (False, False), cube, match)


def _check_backgammon(pos: Position) -> None:
    if pos.variant != "backgammon":
        raise PositionError(f"gnubg ids describe backgammon positions, not {pos.variant}")
