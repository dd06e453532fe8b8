"""The test-only hook for fault injection: extra bot levels that sleep, hang, crash
their worker or take memory, for the daemon's own fault tests.

Nothing in a configuration file, on the command line or in the environment reaches
it: a running daemon has fault levels only when the Python code that starts it
installs them here first (the test suite's launcher, ``tests/fault_daemon.py``, with
the levels of ``tests/faults.py``; neither is shipped). The front then lists them in
``hello``, and the worker pool hands them to every worker process (pickled by
reference), whose ``best_move`` runs them (and which call ``start`` once, before they
say they are ready).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class FaultLevels(Protocol):
    """Bot levels that inject faults."""

    @property
    def levels(self) -> tuple[str, ...]: ...

    def run(self, level: str, should_stop: Callable[[], bool], time_ms: int | None) -> None:
        """Misbehave as `level` says (or raise ``jacquetd.errors.SearchTimedOut`` when
        stopped); returning means: answer the first legal play."""

    def start(self) -> None:
        """Called once in each worker process before it says it is ready (a test may
        make workers slow to start)."""


_installed: FaultLevels | None = None


def install(faults: FaultLevels | None) -> None:
    """Make `faults` this process's fault levels (None: none)."""
    global _installed
    _installed = faults


def installed() -> FaultLevels | None:
    """The fault levels of this process, if a test installed some."""
    return _installed
