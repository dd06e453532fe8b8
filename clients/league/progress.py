"""A live progress line for the league: a bar on a terminal, a plain line now and then
elsewhere (a log file, a CI run), and a heartbeat so that no phase is silent.

Before the first match the line names the phase (starting the engine, warming up);
`Progress.tick_every` starts a thread that repeats the line whenever `TICK_S` seconds
passed without one, so a slow first start (the engine's first compile) still shows
progress every few seconds. Every line carries the elapsed time.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

WIDTH = 28
PLAIN_EVERY_S = 4.0
#: The heartbeat: a line at least this often, whatever happens.
TICK_S = 2.5


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
        self.playing_since: float | None = None
        self._last_plain = 0.0
        self._last_any = 0.0
        self.note = ""
        self.phase = ""
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()

    def set_phase(self, phase: str) -> None:
        """Name what happens before the matches (shown instead of the bar)."""
        self.phase = phase
        self.show(force=True)

    def playing(self) -> None:
        """The matches begin: the rate and the eta count from now."""
        self.phase = ""
        self.playing_since = time.monotonic()
        self.show(force=True)

    def advance(self, note: str = "") -> None:
        self.done += 1
        self.note = note or self.note
        self.show()

    def line(self) -> str:
        now = time.monotonic()
        stamp = f"{now - self.started:6.1f}s"
        if self.phase:
            return f"{stamp} {self.phase}"
        frac = min(self.done / self.total, 1.0)
        filled = int(frac * WIDTH)
        since = self.playing_since if self.playing_since is not None else self.started
        elapsed = now - since
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        eta = f"eta {(self.total - self.done) / rate:.0f}s" if rate > 0 else "eta ?"
        bar = "#" * filled + "." * (WIDTH - filled)
        return (f"{stamp} [{bar}] {self.done}/{self.total} matches {rate:.2f}/s "
                f"{eta} {self.note}").rstrip()

    def show(self, force: bool = False) -> None:
        if not self.enabled:
            return
        with self._lock:
            now = time.monotonic()
            if self.tty:
                self.stream.write("\r\x1b[K" + self.line()[:200])
                self.stream.flush()
                self._last_any = now
                return
            if force or now - self._last_plain >= PLAIN_EVERY_S or self.done >= self.total:
                self._last_plain = self._last_any = now
                self.stream.write(self.line() + "\n")
                self.stream.flush()

    def tick_every(self, seconds: float = TICK_S) -> None:
        """Start the heartbeat thread (stopped by `close`)."""
        if not self.enabled or self._ticker is not None:
            return

        def beat() -> None:
            while not self._stop.wait(min(0.5, seconds)):
                if time.monotonic() - self._last_any >= seconds:
                    self.show(force=True)

        self._ticker = threading.Thread(target=beat, name="league-progress", daemon=True)
        self._ticker.start()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
            self._ticker = None
        if self.enabled and self.tty:
            with self._lock:
                self.stream.write("\n")
                self.stream.flush()
