"""eXtreme Gammon's XGID, written and read for `backgammon` positions.

`XGID=` then ten fields separated by `:`:

    1  the board, 26 characters: [0] the top player's bar, [1..24] points 1-24 as
       the bottom player numbers them, [25] the bottom player's bar; `-` empty,
       `A`-`O` 1-15 of the bottom player's checkers, `a`-`o` the top player's
    2  log2 of the cube value         3  cube owner: 1 bottom, -1 top, 0 centre
    4  turn: 1 bottom, -1 top         5  dice: `00` to roll or double, two digits
       rolled, `D` the player on turn has doubled (the cube in field 2 is still the
       value before the double), `B` beavered, `R` raccooned
    6  bottom player's score          7  top player's score
    8  match play: 1 in the Crawford game; money play: 1 Jacoby + 2 beavers
    9  match length (0: money)        10 maximum cube, log2

The writer makes the side on roll the bottom player (turn 1) and writes the
higher die first, the Crawford/Jacoby field as this project's rules have it
(no Jacoby, no beavers in money play) and a maximum cube of 2^10, XG's
default. The reader accepts either player on turn; a beaver or raccoon (`B`,
`R`) has no `Position` form and is refused with the reason; field 10 is read
and ignored.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .errors import PositionError
from .position import CHECKERS, Cube, CubeOwner, MatchState, Position

PREFIX = "XGID="
_XGID_RE = re.compile(r"^(?:XGID=)?([-A-Oa-o]{26}):(.*)\Z")
MAX_CUBE_LOG = 10


def _count_char(n: int, bottom: bool) -> str:
    if n == 0:
        return "-"
    return chr((ord("A") if bottom else ord("a")) + n - 1)


@lru_cache(maxsize=1 << 14)
def _board(me: tuple[int, ...], opp: tuple[int, ...]) -> str:
    """The 26 board characters, `me` at the bottom (cached: replies write one per play)."""
    board = ["-"] * 26
    board[0] = _count_char(opp[25], False)
    board[25] = _count_char(me[25], True)
    for q in range(1, 25):
        if me[q]:
            board[q] = _count_char(me[q], True)
        elif opp[25 - q]:
            board[q] = _count_char(opp[25 - q], False)
    return "".join(board)


def format_xgid(pos: Position) -> str:
    """The XGID of a backgammon position, the side on roll being the bottom player."""
    if pos.variant != "backgammon":
        raise PositionError(f"XGIDs describe backgammon positions, not {pos.variant}")
    return PREFIX + _board(pos.me, pos.opp) + xgid_tail(pos.cube, pos.match, pos.dice)


def xgid_tail(cube_or_none: Cube | None, m: MatchState | None, dice_rolled: tuple[int, ...]
              ) -> str:
    """Fields 2-10 of an XGID, each after its `:` (everything but the board), for a
    position with this cube, match state and dice, the side on roll at the bottom."""
    cube = cube_or_none or Cube()
    owner = {CubeOwner.CENTRE: 0, CubeOwner.ON_ROLL: 1, CubeOwner.OPPONENT: -1}[cube.owner]
    if cube.pending:
        dice = "D"
    elif dice_rolled:
        hi, lo = sorted(dice_rolled, reverse=True)
        dice = f"{hi}{lo}"
    else:
        dice = "00"
    fields = [
        str(cube.value.bit_length() - 1), str(owner), "1", dice,
        str(m.score[0] if m else 0), str(m.score[1] if m else 0),
        str(int(m.crawford) if m else 0), str(m.length if m else 0), str(MAX_CUBE_LOG),
    ]
    return ":" + ":".join(fields)


def _int(text: str, number: int, what: str) -> int:
    if not re.fullmatch(r"-?[0-9]{1,5}", text):
        raise PositionError(f"XGID field {number} ({what}) is not a number: {text!r}")
    return int(text)


def parse_xgid(text: str) -> Position:
    """Read an XGID (with or without `XGID=`) into a backgammon position; raise
    PositionError naming the field that is wrong."""
    m = _XGID_RE.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise PositionError("an XGID is 'XGID=' then 26 board characters ('-', 'A'-'O', "
                            "'a'-'o') and nine ':'-separated fields")
    board, rest = m.group(1), m.group(2).split(":")
    if len(rest) != 9:
        raise PositionError(f"an XGID has 10 fields, this one {len(rest) + 1}")
    bottom = [0] * 26
    top = [0] * 26
    for i, ch in enumerate(board):
        if ch == "-":
            continue
        n = ord(ch.lower()) - ord("a") + 1
        if ch.isupper():
            if i == 0:
                raise PositionError("XGID: the bottom player's checkers on the top player's "
                                    "bar (character 0)")
            bottom[i] += n
        else:
            if i == 25:
                raise PositionError("XGID: the top player's checkers on the bottom player's "
                                    "bar (character 25)")
            top[25 - i] += n
    for name, side in (("bottom", bottom), ("top", top)):
        on_board = sum(side)
        if on_board > CHECKERS:
            raise PositionError(f"XGID: the {name} player has {on_board} checkers", "J1")
        side[0] = CHECKERS - on_board
    cube_log = _int(rest[0], 2, "cube")
    owner_raw = _int(rest[1], 3, "cube owner")
    turn = _int(rest[2], 4, "turn")
    dice_text = rest[3]
    score_bottom = _int(rest[4], 6, "bottom score")
    score_top = _int(rest[5], 7, "top score")
    flags = _int(rest[6], 8, "Crawford/Jacoby")
    length = _int(rest[7], 9, "match length")
    _int(rest[8], 10, "maximum cube")
    if not 0 <= cube_log <= 12:
        raise PositionError(f"XGID field 2: cube 2^{cube_log} is out of range", "C2")
    if owner_raw not in (-1, 0, 1):
        raise PositionError("XGID field 3: the cube owner is 1, -1 or 0", "C2")
    if turn not in (-1, 1):
        raise PositionError("XGID field 4: the turn is 1 (bottom) or -1 (top)")
    pending = False
    dice: tuple[int, ...] = ()
    if dice_text == "D":
        pending = True
    elif dice_text in ("B", "R"):
        raise PositionError(f"XGID field 5: {'a beaver' if dice_text == 'B' else 'a raccoon'} "
                            "has no position form here (no beavers in these rules)")
    elif re.fullmatch(r"[0-6][0-6]", dice_text):
        if dice_text != "00":
            if "0" in dice_text:
                raise PositionError(f"XGID field 5: dice {dice_text!r} are two dice 1-6 or 00",
                                    "G6")
            dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise PositionError(f"XGID field 5: dice {dice_text!r} are 00, two dice 1-6 or D")
    if length < 0 or score_bottom < 0 or score_top < 0:
        raise PositionError("XGID: scores and the match length are never negative", "C5")
    on_turn_bottom = turn == 1
    me, opp = (bottom, top) if on_turn_bottom else (top, bottom)
    if owner_raw == 0:
        owner = CubeOwner.CENTRE
    else:
        owner = CubeOwner.ON_ROLL if (owner_raw == 1) == on_turn_bottom else CubeOwner.OPPONENT
    match = None
    if length:
        scores = (score_bottom, score_top) if on_turn_bottom else (score_top, score_bottom)
        match = MatchState(length, scores, flags == 1)
    elif score_bottom or score_top:
        raise PositionError("XGID: money play (length 0) with a score", "C5")
    cube = Cube(1 << cube_log, owner, pending)
    if opp[0] < CHECKERS and me[0] == CHECKERS:
        raise PositionError("XGID: the player on turn has borne off all its checkers")
    return Position.validated("backgammon", me, opp, dice, (False, False), cube, match)
