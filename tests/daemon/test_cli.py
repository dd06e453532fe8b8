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


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.skipif(not all(_free(p) for p in (7780, 7781, 7782, 7783)),
                    reason="the default ports 7780-7783 are in use on this machine")
def test_serve_without_flags_uses_embedded_defaults(tmp_path: Path) -> None:
    daemon = launch(["--workers", "1"], tmp_path / "d.log", command="serve-defaults")
    try:
        assert daemon.endpoints == {"zmq": "tcp://127.0.0.1:7780", "tcp": "127.0.0.1:7781",
                                    "gnubg": "127.0.0.1:7782", "ws": "127.0.0.1:7783",
                                    "web": "http://127.0.0.1:7783/", "workers": "1",
                                    "curve": "off",
                                    "pid": str(daemon.proc.pid)}
    finally:
        assert daemon.stop() == 0
