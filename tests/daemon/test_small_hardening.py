"""The small items of issue 51 (item 10) on the daemon's endpoints: blank lines and the
idle timeout, repeated handshake headers, the WebSocket token in debug logs.

Every test talks to a real `jacquetd serve` over real sockets.
"""

from __future__ import annotations

import base64
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

from websockets.sync.client import connect

from tests.conftest import DaemonProcess

Start = Callable[..., DaemonProcess]
TOKEN = "a-secret-token-of-enough-length-51"


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while True:
            if not sock.recv(4096):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_blank_lines_do_not_keep_a_connection_past_its_idle_timeout(
        start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--limit", "idle_timeout_ms=600")
    for addr in (daemon.tcp, daemon.gnubg):
        sock = socket.create_connection(addr)
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 4.0 and not closed:
            try:  # a blank line every 0.1 s, for 4 s or until the daemon closes
                sock.sendall(b"\r\n" if addr == daemon.tcp else b" \n")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            closed = _closed_within(sock, 0.1)
        assert closed, f"{addr}: still open after 4 s of blank lines"
        sock.close()
    # a connection that sends requests stays open
    sock = socket.create_connection(daemon.tcp)
    for i in range(12):
        sock.sendall(f"{i} ping\n".encode())
        time.sleep(0.1)
    sock.settimeout(5)
    got = b""
    while got.count(b"\n\n") < 12:
        got += sock.recv(4096)
    sock.close()
    daemon.stop()


def _handshake(address: str, headers: list[tuple[str, str]], path: str = "/ws") -> bytes:
    host, _, port = address.rpartition(":")
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {address}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
             *(f"{k}: {v}" for k, v in headers)]
    with socket.create_connection((host.strip("[]"), int(port)), timeout=10) as s:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        out = b""
        while b"\r\n\r\n" not in out:
            chunk = s.recv(4096)
            if not chunk:
                break
            out += chunk
        return out


def test_repeated_handshake_headers_get_400_quietly(start_jacquetd: Start,
                                                     tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--ws-token-file", str(token_file))
    ws = daemon.endpoints["ws"]
    auth = ("Authorization", f"Bearer {TOKEN}")
    cases = [
        [("Origin", "http://127.0.0.1"), ("Origin", "http://127.0.0.1"), auth],
        [auth, auth],
        [("Origin", "http://127.0.0.1"), ("Origin", "https://evil.example"), auth],
        [auth, ("Authorization", "Bearer wrong-token-wrong-token")],
    ]
    for _ in range(5):
        for headers in cases:
            answer = _handshake(ws, headers)
            assert answer.startswith(b"HTTP/1.1 400 "), (headers, answer[:200])
    # a proper handshake still works
    with connect(f"ws://{ws}/ws", additional_headers={"Authorization": f"Bearer {TOKEN}"},
                 open_timeout=10) as conn:
        conn.send('{"id":1,"cmd":"ping"}')
        assert '"ok": true' in conn.recv(timeout=10).replace('"ok":true', '"ok": true')
    daemon.stop()
    text = daemon.log_text()
    assert "Traceback" not in text and " ERROR " not in text and "error" not in text.lower(), \
        text[-3000:]


def test_the_websocket_token_never_reaches_the_debug_log(start_jacquetd: Start,
                                                          tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    daemon = start_jacquetd("--workers", "1", "--db", "off", "--ws-token-file", str(token_file),
                            "--log-level", "debug")
    ws = daemon.endpoints["ws"]
    with connect(f"ws://{ws}/ws?token={TOKEN}", open_timeout=10) as conn:
        conn.send('{"id":1,"cmd":"ping"}')
        conn.recv(timeout=10)
    with connect(f"ws://{ws}/ws", additional_headers={"Authorization": f"Bearer {TOKEN}"},
                 open_timeout=10) as conn:
        conn.send('{"id":2,"cmd":"ping"}')
        conn.recv(timeout=10)
    # the page's own token check, and a wrong token, are not logged either
    _handshake(ws, [], path=f"/auth?x=1&token={TOKEN}")
    _handshake(ws, [("Authorization", f"Bearer {TOKEN[::-1]}")])
    daemon.stop()
    text = daemon.log_text()
    assert "GET /ws" in text, "the handshake is not in the debug log: nothing was checked"
    assert TOKEN not in text and TOKEN[::-1] not in text
    assert "[redacted]" in text
