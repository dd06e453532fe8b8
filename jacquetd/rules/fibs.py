"""The FIBS `board:` string, read and written exactly as GNU Backgammon uses it.

Only the `backgammon` variant has a FIBS form. Field numbers follow the
`board:` string split on ':' (field 0 is the word `board`):

    1-2 names (you, opponent)      3 match length (9999: money play)
    4-5 scores (yours, opponent's) 6-31 slots 0..25, positive O, negative X
    32 turn (-1 X, +1 O)           33-34 your dice, 35-36 the opponent's dice
    37 cube value                  38-39 may double (you, opponent)
    40 was doubled                 41 colour (-1 you are X, +1 O)
    42 direction (-1: you move 24 -> 1)  43-44 home and bar slots
    45-48 borne off (you, opp), on the bar (you, opp)
    49-52 can move, forced move, did Crawford (post-Crawford), redoubles

With direction -1 slot i is your point i and the opponent's point 25 - i;
with direction +1 the other way round. Your bar is slot 25 (direction -1) or
0 (direction +1).

Who is on roll, read as GNU Backgammon reads it: the side whose colour is in
the turn field. With `was doubled` set that side is the doubler and the other
side answers the double; GNU Backgammon 1.07 writes its own pending doubles so
(as match manager) and reads them so (as external player), both measured. A
board whose cube is owned names its doubler by the may-double fields: only the
owner can double, whatever the turn field says. The dice are the on-roll
side's pair, or the other pair when that side's reads 0 0.

Fields 43-52 may be left out (read as 0), as GNU Backgammon allows: a board
has 42 to 52 fields after the word `board`. More than 52 is refused.
Scores are (yours, the opponent's), as FIBS defines them; GNU Backgammon
1.07 reads fields 4 and 5 the other way round on every board (measured:
SPEC.md section 11.3), so a board whose scores differ means different things
to the two programs.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import PositionError
from .position import Cube, CubeOwner, MatchState, Position

MONEY = 9999
#: Fields after the word `board`: GNU Backgammon 1.07 reads 42 (through the direction)
#: up to 52 and refuses more.
MIN_FIELDS, MAX_FIELDS = 42, 52


@dataclass(frozen=True, slots=True)
class FibsBoard:
    """Every field of a FIBS board string, in 'you' (the receiver) terms."""

    you: tuple[int, ...]
    """Your checkers, 26 counts in your numbering (0 off, 25 bar)."""
    them: tuple[int, ...]
    match_length: int = MONEY
    score: tuple[int, int] = (0, 0)
    your_turn: bool = True
    dice: tuple[int, ...] = ()
    cube: int = 1
    may_double: tuple[bool, bool] = (True, True)
    was_doubled: bool = False
    colour: int = 1
    direction: int = -1
    crawford_done: bool = False
    no_redoubles_or_crawford: int = 0
    names: tuple[str, str] = ("You", "Opponent")

    @property
    def on_roll_is_you(self) -> bool:
        """Whether You are the side on roll: the side on turn, or with a double pending
        and the cube owned, its owner (the only side that can double)."""
        if self.was_doubled and self.cube > 1 and self.may_double[0] != self.may_double[1]:
            return self.may_double[0]
        return self.your_turn

    def to_position(self) -> Position:
        """The position from the view of the side on roll (the doubler if was_doubled)."""
        on_roll_is_you = self.on_roll_is_you
        me, opp = (self.you, self.them) if on_roll_is_you else (self.them, self.you)
        score = self.score if on_roll_is_you else (self.score[1], self.score[0])
        you_may, them_may = self.may_double
        owner = CubeOwner.CENTRE
        if self.cube > 1:
            mine, theirs = (you_may, them_may) if on_roll_is_you else (them_may, you_may)
            if mine and not theirs:
                owner = CubeOwner.ON_ROLL
            elif theirs and not mine:
                owner = CubeOwner.OPPONENT
        cube = Cube(self.cube, owner, self.was_doubled)
        match = None
        if self.match_length != MONEY:
            at_point = self.match_length - 1 in score
            crawford = at_point and not self.crawford_done and not (you_may or them_may)
            match = MatchState(self.match_length, score, crawford)
        dice = () if self.was_doubled else self.dice
        return Position.validated("backgammon", me, opp, dice, (False, False), cube, match)


def parse_fibs_board(text: str) -> FibsBoard:
    """Read a `board:` string; raise PositionError saying which field is wrong."""
    if not isinstance(text, str) or not text.startswith("board:"):
        raise PositionError("a FIBS board starts with 'board:'")
    fields = text.strip().split(":")
    if not MIN_FIELDS <= len(fields) - 1 <= MAX_FIELDS:
        raise PositionError(f"a FIBS board has {MIN_FIELDS} to {MAX_FIELDS} fields after "
                            f"'board', this one {len(fields) - 1}")

    def num(i: int) -> int:
        if i >= len(fields):
            return 0  # fields 43-52 may be left out
        try:
            return int(fields[i])
        except ValueError:
            raise PositionError(f"FIBS field {i} is not a number: {fields[i]!r}") from None

    slots = [num(i) for i in range(6, 32)]
    colour, direction = num(41), num(42)
    if colour not in (-1, 1) or direction not in (-1, 1):
        raise PositionError("FIBS colour and direction must be -1 or 1")
    turn = num(32)
    if turn not in (-1, 1):
        raise PositionError("FIBS turn must be -1 or 1 (0: game over is not playable)")
    you = [0] * 26
    them = [0] * 26
    for slot, n in enumerate(slots):
        if n == 0:
            continue
        mine = (n > 0) == (colour > 0)
        count = abs(n)
        if mine:
            point = slot if direction == -1 else 25 - slot
            if point == 0:
                raise PositionError(f"your checkers in slot {slot}, the opponent's bar")
            you[point] += count
        else:
            point = 25 - slot if direction == -1 else slot
            if point == 0:
                raise PositionError(f"opponent checkers in slot {slot}, your bar")
            them[point] += count
    for side in (you, them):
        on_board = sum(side)
        if on_board > 15:
            raise PositionError(f"{on_board} checkers of one side on the board", "J1")
        side[0] = 15 - on_board
    your_turn = turn == colour
    yours, theirs = (num(33), num(34)), (num(35), num(36))
    d = yours if your_turn else theirs
    if d == (0, 0):
        d = theirs if your_turn else yours  # gnubg falls back to the other pair
    if any(not 0 <= x <= 6 for x in (*yours, *theirs)):
        raise PositionError("FIBS dice must be 0-6", "G6")
    dice: tuple[int, ...] = () if d == (0, 0) else d
    return FibsBoard(
        you=tuple(you), them=tuple(them), match_length=num(3), score=(num(4), num(5)),
        your_turn=your_turn, dice=dice, cube=num(37),
        may_double=(bool(num(38)), bool(num(39))), was_doubled=bool(num(40)),
        colour=colour, direction=direction, crawford_done=bool(num(51)),
        no_redoubles_or_crawford=num(52), names=(fields[1], fields[2]),
    )


def format_fibs_board(board: FibsBoard) -> str:
    """Write a `board:` string (the inverse of `parse_fibs_board` on its fields)."""
    slots = [0] * 26
    sign = board.colour
    for point in range(1, 26):
        n = board.you[point]
        if n:
            slot = point if board.direction == -1 else 25 - point
            slots[slot] += sign * n
        n = board.them[point]
        if n:
            slot = 25 - point if board.direction == -1 else point
            slots[slot] -= sign * n
    turn = board.colour if board.your_turn else -board.colour
    your_dice = board.dice if board.your_turn and board.dice else (0, 0)
    their_dice = board.dice if not board.your_turn and board.dice else (0, 0)
    home, bar = (0, 25) if board.direction == -1 else (25, 0)
    values = [
        board.names[0], board.names[1], board.match_length, board.score[0], board.score[1],
        *slots, turn, *your_dice, *their_dice, board.cube,
        int(board.may_double[0]), int(board.may_double[1]), int(board.was_doubled),
        board.colour, board.direction, home, bar,
        board.you[0], board.them[0], board.you[25], board.them[25],
        0, 0, int(board.crawford_done), board.no_redoubles_or_crawford,
    ]
    return "board:" + ":".join(str(v) for v in values)


def board_from_position(pos: Position, names: tuple[str, str] = ("You", "Opponent"),
                        colour: int = 1, direction: int = -1) -> FibsBoard:
    """The FIBS board of a backgammon position, 'you' being the side on roll.

    With a double pending that is the doubler, on turn with `was doubled` set,
    as GNU Backgammon writes and reads such boards; the opponent answers.
    """
    if pos.variant != "backgammon":
        raise PositionError(f"only backgammon positions have a FIBS form, not {pos.variant}")
    cube = pos.cube or Cube()
    owner = cube.owner
    crawford = bool(pos.match and pos.match.crawford)
    may = (owner is not CubeOwner.OPPONENT and not crawford and pos.cube is not None,
           owner is not CubeOwner.ON_ROLL and not crawford and pos.cube is not None)
    if pos.match:
        post = (pos.match.length - 1 in pos.match.score) and not crawford
        length, score = pos.match.length, pos.match.score
    else:
        post, length, score = False, MONEY, (0, 0)
    return FibsBoard(you=pos.me, them=pos.opp, match_length=length, score=score,
                     your_turn=True, dice=pos.dice, cube=cube.value, may_double=may,
                     was_doubled=cube.pending, colour=colour, direction=direction,
                     crawford_done=post, names=names)
