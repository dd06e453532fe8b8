"""The conformance runner end to end, against a scripted peer on each transport."""

from __future__ import annotations

import io
import json
import socket
import sys
import threading
from pathlib import Path

import pytest
from jacquetd_protocol.conformance.runner import Target, run
from jacquetd_protocol.conformance.transports import SpawnConnection, TcpConnection, ZmqConnection
from jacquetd_protocol.conformance.vectors import VectorError, load_vectors

from . import fake_peer

ROOT = Path(__file__).parents[2]
VECTORS = [
    {"name": "ping", "steps": [
        {"send": {"id": 1, "cmd": "ping", "timeout_ms": 5}, "expect": {"id": 1, "ok": True,
                                                                      "result": {"echo": 5}}},
        {"send": "2 ping", "expect": {"id": 2, "ok": True}, "text": ["=2", "echo=null"]},
        {"send": {"cmd": "ping"}, "expect": {"id": None, "ok": True}}]},
    {"name": "partials-and-capture", "steps": [
        {"send": {"id": 3, "cmd": "analyze", "position": "start", "dice": [2, 1]},
         "expect": {"ok": True, "result": {"plies": 1}},
         "partials": [{"plies": 0}, {"plies": 1}], "capture": {"depth": "result.plies"}},
        {"send": {"id": 4, "cmd": "ping", "timeout_ms": "${depth}"},
         "expect": {"result": {"echo": 1}}}]},
    {"name": "errors", "steps": [
        {"send_hex": "fffe0a", "expect": {"id": None, "ok": False,
                                          "error": {"code": "bad_frame"}}},
        {"send": "5 frobnicate", "expect": {"error": {"code": "unknown_command"}},
         "text": [{"$regex": "\\?5 unknown_command .+"}]},
        {"burst": {"request": {"cmd": "cancel", "target": 1}, "count": 3, "first_id": 10},
         "expect_each": {"ok": False}, "expect_some": {"error": {"code": "not_found"}}}]},
    {"name": "quit", "transports": ["tcp", "stdio"], "steps": [
        {"send": {"id": 6, "cmd": "quit"}, "expect": {"ok": True}, "expect_closed": True}]},
    {"name": "needs-a-level", "requires": ["level:test-sleep"], "steps": [
        {"send": {"id": 1, "cmd": "ping"}, "expect": {"ok": True}}]},
    {"name": "wrong-on-purpose", "steps": [
        {"send": {"id": 7, "cmd": "ping"}, "expect": {"id": 7, "ok": False}}]},
]


@pytest.fixture
def vector_dir(tmp_path: Path) -> Path:
    (tmp_path / "fake.json").write_text(json.dumps({"about": "runner test",
                                                    "vectors": VECTORS}))
    return tmp_path


def _run(vector_dir: Path, target: Target) -> list[str]:
    out = io.StringIO()
    failed = run(load_vectors(vector_dir), target, timeout=5, out=out)
    lines = out.getvalue().splitlines()
    assert failed == 1
    return lines


def _check(lines: list[str], transport: str) -> None:
    status = {line.split(" ")[1].rstrip(":"): line.split(" ")[0] for line in lines[:-2]}
    quit_status = "SKIP" if transport == "zmq" else "PASS"
    assert status == {"ping": "PASS", "partials-and-capture": "PASS", "errors": "PASS",
                      "quit": quit_status, "needs-a-level": "SKIP",
                      "wrong-on-purpose": "FAIL"}, lines
    fail = next(line for line in lines if line.startswith("FAIL"))
    assert "step 1" in fail and "ok: expected False, got True" in fail
    assert lines[-1] == f"{4 if transport != 'zmq' else 3} passed, 1 failed"
    assert lines[-2] == f"{1 if transport != 'zmq' else 2} skipped"


def test_runner_over_stdio(vector_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the peer runs as `python -m tests.protocol.fake_peer`
    command = f"{sys.executable} -m tests.protocol.fake_peer"
    lines = _run(vector_dir, Target(lambda: SpawnConnection(command), "stdio"))
    _check(lines, "stdio")


def test_runner_over_tcp(vector_dir: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    threading.Thread(target=fake_peer.serve_tcp, args=(server,), daemon=True).start()
    lines = _run(vector_dir, Target(lambda: TcpConnection(f"127.0.0.1:{port}"), "tcp"))
    _check(lines, "tcp")


def test_runner_over_zmq(vector_dir: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"tcp://127.0.0.1:{port}"
    ready, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=fake_peer.serve_zmq, args=(url, ready, stop), daemon=True)
    thread.start()
    assert ready.wait(5)
    try:
        lines = _run(vector_dir, Target(lambda: ZmqConnection(url), "zmq"))
    finally:
        stop.set()
        thread.join(5)
    _check(lines, "zmq")


def test_bad_vector_files_are_refused(tmp_path: Path) -> None:
    for bad in ({"vectors": [{"name": "x", "steps": [{"sned": "ping"}]}]},
                {"vectors": [{"name": "x", "steps": []}]},
                {"vectors": [{"name": "x", "steps": [{"send": "ping", "expect": {"$bad": 1}}]}]},
                {"vectors": [{"name": "x", "transports": ["pigeon"], "steps": [{"send": "a"}]}]},
                {"nothing": []}):
        (tmp_path / "bad.json").write_text(json.dumps(bad))
        with pytest.raises(VectorError):
            load_vectors(tmp_path)
