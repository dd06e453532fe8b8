"""The command line: bad configuration exits 2 with a message; the embedded defaults."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, daemon_env, launch


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "jacquetd", *args], capture_output=True,
                          cwd=REPO, env=daemon_env(), timeout=60)


@pytest.mark.parametrize("args", [
    ["serve", "--limit", "max_frame_bytes=zero"],
    ["serve", "--limit", "no_such_limit=1"],
    ["serve", "--config", "/nonexistent/jacquetd.toml"],
    ["serve", "--bind", "udp://127.0.0.1:1"],
    ["serve", "--curve-secret", "only-half"],
])
def test_bad_configuration_exits_2(args: list[str]) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(b"jacquetd: ")
    assert b"Traceback" not in proc.stderr


def test_toml_file_and_json_logs(tmp_path: Path) -> None:
    config = tmp_path / "jacquetd.toml"
    config.write_text('workers = 1\nlog_format = "json"\n[limits]\nmax_queue = 9\n')
    daemon = launch(["--config", str(config)], tmp_path / "d.log")
    try:
        assert "workers=1" in daemon.banner
    finally:
        assert daemon.stop() == 0
    assert '"event": "listening"' in daemon.log_text()


DEFAULTS = {"zmq": ("127.0.0.1", 7780), "tcp": ("127.0.0.1", 7781),
            "gnubg": ("127.0.0.1", 7782), "ws": ("127.0.0.1", 7783)}


def test_serve_without_flags_listens_on_the_embedded_default_ports(tmp_path: Path) -> None:
    """`jacquetd serve` with no flag and no setting asks for the four default ports: with
    each of them held (by this test where free, else by whoever holds it), the daemon
    names every one in its refusal. Runs whatever else listens on this machine."""
    held = []
    try:
        for host, port in DEFAULTS.values():
            sock = socket.socket()
            try:
                sock.bind((host, port))
                sock.listen()
                held.append(sock)
            except OSError:
                sock.close()  # taken by another program: taken all the same
        env = daemon_env()
        for name in ("JACQUETD_BIND", "JACQUETD_TCP", "JACQUETD_GNUBG", "JACQUETD_WS",
                     "JACQUETD_CONFIG"):
            env.pop(name, None)
        env["XDG_CONFIG_HOME"] = str(tmp_path / "no-config")  # no default file either
        proc = subprocess.run([sys.executable, "-m", "jacquetd", "serve", "--db", "off"],
                              capture_output=True, cwd=REPO, env=env, timeout=60, text=True)
    finally:
        for sock in held:
            sock.close()
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.strip()
    for name, (host, port) in DEFAULTS.items():
        assert f"{name} endpoint {host}:{port}" in message, (name, message)


def test_serve_without_flags_on_free_ports_from_the_environment(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """No flag at all: the endpoints come from the JACQUETD_* variables (free ports here),
    everything else from the embedded defaults."""
    ports = []
    for _ in DEFAULTS:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    for name, port in zip(("BIND", "TCP", "GNUBG", "WS"), ports, strict=True):
        monkeypatch.setenv(f"JACQUETD_{name}", f"127.0.0.1:{port}")
    monkeypatch.setenv("JACQUETD_WORKERS", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    daemon = launch([], tmp_path / "d.log", command="serve-defaults")
    try:
        assert daemon.endpoints == {"zmq": f"tcp://127.0.0.1:{ports[0]}",
                                    "tcp": f"127.0.0.1:{ports[1]}",
                                    "gnubg": f"127.0.0.1:{ports[2]}",
                                    "ws": f"127.0.0.1:{ports[3]}",
                                    "web": f"http://127.0.0.1:{ports[3]}/", "workers": "1",
                                    "curve": "off",
                                    "pid": str(daemon.proc.pid)}
    finally:
        assert daemon.stop() == 0
