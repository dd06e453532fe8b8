"""Counters and latency percentiles for the ``stats`` command."""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

LATENCY_WINDOW = 4096  # most recent latencies kept per command


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = max(1, min(len(sorted_values), math.ceil(q / 100.0 * len(sorted_values))))
    return sorted_values[rank - 1]


@dataclass
class Stats:
    started: float = field(default_factory=time.monotonic)
    received: int = 0  # requests decoded (any command)
    served: int = 0  # final replies sent
    errors: Counter[str] = field(default_factory=Counter)  # final error replies by code
    rejected_frames: int = 0  # messages that could not be decoded at all
    worker_restarts: int = 0  # workers replaced after dying
    worker_recycled: int = 0  # workers replaced because they ignored a cancel
    clients_dropped: int = 0  # peers disconnected for misbehaving (write buffer, ...)
    connections_refused: int = 0  # over max_connections or max_connections_per_source
    replies_dropped: int = 0  # replies to a ZeroMQ peer that left or does not read
    requests_ignored: int = 0  # requests of a dropped or gone peer, never answered
    _latency: dict[str, deque[float]] = field(default_factory=dict)
    _count: Counter[str] = field(default_factory=Counter)

    def record(self, cmd: str, seconds: float, error_code: str | None) -> None:
        self.served += 1
        self._count[cmd] += 1
        if error_code is not None:
            self.errors[error_code] += 1
        window = self._latency.get(cmd)
        if window is None:
            window = self._latency[cmd] = deque(maxlen=LATENCY_WINDOW)
        window.append(seconds)

    def snapshot(self, in_flight: int, queued: int, workers: int) -> dict[str, Any]:
        commands: dict[str, Any] = {}
        for cmd, window in sorted(self._latency.items()):
            values = sorted(window)
            commands[cmd] = {
                "count": self._count[cmd],
                "p50_ms": round(percentile(values, 50) * 1e3, 3),
                "p90_ms": round(percentile(values, 90) * 1e3, 3),
                "p99_ms": round(percentile(values, 99) * 1e3, 3),
                "max_ms": round(values[-1] * 1e3, 3) if values else 0.0,
            }
        return {
            "uptime_s": round(time.monotonic() - self.started, 3),
            "requests_received": self.received,
            "requests_served": self.served,
            "in_flight": in_flight,
            "queued": queued,
            "workers": workers,
            "worker_restarts": self.worker_restarts,
            "worker_recycled": self.worker_recycled,
            "rejected_frames": self.rejected_frames,
            "clients_dropped": self.clients_dropped,
            "connections_refused": self.connections_refused,
            "replies_dropped": self.replies_dropped,
            "requests_ignored": self.requests_ignored,
            "errors": dict(sorted(self.errors.items())),
            "latency_window": LATENCY_WINDOW,
            "commands": commands,
        }
