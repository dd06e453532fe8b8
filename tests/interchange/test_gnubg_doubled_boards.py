"""Who doubled, in a FIBS board with a double pending: our gnubg endpoint answers as GNU
Backgammon itself does (SPEC.md section 11.3).

The same boards go to gnubg (as the external-player server) and to a real `jacquetd
serve`. The side on turn has either a sure win (one checker left on its 1-point) or a
sure loss (15 checkers far from home); the cube is centred or owned by the side on turn;
every turn, colour and direction combination. A take decision of such a board has one
right answer, so both programs reading the side on turn as the doubler must answer
`drop` to the sure winner's double and `take` to the sure loser's.
"""

from __future__ import annotations

import socket

import pytest

from tests.conftest import DaemonProcess
from tests.daemon.wire import GnubgClient
from tests.interchange.gnubg_cli import NO_GNUBG, find_gnubg
from tests.interchange.test_gnubg_fibs_scores import gnubg_server  # noqa: F401 - fixture

pytestmark = pytest.mark.skipif(find_gnubg() is None, reason=NO_GNUBG)

SURE_WIN = {1: 1}
SURE_LOSS = {13: 8, 12: 7}


def doubled_board(colour: int, direction: int, turn_is_you: bool, turn_side_wins: bool,
                  cube_owned: bool) -> str:
    turn_side, other = (SURE_WIN, SURE_LOSS) if turn_side_wins else (SURE_LOSS, SURE_WIN)
    you, opp = (turn_side, other) if turn_is_you else (other, turn_side)
    slots = [0] * 26
    for point, n in you.items():
        slots[point if direction == -1 else 25 - point] += colour * n
    for point, n in opp.items():
        slots[25 - point if direction == -1 else point] -= colour * n
    turn = colour if turn_is_you else -colour
    cube, may = (2, (1, 0) if turn_is_you else (0, 1)) if cube_owned else (1, (1, 1))
    fields = ["board", "You", "Opponent", 5, 0, 0, *slots, turn, 0, 0, 0, 0, cube, *may, 1,
              colour, direction, 0, 25, 0, 0, 0, 0, 0, 0, 0, 0]
    return ":".join(map(str, fields))


def test_the_side_on_turn_is_the_doubler_for_gnubg_and_for_us(
        gnubg_server: socket.socket, jacquetd_server: DaemonProcess) -> None:  # noqa: F811
    reader = gnubg_server.makefile("rb")
    ours = GnubgClient(jacquetd_server.gnubg)
    try:
        for colour in (1, -1):
            for direction in (-1, 1):
                for turn_is_you in (True, False):
                    for turn_side_wins in (True, False):
                        for cube_owned in (False, True):
                            board = doubled_board(colour, direction, turn_is_you,
                                                  turn_side_wins, cube_owned)
                            gnubg_server.sendall(f"{board}\n".encode())
                            theirs = reader.readline().decode()
                            expected = "drop\n" if turn_side_wins else "take\n"
                            assert theirs == expected, (board, theirs)
                            assert ours.ask(board) == expected, board
    finally:
        ours.close()
