"""`python -m jacquetd.bots.bearoff` killed outright (SIGKILL) while its process pool builds
the tables: the pool's processes and the resource tracker exit with it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def children(pid: int) -> set[int]:
    """Every descendant of `pid` now (read from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_table_builder_leaves_no_process_behind(tmp_path: Path) -> None:
    env = dict(os.environ, JACQUETD_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "jacquetd.bots.bearoff"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        # the resource tracker and the two pool processes (four tables are missing)
        deadline = time.monotonic() + 60
        spawned: set[int] = set()
        while len(spawned) < 3 and time.monotonic() < deadline:
            spawned = children(proc.pid)
            time.sleep(0.1)
        assert len(spawned) >= 3, spawned
        time.sleep(1.0)  # the pool processes are at work
        spawned = children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 30
        while any(alive(p) for p in spawned) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [p for p in spawned if alive(p)]
        assert not left, f"still running after the builder was killed: {left}"
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: whatever is left of it
        proc.wait(10)
