"""Against a real daemon, on every endpoint: a request refused as too large keeps its id
(issue #50 item 5), printed values paste back into text requests (item 8), and the
protocol teaches (`help`, usage lines, other spellings; issue #45 item 4)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from typing import Any

import msgpack
import pytest
import zmq
from jacquetd_protocol.codec import ReplyStreamDecoder, decode_reply
from jacquetd_protocol.commands import COMMANDS, EXAMPLES
from jacquetd_protocol.messages import Reply
from websockets.sync.client import connect

from tests.conftest import REPO, DaemonProcess, daemon_env


def _issue_requests(limits: dict[str, int]) -> dict[str, bytes]:
    """The issue's request, `{"id":7,"cmd":"analyze_record","record":"<x's>"}`, with a
    record over the server's limits: longer than max_str_len, and longer than a frame."""
    record = "x" * max(70_000, limits["max_str_len"] + 1, limits["max_frame_bytes"] + 1)
    request = {"id": 7, "cmd": "analyze_record", "record": record}
    return {"msgpack": msgpack.packb(request), "json": json.dumps(request).encode(),
            "text": f"7 analyze_record record={record}".encode()}


def _hello(daemon: DaemonProcess) -> dict[str, Any]:
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(daemon.zmq)
    try:
        sock.send(msgpack.packb({"id": 1, "cmd": "hello"}))
        assert sock.poll(30_000)
        result: dict[str, Any] = msgpack.unpackb(sock.recv())["result"]
        return result
    finally:
        sock.close()


def _zmq_ask(daemon: DaemonProcess, frame: bytes) -> Reply:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(daemon.zmq)
    try:
        sock.send(frame)
        assert sock.poll(30_000), "no reply"
        reply = decode_reply(sock.recv())
        assert isinstance(reply, Reply)
        return reply
    finally:
        sock.close()


def _stream_ask(sock: socket.socket, data: bytes) -> Reply:
    sock.sendall(data)
    decoder = ReplyStreamDecoder()
    while True:
        chunk = sock.recv(65536)
        assert chunk, "the connection closed without a reply"
        for item in decoder.feed(chunk):
            assert isinstance(item, bytes), item
            reply = decode_reply(item)
            if isinstance(reply, Reply):
                return reply


def test_too_large_keeps_its_id_on_every_endpoint(jacquetd_server: DaemonProcess) -> None:
    frames = _issue_requests(_hello(jacquetd_server)["limits"])
    for encoding, frame in frames.items():  # ZeroMQ: one frame each
        reply = _zmq_ask(jacquetd_server, frame)
        assert (reply.id, reply.error and reply.error["code"]) == (7, "too_large"), encoding
    url = f"ws://{jacquetd_server.endpoints['ws']}/ws"
    with connect(url, open_timeout=10, max_size=None) as conn:
        for encoding, frame in frames.items():
            conn.send(frame if encoding == "msgpack" else frame.decode())
            answer = conn.recv(timeout=30)
            reply = decode_reply(answer if isinstance(answer, bytes) else answer.encode())
            assert isinstance(reply, Reply) and reply.error is not None, encoding
            assert (reply.id, reply.error["code"]) == (7, "too_large"), encoding
    for encoding, frame in frames.items():  # plain TCP: a fresh connection each
        with socket.create_connection(jacquetd_server.tcp, timeout=30) as sock:
            line = frame if encoding == "msgpack" else frame + b"\n"
            reply = _stream_ask(sock, line)
            assert reply.error is not None, encoding
            assert (reply.id, reply.error["code"]) == (7, "too_large"), encoding
            if encoding != "msgpack":  # a line is skipped: the session goes on
                assert _stream_ask(sock, b"8 ping\n").id == 8


def test_too_large_keeps_its_id_over_stdio(jacquetd_server: DaemonProcess) -> None:
    frames = _issue_requests(_hello(jacquetd_server)["limits"])
    # a msgpack message over a limit ends a byte stream: it goes alone
    for data, expected in ((frames["text"] + b"\n" + frames["json"] + b"\n8 ping\n",
                            [(7, "too_large"), (7, "too_large"), (8, "ok")]),
                           (b"8 ping\n" + frames["msgpack"], [(8, "ok"), (7, "too_large")])):
        proc = subprocess.run([sys.executable, "-m", "jacquetd", "stdio", "--workers", "1",
                               "--db", "off"], input=data, capture_output=True, cwd=REPO,
                              env=daemon_env(), timeout=120)
        items = ReplyStreamDecoder().feed(proc.stdout)
        replies = [decode_reply(i) for i in items if isinstance(i, bytes)]
        codes = [(r.id, r.error["code"] if isinstance(r, Reply) and r.error else "ok")
                 for r in replies]
        assert codes == expected, codes


def _text_session(daemon: DaemonProcess, lines: list[str]) -> list[Reply]:
    with socket.create_connection(daemon.tcp, timeout=30) as sock:
        out = []
        for line in lines:
            out.append(_stream_ask(sock, line.encode() + b"\n"))
        return out


def test_a_printed_move_pastes_back(jacquetd_server: DaemonProcess) -> None:
    first, quoted, single, positional = _text_session(jacquetd_server, [
        "1 legal_moves start 65",
        '2 apply_move position=start dice=65 move="24/18 24/19"',
        '3 apply_move position=start dice=65 move="24/13"',
        "4 apply_move start 65 24/18 18/13",
    ])
    assert first.result is not None
    printed = first.result["plays"][0]["move"]
    assert quoted.error is not None and quoted.error["code"] == "illegal_move"
    assert quoted.error["rule"] == "J6"  # the move was read whole, and judged
    assert single.result is not None and single.result["move"] == printed
    assert positional.result is not None and positional.result["move"] == printed
    again = _text_session(jacquetd_server, [
        f"5 apply_move start 65 move=\"{printed}\"",
        f"6 position position=\"{positional.result['position_id']}\""])
    assert again[0].result == positional.result and again[1].ok


def test_help_lists_and_describes_every_command(jacquetd_server: DaemonProcess) -> None:
    listing, described, unknown = _text_session(jacquetd_server, [
        "1 help", "2 help legal_moves", "3 help legal_move"])
    assert listing.result is not None
    assert list(listing.result["commands"]) == list(_hello(jacquetd_server)["commands"])
    assert described.result is not None and described.result["example"] == \
        "legal_moves start 65"
    assert unknown.error is not None and unknown.error["spelling"] == "legal_moves"
    for name in COMMANDS:
        reply = _zmq_ask(jacquetd_server, msgpack.packb({"id": name, "cmd": "help",
                                                        "command": name}))
        assert reply.result is not None and reply.result["usage"].startswith(name)


# Examples a fresh daemon can answer as they stand (the others name a match, a request
# in flight, or end the session).
RUNNABLE = ["hello", "help", "ping", "position", "legal_moves", "apply_move", "best_move",
            "analyze", "evaluate", "cube", "luck", "bot_match", "rollout", "stats",
            "match_new", "match_list"]


@pytest.mark.parametrize("name", RUNNABLE)
def test_help_examples_are_accepted(jacquetd_server: DaemonProcess, name: str) -> None:
    example = EXAMPLES[name]
    (reply,) = _text_session(jacquetd_server, [f"9 {example}"])
    assert reply.ok, (example, reply.error)


def test_errors_teach(jacquetd_server: DaemonProcess) -> None:
    missing, variant, fixed, dicee = _text_session(jacquetd_server, [
        "1 legal_moves", "2 legal_moves start 65 variant=jacquet-be",
        "3 legal_moves start:jacquet-be 65", "4 legal_moves start dicee=65"])
    assert missing.error is not None
    assert missing.error["usage"] == "legal_moves POSITION [DICE] [compact=BOOL] [timeout_ms=INT]"
    assert variant.error is not None and "start:jacquet-be" in variant.error["message"]
    assert fixed.ok
    assert dicee.error is not None and dicee.error["spelling"] == "dice"


@pytest.mark.parametrize("literal", ["start:", "start:nope", "31"])
def test_a_malformed_position_is_refused_with_the_commands_usage(
        jacquetd_server: DaemonProcess, literal: str) -> None:
    """A position is read where its command runs (the front, a replica, or before a
    worker job), not in the codec; its refusal carries the usage line all the same."""
    replies = _text_session(jacquetd_server, [
        f"1 position {literal}", f"2 legal_moves {literal} 31", f"3 best_move {literal} 31"])
    for reply, name in zip(replies, ("position", "legal_moves", "best_move"), strict=True):
        assert reply.error is not None, (name, literal)
        assert reply.error["code"] == "bad_position"
        assert reply.error["usage"].startswith(f"{name} POSITION"), reply.error


def test_a_client_still_sending_a_refused_message_gets_its_reply(
        jacquetd_server: DaemonProcess) -> None:
    """A msgpack message refused whole ends the TCP session (the stream cannot be read
    on), while the client may still be sending its megabytes: the server drops them until
    the client closes, so that the reply arrives rather than a reset."""
    frame = _issue_requests(_hello(jacquetd_server)["limits"])["msgpack"]
    with socket.create_connection(jacquetd_server.tcp, timeout=30) as sock:
        answer = _stream_ask(sock, frame * 4)  # long after the refusal, bytes keep coming
    assert answer.error is not None
    assert (answer.id, answer.error["code"]) == (7, "too_large")
