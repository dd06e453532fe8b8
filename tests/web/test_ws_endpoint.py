"""The WebSocket endpoint against a real daemon: every conformance vector over it (JSON
and msgpack), its limits and heartbeats, and each refusal a browser-reachable port needs
(origin, bearer token, binding beyond loopback, CurveZMQ)."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from jacquetd.cli import build_parser, load_config
from tests.conftest import REPO, DaemonProcess, daemon_env
from tests.daemon.test_conformance_vectors import run_vectors

Start = Callable[..., DaemonProcess]
TOKEN = "a-token-of-enough-length-42"


def ws_url(daemon: DaemonProcess, query: str = "") -> str:
    return f"ws://{daemon.endpoints['ws']}/ws{query}"


def status_of_refusal(url: str, **kwargs: object) -> int:
    with pytest.raises(InvalidStatus) as info, \
            connect(url, open_timeout=10, **kwargs):  # type: ignore[arg-type]
        pass
    return info.value.response.status_code


def close_of_refusal(url: str, **kwargs: object) -> tuple[int, str]:
    """The close code and reason of a handshake refused to a page (one with `Origin`):
    it is accepted, no message is read, and the close frame says why."""
    with (connect(url, open_timeout=10, **kwargs) as conn,  # type: ignore[arg-type]
          pytest.raises(ConnectionClosed) as info):
        conn.send('{"id":1,"cmd":"ping"}')  # never answered
        conn.recv(timeout=30)
    close = info.value.rcvd
    assert close is not None, "closed without a close frame"
    return close.code, close.reason


@pytest.mark.parametrize("mode", ["json", "msgpack"])
def test_every_vector_passes_over_websocket(mode: str, start_jacquetd: Start,
                                            tmp_path: Path) -> None:
    daemon = start_jacquetd("--test-levels", "--db", str(tmp_path / "matches.sqlite3"))
    extra = ["--ws-msgpack"] if mode == "msgpack" else []
    out = run_vectors("--ws", ws_url(daemon), *extra, "--timeout", "60")
    assert "PASS json/session" in out and "PASS ws/binary-is-msgpack" in out


def test_banner_names_the_endpoint_and_the_web_app(jacquetd_server: DaemonProcess) -> None:
    ws = jacquetd_server.endpoints["ws"]
    assert jacquetd_server.endpoints["web"] == f"http://{ws}/"
    with connect(ws_url(jacquetd_server)) as conn:
        conn.send(json.dumps({"id": 1, "cmd": "hello"}))
        hello = json.loads(conn.recv(timeout=30))["result"]
        assert "json" in hello["encodings"] and hello["endpoints"]["ws"] == ws
        # a JSON request gets a JSON text frame; msgpack a binary one; text a text one
        conn.send(msgpack.packb({"id": 2, "cmd": "ping"}))
        assert msgpack.unpackb(conn.recv(timeout=30)) == {"id": 2, "ok": True, "result": {}}
        conn.send("3 ping")
        assert conn.recv(timeout=30) == "=3\n\n"


def test_static_files_stay_inside_the_web_folder(jacquetd_server: DaemonProcess) -> None:
    import urllib.error
    import urllib.request

    base = jacquetd_server.endpoints["web"]
    with urllib.request.urlopen(base) as page:
        assert page.headers["Content-Type"].startswith("text/html")
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        assert b'src="app.js"' in page.read()
    with urllib.request.urlopen(base + "board.js") as js:
        assert js.headers["Content-Type"].startswith("text/javascript")
    for path in ("../cli.py", "%2e%2e/cli.py", "nope.js", ".hidden"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(base + path)
        assert info.value.code == 404, path


def csp_for_host(address: str, host: str) -> str:
    """The Content-Security-Policy answered to a GET of the app that names `host`."""
    hostname, _, port = address.rpartition(":")
    with socket.create_connection((hostname, int(port)), timeout=30) as sock:
        sock.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                     .encode("latin-1"))
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head = data.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    assert head[0].split()[1] == "200", head[0]
    found = [line.split(":", 1)[1].strip() for line in head
             if line.lower().startswith("content-security-policy:")]
    assert len(found) == 1, head
    return found[0]


def test_the_content_security_policy_never_copies_the_host_header(
        jacquetd_server: DaemonProcess) -> None:
    address = jacquetd_server.endpoints["ws"]
    port = address.rpartition(":")[2]
    own = csp_for_host(address, address)
    assert f"connect-src 'self' ws://127.0.0.1:{port} wss://127.0.0.1:{port}" in own, own
    assert "script-src" not in own and "frame-ancestors 'none'" in own
    for host in ("evil.example", "evil.example; script-src 'unsafe-inline' *",
                 f"127.0.0.1:{port} https://evil.example"):
        assert csp_for_host(address, host) == own, host


def test_origins_outside_the_allow_list_are_refused(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--tcp", "off", "--gnubg", "off",
                            "--ws-origin", "https://board.example.org")
    url = ws_url(daemon)
    for origin in ("http://evil.example", "http://127.0.0.1.evil.example:7783", "null",
                   "https://board.example.org.evil.example", "file://", "http://" + "x" * 300):
        code, reason = close_of_refusal(url, origin=origin)
        assert code == 4403, (origin, code, reason)
        assert reason.startswith("origin_not_allowed: ") and "--ws-origin" in reason, reason
        assert len(reason.encode()) <= 123
    for origin in ("http://127.0.0.1:7783", "http://localhost:9000", "http://[::1]:80",
                   "https://board.example.org"):
        with connect(url, origin=origin) as conn:  # type: ignore[arg-type]
            conn.send('{"id":1,"cmd":"ping"}')
            assert json.loads(conn.recv(timeout=30))["ok"] is True
    assert "event=ws_refused" in daemon.log_text()


def test_the_bearer_token_is_required_when_given(start_jacquetd: Start, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--tcp", "off", "--gnubg", "off",
                            "--ws-token-file", str(token_file))
    assert status_of_refusal(ws_url(daemon)) == 401
    assert status_of_refusal(ws_url(daemon, "?token=wrong-token-of-enough-length")) == 401
    assert status_of_refusal(ws_url(daemon), additional_headers={
        "Authorization": "Bearer wrong-token-of-enough-length"}) == 401
    # a page (a handshake with Origin) is told why in the close frame, which a browser
    # shows it (never the HTTP answer)
    page = {"origin": "http://127.0.0.1:7783"}
    assert close_of_refusal(ws_url(daemon), **page) == (
        4401, "token_required: this server needs its access token")
    assert close_of_refusal(ws_url(daemon, "?token=wrong-token-of-enough-length"), **page) \
        == (4401, "token_refused: the access token is wrong")
    for kwargs in ({"additional_headers": {"Authorization": f"Bearer {TOKEN}"}}, {}):
        url = ws_url(daemon, "" if kwargs else f"?token={TOKEN}")
        with connect(url, **kwargs) as conn:  # type: ignore[arg-type]
            conn.send('{"id":1,"cmd":"ping"}')
            assert json.loads(conn.recv(timeout=30))["ok"] is True


def run_serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jacquetd", "serve", "--workers", "1",
                           "--db", "off", "--bind", "tcp://127.0.0.1:0", "--tcp", "off",
                           "--gnubg", "off", *args], cwd=REPO, env=daemon_env(),
                          capture_output=True, text=True, timeout=120)


def test_beyond_loopback_without_a_token_the_daemon_refuses_to_start(tmp_path: Path) -> None:
    proc = run_serve("--ws", "0.0.0.0:0")
    assert proc.returncode == 2
    assert "beyond loopback" in proc.stderr and "--ws-token-file" in proc.stderr
    short = tmp_path / "short"
    short.write_text("abc")
    proc = run_serve("--ws", "127.0.0.1:0", "--ws-token-file", str(short))
    assert proc.returncode == 2 and "at least 16 characters" in proc.stderr


def test_with_curvezmq_the_websocket_endpoint_is_off_unless_given() -> None:
    parser = build_parser()
    curve = ["serve", "--curve-secret", "s.key_secret", "--curve-clients", "clients"]
    assert load_config(parser.parse_args(curve)).ws is None
    assert load_config(parser.parse_args(["serve"])).ws == ("127.0.0.1", 7783)
    given = load_config(parser.parse_args([*curve, "--ws", "127.0.0.1:9999"]))
    assert given.ws == ("127.0.0.1", 9999)
    assert load_config(parser.parse_args(["serve", "--ws", "off"])).ws is None


def test_connections_past_the_limit_get_503(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--tcp", "off", "--gnubg", "off",
                            "--limit", "max_connections=2")
    with connect(ws_url(daemon)), connect(ws_url(daemon)):
        assert status_of_refusal(ws_url(daemon)) == 503
    time.sleep(0.3)
    with connect(ws_url(daemon)) as conn:  # a place is free again
        conn.send('{"id":1,"cmd":"ping"}')
        assert json.loads(conn.recv(timeout=30))["ok"] is True


def test_frames_over_the_transport_cap_close_the_connection(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--tcp", "off", "--gnubg", "off",
                            "--limit", "max_frame_bytes=1000",
                            "--limit", "zmq_max_msg_bytes=2000")
    with connect(ws_url(daemon)) as conn:
        conn.send('{"id":1,"cmd":"ping","pad":"' + "x" * 1200 + '"}')
        reply = json.loads(conn.recv(timeout=30))
        assert reply["error"]["code"] == "too_large" and reply["id"] == 1  # the id is kept
        conn.send('{"id":2,"cmd":"ping","pad":"' + "x" * 3000 + '"}')
        with pytest.raises(ConnectionClosed) as info:
            conn.recv(timeout=30)
        assert info.value.rcvd is not None and info.value.rcvd.code == 1009


def _raw_handshake(address: str) -> socket.socket:
    host, _, port = address.rpartition(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def test_heartbeats_ping_and_drop_a_peer_that_never_answers(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--tcp", "off", "--gnubg", "off",
                            "--heartbeat", "ivl_ms=200", "--heartbeat", "timeout_ms=400")
    # a client that answers pings (the library does) stays connected past the timeout
    with connect(ws_url(daemon)) as live:
        time.sleep(1.5)
        live.send('{"id":1,"cmd":"ping"}')
        assert json.loads(live.recv(timeout=30))["ok"] is True
    # a peer that never answers gets a ping, then its connection is closed
    sock = _raw_handshake(daemon.endpoints["ws"])
    opcodes = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        data = sock.recv(4096)
        if not data:
            break
        opcodes.append(data[0] & 0x0F)
        if 0x8 in opcodes:  # a close frame
            break
    sock.close()
    assert 0x9 in opcodes, opcodes  # ping
    assert time.monotonic() < deadline, "the silent peer was not dropped"


def test_json_lines_over_the_byte_stream_and_zeromq(jacquetd_server: DaemonProcess) -> None:
    """JSON is detected by its first byte on every endpoint: one object per line on TCP,
    one per frame on ZeroMQ."""
    import zmq

    with socket.create_connection(jacquetd_server.tcp, timeout=30) as sock:
        sock.sendall(b'{"id":1,"cmd":"ping"}\n2 ping\n{"id":3,"cmd":"nope"}\n')
        data = b""
        while data.count(b"\n") < 4:
            data += sock.recv(65536)
    lines = data.split(b"\n")
    assert json.loads(lines[0]) == {"id": 1, "ok": True, "result": {}}
    assert lines[1:3] == [b"=2", b""]
    assert json.loads(lines[3])["error"]["code"] == "unknown_command"
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(jacquetd_server.zmq)
    try:
        dealer.send(b'{"id":"z","cmd":"ping"}')
        assert dealer.poll(30_000)
        assert json.loads(dealer.recv()) == {"id": "z", "ok": True, "result": {}}
    finally:
        dealer.close(0)


def _masked_text_frame(payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                            bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _server_frames(data: bytes) -> list[tuple[int, bytes]]:
    """(opcode, payload) of the whole unmasked frames in `data`."""
    frames, pos = [], 0
    while pos + 2 <= len(data):
        opcode, n, head = data[pos] & 0x0F, data[pos + 1] & 0x7F, 2
        if n == 126:
            n, head = int.from_bytes(data[pos + 2:pos + 4], "big"), 4
        elif n == 127:
            n, head = int.from_bytes(data[pos + 2:pos + 10], "big"), 10
        if pos + head + n > len(data):
            break
        frames.append((opcode, data[pos + head:pos + head + n]))
        pos += head + n
    return frames


def test_a_peer_that_does_not_read_its_replies_is_dropped(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--tcp", "off", "--gnubg", "off",
                            "--limit", "tcp_write_buffer_bytes=65536")
    host, _, port = daemon.endpoints["ws"].rpartition(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # reads nothing meanwhile
    sock.settimeout(30)
    sock.connect((host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    sent = 0
    frame = _masked_text_frame(b'{"cmd":"legal_moves","position":"start:backgammon",'
                               b'"dice":[3,1]}')
    try:
        for _ in range(6000):  # about 25 MB of replies asked for, none read
            sock.sendall(frame)
            sent += 1
    except OSError:
        pass  # the server closed the connection while we were still sending
    data = b""
    try:
        while chunk := sock.recv(1 << 20):
            data += chunk
    except OSError:
        pass
    sock.close()
    frames = _server_frames(data[data.find(b"\r\n\r\n") + 4:])
    replies = [p for op, p in frames if op == 0x1]
    closes = [p for op, p in frames if op == 0x8]
    assert len(replies) < sent, "every reply came: the peer was not dropped"
    if closes:  # the close frame may be lost when the connection is reset
        assert int.from_bytes(closes[0][:2], "big") == 1008
    with connect(ws_url(daemon)) as conn:  # the daemon goes on serving others
        conn.send('{"id":1,"cmd":"stats"}')
        stats = json.loads(conn.recv(timeout=30))["result"]
    assert stats["clients_dropped"] >= 1
    assert "reason=write_buffer" in daemon.log_text()
