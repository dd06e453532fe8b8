"""Faults and bounds: dead and hung workers, full queues, slow readers, signals."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable

import pytest

from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient, ZmqClient

Start = Callable[..., DaemonProcess]
SLEEP = {"position": "start", "dice": [3, 1], "level": "test-sleep"}


def code_of(reply: object) -> str:
    error = getattr(reply, "error", None)
    assert error is not None, reply
    return str(error["code"])


def test_crashing_worker_gets_internal_and_is_replaced(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "2", "--test-levels")
    client = ZmqClient(daemon.zmq)
    try:
        before = client.call("stats").raise_for_error()
        reply = client.call("best_move", position="start", dice=[3, 1], level="test-crash")
        assert code_of(reply) == "internal"
        assert "traceback" not in str(reply.error).lower()
        for _ in range(10):
            assert client.call("best_move", position="start", dice=[3, 1], level="random").ok
        deadline = time.monotonic() + 10
        while True:
            after = client.call("stats").raise_for_error()
            if len(after["worker_pids"]) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert after["worker_restarts"] == before["worker_restarts"] + 1
        assert len(after["worker_pids"]) == 2
    finally:
        client.close()


def test_killed_worker_mid_request(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--test-levels")
    client = ZmqClient(daemon.zmq)
    try:
        pid = client.call("stats").raise_for_error()["worker_pids"][0]
        rid = client.send("best_move", **SLEEP, time_ms=5000)
        time.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
        reply = client.recv_final(timeout=10)
        assert reply.id == rid and code_of(reply) == "internal"
        assert client.call("best_move", position="start", dice=[3, 1], level="random",
                           timeout=20).ok
        stats = client.call("stats").raise_for_error()
        assert stats["worker_restarts"] == 1 and stats["worker_pids"] != [pid]
    finally:
        client.close()


def test_hung_worker_is_recycled_after_cancel(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--test-levels")
    client = ZmqClient(daemon.zmq)
    try:
        rid = client.send("best_move", position="start", dice=[3, 1], level="test-hang",
                          time_ms=60_000)
        time.sleep(0.2)
        client.send("cancel", target=rid)
        replies = {r.id: r for r in (client.recv_final(), client.recv_final())}
        assert code_of(replies[rid]) == "cancelled"
        # The only worker ignored its stop flag; it is replaced and serves again.
        assert client.call("best_move", position="start", dice=[3, 1], level="random",
                           timeout=20).ok
        assert client.call("stats").raise_for_error()["worker_recycled"] == 1
    finally:
        client.close()


def test_per_client_limit_and_queue_bound(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--test-levels", "--limit",
                            "max_inflight_per_client=2", "--limit", "max_queue=2")
    a, b, c = (ZmqClient(daemon.zmq) for _ in range(3))
    try:
        hello = a.call("hello").raise_for_error()
        assert hello["limits"]["max_inflight_per_client"] == 2
        assert hello["limits"]["max_queue"] == 2
        ids = [a.send("best_move", **SLEEP, time_ms=800) for _ in range(3)]
        third = a.recv_final()
        assert third.id == ids[2] and code_of(third) == "busy"
        # a's first job runs, its second waits; b's first fills the queue, its second is
        # refused at once.
        b.send("best_move", **SLEEP, time_ms=800)
        second = b.send("best_move", **SLEEP, time_ms=800)
        refused = b.recv_final()
        assert refused.id == second and code_of(refused) == "busy"
        assert c.call("legal_moves", position="start", dice=[3, 1]).ok  # cheap: unaffected
        assert all(a.recv_final(timeout=10).ok for _ in range(2))
    finally:
        for client in (a, b, c):
            client.close()


def test_client_that_never_reads_is_dropped_alone(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--limit", "tcp_write_buffer_bytes=65536")
    lazy = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lazy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    lazy.connect(daemon.tcp)
    other = TcpClient(daemon.tcp)
    try:
        request = b"1 legal_moves start:backgammon 31\n"
        lazy.settimeout(0.5)
        for _ in range(3000):
            try:
                lazy.sendall(request * 20)
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                break
        other.send_line("7 ping")
        assert other.recv_final().id == 7  # answered while the lazy client's flood is served
        client = ZmqClient(daemon.zmq)
        deadline = time.monotonic() + 120  # its flood is served in turns with everyone else's
        while True:
            stats = client.call("stats").raise_for_error()
            if stats["clients_dropped"] >= 1 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        client.close()
        assert stats["clients_dropped"] >= 1
    finally:
        lazy.close()
        other.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_drains_in_flight_and_exits_zero(start_jacquetd: Start, sig: int) -> None:
    daemon = start_jacquetd("--workers", "1", "--test-levels")
    client = ZmqClient(daemon.zmq)
    tcp = TcpClient(daemon.tcp)
    try:
        rid = client.send("best_move", **SLEEP, time_ms=800)
        tcp.send_line("5 best_move start 31 level=test-sleep time_ms=600")
        time.sleep(0.2)
        daemon.proc.send_signal(sig)
        reply = client.recv_final(timeout=10)
        assert reply.id == rid and reply.ok
        assert tcp.recv_final().id == 5
        assert daemon.proc.wait(20) == 0
        assert "event=drained" in daemon.log_text()
    finally:
        client.close()
        tcp.close()


def test_drain_is_bounded(start_jacquetd: Start) -> None:
    daemon = start_jacquetd("--workers", "1", "--test-levels", "--drain-timeout", "0.5")
    client = ZmqClient(daemon.zmq)
    try:
        rid = client.send("best_move", position="start", dice=[3, 1], level="test-hang",
                          time_ms=60_000)
        time.sleep(0.2)
        started = time.monotonic()
        daemon.proc.send_signal(signal.SIGTERM)
        reply = client.recv_final(timeout=10)
        assert reply.id == rid and code_of(reply) == "internal"
        assert daemon.proc.wait(20) == 0
        assert time.monotonic() - started < 10
    finally:
        client.close()


def test_fault_levels_are_out_of_reach_of_a_production_daemon(tmp_path: object) -> None:
    """Fault injection is a test-only hook: no configuration key, command-line option or
    default turns it on, and the installed package holds no fault level."""
    import subprocess
    import sys

    from jacquetd.daemon import fault_hook
    from jacquetd.daemon.config import ConfigError, build_config
    from tests.faults import FAULTS

    with pytest.raises(ConfigError, match="test_levels"):
        build_config(None, {"test_levels": True})
    run = subprocess.run([sys.executable, "-m", "jacquetd", "stdio", "--test-levels"],
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert run.returncode != 0 and "--test-levels" in run.stderr
    assert fault_hook.installed() is None  # nothing installs it on import
    from jacquetd.bots import BOT_LEVELS

    assert not set(FAULTS.levels) & set(BOT_LEVELS)
