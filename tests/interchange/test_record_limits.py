"""Records get limits of their own, and are checked in the front before they cost work.

gnubg's own analysed SGF files (hundreds of KB: the analysis is stored in them) are read,
their analysis properties skipped, and accepted by `analyze_record` on every transport:
ZeroMQ, plain TCP and stdio (msgpack, JSON lines) and WebSocket (JSON). A record past its
limits is refused `too_large` with the limit named. A record whose headers, lines or
scores are wrong is refused `bad_argument`, naming the header or line, by the front:
before a worker starts, while a worker is busy with another analysis.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from jacquetd_protocol.codec import decode_reply, encode_request
from jacquetd_protocol.commands import COMMANDS
from jacquetd_protocol.framing import ReplyStreamDecoder
from jacquetd_protocol.match_files import MAX_RECORD_LINES
from jacquetd_protocol.messages import MAX_RECORD_BYTES, Limits, Reply, Request
from jacquetd_protocol.records import GameRecord, MatchRecord, format_record
from jacquetd_protocol.sgf import parse_sgf
from websockets.sync.client import connect

from jacquetd.matches.records import check
from tests.conftest import REPO, DaemonProcess, daemon_env
from tests.daemon.wire import TcpClient, ZmqClient

DATA = Path(__file__).parent / "data" / "gnubg"
ANALYSED = sorted(DATA.glob("analysed-*.sgf"))


def _analysed(name: str) -> str:
    return (DATA / name).read_text()


def test_gnubgs_analysed_files_are_read_with_their_analysis_skipped() -> None:
    assert len(ANALYSED) >= 2
    for path in ANALYSED:
        text = path.read_text()
        assert len(text.encode()) > 256 << 10  # beyond one message of the old limits
        assert all(f"{prop}[" in text for prop in ("A", "DA", "GS", "LU"))
        record = parse_sgf(text)
        check(record)  # the rules accept every move, roll and cube action
        assert max(record.score) >= record.length
        assert any(a.kind == "double" for g in record.games for a in g.actions)


def test_the_limits_fit_real_match_files() -> None:
    param = COMMANDS["analyze_record"].param("record")
    assert param is not None and param.max_len == MAX_RECORD_BYTES
    assert f"{MAX_RECORD_LINES} lines" in param.doc
    limits = Limits()
    assert limits.max_str_len >= MAX_RECORD_BYTES >= 2 << 20
    assert limits.max_frame_bytes > MAX_RECORD_BYTES
    from jacquetd.daemon.config import Limits as DaemonLimits

    assert DaemonLimits().zmq_max_msg_bytes > limits.max_frame_bytes


# -- over every transport ----------------------------------------------------------------


@pytest.fixture
def daemon(start_jacquetd: Callable[..., DaemonProcess], tmp_path: Path) -> DaemonProcess:
    return start_jacquetd("--workers", "1", "--gnubg", "off", "--db",
                          str(tmp_path / "matches.sqlite3"))


def _check_analysis(reply: Reply, games: int = 1) -> None:
    assert reply.ok, reply.error
    assert reply.result is not None
    assert reply.result["format"] == "sgf"
    assert [g["game"] for g in reply.result["games"]] == list(range(1, games + 1))
    assert reply.result["moves"] and all(m["loss"] >= 0 for m in reply.result["moves"])


ARGS = {"record": "", "game": 1, "luck": False, "timeout_ms": 300_000}


def test_analysed_sgf_over_zeromq_tcp_and_stdio(daemon: DaemonProcess) -> None:
    text = _analysed("analysed-7.sgf")
    args = {**ARGS, "record": text}
    zmq = ZmqClient(daemon.zmq)
    try:
        for encoding in ("msgpack", "json"):
            _check_analysis(zmq.call("analyze_record", timeout=300, encoding=encoding, **args))
    finally:
        zmq.close()
    tcp = TcpClient(daemon.tcp, timeout=300)
    try:
        for n, encoding in enumerate(("msgpack", "json")):
            tcp.send_bytes(encode_request(Request(n, "analyze_record", args, encoding)))
            reply = tcp.recv_final()
            assert reply.id == n
            _check_analysis(reply)
        # a text line: the record as a quoted JSON string (SPEC section 4.1)
        tcp.send_line(f"5 analyze_record game=1 luck=false record={json.dumps(text)}")
        reply = tcp.recv_final()
        assert reply.id == 5
        _check_analysis(reply)
    finally:
        tcp.close()
    request = encode_request(Request(3, "analyze_record", args, "msgpack"))
    proc = subprocess.run([sys.executable, "-m", "jacquetd", "stdio", "--workers", "1"],
                          input=request, capture_output=True, timeout=600, cwd=REPO,
                          env=daemon_env())
    decoder = ReplyStreamDecoder()
    replies = [decode_reply(f) for f in decoder.feed(proc.stdout) if isinstance(f, bytes)]
    finals = [r for r in replies if isinstance(r, Reply)]
    assert len(finals) == 1 and finals[0].id == 3, proc.stderr[-2000:]
    _check_analysis(finals[0])


def test_analysed_sgf_over_websocket(daemon: DaemonProcess) -> None:
    host, port = daemon.hostport("ws")
    text = _analysed("analysed-3.sgf")
    with connect(f"ws://{host}:{port}/ws", max_size=None) as conn:
        conn.send(json.dumps({"id": 9, "cmd": "analyze_record", **ARGS, "record": text}))
        reply = json.loads(conn.recv(timeout=300))
        assert reply["id"] == 9 and reply["ok"], reply
        assert reply["result"]["format"] == "sgf"
        conn.send(msgpack.packb({"id": 10, "cmd": "analyze_record", **ARGS, "record": text}))
        packed = msgpack.unpackb(conn.recv(timeout=300))
        assert packed["id"] == 10 and packed["ok"], packed


def test_records_past_their_limits_are_too_large(daemon: DaemonProcess) -> None:
    zmq = ZmqClient(daemon.zmq)
    try:
        big = "x" * (MAX_RECORD_BYTES + 1)
        reply = zmq.call("analyze_record", record=big)
        assert not reply.ok and reply.error is not None
        assert reply.error["code"] == "too_large" and reply.error["limit"] == "max_str_len"
        lines = "\n".join(["; a comment"] * (MAX_RECORD_LINES + 1))
        reply = zmq.call("analyze_record", record=lines)
        assert not reply.ok and reply.error is not None
        assert (reply.error["code"], reply.error["field"], reply.error["limit"]) == (
            "too_large", "record", "max_record_lines")
        assert zmq.call("ping").ok  # the daemon serves on
    finally:
        zmq.close()


# -- checked in the front --------------------------------------------------------------


def _long_record_with_a_late_fault() -> str:
    """A record of thousands of lines whose games are all legal (gnubg's 7-point match,
    its games played again and again in a 99-point match), but whose last game starts at
    a score the games before it do not add up to."""
    games = parse_sgf(_analysed("analysed-7.sgf")).games
    record = MatchRecord({"Variant": "backgammon", "Length": "99", "Cube": "on"})
    score = [0, 0]
    while len(format_record(record).splitlines()) < 3209:
        for g in games:
            assert g.result is not None
            record.games.append(GameRecord(len(record.games) + 1, (score[0], score[1]),
                                           False, g.opening, list(g.actions), g.result))
            score[g.result.winner] += g.result.points
    check(record)  # legal to the end
    record.games[-1].score = (0, 0)
    return format_record(record)


def test_bad_records_are_refused_in_the_front_while_the_worker_is_busy(
        daemon: DaemonProcess) -> None:
    late = _long_record_with_a_late_fault()
    assert len(late.splitlines()) >= 3209 and len(late) < 70_000
    zmq = ZmqClient(daemon.zmq)
    try:
        # the one worker analyses a whole match with its luck: seconds of work
        busy = zmq.send("analyze_record", record=_analysed("analysed-7.sgf"), luck=True,
                        timeout_ms=300_000)
        faults: dict[Any, tuple[str, str | None]] = {}
        for header, value in (("Variant", "chess"), ("Variant", "on"), ("Length", "x")):
            rid = zmq.send("analyze_record",
                           record=f'; [{header} "{value}"]\n\ngame 1 score 0 0\n')
            faults[rid] = ("bad_argument", header)
        faults[zmq.send("analyze_record", record=late)] = ("bad_argument", None)
        first = zmq.recv_final(timeout=300)
        answered = [first]
        while len(answered) < len(faults) + 1:
            answered.append(zmq.recv_final(timeout=300))
        # every bad record was answered before the analysis the worker was busy with
        assert [r.id for r in answered[-1:]] == [busy], [r.id for r in answered]
        for reply in answered[:-1]:
            code, header = faults[reply.id]
            assert not reply.ok and reply.error is not None
            assert reply.error["code"] == code and reply.error["field"] == "record", reply
            if header is not None:
                assert reply.error["header"] == header and header in reply.error["message"]
            else:
                assert "starts at 0-0" in reply.error["message"]
        assert answered[-1].ok
    finally:
        zmq.close()


# -- a frame of a record's size is bounded before it is decoded --------------------------


def test_frames_of_a_records_size_are_counted_before_they_are_built() -> None:
    """Frames may now be as long as a record: a frame of that size full of empty lists
    (millions of values) is refused by the count of values before anything is built, in
    msgpack (as ZeroMQ and WebSocket hand it over, and cut from a byte stream) and JSON;
    a record of the same size is decoded."""
    from jacquetd_protocol.codec import decode_request
    from jacquetd_protocol.errors import ProtocolError
    from jacquetd_protocol.framing import StreamDecoder

    limits = Limits()
    n = MAX_RECORD_BYTES // 2
    floods = [b"\x82\xa2id\x07\xa1x\xdd" + n.to_bytes(4, "big") + b"\x90" * n,
              b'{"id":7,"x":[' + b"[]," * (n // 3) + b"[]]}"]
    for frame in floods:
        assert limits.max_elements < n and len(frame) < limits.max_frame_bytes
        with pytest.raises(ProtocolError) as info:
            decode_request(frame, limits)
        assert info.value.extra.get("limit") in ("max_elements", "max_list_len")
    items = StreamDecoder(limits).feed(floods[0])
    assert len(items) == 1 and isinstance(items[0], ProtocolError)
    record = _analysed("analysed-7.sgf") * 7
    assert len(record) < MAX_RECORD_BYTES
    for encoding in ("msgpack", "json", "text"):
        frame = encode_request(Request(8, "analyze_record", {"record": record}, encoding))
        if encoding != "msgpack":
            frame = frame.removesuffix(b"\n")  # the line's end
        assert decode_request(frame, limits).args["record"] == record


def test_a_mat_move_past_the_bar_is_a_record_error() -> None:
    """Found by mutating records: `6/31` in a `.mat` was an IndexError (`internal`)."""
    from jacquetd_protocol.mat import format_mat
    from jacquetd_protocol.match_files import read_match_file
    from jacquetd_protocol.records import RecordError

    mat = format_mat(parse_sgf(_analysed("analysed-3.sgf")))
    bad = mat.replace("24/22 13/10", "24/22 6/31", 1)
    assert bad != mat
    with pytest.raises(RecordError, match="31 is not a point"):
        read_match_file(bad)


def test_a_game_gnubg_set_up_is_refused_not_misread() -> None:
    """Analysis properties are skipped; the ones that set the board or the cube are not:
    a game that did not start from the starting position is refused, naming them."""
    from jacquetd_protocol.match_files import read_match_file
    from jacquetd_protocol.records import RecordError

    with pytest.raises(RecordError, match="AE, AW, AB"):
        read_match_file(_analysed("set-board.sgf"))


def test_telling_a_record_of_blank_lines_apart_costs_linear_work() -> None:
    """`detect` reads the `.mat` header line by line: a record of 20,000 blank lines (the
    limit) is told apart with work in proportion to its length, not to its square (once
    each blank line started a scan over the lines after it: seconds of a stalled front)."""
    import time

    from jacquetd_protocol.match_files import detect

    def cost(lines: int) -> float:
        start = time.process_time()
        for _ in range(5):
            detect("\n" * lines + "x")
        return time.process_time() - start

    small, large = cost(MAX_RECORD_LINES // 8), cost(MAX_RECORD_LINES)
    # linear: x8 (quadratic would be x64); generous against timer noise on tiny figures
    assert large < max(0.05, small * 24), (small, large)
    assert detect(" 7 point match\r\n\r\n Game 1\r\n") == "mat"
