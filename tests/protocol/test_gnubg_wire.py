"""The gnubg external-player sublanguage, line level. Expected replies are the bytes
gnubg 1.07.001 sends (GNUBG.md, and checked against the running program)."""

from __future__ import annotations

import pytest

from protocol import ErrorCode, ProtocolError
from protocol.gnubg_wire import (
    BoardRequest,
    EvaluationRequest,
    GnubgLineDecoder,
    GnubgSyntaxError,
    SetRequest,
    SimpleRequest,
    format_double,
    format_evaluation,
    format_move,
    format_resignation,
    format_set,
    format_take,
    format_version,
    parse_line,
)

BOARD = ("board:You:Opponent:9999:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
         ":1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")


def test_board_requests() -> None:
    assert parse_line(BOARD) == BoardRequest(BOARD)
    assert parse_line(f"  {BOARD}  BEAVERS on jacobyrule OFF resignation 2") == BoardRequest(
        BOARD, jacoby=False, beavers=True, resignation=2)
    assert parse_line(f"{BOARD} resignation 0") == BoardRequest(BOARD)
    assert parse_line(BOARD.encode()) == BoardRequest(BOARD)


def test_evaluation_requests() -> None:
    assert parse_line(f"evaluation fibsboard {BOARD}") == EvaluationRequest(BOARD)
    assert parse_line(f"EVALUATION FIBSBOARD {BOARD} PLIES 2 cube on noise 0.05 prune "
                      "deterministic off") == EvaluationRequest(
        BOARD, plies=2, cubeful=True, noise=0.05, prune=True, deterministic=False)
    assert parse_line(f"evaluation fibsboard {BOARD} cubeful").cubeful is True  # type: ignore[union-attr]
    assert parse_line(f"evaluation fibsboard {BOARD} cubeless").cubeful is False  # type: ignore[union-attr]


def test_other_requests() -> None:
    assert parse_line("Version") == SimpleRequest("version")
    assert parse_line("help") == SimpleRequest("help")
    assert parse_line("exit") == parse_line("quit") == SimpleRequest("exit")
    assert parse_line("   ") == SimpleRequest("empty")
    assert parse_line("set debug on") == SetRequest("debug", True)
    assert parse_line("set interface old") == SetRequest("interface", False)


@pytest.mark.parametrize("line", [
    "foo", "evaluation", "evaluation fibsboard", f"{BOARD} foo", f"{BOARD} beavers",
    f"{BOARD} resignation 4", f"{BOARD} resignation x", f"evaluation fibsboard {BOARD} plies 9",
    f"evaluation fibsboard {BOARD} cube cubeful", f"evaluation fibsboard {BOARD} noise -1",
    "set prompt x", "version 2", b"\xffversion",
])
def test_syntax_errors_are_one_error_line(line: str | bytes) -> None:
    with pytest.raises(GnubgSyntaxError) as info:
        parse_line(line)
    assert info.value.reply.startswith("Error: ") and info.value.reply.count("\n") == 1


@pytest.mark.parametrize(("move", "reply"), [
    ("8/5 6/5", "8/5 6/5 \n"),
    ("24/18 24/18 13/7 13/7", "24/18 24/18 13/7 13/7\n"),
    ("bar/22* 24/20*", "25/22* 24/20* \n"),
    ("6/off 5/off", "6/0 5/0 \n"),
    ("24/18/13", "24/18 18/13 \n"),
    ("24/18 18/13*", "24/18 18/13* \n"),
    ("", "\n"),
])
def test_move_replies(move: str, reply: str) -> None:
    assert format_move(move) == reply


def test_other_replies() -> None:
    assert format_version("1.00", "1.07.001") == (
        "Interface: 2\nRFBF: 0\nEngine: 1.00\nSoftware: 1.07.001\n")
    assert format_evaluation([0.521514, 0.153921, 0.007563, 0.129847, 0.007546], 0.084376) == (
        "0.521514 0.153921 0.007563 0.129847 0.007546 0.084376\n")
    assert (format_double(True), format_double(False)) == ("double\n", "roll\n")
    assert [format_take(d) for d in ("take", "drop", "beaver")] == ["take\n", "drop\n",
                                                                      "beaver\n"]
    assert (format_resignation(True), format_resignation(False)) == ("accept\n", "reject\n")
    assert format_set(SetRequest("debug", True)) == "Debug output ON\n"
    assert format_set(SetRequest("interface", False)) == "New interface OFF\n"


def test_line_decoder_keeps_pipelined_lines_and_survives_long_ones() -> None:
    dec = GnubgLineDecoder(max_line_bytes=300)
    out = dec.feed(f"{BOARD}\n\0version\r\n\nhelp\n".encode())
    assert out == [BOARD.encode(), b"version", b"", b"help"]
    out = dec.feed(b"x" * 1000)
    assert len(out) == 1 and isinstance(out[0], ProtocolError)
    assert out[0].code is ErrorCode.TOO_LARGE
    assert dec.feed(b"x" * 1000 + b"\nversion\n") == [b"version"]
    assert dec.feed(b"\x81\xa1x") == [] and dec.finish() == [b"\x81\xa1x"]  # never msgpack
