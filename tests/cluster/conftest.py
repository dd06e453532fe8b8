"""A real Dask cluster on loopback: `dask scheduler` and `dask worker` processes on ports
chosen here, torn down after each test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytest.importorskip("distributed")

DASK = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
WORKER = [sys.executable, "-m", "distributed.cli.dask_worker"]
START_S = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class DaskCluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_S) as client:
            client.wait_for_workers(n, timeout=START_S)

    def kill_worker(self, index: int) -> int:
        """SIGKILL a worker process (no nanny: it is the worker itself)."""
        proc = self.workers[index]
        proc.send_signal(signal.SIGKILL)
        return proc.wait(10)


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[Callable[[int], DaskCluster]]:
    """`start(n)`: a scheduler and n single-threaded workers (no nanny), all on loopback."""
    procs: list[subprocess.Popen[bytes]] = []
    env = dict(os.environ, PYTHONUNBUFFERED="1", OPENBLAS_NUM_THREADS="1")

    def start(n: int) -> DaskCluster:
        port = free_port()
        log = open(tmp_path / "scheduler.log", "wb")  # noqa: SIM115 - closed with the test dir
        scheduler = subprocess.Popen([*DASK, "--host", "127.0.0.1", "--port", str(port),
                                      "--no-dashboard"], stdout=log, stderr=log, env=env)
        procs.append(scheduler)
        cluster = DaskCluster(f"tcp://127.0.0.1:{port}", scheduler)
        for k in range(n):
            wlog = open(tmp_path / f"worker{k}.log", "wb")  # noqa: SIM115
            worker = subprocess.Popen([*WORKER, cluster.address, "--nthreads", "1",
                                       "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                                       "--name", f"w{k}", "--local-directory",
                                       str(tmp_path / f"w{k}")],
                                      stdout=wlog, stderr=wlog, env=env)
            procs.append(worker)
            cluster.workers.append(worker)
        deadline = time.monotonic() + START_S
        while True:
            try:
                cluster.wait_for_workers(n)
                return cluster
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    yield start
    for proc in reversed(procs):
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:  # a dask worker may take 15 s to close gracefully: not under test
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
