"""Figures of a running process read from Linux's /proc, shared by the benchmarks."""

from __future__ import annotations

import os


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process `pid`, all its threads (0.0 once it is
    gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
