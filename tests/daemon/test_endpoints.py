"""The real daemon over real sockets: ZeroMQ, plain TCP, stdio and gnubg."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from typing import Any

import msgpack
import pytest
import zmq
from jacquetd_protocol.codec import decode_reply, encode_request
from jacquetd_protocol.messages import Limits, Partial, Reply, Request

from tests.conftest import REPO, DaemonProcess, daemon_env
from tests.daemon.wire import GnubgClient, TcpClient, ZmqClient

OPENING_31 = ("board:gnubg:You:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
              "1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0")
BAD_POSITION: dict[str, Any] = {"variant": "jacquet", "on_roll": [0] * 23 + [2, 14, 0],
                                "opponent": [0] * 24 + [15, 0], "dice": [3, 1]}


@pytest.fixture
def zc(jacquetd_server: DaemonProcess) -> Any:
    client = ZmqClient(jacquetd_server.zmq)
    yield client
    client.close()


def error_code(reply: Reply) -> str:
    assert not reply.ok and reply.error is not None, reply
    return str(reply.error["code"])


# ---- ZeroMQ --------------------------------------------------------------------------------


def test_hello_reports_every_limit(zc: ZmqClient) -> None:
    result = zc.call("hello").raise_for_error()
    assert result["protocol"] == "1.4"
    assert result["engine"] == "jacquetd"
    assert set(result["variants"]) == {"jacquet", "jacquet-be", "backgammon", "long-nardy"}
    assert "legal_moves" in result["commands"] and "random" in result["levels"]
    limits = result["limits"]
    for name in ("max_frame_bytes", "zmq_max_msg_bytes", "max_depth", "max_list_len",
                 "max_inflight_per_client", "max_queue", "default_timeout_ms",
                 "tcp_write_buffer_bytes"):
        assert isinstance(limits[name], int) and limits[name] > 0, name


def test_legal_moves_and_apply_move_in_both_encodings(zc: ZmqClient) -> None:
    result = zc.call("legal_moves", position="start:backgammon", dice=[3, 1]).raise_for_error()
    assert result["count"] == len(result["plays"]) > 1
    moves = {p["move"] for p in result["plays"]}
    assert "8/5 6/5" in moves
    rid = zc.send("legal_moves", encoding="text", id=77, position="start:backgammon", dice=[3, 1])
    text_reply = zc.recv_final()
    assert text_reply.id == rid and text_reply.result == result
    played = zc.call("apply_move", position="start:backgammon", dice=[3, 1],
                     move="8/5 6/5").raise_for_error()
    assert played["move"] == "8/5 6/5"


def test_best_move_random_level_is_legal_and_seeded(zc: ZmqClient) -> None:
    args = {"position": "start", "dice": [6, 5], "level": "random", "seed": 3}
    first = zc.call("best_move", **args).raise_for_error()
    again = zc.call("best_move", **args).raise_for_error()
    assert first["play"] == again["play"]
    legal = zc.call("legal_moves", position="start", dice=[6, 5]).raise_for_error()
    assert first["play"]["move"] in {p["move"] for p in legal["plays"]}


def test_req_socket_with_empty_delimiter(jacquetd_server: DaemonProcess) -> None:
    ctx = zmq.Context.instance()
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(jacquetd_server.zmq)
    try:
        req.send(encode_request(Request(5, "ping", {}, "msgpack")))
        assert req.poll(10_000)
        reply = decode_reply(req.recv())
        assert isinstance(reply, Reply) and reply.ok and reply.id == 5
    finally:
        req.close(0)


@pytest.mark.parametrize(("frames", "code"), [
    ([b"\xff\xfe garbage"], "bad_frame"),
    ([b"\x82\xa2id\x01\xa3cmd"], "bad_frame"),  # truncated msgpack
    ([msgpack.packb({"id": 1})], "bad_argument"),
    ([msgpack.packb({"id": 1, "cmd": "fly"})], "unknown_command"),
    ([b"1 legal_moves", b"second frame"], "bad_frame"),
    ([b"x" * (Limits().max_frame_bytes + 1)], "too_large"),
    ([msgpack.packb({"id": 1, "cmd": "ping", "x": [[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]})],
     "too_deep"),
])
def test_bad_frames_get_their_error(zc: ZmqClient, frames: list[bytes], code: str) -> None:
    zc.send_raw(*frames)
    assert error_code(zc.recv_final()) == code
    assert zc.call("ping").ok  # the same client goes on


def test_impossible_positions_and_illegal_moves(zc: ZmqClient) -> None:
    reply = zc.call("legal_moves", position=BAD_POSITION)
    assert error_code(reply) == "bad_position"
    assert reply.error is not None and reply.error.get("rule") == "J1"
    reply = zc.call("best_move", position=BAD_POSITION, level="random")
    assert error_code(reply) == "bad_position"
    reply = zc.call("apply_move", position="start", dice=[6, 6], move="24/18 24/18")
    assert error_code(reply) == "illegal_move"
    assert error_code(zc.call("legal_moves", position="start")) == "bad_argument"
    assert error_code(zc.call("best_move", position="start", dice=[1, 2], level="nope")) == (
        "bad_argument")


def test_replies_out_of_order_and_cheap_commands_not_blocked(zc: ZmqClient) -> None:
    slow = zc.send("best_move", position="start", dice=[3, 1], level="test-sleep", time_ms=1500)
    started = time.monotonic()
    fast = zc.send("legal_moves", position="start", dice=[3, 1])
    first = zc.recv_final()
    assert first.id == fast and first.ok
    assert time.monotonic() - started < 1.0
    second = zc.recv_final(timeout=10)
    assert second.id == slow and second.ok


def test_timeout_and_cancel(zc: ZmqClient) -> None:
    reply = zc.call("best_move", position="start", dice=[3, 1], level="test-sleep",
                    time_ms=5000, timeout_ms=200)
    assert error_code(reply) == "timeout"
    target = zc.send("best_move", position="start", dice=[3, 1], level="test-sleep",
                     time_ms=5000)
    cancel = zc.send("cancel", target=target)
    replies = {r.id: r for r in (zc.recv_final(), zc.recv_final())}
    assert replies[cancel].ok and replies[cancel].result == {"target": target}
    assert error_code(replies[target]) == "cancelled"
    assert error_code(zc.call("cancel", target=target)) == "not_found"
    with pytest.raises(TimeoutError):
        zc.recv(timeout=0.5)  # exactly one final reply each, nothing more


def test_one_client_cannot_cancel_another(jacquetd_server: DaemonProcess) -> None:
    a, b = ZmqClient(jacquetd_server.zmq), ZmqClient(jacquetd_server.zmq)
    try:
        target = a.send("best_move", id="shared", position="start", dice=[3, 1],
                        level="test-sleep", time_ms=300)
        assert error_code(b.call("cancel", target=target)) == "not_found"
        assert a.recv_final().ok
    finally:
        a.close()
        b.close()


def test_duplicate_id_in_flight_refused(zc: ZmqClient) -> None:
    zc.send("best_move", id="dup", position="start", dice=[3, 1], level="test-sleep",
            time_ms=500)
    zc.send("best_move", id="dup", position="start", dice=[3, 1], level="random")
    first = zc.recv_final()
    assert error_code(first) == "bad_argument"
    assert zc.recv_final().ok


def test_stats(zc: ZmqClient) -> None:
    zc.call("ping")
    result = zc.call("stats").raise_for_error()
    assert result["served"] >= 1 and result["inflight"] >= 0
    assert result["latency_ms"]["ping"]["count"] >= 1
    assert {"p50", "p90", "p99", "max"} <= set(result["latency_ms"]["ping"])
    assert isinstance(result["worker_restarts"], int)
    assert len(result["worker_pids"]) == 2


# ---- plain TCP ---------------------------------------------------------------------------


def test_tcp_text_session(jacquetd_server: DaemonProcess) -> None:
    client = TcpClient(jacquetd_server.tcp)
    try:
        client.send_line("1 hello")
        assert client.recv_final().ok
        client.send_line("2 legal_moves start:backgammon 31")
        reply = client.recv_final()
        assert reply.id == 2 and reply.ok and reply.result is not None
        assert "8/5 6/5" in {p["move"] for p in reply.result["plays"]}
        client.send_line("3 fly away")
        assert error_code(client.recv_final()) == "unknown_command"
        client.send_line("# a comment, skipped")
        client.send_line("4 ping")
        assert client.recv_final().id == 4
    finally:
        client.close()


def test_tcp_msgpack_by_first_byte(jacquetd_server: DaemonProcess) -> None:
    client = TcpClient(jacquetd_server.tcp)
    try:
        data = encode_request(Request(9, "legal_moves", {"position": "start", "dice": [2, 1]},
                                      "msgpack"))
        client.send_bytes(data[:5])
        time.sleep(0.05)
        client.send_bytes(data[5:] + b"10 ping\n")
        assert client.recv_final().id == 9
        assert client.recv_final().id == 10
    finally:
        client.close()


def test_tcp_megabyte_line_gets_error_and_session_goes_on(jacquetd_server: DaemonProcess) -> None:
    client = TcpClient(jacquetd_server.tcp)
    other = TcpClient(jacquetd_server.tcp)
    try:
        client.send_bytes(b"1 ping " + b"x" * Limits().max_frame_bytes + b"\n")
        assert error_code(client.recv_final()) == "too_large"
        client.send_line("2 ping")
        assert client.recv_final().id == 2
        other.send_line("3 ping")
        assert other.recv_final().id == 3
    finally:
        client.close()
        other.close()


def test_tcp_broken_msgpack_is_answered_then_closed(jacquetd_server: DaemonProcess) -> None:
    client = TcpClient(jacquetd_server.tcp)
    try:
        client.send_bytes(b"\xdf\xff\xff\xff\xff")  # a map claiming 2^32 entries
        assert error_code(client.recv_final()) in ("too_large", "bad_frame")
        with pytest.raises(ConnectionError):
            client.recv()
    finally:
        client.close()


def test_tcp_answers_in_flight_after_eof(jacquetd_server: DaemonProcess) -> None:
    sock = socket.create_connection(jacquetd_server.tcp, timeout=10)
    sock.sendall(b"1 best_move start 31 level=test-sleep time_ms=300\n2 ping\n")
    sock.shutdown(socket.SHUT_WR)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    assert data.count(b"\n\n") == 2 and b"=1" in data and b"=2" in data


# ---- stdio ------------------------------------------------------------------------------


def test_stdio_subprocess() -> None:
    requests = (b"1 ping\n2 legal_moves start 31\n3 nonsense\n"
                + encode_request(Request(4, "best_move", {"position": "start", "dice": [3, 1],
                                                          "level": "random"}, "msgpack")))
    proc = subprocess.run([sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"],
                          input=requests, capture_output=True, cwd=REPO, env=daemon_env(),
                          timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    from jacquetd_protocol.codec import ReplyStreamDecoder

    items = ReplyStreamDecoder().feed(proc.stdout)
    replies = {r.id: r for r in (decode_reply(i) for i in items if isinstance(i, bytes))
               if isinstance(r, Reply)}
    assert replies[1].ok and replies[2].ok and replies[4].ok
    assert error_code(replies[3]) == "unknown_command"


# ---- gnubg ------------------------------------------------------------------------------


def test_gnubg_endpoint_basics(jacquetd_server: DaemonProcess) -> None:
    client = GnubgClient(jacquetd_server.gnubg)
    try:
        assert client.ask("version", 4) == ("Interface: 2\nRFBF: 0\nEngine: 1.00\n"
                                            "Software: 1.07.001\n")
        assert client.ask("help") == "\tNo help information available\n"
        assert client.ask("") == "Error: no command given\n"
        assert client.ask("board:nonsense").startswith("Error:")
        move = client.ask(OPENING_31)
        assert move.endswith(" \n") and move.count("/") == 2
        client.send(OPENING_31.encode() + b" resignation 1\n\0")
        assert client.read_lines(1)[0] in ("accept\n", "reject\n")
        assert client.ask("x" * 10_000).startswith("Error: line longer")
        assert client.ask("version", 4).startswith("Interface: 2")  # still serving
        client.send(b"quit\n")
        assert client.closed_by_peer()
    finally:
        client.close()


def test_gnubg_pipelined_lines_answered_in_order_and_many_clients(
        jacquetd_server: DaemonProcess) -> None:
    clients = [GnubgClient(jacquetd_server.gnubg) for _ in range(3)]
    try:
        for c in clients:
            c.send(b"version\n" + OPENING_31.encode() + b"\n\0help\nset debug on\n")
        for c in clients:
            lines = c.read_lines(7)
            assert lines[0] == "Interface: 2\n"
            assert lines[4].count("/") == 2
            assert lines[5:] == ["\tNo help information available\n", "Debug output ON\n"]
    finally:
        for c in clients:
            c.close()


def test_gnubg_cube_decisions(jacquetd_server: DaemonProcess) -> None:
    client = GnubgClient(jacquetd_server.gnubg)
    no_dice = OPENING_31.replace(":1:3:1:0:0:1:1:1:0:", ":1:0:0:0:0:1:1:1:0:")
    doubled = OPENING_31.replace(":1:3:1:0:0:1:1:1:0:", ":1:0:0:0:0:2:0:1:1:")
    try:
        assert client.ask(no_dice) in ("roll\n", "double\n")
        assert client.ask(doubled) in ("take\n", "drop\n", "beaver\n")
    finally:
        client.close()


def test_partial_type_exists() -> None:
    assert Partial(1, {}).result == {}


def test_gnubg_endpoint_wins_with_the_play_gnubg_accepts(
        jacquetd_server: DaemonProcess) -> None:
    """One checker on the 2-point, 4-1, a blot on our 1-point: only 2/1* 1/off plays both
    dice (G7), the one play gnubg accepts."""
    slots = [0] * 26
    slots[2], slots[1], slots[12], slots[24] = 1, -1, -13, -1
    board = ("board:You:Opponent:9999:0:0:" + ":".join(map(str, slots))
             + ":1:4:1:0:0:1:1:1:0:1:-1:0:25:14:0:0:0:0:0:0:0")
    client = GnubgClient(jacquetd_server.gnubg)
    try:
        assert client.ask(board) == "2/1* 1/0 \n"
    finally:
        client.close()
