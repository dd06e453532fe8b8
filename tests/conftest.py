"""Shared fixtures: a real ``jacquetd serve`` subprocess on free loopback ports.

``jacquetd_server`` (session scope) is one daemon shared by tests that do not
disturb it; ``start_jacquetd`` starts a private one with extra flags. Both
wait for the one-line start-up banner, read the endpoints from it, and kill
the daemon afterwards.

``slow_budget_s`` is the one reader of ``JACQUETD_SLOW_BUDGET``, the seconds each
slow check may take.
"""

from __future__ import annotations

import math
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

REPO = Path(__file__).resolve().parent.parent
BANNER_RE = re.compile(r"^jacquetd listening (?P<body>.*)$")
START_TIMEOUT_S = 60.0
T = TypeVar("T")


def slow_budget_s() -> float | None:
    """The seconds each slow check (``-m slow``) may take: ``JACQUETD_SLOW_BUDGET``
    (tests/run.sh sets 10), or None when it is unset or empty, to run each whole.
    Anything but a positive number is refused, so a typo does not pass for a budget."""
    raw = os.environ.get("JACQUETD_SLOW_BUDGET", "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not seconds > 0:
        raise pytest.UsageError(f"JACQUETD_SLOW_BUDGET={raw!r}: seconds (a positive "
                                "number), or empty to run the slow checks whole")
    return seconds


def slow_deadline() -> float:
    """The `time.monotonic()` after which a slow check that starts now begins no new
    item (infinity without a budget)."""
    budget = slow_budget_s()
    return math.inf if budget is None else time.monotonic() + budget


def within(deadline: float, items: Iterable[T]) -> Iterator[T]:
    """`items` one by one until `deadline` has passed; the first one always, so a
    bounded check still checks something."""
    for k, item in enumerate(items):
        if k and time.monotonic() >= deadline:
            return
        yield item


@dataclass
class DaemonProcess:
    """A running daemon: its process, its endpoints and its log (stderr) file."""

    proc: subprocess.Popen[bytes]
    endpoints: dict[str, str]
    log_path: Path
    banner: str
    args: list[str] = field(default_factory=list)

    @property
    def zmq(self) -> str:
        return self.endpoints["zmq"]

    def hostport(self, name: str) -> tuple[str, int]:
        host, _, port = self.endpoints[name].rpartition(":")
        return host, int(port)

    @property
    def tcp(self) -> tuple[str, int]:
        return self.hostport("tcp")

    @property
    def gnubg(self) -> tuple[str, int]:
        return self.hostport("gnubg")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)


_DATA_HOME: list[str] = []


def daemon_env() -> dict[str, str]:
    env = dict(os.environ)
    if not _DATA_HOME:  # hosted matches go to a throw-away data folder, never the user's
        import tempfile

        _DATA_HOME.append(tempfile.mkdtemp(prefix="jacquetd-data-"))
    env["XDG_DATA_HOME"] = _DATA_HOME[0]
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


#: A marker among `launch`'s (and `start_jacquetd`'s) ARGS, not a flag of jacquetd.
FAULT_LEVELS = "--test-levels"


def launch(args: list[str], log_path: Path, command: str = "serve") -> DaemonProcess:
    """Start ``python -m jacquetd serve ARGS`` with every endpoint on a free loopback port
    (unless ARGS sets it) and wait for its banner."""
    # "serve-defaults": `serve` without endpoint flags (the embedded defaults).
    # FAULT_LEVELS among ARGS: the daemon with the fault levels of tests/faults.py
    # (started through tests/fault_daemon.py; jacquetd itself has no such option).
    program = "jacquetd"
    if FAULT_LEVELS in args:
        args = [a for a in args if a != FAULT_LEVELS]
        program = "tests.fault_daemon"
    full = [sys.executable, "-m", program, command.removesuffix("-defaults")]
    if command == "serve":
        for flag, value in (("--bind", "tcp://127.0.0.1:0"), ("--tcp", "127.0.0.1:0"),
                            ("--gnubg", "127.0.0.1:0"), ("--ws", "127.0.0.1:0")):
            if flag not in args:
                full += [flag, value]
    full += args
    log_file = open(log_path, "wb")  # noqa: SIM115 - closed when the process is reaped
    env = daemon_env()
    if "--db" not in args:  # one daemon owns a match database: each its own data folder
        import tempfile

        env["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="jacquetd-data-")
    proc = subprocess.Popen(full, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=log_file)
    log_file.close()
    lines: queue.Queue[bytes] = queue.Queue()

    def read_banner() -> None:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            lines.put(raw)
            if BANNER_RE.match(raw.decode(errors="replace").strip()):
                return
        lines.put(b"")

    threading.Thread(target=read_banner, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    line = b""
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if not line:
            break
        m = BANNER_RE.match(line.decode().strip())
        if m:
            endpoints = {}
            for word in m["body"].split():
                key, _, value = word.partition("=")
                endpoints[key] = value
            return DaemonProcess(proc, endpoints, log_path, line.decode().strip(), full)
    proc.kill()
    proc.wait(10)
    raise RuntimeError(f"jacquetd did not start: {line!r}\n{log_path.read_text()[-3000:]}")


@pytest.fixture
def start_jacquetd(tmp_path: Path) -> Iterator[Callable[..., DaemonProcess]]:
    """Factory: ``start_jacquetd("--workers", "2", ...)`` -> a private daemon."""
    started: list[DaemonProcess] = []

    def start(*args: str) -> DaemonProcess:
        daemon = launch(list(args), tmp_path / f"jacquetd-{len(started)}.log")
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
            daemon.proc.wait(10)
        if daemon.proc.stdout is not None:
            daemon.proc.stdout.close()


@pytest.fixture(scope="session")
def jacquetd_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    """One daemon shared by the session (two workers, test levels on, debug log)."""
    log_path = tmp_path_factory.mktemp("jacquetd") / "shared.log"
    daemon = launch(["--workers", "2", "--test-levels", "--log-level", "debug",
                     "--seed", "7"], log_path)
    yield daemon
    if daemon.proc.poll() is None:
        daemon.proc.kill()
        daemon.proc.wait(10)
    if daemon.proc.stdout is not None:
        daemon.proc.stdout.close()
