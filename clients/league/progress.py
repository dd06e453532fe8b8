"""A live progress line for the league: a bar on a terminal, a plain line now and then
elsewhere (a log file, a CI run)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 28
PLAIN_EVERY_S = 10.0


class Progress:
    def __init__(self, total: int, *, done: int = 0, stream: TextIO | None = None,
                 enabled: bool = True) -> None:
        self.total = max(total, 1)
        self.done = done
        self.start_done = done
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self._last_plain = 0.0
        self.note = ""

    def advance(self, note: str = "") -> None:
        self.done += 1
        self.note = note or self.note
        self.show()

    def line(self) -> str:
        frac = min(self.done / self.total, 1.0)
        filled = int(frac * WIDTH)
        elapsed = time.monotonic() - self.started
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        bar = "#" * filled + "." * (WIDTH - filled)
        return (f"[{bar}] {self.done}/{self.total} matches {rate:.2f}/s "
                f"eta {left:.0f}s {self.note}")

    def show(self, force: bool = False) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line()[:200])
            self.stream.flush()
            return
        now = time.monotonic()
        if force or now - self._last_plain >= PLAIN_EVERY_S or self.done >= self.total:
            self._last_plain = now
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
