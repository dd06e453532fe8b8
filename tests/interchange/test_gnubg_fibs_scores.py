"""How GNU Backgammon itself reads the two score fields of a FIBS board (SPEC section 11.3).

gnubg, acting as the external-player server, evaluates boards in a 5-point match at
3-0 in every turn, colour and direction combination. The side to act (the turn field)
is evaluated; it has 15 checkers on its last three points against the opening
position, so it wins the game and one point. Its match-winning chance then says which
score gnubg gave it: about 0.33 when it had 0 (it reaches 1-3), about 0.84 when it
had 3 (it reaches 4-0, Crawford).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interchange.gnubg_cli import NO_GNUBG, find_gnubg

pytestmark = pytest.mark.skipif(find_gnubg() is None, reason=NO_GNUBG)

RACE = {1: 5, 2: 5, 3: 5}
OPENING = {6: 5, 8: 3, 13: 5, 24: 2}


def _slots(colour: int, direction: int, actor_is_you: bool) -> str:
    you, opp = (RACE, OPENING) if actor_is_you else (OPENING, RACE)
    slots = [0] * 26
    for point, n in you.items():
        slots[point if direction == -1 else 25 - point] += colour * n
    for point, n in opp.items():
        slots[25 - point if direction == -1 else point] -= colour * n
    return ":".join(map(str, slots))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def gnubg_server(tmp_path: Path) -> Iterator[socket.socket]:
    binary = find_gnubg()
    assert binary is not None
    port = _free_port()
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.Popen([binary, "-t", "-q"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "HOME": str(home)})
    assert proc.stdin is not None
    proc.stdin.write(f"external 127.0.0.1:{port}\n".encode())
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    sock = None
    while sock is None:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.1)
    try:
        yield sock
    finally:
        sock.close()
        proc.kill()
        proc.wait(timeout=10)


def test_gnubg_reads_the_score_fields_swapped_on_every_board(
        gnubg_server: socket.socket) -> None:
    reader = gnubg_server.makefile("rb")
    readings = []
    for colour in (1, -1):
        for direction in (-1, 1):
            for actor_is_you in (True, False):
                turn = colour if actor_is_you else -colour
                for fields in ((3, 0), (0, 3)):
                    board = (f"board:You:Opponent:5:{fields[0]}:{fields[1]}:"
                             f"{_slots(colour, direction, actor_is_you)}:{turn}:0:0:0:0:1:1:"
                             f"1:0:{colour}:{direction}:0:25:0:0:0:0:0:0:0:0")
                    gnubg_server.sendall(f"evaluation fibsboard {board} plies 0\n".encode())
                    values = [float(x) for x in reader.readline().split()]
                    assert values[0] > 0.99  # the side to act is the one evaluated
                    actor_had = fields[0] if actor_is_you else fields[1]  # as FIBS defines
                    gnubg_gave = 3 if values[5] > 0.6 else 0
                    readings.append((colour, direction, actor_is_you, fields,
                                     actor_had, gnubg_gave))
    assert len(readings) == 16
    swapped = [r for r in readings if r[4] != r[5]]
    assert swapped == readings, [r for r in readings if r not in swapped]
