"""The gnubg endpoint reads every board GNU Backgammon sends and refuses malformed ones, and
a client that closes its side normally leaves no evaluation running (issues 50 item 2,
51 items 3 and 10).

Each test talks to a real `jacquetd serve` over its gnubg endpoint.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from tests.conftest import DaemonProcess
from tests.daemon.wire import GnubgClient, ZmqClient

Start = Callable[..., DaemonProcess]

# Sent by gnubg 1.07 as match manager when its own player (You, on turn, owning the cube
# at 2) redoubles; our player (X: 13 checkers home, 2 off) is asked to take.
REDOUBLE = ("board:root:gnubg:5:2:2:0:0:0:2:2:2:2:2:0:0:0:0:0:0:0:0:0:0:0:0:-3:3:-3:-4:-3:2:1"
            ":0:0:0:0:2:1:0:1:1:-1:0:25:0:2:0:0:0:0:0:1")
# The opening position, You on roll with 3-1, 52 fields after the word `board`.
OPENING_31 = ("board:You:Opponent:9999:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0"
              ":2:0:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
TOO_MANY = "Error: Invalid board. Maximum number of elements is 52\n"


def test_a_redouble_by_gnubgs_own_player_is_answered(jacquetd_server: DaemonProcess) -> None:
    client = GnubgClient(jacquetd_server.gnubg)
    try:
        # the doubler is the side on turn (as gnubg writes and reads boards): our side is
        # far ahead in the race and takes
        assert client.ask(REDOUBLE) == "take\n"
    finally:
        client.close()


def test_board_field_counts_as_gnubg_reads_them(jacquetd_server: DaemonProcess) -> None:
    fields = OPENING_31.split(":")
    client = GnubgClient(jacquetd_server.gnubg)
    try:
        # gnubg 1.07 reads 42 to 52 fields after `board` (43-52 may be left out) ...
        for n in (42, 45, 51, 52):
            reply = client.ask(":".join(fields[:1 + n]))
            assert not reply.startswith("Error"), (n, reply)
        # ... and refuses fewer, more, or a trailing empty field
        assert client.ask(":".join(fields[:1 + 41])) == "Error: badly formed board\n"
        for n in (53, 60):
            assert client.ask(OPENING_31 + ":0" * (n - 52)) == TOO_MANY, n
        assert client.ask(OPENING_31 + ":").startswith("Error: ")
    finally:
        client.close()


def test_an_evaluation_stops_when_its_client_closes_normally(start_jacquetd: Start) -> None:
    # one worker; an evaluation of minutes; the client closes its socket (FIN, not a
    # reset): the evaluation stops and the worker serves the next client long before
    # the evaluation would have ended
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--limit", "max_plies=6")
    gnubg = GnubgClient(daemon.gnubg)
    gnubg.send(f"evaluation fibsboard {OPENING_31} plies 5\n".encode())
    assert gnubg.closed_by_peer(1.0) is False  # still evaluating, nothing answered
    gnubg.sock.shutdown(socket.SHUT_WR)
    assert gnubg.closed_by_peer(10.0), "the daemon kept the connection open"
    gnubg.close()
    client = ZmqClient(daemon.zmq)
    reply = client.call("best_move", position="start", dice=[3, 1], level="random", timeout=60)
    assert reply.ok, reply
    client.close()
    daemon.stop()


def test_a_fibs_position_has_the_field_counts_gnubg_reads(jacquetd_server: DaemonProcess) -> None:
    # a FIBS board given as a protocol position is read as the gnubg endpoint reads it
    fields = OPENING_31.split(":")
    client = ZmqClient(jacquetd_server.zmq)
    try:
        for board in (OPENING_31, ":".join(fields[:1 + 51]), ":".join(fields[:1 + 42])):
            reply = client.call("legal_moves", position=board)
            assert reply.ok, (board, reply)
        for board in (OPENING_31 + ":0" * 8, ":".join(fields[:1 + 41])):
            reply = client.call("legal_moves", position=board)
            assert not reply.ok and reply.error["code"] == "bad_position", (board, reply)
            assert reply.error.get("field") == "position", reply
    finally:
        client.close()
