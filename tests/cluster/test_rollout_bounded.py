"""A rollout of ten million trials on a real Dask cluster (`serve --scheduler`): the front
keeps serving, holds a bounded window of chunks on the cluster and a bounded memory, and a
cancel, a departed client or SIGTERM stops the work on the cluster."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jacquetd_protocol.messages import Partial, Reply

from jacquetd.daemon.rollout_command import CLUSTER_WINDOW_PER_THREAD, HELD_PER_WINDOW
from tests.cluster.conftest import DaskCluster
from tests.conftest import DaemonProcess
from tests.daemon.wire import TcpClient, ZmqClient

HUGE: dict[str, Any] = {"position": "start:backgammon", "trials": 10_000_000, "truncate": 2}
DRAIN_S = 5


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


_PROBES: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def _close_probes(dask_cluster: Callable[[int], DaskCluster]) -> Iterator[None]:
    """Probe clients close before the cluster they talk to stops."""
    yield
    while _PROBES:
        _PROBES.popitem()[1].close()


def scheduler_tasks(address: str) -> int:
    """Tasks the scheduler holds now (waiting, processing or in memory), asked through one
    client per scheduler kept for the test: a client connecting anew on every poll can meet
    Dask's own handshake race while the scheduler is busy."""
    from distributed import Client

    if address not in _PROBES:
        _PROBES[address] = Client(address, timeout=30)
    client = _PROBES[address]
    return int(client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)))


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.25)


def ping(daemon: DaemonProcess) -> None:
    """A TCP ping answered (the socket gives up after 10 s without a reply)."""
    tcp = TcpClient(daemon.tcp, timeout=10.0)
    try:
        tcp.send_line("1 ping")
        reply = tcp.recv_final()
        assert reply.ok, reply
    finally:
        tcp.close()


def progress(zmq: ZmqClient, rid: int, at_least: int, timeout: float = 120.0) -> int:
    """Read the rollout's partials until it reports `at_least` trials done."""
    deadline = time.monotonic() + timeout
    while True:
        msg = zmq.recv(max(0.01, deadline - time.monotonic()))
        if msg.id != rid:
            continue  # the reply of an earlier request (a cancel's)
        assert isinstance(msg, Partial), msg
        done = int(msg.result["trials_done"])
        if done >= at_least:
            return done


def drain(zmq: ZmqClient) -> Reply | None:
    """Every message waiting on the socket; the final reply among them, if any."""
    final = None
    while zmq.sock.poll(0):
        msg = zmq.recv(0.01)
        if isinstance(msg, Reply):
            final = msg
    return final


@pytest.mark.slow
def test_a_ten_million_trial_rollout_on_the_cluster_keeps_the_front_serving(
        dask_cluster: Callable[[int], DaskCluster],
        start_jacquetd: Callable[..., DaemonProcess]) -> None:
    cluster = dask_cluster(1)
    daemon = start_jacquetd("--workers", "1", "--scheduler", cluster.address,
                            "--drain-timeout", str(DRAIN_S))
    zmq = ZmqClient(daemon.zmq)
    window = CLUSTER_WINDOW_PER_THREAD * 1
    try:
        rid = zmq.send("rollout", **HUGE)
        progress(zmq, rid, 36 * 10)
        # the front answers while the rollout runs, and its memory stays flat
        samples = []
        for _ in range(12):
            ping(daemon)
            drain(zmq)
            samples.append(rss_mb(daemon.proc.pid))
            # the cluster holds a bounded window of the rollout's chunks, not all 277,778
            assert scheduler_tasks(cluster.address) <= HELD_PER_WINDOW * window
            time.sleep(0.5)
        assert samples[-1] - samples[1] < 64, samples
        done = progress(zmq, rid, 36 * 20)
        assert done < HUGE["trials"]

        # a cancel ends it at once, ok, with what is done; the cluster is left idle
        zmq.send("cancel", target=rid)
        deadline = time.monotonic() + 30
        final = None
        while final is None:
            msg = zmq.recv(max(0.01, deadline - time.monotonic()))
            if isinstance(msg, Reply) and msg.id == rid:
                final = msg
        assert final.ok and final.result["stopped"] is True, final
        assert final.result["stop_reason"] == "cancelled"
        assert final.result["trials_done"] >= done and final.result["trials_done"] % 36 == 0
        wait_until(lambda: scheduler_tasks(cluster.address) == 0, 30, "the cluster idle")

        # a client that leaves (TCP closed) stops its rollout on the cluster
        tcp = TcpClient(daemon.tcp, timeout=60.0)
        tcp.send_line("7 rollout start:backgammon trials=10000000 truncate=2")
        first = tcp.recv()
        assert isinstance(first, Partial) and first.id == 7, first
        tcp.close()
        wait_until(lambda: scheduler_tasks(cluster.address) == 0, 30,
                   "the departed client's rollout stopped")
        ping(daemon)

        # SIGTERM during a rollout: the daemon stops by itself within its drain time
        rid = zmq.send("rollout", **HUGE)
        progress(zmq, rid, 36 * 5)
        daemon.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + DRAIN_S + 25
        while daemon.proc.poll() is None and time.monotonic() < deadline:
            drain(zmq)
            time.sleep(0.1)
        assert daemon.proc.poll() == 0, "the daemon did not stop after SIGTERM"
        wait_until(lambda: scheduler_tasks(cluster.address) == 0, 30,
                   "the rollout stopped on the cluster after SIGTERM")
    finally:
        zmq.close()
