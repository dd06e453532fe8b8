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


def test_idle_sockets_past_the_descriptor_limit_are_refused_quietly(tmp_path: Path) -> None:
    import re
    import resource
    import subprocess
    import sys

    from tests.conftest import REPO, daemon_env

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    log_path = tmp_path / "daemon.log"
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jacquetd", "serve", "--workers", "1", "--db", "off",
             "--bind", "tcp://127.0.0.1:0", "--tcp", "127.0.0.1:0", "--gnubg",
             "127.0.0.1:0", "--ws", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=log_file, env=daemon_env(), cwd=REPO,
            preexec_fn=low_limit)
    try:
        assert proc.stdout is not None
        endpoints = dict(re.findall(r"(\w+)=(\S+)", proc.stdout.readline().decode()))
        host, _, port = endpoints["ws"].rpartition(":")
        socks = []
        for _ in range(400):  # idle sockets that never send their handshake
            try:
                socks.append(socket.create_connection((host, int(port)), timeout=2))
            except OSError:
                break
        time.sleep(3.0)
        for s in socks:
            s.close()
        time.sleep(1.0)
        # served again once the idle sockets are gone
        tcp_host, _, tcp_port = endpoints["tcp"].rpartition(":")
        with socket.create_connection((tcp_host, int(tcp_port)), timeout=10) as tcp:
            tcp.sendall(b"1 ping\n")
            assert tcp.recv(100).startswith(b"=1")
    finally:
        proc.terminate()
        proc.wait(30)
    text = log_path.read_text()
    assert "Traceback" not in text, text[-2000:]
    assert text.count("\n") < 40, text[-2000:]
    assert "event=connections_refused reason=descriptors" in text
