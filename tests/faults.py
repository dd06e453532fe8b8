"""Fault-injection levels for the daemon's own tests (installed by `fault_daemon.py`
through `jacquetd.daemon.fault_hook`; never part of the installed package):
`test-sleep` sleeps `time_ms` watching the stop flag, `test-hang` sleeps ignoring it,
`test-crash` kills its worker process, `test-hog` takes memory until stopped; with
`start_s`, every worker sleeps that long before it says it is ready."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from jacquetd.errors import SearchTimedOut


@dataclass(frozen=True)
class TestLevels:
    """The fault levels (a `jacquetd.daemon.fault_hook.FaultLevels`)."""

    __test__ = False  # not a pytest test class
    levels: tuple[str, ...] = ("test-sleep", "test-hang", "test-crash", "test-hog")
    start_s: float = 0.0

    def start(self) -> None:
        time.sleep(self.start_s)

    def run(self, level: str, should_stop: Callable[[], bool], time_ms: int | None) -> None:
        seconds = (time_ms or 1000) / 1000.0
        if level == "test-crash":
            os._exit(70)
        if level == "test-hog":  # grows by 64 MB every 50 ms until stopped
            hoard = []
            end = time.monotonic() + seconds
            while time.monotonic() < end and not should_stop():
                hoard.append(bytearray(64 << 20))
                time.sleep(0.05)
            raise SearchTimedOut()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if level == "test-sleep" and should_stop():
                raise SearchTimedOut()
            time.sleep(0.01)


FAULTS = TestLevels()
