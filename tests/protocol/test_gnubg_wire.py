"""The gnubg endpoint's line splitting and move notation (replies as gnubg 1.07 writes them)."""

from __future__ import annotations

import pytest
from jacquetd_protocol import ErrorCode, ProtocolError
from jacquetd_protocol.gnubg_wire import GnubgLineDecoder, format_move, parse_move

BOARD = ("board:You:Opponent:9999:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
         ":1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")


@pytest.mark.parametrize(("move", "reply"), [
    ("8/5 6/5", "8/5 6/5 \n"),
    ("24/18 24/18 13/7 13/7", "24/18 24/18 13/7 13/7\n"),
    ("bar/22* 24/20*", "25/22* 24/20* \n"),
    ("6/off 5/off", "6/0 5/0 \n"),
    ("", "\n"),
])
def test_move_notation_both_ways(move: str, reply: str) -> None:
    assert format_move(move) == reply
    assert parse_move(reply) == move


def test_chains_are_written_as_one_pair_per_die() -> None:
    assert format_move("24/18/13*") == "24/18 18/13* \n"


@pytest.mark.parametrize("bad", ["24-18", "26/20", "24/18*/13", "x/y"])
def test_bad_moves(bad: str) -> None:
    with pytest.raises(ValueError):
        format_move(bad)
    with pytest.raises(ValueError):
        parse_move(bad)


def test_line_decoder_keeps_pipelined_lines_and_survives_long_ones() -> None:
    dec = GnubgLineDecoder(max_line_bytes=300)
    out = dec.feed(f"{BOARD}\n\0version\r\n\nhelp\n".encode())
    assert out == [BOARD.encode(), b"version", b"", b"help"]
    out = dec.feed(b"x" * 1000)
    assert len(out) == 1 and isinstance(out[0], ProtocolError)
    assert out[0].code is ErrorCode.TOO_LARGE
    assert dec.feed(b"x" * 1000 + b"\nversion\n") == [b"version"]
    assert dec.feed(b"\x81\xa1x") == [] and dec.finish() == [b"\x81\xa1x"]  # never msgpack
